#!/usr/bin/env python3
"""Plant stragglers into real multi-rank Kineto traces and key them, independently of gputriage.

Written for issue 19 before reading analyzer/collectives or analyzer/ranks (and without the
analyzer's own plantcase.py/plantlib.py): what a collective is, how instances match and the
per-instance figures come from the issue's definitions only.

    plant.py [--plain] PLAN.json SHARED OUTDIR [CASE...]
        SHARED: the shared/ folder the plan's paths are relative to; writes OUTDIR/<case>/rank*.pt.trace.json.gz
        (--plain: uncompressed .json) and OUTDIR/keys.json; CASE...: only these cases

A plant delays one rank's work before one collective instance, the way a real straggler looks:
  compute  the last non-collective kernel that ends before the collective on the late rank runs
           `us` longer (a slower kernel); later GPU ops on that rank start no earlier than the ops
           they follow end (gaps absorb part of it, as a GPU queue does).
  host     the late rank's host stalls `us` just before the collective's launch call: every CPU
           event from that call on starts `us` later (events spanning it last `us` longer); a GPU
           op launched after it starts no earlier than its launch ends plus its original launch
           latency (at most 20 us), so a queue that was ahead of the host absorbs part of it.
Every rank's GPU ops are then replayed in their original start order: an op never starts before
its original time, before its stream predecessor's new end, before the new end of the last
collective that rank finished before it (later work depends on it), nor (host plants) before its
launch. A collective instance ends, on every rank, at new latest start + (its end - old latest
start): the peers' kernels start as before and wait longer.

Per instance (issue 19 definitions): skew = latest start - earliest start; last rank = latest
start; wait[r] = latest start - start[r]; transfer = earliest end - latest start; bytes =
max(In, Out msg nelems) x dtype size; algbw = bytes / transfer (GB/s = bytes/ns); busbw = algbw x
NCCL factor (all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; others 1).
"""
import gzip
import json
import os
import sys
import heapq
from bisect import bisect_right

DTYPE_BYTES = {"float": 4, "float32": 4, "float16": 2, "half": 2, "bfloat16": 2, "double": 8,
               "float64": 8, "int": 4, "int32": 4, "int64": 8, "long": 8, "int8": 1, "uint8": 1,
               "char": 1, "byte": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1}
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
NAME_KINDS = [("allreduce", "allreduce"), ("allgather", "allgather"),
              ("reducescatter", "reducescatter"), ("alltoall", "alltoall"),
              ("sendrecv", "sendrecv"), ("broadcast", "broadcast"), ("reduce", "reduce")]
ARG_KINDS = {"allreduce": "allreduce", "all_reduce": "allreduce", "allgather": "allgather",
             "_allgather_base": "allgather", "all_gather": "allgather",
             "allgather_into_tensor_coalesced": "allgather", "reduce_scatter": "reducescatter",
             "reducescatter": "reducescatter", "_reduce_scatter_base": "reducescatter",
             "all_to_all": "alltoall", "alltoall": "alltoall", "all_to_allv": "alltoall",
             "alltoall_base": "alltoall", "broadcast": "broadcast", "reduce": "reduce",
             "send": "sendrecv", "recv": "sendrecv", "barrier": "barrier"}


def factor(kind, n):
    if kind == "allreduce":
        return 2.0 * (n - 1) / n
    if kind in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    return 1.0


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def is_collective(e):
    if e.get("cat") != "kernel":
        return False
    n = e.get("name", "").lower()
    return "nccl" in n or "rccl" in n or "Collective name" in (e.get("args") or {})


def kind_of(e):
    cn = (e.get("args") or {}).get("Collective name")
    if cn:
        return ARG_KINDS.get(cn.lower(), cn.lower())
    n = e["name"].lower().replace("_", "")
    for tok, k in NAME_KINDS:
        if tok in n:
            return k
    return "collective"


def nbytes(e):
    a = e.get("args") or {}
    ni, no = a.get("In msg nelems"), a.get("Out msg nelems")
    dt = str(a.get("dtype", "")).lower()
    if (ni is None and no is None) or dt not in DTYPE_BYTES:
        return None
    return max(ni or 0, no or 0) * DTYPE_BYTES[dt]


