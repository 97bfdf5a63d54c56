#!/usr/bin/env python3
"""Third blind planted-straggler generator for issue 19 (standard library only).

usage: plant.py [--plain] [--key-only] PLAN.json SHARED_ROOT OUT_DIR [CASE...]

SHARED_ROOT is the folder holding testdata/ (../shared). For every case of the plan (or the
cases named) it writes OUT_DIR/<case>/rank<R>.json[.gz] (a control writes no traces: the real
ones are analysed) and OUT_DIR/keys.json: per case the planted traces, each plant's verdict and
every matched collective instance computed from the issue's definitions.

Written by the plant3 session before reading analyzer/collectives, analyzer/ranks or the other
planting tools. The planting is a replay, not a shift of chosen events:

* Every GPU op (kernel, copy, fill) of every rank is replayed in the order it started. Its new
  start is the latest of: its old start; its launch call's new end plus its old launch latency
  capped at 5 us; the new end of the previous op on its stream plus the old gap capped at 5 us;
  the new end of every op of the device that had ended before it started (an op that ran after
  another keeps running after it: stream events, the consumer of a collective). Durations stay,
  except where a plant changes them. A collective kernel ends when its instance does: every
  rank's kernel ends (new latest start) + (old end - old latest start) x the link factor.
* The host of each rank is shifted by a non-decreasing amount h(t). A planted host stall adds
  its duration at its moment. Where the host waited for the GPU (a synchronize call, a blocking
  cudaMemcpy, the end of a device-to-host copy whose data the host consumes), h grows to what
  the GPU's delay at that moment was: that is how the peers of a late rank move on with it.
  Nothing moves earlier; a stream's ops never overlap where they did not. A host that idled
  waiting for the GPU (inside a synchronize call; since its last launch before a device-to-host
  copy ended) absorbs a delay it carried there: its map is compressed over the idle stretch.

Methods (all new against tools/plantstraggler and tools/plantstraggler2):

* hoststall: a CPU op (cat python_function or user_annotation, a GC pause, a data-loader
  fetch, a GIL wait) of D us is inserted on the launching thread before the top-level op that
  launches the target collective (or `lead` top-level ops earlier); the rank's host after it
  moves D later. Its GPU moves only as far as the queue did not absorb it (the H200 host runs
  ~5 ms ahead of its GPU: a stall shorter than that is absorbed, a negative).
* throttle: every non-collective kernel the rank launched within steps a..b (or before one
  collective since the previous one) runs FACTOR times longer (a clock drop: thermal, power cap).
* hostslow: the rank's host runs FACTOR times slower through steps a..b (a CPU frequency drop,
  a noisy neighbour): every host event there lasts FACTOR times longer, the rest moves later.
* slowlink: the transfer part of chosen instances lasts FACTOR times longer on every rank (a
  degraded link slows the whole ring): no arrival skew, a negative for any straggler by arrival.
* clock: after the replay, every timestamp of one rank is written C us later (a host clock off
  by C on a multi-host job); the key keeps the true instances (a negative: no rank is late).

Several plants make the other cases: the straggler alternating between ranks step by step, a
straggler only at all-gathers, two of eight ranks late together, a multi-step slow stretch.
"""
import bisect
import gzip
import hashlib
import heapq
import json
import os
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
SYNC_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
              "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize", "hipMemcpy")
CAP = 5.0  # us of old latency / gap a pushed op keeps
DTYPE_BYTES = {"BFloat16": 2, "Half": 2, "Float": 4, "Double": 8, "Int": 4, "Long": 8, "Char": 1, "Byte": 1,
               "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Bool": 1}
BUS = {"allreduce": lambda n: 2.0 * (n - 1) / n, "allgather": lambda n: (n - 1) / n,
       "reducescatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n}


def kind_of(name, args):
    c = (args or {}).get("Collective name")
    low = name.lower()
    if c:
        c = c.lower().replace("_", "")
        if c in ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "send", "recv"):
            return "sendrecv" if c in ("send", "recv") else c
        if c.startswith("allgather"):
            return "allgather"
        if c.startswith("reducescatter"):
            return "reducescatter"
    for key, k in (("allreduce", "allreduce"), ("allgather", "allgather"), ("reducescatter", "reducescatter"),
                   ("sendrecv", "sendrecv"), ("alltoall", "alltoall"), ("broadcast", "broadcast")):
        if key in low.replace("_", ""):
            return k
    return "collective"


