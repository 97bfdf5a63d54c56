#!/usr/bin/env python3
"""Independent key for the blocking host calls of a Kineto trace.

Written for gputriage issue 22 item 2; standard library only, shares no code
with the analyzer. GPU idle = the gaps between the merged intervals of every
kernel, memcpy and memset (ph "X", dur > 0) of the trace, between its first
and last. Per host call name (cat cuda_runtime/cuda_driver): calls, host time,
and GPU idle time covered by the union of its calls (any thread).

Usage: blocking_key.py TRACE.json.gz NAME... > KEY.json
Run on ../shared/testdata/traces2/tracelens_mi300_resnet18/train_resnet18.json.gz
with hipFree hipMalloc hipDeviceSynchronize -> resnet18_blocking.key.json.
"""
import gzip, json, sys

d = json.load(gzip.open(sys.argv[1]))
ev = d["traceEvents"]
gpu = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
             if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("dur", 0) > 0)
gaps, end = [], gpu[0][1]
for s, e in gpu[1:]:
    if s > end:
        gaps.append((end, s))
    end = max(end, e)
idle = sum(e - s for s, e in gaps)

def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out

def covered(iv):
    tot, k = 0.0, 0
    for gs, ge in gaps:
        for s, e in iv:
            if e > gs and s < ge:
                tot += min(e, ge) - max(s, gs)
    return tot

out = {"source": sys.argv[1].split("testdata/")[-1], "gpu_idle_us": round(idle, 3), "calls": {}}
for name in sys.argv[2:]:
    calls = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("name") == name]
    c = covered(union(calls))
    out["calls"][name] = {"calls": len(calls), "host_us": round(sum(e - s for s, e in calls), 3),
                          "gpu_idle_during_us": round(c, 3), "gpu_idle_share": round(c / idle, 6)}
json.dump(out, sys.stdout, indent=1)
print()