class Rank:
    def __init__(self, path):
        self.path = path
        self.doc = load(path)
        self.rank = self.doc["distributedInfo"]["rank"]
        self.base_ns = self.doc.get("baseTimeNanoseconds", 0)
        ev = self.doc["traceEvents"]
        self.gpu = [e for e in ev if e.get("cat") in GPU_CATS and e.get("ph") == "X"]
        self.gpu.sort(key=lambda e: e["ts"])
        self.launch = {}  # correlation -> runtime/driver launch event
        for e in ev:
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("ph") == "X":
                c = (e.get("args") or {}).get("correlation")
                if c is not None:
                    self.launch[c] = e
        self.steps = sorted([e for e in ev if e.get("ph") == "X" and e.get("cat") == "user_annotation"
                             and str(e.get("name", "")).startswith("ProfilerStep#")], key=lambda e: e["ts"])
        self.annots = sorted([e for e in ev if e.get("ph") == "X" and e.get("cat") == "user_annotation"],
                             key=lambda e: e["ts"])

    def colls(self):
        out = {}
        for e in self.gpu:
            if is_collective(e):
                a = e.get("args") or {}
                key = (str(a.get("Process Group Name", "")), kind_of(e))
                out.setdefault(key, []).append(e)
        return out

    def step_of(self, e):
        """The ProfilerStep#N around the op's launch, else the top-level annotation, numbered."""
        la = self.launch.get((e.get("args") or {}).get("correlation"))
        t = la["ts"] if la else e["ts"]
        for s in self.steps:
            if s["ts"] <= t <= s["ts"] + s["dur"]:
                return s["name"]
        # top-level user annotations (not inside another), numbered per name in order
        tops, end = [], -1
        for a in self.annots:
            if a["ts"] >= end:
                tops.append(a)
                end = a["ts"] + a["dur"]
        seen = {}
        for a in tops:
            seen[a["name"]] = seen.get(a["name"], 0) + 1
            if a["ts"] <= t <= a["ts"] + a["dur"]:
                return "%s#%d" % (a["name"], seen[a["name"]])
        return None


def match(ranks):
    """Instances per (pg, kind) in issue order; every rank must hold the same count."""
    per = [r.colls() for r in ranks]
    keys = sorted(set().union(*[set(p) for p in per]))
    inst = []
    for k in keys:
        counts = [len(p.get(k, [])) for p in per]
        if len(set(counts)) != 1:
            raise SystemExit("ranks disagree on %s count: %s" % (k, counts))
        for i in range(counts[0]):
            inst.append({"pg": k[0], "kind": k[1], "index": i,
                         "ops": {r.rank: per[j][k][i] for j, r in enumerate(ranks)}})
    return inst


def figures(ranks, inst, base):
    """Per-instance figures on a common clock (µs relative to `base` ns, the earliest base)."""
    byr = {r.rank: r for r in ranks}
    rows = []
    for it in inst:
        st, en = {}, {}
        for rk, e in it["ops"].items():
            off = (byr[rk].base_ns - base) / 1000.0
            st[rk], en[rk] = e["ts"] + off, e["ts"] + e["dur"] + off
        L = max(st.values())
        last = max(st, key=lambda r: (st[r], r))
        first = min(st, key=lambda r: (st[r], r))
        transfer = min(en.values()) - L
        any_op = next(iter(it["ops"].values()))
        b = nbytes(any_op)
        n = (any_op.get("args") or {}).get("Group size") or len(it["ops"])
        alg = b / (transfer * 1000.0) if (b is not None and transfer > 0) else None
        rows.append({"pg": it["pg"], "kind": it["kind"], "index": it["index"],
                     "step": byr[last].step_of(it["ops"][last]),
                     "skew_us": L - min(st.values()), "first_rank": first, "last_rank": last,
                     "wait_us": {str(r): L - st[r] for r in sorted(st)},
                     "start_us": {str(r): st[r] for r in sorted(st)},
                     "transfer_us": transfer, "bytes": b, "group_size": n,
                     "algbw_gbps": alg, "busbw_gbps": None if alg is None else alg * factor(it["kind"], n)})
    return rows