class Rank:
    """One rank's trace, read once; replays write new times without touching the events."""

    def __init__(self, path):
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "rt") as f:
            self.doc = json.load(f)
        ev = self.doc["traceEvents"]
        self.ev = ev
        self.rank = self.doc["distributedInfo"]["rank"]
        self.world = self.doc["distributedInfo"].get("world_size")
        launches = {}
        self.gpu = []  # indices into ev
        self.host = []
        for i, e in enumerate(ev):
            cat = e.get("cat")
            if e.get("ph") != "X" or "ts" not in e:
                continue
            if cat in GPU_CATS:
                self.gpu.append(i)
            elif cat == "gpu_user_annotation":
                pass
            else:
                self.host.append(i)
                if cat in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
                    launches[e["args"]["correlation"]] = i
        self.gpu.sort(key=lambda i: (ev[i]["ts"], i))
        self.launch = {}
        self.coll = {}  # kind -> [gpu idx] in issue order
        for i in self.gpu:
            e = ev[i]
            li = launches.get(e.get("args", {}).get("correlation"))
            if li is not None:
                self.launch[i] = li
            if e.get("cat") == "kernel" and ("nccl" in e["name"].lower() or "rccl" in e["name"].lower()
                                             or "Collective name" in e.get("args", {})):
                self.coll.setdefault(kind_of(e["name"], e.get("args")), []).append(i)
        for k, lst in self.coll.items():
            lst.sort(key=lambda i: (ev[self.launch[i]]["ts"] if i in self.launch else ev[i]["ts"], ev[i]["ts"]))
        # Host waits for the GPU: synchronize calls, blocking copies, device-to-host copies.
        # (a, t): the host idled from a to t until the GPU work ended by t was done
        self.waits = []
        lends = sorted(ev[i]["ts"] + ev[i]["dur"] for i in launches.values())
        for i in self.host:
            e = ev[i]
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and e["name"] in SYNC_CALLS:
                self.waits.append((e["ts"], e["ts"] + e["dur"]))
        for i in self.gpu:
            e = ev[i]
            if e.get("cat") == "gpu_memcpy" and "DtoH" in e["name"]:
                # the host consumes the copied data: it idled since its last launch
                t = e["ts"] + e["dur"]
                j = bisect.bisect_right(lends, t) - 1
                self.waits.append((lends[j] if j >= 0 else t, t))
        self.waits.sort(key=lambda w: w[1])
        # Steps: top-level step annotations on the host.
        self.steps = []  # (ts, end, label)
        seen = {}
        for i in self.host:
            e = ev[i]
            if e.get("cat") != "user_annotation":
                continue
            n = e["name"]
            if n.startswith("ProfilerStep#"):
                self.steps.append((e["ts"], e["ts"] + e["dur"], n))
            elif n in ("decode_step", "prefill", "decode", "extend"):
                k = seen.get(n, 0)
                seen[n] = k + 1
                self.steps.append((e["ts"], e["ts"] + e["dur"], "%s[%d]" % (n, k)))
        self.steps.sort()
        self.by_thread = {}
        for i in self.host:
            e = ev[i]
            if e.get("cat") == "cpu_op":
                self.by_thread.setdefault((e["pid"], e["tid"]), []).append(i)
        for lst in self.by_thread.values():
            lst.sort(key=lambda i: (ev[i]["ts"], -ev[i]["dur"]))

    def issue_ts(self, gi):
        li = self.launch.get(gi)
        return self.ev[li]["ts"] if li is not None else self.ev[gi]["ts"]

    def step_at(self, t):
        best = None
        for s, e, lab in self.steps:
            if s <= t <= e:
                best = lab  # innermost by start order
        return best

    def step_window(self, label):
        for s, e, lab in self.steps:
            if lab == label:
                return s, e
        raise SystemExit("rank %d has no step %s" % (self.rank, label))

    def toplevel_before(self, gi, lead):
        """Start of the top-level cpu_op that launches GPU op gi (or `lead` top-level ops earlier)."""
        li = self.launch[gi]
        le = self.ev[li]
        ops = self.by_thread.get((le["pid"], le["tid"]), [])
        tops, end = [], -1e300
        for i in ops:
            e = self.ev[i]
            if e["ts"] >= end:
                tops.append(i)
                end = e["ts"] + e["dur"]
        k = None
        for j, i in enumerate(tops):
            e = self.ev[i]
            if e["ts"] <= le["ts"] <= e["ts"] + e["dur"]:
                k = j
        if k is None:
            return le["ts"], (le["pid"], le["tid"])
        k = max(0, k - lead)
        return self.ev[tops[k]]["ts"], (le["pid"], le["tid"])


