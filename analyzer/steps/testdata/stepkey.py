#!/usr/bin/env python3
"""Independent answer key for steps.json on the shared H100 decode traces.

Written for gputriage's issue 23 (standard library only; reads the trace
JSON directly, shares no code with the analyzer). A step is a
gpu_user_annotation whose name is decode_step (Kineto writes one per stream
the range ran on, sharing the CPU annotation's External id: their union is
one step); its wall time is the span's length; GPU busy is the length of the union of the device's
kernel / gpu_memcpy / gpu_memset intervals (all streams) clipped to the
step; idle = wall - busy. Percentiles interpolate linearly between the two
nearest ranks (numpy's default), std is the population std. Warm-up: the
leading steps slower than 1.5 x the median wall are left out.

Without a GPU-side step annotation (vLLM's graph_execution traces), pass
--cpu PREFIX: a step is then a CPU-side user_annotation whose name starts
with PREFIX, its window the GPU range (first start -> last end) of the GPU
ops whose launch call (cuda_runtime / cuda_driver, joined by correlation)
starts inside the annotation on its thread.

Usage: stepkey.py [--cpu PREFIX] TRACE.json.gz > KEY.json
"""
import gzip, json, math, sys

def pct(s, p):
    r = p / 100 * (len(s) - 1)
    lo = math.floor(r)
    if lo >= len(s) - 1:
        return s[-1]
    return s[lo] + (r - lo) * (s[lo + 1] - s[lo])

def dist(xs):
    s = sorted(xs)
    m = sum(s) / len(s)
    return {"count": len(s), "min": s[0], "p50": pct(s, 50), "p90": pct(s, 90), "p99": pct(s, 99),
            "max": s[-1], "mean": m, "std": math.sqrt(sum((x - m) ** 2 for x in s) / len(s))}

args = sys.argv[1:]
cpu = None
if args[0] == "--cpu":
    cpu, args = args[1], args[2:]
ev = json.load(gzip.open(args[0]))["traceEvents"]
gpu_ops = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X"]
ops = sorted((e["ts"], e["ts"] + e["dur"], e["pid"]) for e in gpu_ops)
if cpu is None:
    # Kineto writes one gpu_user_annotation per stream a range ran on, all
    # carrying the CPU annotation's External id: a step is their union.
    by_id = {}
    for e in ev:
        if e.get("cat") == "gpu_user_annotation" and e.get("name") == "decode_step":
            key = (e["pid"], e.get("args", {}).get("External id") or ("ts", e["ts"]))
            s, t = e["ts"], e["ts"] + e["dur"]
            if key in by_id:
                s0, t0, _ = by_id[key]
                s, t = min(s, s0), max(t, t0)
            by_id[key] = (s, t, e["pid"])
    steps = sorted(by_id.values())
else:
    launch = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = e
    steps = []
    for a in ev:
        if a.get("cat") != "user_annotation" or not a.get("name", "").startswith(cpu):
            continue
        lo, hi, pid = None, None, None
        for o in gpu_ops:
            l = launch.get(o.get("args", {}).get("correlation"))
            if l is None or l["pid"] != a["pid"] or l["tid"] != a["tid"] or not a["ts"] <= l["ts"] < a["ts"] + a["dur"]:
                continue
            lo = o["ts"] if lo is None else min(lo, o["ts"])
            hi = o["ts"] + o["dur"] if hi is None else max(hi, o["ts"] + o["dur"])
            pid = o["pid"]
        if lo is not None:
            steps.append((lo, hi, pid))
    steps.sort()
walls, busys = [], []
for s, t, pid in steps:
    busy, cur_s, cur_e = 0.0, None, None
    for a, b, p in ops:
        if p != pid or b <= s or a >= t:
            continue
        a, b = max(a, s), min(b, t)
        if cur_e is None or a > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = a, b
        else:
            cur_e = max(cur_e, b)
    if cur_e is not None:
        busy += cur_e - cur_s
    walls.append(t - s)
    busys.append(busy)
med = pct(sorted(walls), 50)
k = 0
while k < len(walls) - 1 and walls[k] > 1.5 * med:
    k += 1
w, b = walls[k:], busys[k:]
print(json.dumps({"steps": len(walls), "steady_from": k, "wall_us": dist(w), "busy_us": dist(b),
                  "idle_us": dist([x - y for x, y in zip(w, b)])}, indent=1))