def plant(ranks, inst, plants):
    """Apply plants (list of {rank, kind, pg, coll, index, us}) and replay every rank's GPU ops."""
    byr = {r.rank: r for r in ranks}
    ikey = {(it["pg"], it["kind"], it["index"]): it for it in inst}
    coll_of = {}  # id(op) -> instance
    for it in inst:
        for e in it["ops"].values():
            coll_of[id(e)] = it
    stretch = {}   # id(op) -> extra µs
    host = {r.rank: [] for r in ranks}  # rank -> [(T, us)]
    for p in plants:
        it = ikey[(p["pg"], p["coll"], p["index"])]
        r = byr[p["rank"]]
        c = it["ops"][p["rank"]]
        if p["kind"] == "compute":
            prev = [e for e in r.gpu if e["cat"] == "kernel" and not is_collective(e)
                    and e["ts"] + e["dur"] <= c["ts"]]
            if not prev:
                raise SystemExit("no compute kernel before %s on rank %d" % (p, p["rank"]))
            k = max(prev, key=lambda e: (e["ts"] + e["dur"], e["ts"]))
            stretch[id(k)] = stretch.get(id(k), 0.0) + p["us"]
            p["stretched_kernel"] = k["name"][:120]
        else:
            la = r.launch.get((c.get("args") or {}).get("correlation"))
            if la is None:
                raise SystemExit("no launch call for %s on rank %d" % (p, p["rank"]))
            host[p["rank"]].append((la["ts"], p["us"]))
    for rk in host:
        host[rk].sort()

    def cpu_shift(rk, t):
        return sum(us for T, us in host[rk] if t >= T)

    # replay, all ranks' GPU ops merged in original start order (instances finalize on their last start)
    allops = sorted(((e["ts"] + (byr[rk].base_ns) / 1000.0, rk, i) for rk in byr for i, e in enumerate(byr[rk].gpu)))
    new = {}  # id(op) -> (s', e')
    stream_last = {}  # (rk, stream) -> (orig end, new end)
    coll_done = {rk: [] for rk in byr}  # rank -> [(orig end, new end)] of finished collectives
    pending = {}  # id(instance) -> {rk: s'}
    producers = {rk: [] for rk in byr}  # heap of (orig end, new end) of compute kernels not yet passed
    producer = {rk: None for rk in byr}  # the latest-ending compute kernel already ended
    need = {id(it): len(it["ops"]) for it in inst}
    for _, rk, i in allops:
        r = byr[rk]
        e = r.gpu[i]
        s, d = e["ts"], e["dur"]
        a = e.get("args") or {}
        sp = s
        st = (rk, a.get("stream", a.get("tid", e.get("tid"))))
        if st in stream_last and stream_last[st][1] is not None and s >= stream_last[st][0]:
            sp = max(sp, stream_last[st][1])
        for oe, ne in coll_done[rk]:
            if s >= oe:
                sp = max(sp, ne)
        la = r.launch.get(a.get("correlation"))
        if la is not None and host[rk]:
            sh = cpu_shift(rk, la["ts"])
            if sh:
                le = la["ts"] + la["dur"]
                lat = min(max(0.0, s - le), 20.0)
                sp = max(sp, le + sh + lat)
        it = coll_of.get(id(e))
        if it is not None:
            # a collective waits for the kernel that produced its input: the compute kernel that
            # ended last before it (on any stream; PyTorch makes the NCCL stream wait on an event)
            h = producers[rk]
            while h and h[0][0] <= s:
                oe, ne = heapq.heappop(h)
                if producer[rk] is None or oe >= producer[rk][0]:
                    producer[rk] = (oe, ne)
            if producer[rk] is not None:
                sp = max(sp, producer[rk][1])
        if it is None:
            ep = sp + d + stretch.get(id(e), 0.0)
            new[id(e)] = (sp, ep)
            if e["cat"] == "kernel":
                heapq.heappush(producers[rk], (s + d, ep))
            stream_last[st] = (s + d, ep)
            continue
        pend = pending.setdefault(id(it), {})
        pend[rk] = sp
        new[id(e)] = (sp, None)
        stream_last[st] = (s + d, None)
        if len(pend) == need[id(it)]:
            # finalize: ends move by (new latest start - old latest start), on a common clock
            off = {k: byr[k].base_ns / 1000.0 for k in it["ops"]}
            L = max(it["ops"][k]["ts"] + off[k] for k in it["ops"])
            Lp = max(pend[k] + off[k] for k in it["ops"])
            for k, op in it["ops"].items():
                ne = op["ts"] + op["dur"] + (Lp - L)
                ne = max(ne, pend[k])
                new[id(op)] = (pend[k], ne)
                o = op.get("args") or {}
                sk = (k, o.get("stream", o.get("tid", op.get("tid"))))
                if stream_last.get(sk, (None, None))[1] is None:
                    stream_last[sk] = (op["ts"] + op["dur"], ne)
                coll_done[k].append((op["ts"] + op["dur"], ne))
    # fix stream_last entries left None (never happens when every instance completes)
    # write back
    for r in ranks:
        gshift = []  # (orig start, shift) for GPU-side annotations and flows
        corr_new = {}
        for e in r.gpu:
            sp, ep = new[id(e)]
            gshift.append((e["ts"], sp - e["ts"]))
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                corr_new[c] = sp
            e["ts"], e["dur"] = round(sp, 3), round(ep - sp, 3)
        gshift.sort()
        gts = [g[0] for g in gshift]

        def gpu_shift(t):
            j = bisect_right(gts, t) - 1
            return gshift[j][1] if j >= 0 else 0.0
        for e in r.doc["traceEvents"]:
            cat = e.get("cat")
            if cat in GPU_CATS or "ts" not in e:
                continue
            if cat == "gpu_user_annotation":
                s0, e0 = e["ts"], e["ts"] + e.get("dur", 0)
                ns = s0 + gpu_shift(s0)
                ne = max(ns, e0 + gpu_shift(e0))
                e["ts"], e["dur"] = round(ns, 3), round(ne - ns, 3)
            elif cat == "ac2g" and e.get("ph") in ("f", "t"):
                c = e.get("id")
                if c in corr_new:
                    e["ts"] = round(corr_new[c], 3)
            elif host[r.rank] and e.get("ph") in ("X", "B", "E", "i", "s", "f", "t") and cat not in ("overhead", "Trace"):
                t = e["ts"]
                sh = cpu_shift(r.rank, t)
                if e.get("ph") == "X":
                    end = t + e.get("dur", 0)
                    she = cpu_shift(r.rank, end)
                    e["dur"] = round(end + she - (t + sh), 3)
                if sh:
                    e["ts"] = round(t + sh, 3)
    return plants