class HostMap:
    """One rank's host clock, old time -> new time: monotone, piecewise linear, built in time order.

    Knots (t, left, right): just before t the new time is `left`, from t on `right`; between knots
    the map runs at slope 1 — or, over a wait the host spent idle, compressed so that a delay it
    carried is absorbed there. Monotone, so no event's order or nesting on a thread changes."""

    def __init__(self):
        self.t, self.l, self.r = [-1e300], [-1e300], [-1e300]
        self.lin = [False]  # segment after knot i is a straight line to knot i+1 (else its slope)
        self.slope = [1.0]  # > 1 where the host runs slower (hostslow)

    def _seg(self, i, x):
        if i + 1 < len(self.t) and self.lin[i]:
            t0, t1 = self.t[i], self.t[i + 1]
            return self.r[i] + (self.l[i + 1] - self.r[i]) * (x - t0) / (t1 - t0)
        if i == 0:
            return x
        return self.r[i] + (x - self.t[i]) * self.slope[i]

    def at(self, x):  # a start: a knot at x applies
        i = bisect.bisect_right(self.t, x) - 1
        return self.r[i] if self.t[i] == x and i > 0 else self._seg(i, x)

    def before(self, x):  # an end: a knot at x does not
        i = bisect.bisect_left(self.t, x) - 1
        return self._seg(i, x) if i + 1 >= len(self.t) or self.t[i + 1] != x else self.l[i + 1]

    def _knot(self, x, left, right, slope=None):
        if x <= self.t[-1]:
            self.r[-1] = max(self.r[-1], right)
            if slope is not None:
                self.slope[-1] = slope
            return
        self.t.append(x)
        self.l.append(left)
        self.r.append(right)
        self.lin.append(False)
        self.slope.append(self.slope[-1] if slope is None else slope)

    def slow(self, x, f):
        """From x on the host runs f times slower (f = 1 ends it)."""
        v = self.before(x)
        self._knot(x, v, max(v, self.at(x)) if x <= self.t[-1] else v, f)

    def stall(self, x, d):
        v = self.before(x)
        self._knot(x, v, self.at(x) + d if x <= self.t[-1] else v + d)

    def wait(self, a, x, ready):
        """The host idled from a to x waiting for the GPU; it now resumes at max(ready, x)."""
        ready = max(ready, x)
        cur = self.before(x)
        if ready >= cur - 1e-9:
            if ready > cur + 1e-9:
                self._knot(x, cur, ready)
            return
        a = max(a, self.t[-1])
        if a >= x:
            return
        ga = self.at(a)
        ready = max(ready, ga)
        if a > self.t[-1]:
            self._knot(a, self.before(a), ga)
        self.lin[-1] = True
        self._knot(x, ready, ready)


