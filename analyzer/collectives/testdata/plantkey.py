#!/usr/bin/env python3
"""Plant a straggler into real rank traces and compute, independently, what
the cross-rank view must say (gputriage issue 19).

Standard library only; reads the trace JSON directly and shares no code with
the analyzer. Times are kept exact (decimal.Decimal), as Kineto writes them.

Plant (SPEC.json: {"rank": R, "delay_us": D, "at": [{"pg": "", "kind": K,
"index": I}, ...]}): rank R's I-th collective of kind K in process group pg
(issue order: the start of the runtime/driver call with the kernel's
correlation, else the kernel's start) arrives D µs late: every GPU op of
rank R (kernel, gpu_memcpy, gpu_memset) from the start of the last
non-collective kernel between its previous collective and it (else from
its own start) onward starts D later; on every other rank
that instance's kernel lasts D longer (it waits) and every GPU op that
starts after it starts D later. The ranks are in step again after it.

Key (definitions of docs/artifacts.md): a collective kernel's name holds
nccl/rccl; kind from args "Collective name", else the kernel name; pg from
"Process Group Name"; instances matched across ranks by (pg, kind, issue
index). Ranks on one clock through baseTimeNanoseconds. Per instance:
skew = latest start - earliest start, last rank = latest start (lowest
rank on a tie), wait[r] = latest start - r's start, transfer = earliest end
- latest start, bytes = max(In, Out msg nelems) x dtype size, algbw =
bytes / transfer, busbw = algbw x NCCL's factor (all_reduce 2(n-1)/n;
all_gather, reduce_scatter, all_to_all (n-1)/n; else 1), n = "Group size"
else the ranks matched. A rank's lateness = sum of the skews of the
instances it reached last; the straggler causes the most.

Missing instances (SPEC "drop": [{"rank": R, "pg": "", "kind": K, "index": I}]):
after planting, rank R's I-th collective of kind K (unplanted issue order) is
removed from its trace, as a lost event or a cut trace would. The key keeps
every other instance under its index on the ranks that hold them all, and has
no instance where a rank misses one.

Process groups (SPEC "args": [{"ranks": [..], "kind": K, "set": {ARG: VALUE}}]): before
planting (so "at" and "drop" name the new groups), the listed ranks' collectives of kind K get those args on their kernels (a
TP x DP mesh: "Collective name", "Process Group Name", "Group size"); the key
matches each group among the ranks that hold it.

Usage: plantkey.py SPEC.json RANK_TRACE... > KEY.json
"""
import json, sys
from plantlib import D, GPU, factor, is_coll, kind_of, nbytes
from plantlib import load as load_doc


def load(path):
    doc = load_doc(path)
    rank = int(doc["distributedInfo"]["rank"])
    base = int(doc.get("baseTimeNanoseconds", 0) or 0)
    ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
    launch = {}
    for e in ev:
        c = e.get("cat", "")
        if c.endswith("_runtime") or c.endswith("_driver") or c in ("runtime", "driver"):
            corr = e.get("args", {}).get("correlation")
            if corr is not None:
                launch.setdefault(corr, e["ts"])
    colls = {}
    for e in ev:
        if is_coll(e):
            a = e.get("args", {})
            key = (str(a.get("Process Group Name", "")), kind_of(e)[0])
            colls.setdefault(key, []).append(e)
    for key, ks in colls.items():
        ks.sort(key=lambda e: (launch.get(e.get("args", {}).get("correlation"), e["ts"]), e["ts"]))
    gpu = [e for e in ev if e.get("cat") in GPU and e.get("ph") == "X"]
    return {"rank": rank, "base": base, "colls": colls, "gpu": gpu}


def plant(ranks, spec):
    late, delay = spec["rank"], D(str(spec["delay_us"]))
    for at in spec["at"]:
        key = (at.get("pg", ""), at["kind"])
        for r in ranks:
            if key not in r["colls"]:
                continue
            c = r["colls"][key][at["index"]]
            if r["rank"] == late:
                prev = max([e["ts"] for e in r["gpu"] if is_coll(e) and e["ts"] < c["ts"]], default=None)
                before = [e["ts"] for e in r["gpu"] if e.get("cat") == "kernel" and not is_coll(e) and e["ts"] < c["ts"]
                          and (prev is None or e["ts"] > prev)]
                t0 = max(before) if before else c["ts"]
                for e in r["gpu"]:
                    if e["ts"] >= t0:
                        e["ts"] += delay
            else:
                t0 = c["ts"]
                for e in r["gpu"]:
                    if e["ts"] > t0:
                        e["ts"] += delay
                c["dur"] += delay


def drop(ranks, spec):
    for d in spec.get("drop", []):
        for r in ranks:
            if r["rank"] == d["rank"]:
                r["colls"][(d.get("pg", ""), d["kind"])][d["index"]] = None


def setargs(ranks, spec):
    for a in spec.get("args", []):
        for r in ranks:
            if r["rank"] not in a["ranks"]:
                continue
            moved = {}
            for (pg, kind), ks in r["colls"].items():
                if kind != a["kind"]:
                    continue
                for e in ks:
                    if e is not None:
                        e.setdefault("args", {}).update(a["set"])
                new = next(e for e in ks if e is not None)
                moved[(pg, kind)] = (str(new["args"].get("Process Group Name", "")), kind_of(new)[0])
            for old, new in moved.items():
                r["colls"][new] = r["colls"].pop(old)


def key(ranks):
    lo = min(r["base"] for r in ranks)
    out, late = [], {r["rank"]: 0.0 for r in ranks}
    for k in sorted({k for r in ranks for k in r["colls"]}):
        members = [r for r in ranks if k in r["colls"]]
        n = max(len(r["colls"][k]) for r in members)
        for i in range(n):
            if any(i >= len(r["colls"][k]) or r["colls"][k][i] is None for r in members):
                continue
            ks = [(r["rank"], r["colls"][k][i], D(r["base"] - lo) / 1000) for r in members]
            start = {rk: e["ts"] + off for rk, e, off in ks}
            end = {rk: e["ts"] + e["dur"] + off for rk, e, off in ks}
            latest, earliest = max(start.values()), min(start.values())
            last = min(rk for rk in start if start[rk] == latest)
            skew = float(latest - earliest)
            transfer = float(min(end.values()) - latest)
            a = ks[0][1].get("args", {})
            nb = nbytes(a)
            group = int(a.get("Group size", 0) or 0) or len(members)
            algbw = nb / (transfer * 1e3) if nb and transfer > 0 else None
            late[last] += skew
            out.append({"pg": k[0], "kind": k[1], "index": i, "skew_us": skew, "last_rank": last,
                        "wait_us": {str(rk): float(latest - s) for rk, s in sorted(start.items())},
                        "transfer_us": transfer, "bytes": nb,
                        "busbw_gbps": algbw * factor(k[1], group) if algbw is not None else None})
    straggler = max(sorted(late), key=lambda rk: late[rk])
    return {"instances": out, "lateness_us": {str(k): v for k, v in sorted(late.items())}, "straggler_rank": straggler}


def main():
    spec = json.load(open(sys.argv[1]))
    ranks = sorted((load(p) for p in sys.argv[2:]), key=lambda r: r["rank"])
    setargs(ranks, spec)
    plant(ranks, spec)
    drop(ranks, spec)
    k = key(ranks)
    k["spec"] = spec
    json.dump(k, sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