def write(ranks, outdir, gz):
    os.makedirs(outdir, exist_ok=True)
    for r in ranks:
        p = os.path.join(outdir, "rank%d.pt.trace.json" % r.rank)
        if gz:
            with gzip.open(p + ".gz", "wt", compresslevel=1) as f:
                json.dump(r.doc, f, separators=(",", ":"))
        else:
            with open(p, "w") as f:
                json.dump(r.doc, f, separators=(",", ":"))


def load_set(paths):
    ranks = sorted((Rank(p) for p in paths), key=lambda r: r.rank)
    saved = [[(e, e.get("ts"), e.get("dur")) for e in r.doc["traceEvents"] if "ts" in e] for r in ranks]
    return ranks, saved


def restore(saved):
    for evs in saved:
        for e, ts, dur in evs:
            e["ts"] = ts
            if dur is not None:
                e["dur"] = dur


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 3:
        sys.exit(__doc__)
    gz = "--plain" not in sys.argv
    plan = json.load(open(args[0]))
    root, out, only = args[1], args[2], set(args[3:])
    keys = {"tool": "tools/plantstraggler/plant.py", "cases": []}
    loaded = {}
    for case in plan["cases"]:
        if only and case["name"] not in only:
            continue
        if case["set"] not in loaded:
            loaded[case["set"]] = load_set([os.path.join(root, p) for p in plan["sets"][case["set"]]])
        ranks, saved = loaded[case["set"]]
        restore(saved)
        base = min(r.base_ns for r in ranks)
        inst = match(ranks)
        before = figures(ranks, inst, base)
        plants = []
        for p in case.get("plants", []):
            idxs = p["index"] if isinstance(p["index"], list) else [p["index"]]
            for ix in idxs:
                plants.append({"rank": p["rank"], "kind": p["kind"], "pg": p.get("pg", ""),
                               "coll": p["coll"], "index": ix, "us": p["us"]})
        plant(ranks, inst, plants)
        after = figures(ranks, inst, base)
        for pl in plants:
            j = next(k for k, row in enumerate(after) if (row["pg"], row["kind"], row["index"]) ==
                     (pl["pg"], pl["coll"], pl["index"]))
            b, a = before[j], after[j]
            pl["step"] = a["step"]
            pl["skew_before_us"] = round(b["skew_us"], 3)
            pl["skew_after_us"] = round(a["skew_us"], 3)
            pl["last_rank_after"] = a["last_rank"]
            # how much later the planted rank arrives relative to the earliest peer than before
            pl["offset_gain_us"] = round((a["start_us"][str(pl["rank"])] - min(v for k, v in a["start_us"].items() if k != str(pl["rank"]))) -
                                         (b["start_us"][str(pl["rank"])] - min(v for k, v in b["start_us"].items() if k != str(pl["rank"]))), 3)
        changed = [{"pg": a["pg"], "kind": a["kind"], "index": a["index"]} for a, b in zip(after, before)
                   if abs(a["skew_us"] - b["skew_us"]) > 10.0 or a["last_rank"] != b["last_rank"]]
        write(ranks, os.path.join(out, case["name"]), gz)
        keys["cases"].append({"name": case["name"], "set": case["set"], "note": case.get("note", ""),
                              "plants": plants, "changed_instances": changed,
                              "instances": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()
                                             if k not in ("start_us",)} | {"wait_us": {k: round(v, 3) for k, v in row["wait_us"].items()}}
                                            for row in after]})
        print(case["name"], len(inst), "instances", len(plants), "plants",
              [(p["rank"], p["coll"], p["index"], p["step"], p["skew_before_us"], p["skew_after_us"], p["last_rank_after"]) for p in plants][:4],
              "changed", len(changed), file=sys.stderr)
    with open(os.path.join(out, "keys.json"), "w") as f:
        json.dump(keys, f, indent=1)


if __name__ == "__main__":
    main()