def replay(ranks, plants):
    """Replays every rank with the plants; returns per rank (gpu start', gpu end', host shift)."""
    stalls = {}  # rank -> [(P, D)]
    slows = {}  # rank -> [(a, b, factor)]
    throttle = {}  # (rank, gpu idx) -> factor
    link = {}  # (kind, index) -> factor
    for p in plants:
        R = ranks[p["_rank_pos"]] if "_rank_pos" in p else None
        if p["method"] == "hoststall":
            stalls.setdefault(p["rank"], []).append((p["_P"], float(p["us"])))
        elif p["method"] == "hostslow":
            slows.setdefault(p["rank"], []).append((p["_a"], p["_b"], float(p["factor"])))
        elif p["method"] == "throttle":
            for gi in p["_kernels"]:
                throttle[(p["rank"], gi)] = float(p["factor"])
        elif p["method"] == "slowlink":
            for idx in p["_indices"]:
                link[(p["kind"], idx)] = float(p["factor"])
    # instance membership
    member = {}  # (rank, gi) -> (kind, idx)
    inst = {}
    for R in ranks:
        for k, lst in R.coll.items():
            for idx, gi in enumerate(lst):
                member[(R.rank, gi)] = (k, idx)
                inst.setdefault((k, idx), []).append((R.rank, gi))
    items = []
    for ri, R in enumerate(ranks):
        for gi in R.gpu:
            items.append((R.ev[gi]["ts"], 1, ri, gi))
        for a, t in R.waits:
            items.append((t, 0, ri, a))
        for P, D in stalls.get(R.rank, []):
            items.append((P, -1, ri, D))
        for a, b, f in slows.get(R.rank, []):
            items.append((a, -2, ri, f))
            items.append((b, -2, ri, 1.0))
    items.sort(key=lambda x: (x[0], x[1]))
    n = len(ranks)
    S2 = [dict() for _ in range(n)]
    E2 = [dict() for _ in range(n)]
    H = [HostMap() for _ in range(n)]
    heaps = [[] for _ in range(n)]
    M = [-1e300] * n
    laststream = [dict() for _ in range(n)]
    pending = {}  # (kind, idx) -> count of members started
    rpos = {R.rank: ri for ri, R in enumerate(ranks)}
    stall_acc = [0.0] * n

    def settle(key):
        mem = inst[key]
        L = max(ranks[rpos[r]].ev[g]["ts"] for r, g in mem)
        L2 = max(S2[rpos[r]][g] for r, g in mem)
        f = link.get(key, 1.0)
        for r, g in mem:
            e = ranks[rpos[r]].ev[g]
            E2[rpos[r]][g] = L2 + (e["ts"] + e["dur"] - L) * f

    def end2(ri, g):
        if g not in E2[ri]:
            e = ranks[ri].ev[g]
            E2[ri][g] = S2[ri][g] + e["dur"]
        return E2[ri][g]

    def pop(ri, t):
        hp = heaps[ri]
        while hp and hp[0][0] <= t:
            _, g = heapq.heappop(hp)
            v = end2(ri, g)
            if v > M[ri]:
                M[ri] = v

    for t, typ, ri, x in items:
        R = ranks[ri]
        if typ == -2:
            H[ri].slow(t, x)
            continue
        if typ == -1:
            stall_acc[ri] += x
            H[ri].stall(t, x)
            continue
        pop(ri, t)
        if typ == 0:
            H[ri].wait(x, t, M[ri])
            continue
        gi = x
        e = R.ev[gi]
        S = e["ts"]
        s2 = S
        li = R.launch.get(gi)
        if li is not None:
            le = R.ev[li]
            Le = le["ts"] + le["dur"]
            s2 = max(s2, H[ri].before(Le) + min(S - Le, CAP))
        st = e.get("tid")
        pg = laststream[ri].get(st)
        if pg is not None:
            pe = R.ev[pg]
            Ep = pe["ts"] + pe["dur"]
            s2 = max(s2, end2(ri, pg) + min(S - Ep, CAP))
        s2 = max(s2, M[ri])
        S2[ri][gi] = s2
        laststream[ri][st] = gi
        key = member.get((R.rank, gi))
        if key is None:
            E2[ri][gi] = s2 + e["dur"] * throttle.get((R.rank, gi), 1.0)
        else:
            pending[key] = pending.get(key, 0) + 1
            if pending[key] == len(inst[key]):
                settle(key)
        heapq.heappush(heaps[ri], (S + e["dur"], gi))
    for ri in range(n):
        for gi in ranks[ri].gpu:
            end2(ri, gi)
    return S2, E2, H, inst


def instances(ranks, S2, E2, inst):
    out = []
    rpos = {R.rank: ri for ri, R in enumerate(ranks)}
    for (kind, idx) in sorted(inst, key=lambda k: (k[0], k[1])):
        mem = inst[(kind, idx)]
        if len(mem) != len(ranks):
            continue
        rows = []
        for r, g in sorted(mem):
            ri = rpos[r]
            rows.append({"rank": r, "start_us": round(S2[ri][g], 3), "end_us": round(E2[ri][g], 3), "_ri": ri, "_g": g})
        L = max(x["start_us"] for x in rows)
        first = min(rows, key=lambda x: (x["start_us"], x["rank"]))["rank"]
        last = max(rows, key=lambda x: (x["start_us"], -x["rank"]))["rank"]
        for x in rows:
            x["wait_us"] = round(L - x["start_us"], 3)
        transfer = round(min(x["end_us"] for x in rows) - L, 3)
        R0 = ranks[rows[0]["_ri"]]
        args = R0.ev[rows[0]["_g"]].get("args", {})
        nbytes = None
        if "In msg nelems" in args and args.get("dtype") in DTYPE_BYTES:
            nbytes = max(int(args["In msg nelems"]), int(args.get("Out msg nelems", 0))) * DTYPE_BYTES[args["dtype"]]
        gs = int(args.get("Group size", len(rows)))
        algbw = busbw = None
        if nbytes is not None and transfer > 0:
            algbw = nbytes / (transfer * 1000.0)
            busbw = algbw * BUS.get(kind, lambda n: 1.0)(gs)
        lr = ranks[rpos[last]]
        lg = dict((r, g) for r, g in mem)[last]
        step = lr.step_at(lr.ev[lr.launch[lg]]["ts"] if lg in lr.launch else lr.ev[lg]["ts"])
        out.append({"kind": kind, "index": idx, "step": step, "bytes": nbytes, "group_size": gs,
                    "ranks": [{k: v for k, v in x.items() if not k.startswith("_")} for x in rows],
                    "skew_us": round(L - min(x["start_us"] for x in rows), 3), "first_rank": first,
                    "last_rank": last, "transfer_us": transfer,
                    "algbw_gbps": None if algbw is None else round(algbw, 4),
                    "busbw_gbps": None if busbw is None else round(busbw, 4)})
    return out


def resolve(ranks, plants):
    """Fills each plant's moments from the real traces (before any replay)."""
    rpos = {R.rank: ri for ri, R in enumerate(ranks)}
    out = []
    for p in plants:
        p = dict(p)
        m = p["method"]
        if m == "hoststall":
            R = ranks[rpos[p["rank"]]]
            gi = R.coll[p["kind"]][p["index"]]
            P, th = R.toplevel_before(gi, int(p.get("lead", 0)))
            p["_P"], p["_thread"] = P, th
        elif m == "throttle":
            R = ranks[rpos[p["rank"]]]
            if "steps" in p:
                a, _ = R.step_window(p["steps"][0])
                _, b = R.step_window(p["steps"][-1])
                cs = set(x for l in R.coll.values() for x in l)
                p["_kernels"] = [g for g in R.gpu if R.ev[g].get("cat") == "kernel" and a <= R.issue_ts(g) <= b
                                 and g not in cs]
            else:
                lst = R.coll[p["kind"]]
                gi = lst[p["index"]]
                allc = sorted((g for l in R.coll.values() for g in l), key=lambda g: R.ev[g]["ts"])
                prev = [g for g in allc if R.ev[g]["ts"] < R.ev[gi]["ts"]]
                a = R.ev[prev[-1]]["ts"] if prev else -1e300
                cs = set(allc)
                p["_kernels"] = [g for g in R.gpu if R.ev[g].get("cat") == "kernel" and g not in cs
                                 and a <= R.ev[g]["ts"] < R.ev[gi]["ts"]]
        elif m == "hostslow":
            R = ranks[rpos[p["rank"]]]
            p["_a"], _ = R.step_window(p["steps"][0])
            _, p["_b"] = R.step_window(p["steps"][-1])
        elif m == "slowlink":
            p["_indices"] = list(p["indices"])
        elif m == "clock":
            pass
        else:
            raise SystemExit("unknown method %s" % m)
        out.append(p)
    return out


def write_rank(R, S2, E2, H, ri, plants, path, plain, clock):
    ev = R.ev
    h = H[ri]
    new = []
    gshift = sorted((ev[g]["ts"], S2[ri][g] - ev[g]["ts"]) for g in R.gpu)
    gts = [x[0] for x in gshift]
    gends = sorted((ev[g]["ts"] + ev[g]["dur"], E2[ri][g] - ev[g]["ts"] - ev[g]["dur"]) for g in R.gpu)
    gets = [x[0] for x in gends]
    gpu_new = {}
    for g in R.gpu:
        e = ev[g]
        gpu_new[(e.get("pid"), e.get("tid"), e["ts"])] = S2[ri][g]
    host_new = {}
    for e in ev:
        if e.get("ph") == "X" and "ts" in e and e.get("cat") not in GPU_CATS and e.get("cat") != "gpu_user_annotation":
            host_new.setdefault((e.get("pid"), e.get("tid"), e["ts"]), h.at(e["ts"]))
    for i, e in enumerate(ev):
        if "ts" not in e:
            new.append(e)
            continue
        o = dict(e)
        cat = e.get("cat")
        ts = e["ts"]
        if e.get("ph") == "X" and cat in GPU_CATS:
            o["ts"] = S2[ri][i]
            o["dur"] = E2[ri][i] - S2[ri][i]
        elif e.get("ph") == "X" and cat == "gpu_user_annotation":
            j = bisect.bisect_left(gts, ts)
            s2 = ts + (gshift[j][1] if j < len(gshift) else 0.0)
            end = ts + e["dur"]
            k = bisect.bisect_right(gets, end) - 1
            e2 = end + (gends[k][1] if k >= 0 else 0.0)
            o["ts"], o["dur"] = s2, max(e2, s2) - s2
        elif e.get("ph") in ("s", "f"):
            key = (e.get("pid"), e.get("tid"), ts)
            o["ts"] = gpu_new.get(key, host_new.get(key, h.at(ts)))
        elif e.get("ph") == "X":
            s2 = h.at(ts)
            end = ts + e.get("dur", 0)
            o["ts"] = s2
            if "dur" in e:
                o["dur"] = max(h.before(end), s2) - s2
        else:
            o["ts"] = h.at(ts)
        new.append(o)
    for p in plants:
        if p["method"] == "hoststall" and p["rank"] == R.rank:
            pid, tid = p["_thread"]
            new.append({"ph": "X", "cat": p.get("cat", "python_function"), "name": p["label"], "pid": pid,
                        "tid": tid, "ts": h.before(p["_P"]), "dur": float(p["us"]),
                        "args": {}})
    for o in new:
        if "ts" in o:
            o["ts"] = round(o["ts"] + clock, 3)
            if "dur" in o and o.get("ph") == "X":
                o["dur"] = round(o["dur"], 3)
    doc = dict(R.doc)
    doc["traceEvents"] = new
    if plain:
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
    else:
        with gzip.open(path, "wt", compresslevel=1) as f:
            json.dump(doc, f, separators=(",", ":"))


def judge(ranks, base, now, plants):
    """Per plant: how late it made its rank, whether that made anyone wait (effective)."""
    bi = {(x["kind"], x["index"]): x for x in base}
    ni = {(x["kind"], x["index"]): x for x in now}
    res = []
    for p in plants:
        q = {k: v for k, v in p.items() if not k.startswith("_")}
        m = p["method"]
        if m in ("hoststall",) or (m == "throttle" and "index" in p):
            key = (p["kind"], p["index"])
            x, b = ni[key], bi[key]
            st = {y["rank"]: y["start_us"] for y in x["ranks"]}
            others = max(v for r, v in st.items() if r != p["rank"])
            q["lateness_us"] = round(max(0.0, st[p["rank"]] - others), 3)
            q["skew_before_us"], q["skew_after_us"] = b["skew_us"], x["skew_us"]
            q["step"] = x["step"]
            q["effective"] = x["last_rank"] == p["rank"] and q["lateness_us"] >= 500.0
            q["expect"] = "named" if q["effective"] else "not_named"
            if not q["effective"]:
                # late together with a later planted rank: later than every unplanted rank
                co = set(o["rank"] for o in plants if o is not p and o.get("kind") == p.get("kind")
                         and o.get("index") == p.get("index") and "rank" in o)
                rest = [v for r, v in st.items() if r != p["rank"] and r not in co]
                if co and rest and st[p["rank"]] - max(rest) >= 500.0:
                    q["expect"] = "secondary"
                    q["ahead_of_unplanted_us"] = round(st[p["rank"]] - max(rest), 3)
        elif m in ("throttle", "hostslow"):
            # per step: the rank's lateness summed where it came last, against every other rank's
            steps = {}
            for x in now:
                if x["step"] not in p["steps"]:
                    continue
                st = sorted(((y["start_us"], y["rank"]) for y in x["ranks"]), reverse=True)
                steps.setdefault(x["step"], {})
                d = steps[x["step"]]
                d[st[0][1]] = d.get(st[0][1], 0.0) + st[0][0] - st[1][0]
            q["per_step"] = []
            for s in p["steps"]:
                d = steps.get(s, {})
                mine = d.get(p["rank"], 0.0)
                top = max(d.values()) if d else 0.0
                q["per_step"].append({"step": s, "lateness_us": round(mine, 3),
                                      "effective": mine >= 500.0 and mine >= top - 1e-6})
            q["effective"] = any(s["effective"] for s in q["per_step"])
            q["expect"] = "named" if q["effective"] else "not_named"
        elif m == "slowlink":
            q["expect"] = "not_named"
            q["effective"] = False
            q["transfer_before_us"] = [bi[(p["kind"], i)]["transfer_us"] for i in p["indices"]]
            q["transfer_after_us"] = [ni[(p["kind"], i)]["transfer_us"] for i in p["indices"]]
        elif m == "clock":
            q["expect"] = "not_named"
            q["effective"] = False
        res.append(q)
    return res


def main(argv):
    plain = "--plain" in argv
    key_only = "--key-only" in argv  # the key without the traces (its hashes are the same)
    argv = [a for a in argv if a not in ("--plain", "--key-only")]
    if len(argv) < 3:
        raise SystemExit(__doc__)
    plan_path, shared, outdir = argv[:3]
    want = argv[3:]
    plan = json.load(open(plan_path))
    os.makedirs(outdir, exist_ok=True)
    loaded = {}
    cases = []
    for c in plan["cases"]:
        if want and c["name"] not in want:
            continue
        files = plan["sets"][c["set"]]
        if c["set"] not in loaded:
            loaded.clear()  # one set in memory at a time
            rs = [Rank(os.path.join(shared, f)) for f in files]
            S0, E0, H0, inst0 = replay(rs, [])
            loaded[c["set"]] = (rs, instances(rs, S0, E0, inst0))
        rs, base = loaded[c["set"]]
        plants = resolve(rs, c.get("plants", []))
        S2, E2, H, inst = replay(rs, plants)
        now = instances(rs, S2, E2, inst)
        verdicts = judge(rs, base, now, plants)
        clock = {p["rank"]: float(p["us"]) for p in plants if p["method"] == "clock"}
        traces = []
        if plants and not key_only:
            d = os.path.join(outdir, c["name"])
            os.makedirs(d, exist_ok=True)
            for ri, R in enumerate(rs):
                fn = "rank%d.json%s" % (R.rank, "" if plain else ".gz")
                write_rank(R, S2, E2, H, ri, plants, os.path.join(d, fn), plain, clock.get(R.rank, 0.0))
                traces.append(os.path.join(c["name"], fn))
        bmap = {(b["kind"], b["index"]): b for b in base}
        for x in now:
            b = bmap.get((x["kind"], x["index"]))
            x["skew_base_us"] = None if b is None else b["skew_us"]
            x["last_rank_base"] = None if b is None else b["last_rank"]
        blob = json.dumps(now, sort_keys=True, separators=(",", ":")).encode()
        planted = [x for x in now if {k: v for k, v in x.items() if k not in ("skew_base_us", "last_rank_base")}
                   != bmap.get((x["kind"], x["index"]))]
        cases.append({"name": c["name"], "set": c["set"], "note": c.get("note", ""), "source": files,
                      "traces": traces, "plants": verdicts, "instances": now,
                      "changed": [[x["kind"], x["index"]] for x in planted],
                      "instances_sha256": hashlib.sha256(blob).hexdigest()})
        print("%s: %d instances, %d changed, plants %s" % (c["name"], len(now), len(planted),
              [(v.get("rank"), v["method"], v.get("lateness_us"), v["expect"]) for v in verdicts]), file=sys.stderr)
    with open(os.path.join(outdir, "keys.json"), "w") as f:
        json.dump({"tool": "plantstraggler3", "cases": cases}, f, sort_keys=True, indent=1)
    # The key's plants part: every plant's verdict, the changed instances in full, the hash of all.
    small = []
    for c in cases:
        ch = set(map(tuple, c["changed"]))
        small.append({k: v for k, v in c.items() if k not in ("instances", "traces")})
        small[-1]["instance_count"] = len(c["instances"])
        small[-1]["changed_instances"] = [x for x in c["instances"] if (x["kind"], x["index"]) in ch][:12]
    with open(os.path.join(outdir, "keys.plants.json"), "w") as f:
        json.dump({"tool": "plantstraggler3", "cases": small}, f, sort_keys=True, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
