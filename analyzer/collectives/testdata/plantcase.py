#!/usr/bin/env python3
"""Plant stragglers (and metadata loss) into real rank traces, write the
planted traces, and compute independently what the cross-rank view must say.
Standard library only; shares no code with the analyzer.

Usage: plantcase.py SPEC.json OUTDIR TRACE...   (writes OUTDIR/traces/*.json.gz, OUTDIR/key.json)

SPEC keys (all optional but plants):
  clone: N            one trace given: N ranks, copies of it (distributedInfo.rank = 0..N-1)
  plants: [{mode: host|gpu|step, rank, delay_us, pg, kind, index}]
     host: rank's host launches the collective late: from its launch call on, every
           event of the rank (CPU and GPU) starts delay later; spans open across it grow.
     gpu:  an extra kernel of delay_us is inserted on the rank just before the collective
           (after the last compute kernel before it); the rank's GPU ops after it shift.
     both: the peers' instance kernel lasts delay longer and their later GPU ops shift.
     step: crude: every event of the rank inside the step holding the collective shifts by delay;
           peers untouched.
  drop: [{rank, pg, kind, index}]   the rank's kernel of that instance and its launch are removed
  strip: [arg names] | "all"        removed from every event's args
  rename: {"regex": "replacement"}  kernel names of collectives rewritten
  pg_map: {rank: {kind: pg}}        the rank's collectives of a kind get that Process Group Name
                                    (a TP x DP mesh from one job's traces); applied before strip
  base_shift_s: {rank: S}           baseTimeNanoseconds += S s and every ts -= S s (same instants)
Key: matched by each kernel's identity in the unplanted trace (pg, kind, index); kind and
pg from the planted trace's final args/names (the analyzer's view).
"""
import copy, gzip, json, os, re, sys
from plantlib import D, GPU, factor, is_coll, is_launch, kind_of, load, nbytes


def index(doc):
    """collectives of a doc by (pg, kind) in issue order; launch ts by correlation."""
    ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
    launch, cpu_args = {}, {}
    for e in ev:
        a = e.get("args") or {}
        if is_launch(e) and a.get("correlation") is not None:
            launch.setdefault(a["correlation"], e)
        if e.get("cat") == "cpu_op" and "Collective name" in a and a.get("External id") is not None:
            cpu_args[a["External id"]] = a
    colls = {}
    for e in ev:
        if is_coll(e):
            kind, a = kind_of(e, cpu_args)
            colls.setdefault((str(a.get("Process Group Name", "")), kind), []).append(e)
    def issue(e):
        l = launch.get((e.get("args") or {}).get("correlation"))
        return (l["ts"] if l else e["ts"], e["ts"])
    for ks in colls.values():
        ks.sort(key=issue)
    return ev, launch, cpu_args, colls


def rank_of(doc):
    return int((doc.get("distributedInfo") or {}).get("rank", 0))


def plant(docs, spec):
    byrank = {rank_of(d): d for d in docs}
    idx = {r: index(d) for r, d in byrank.items()}
    for p in spec.get("plants", []):
        delay = D(str(p["delay_us"]))
        key = (p.get("pg", ""), p["kind"])
        for r, (ev, launch, _, colls) in idx.items():
            if key not in colls or p["index"] >= len(colls[key]):
                continue  # not in this rank's group
            c = colls[key][p["index"]]
            gpu = [e for e in ev if e.get("cat") in GPU and e.get("ph") == "X"]
            if r == p["rank"]:
                if p["mode"] == "step":
                    steps = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
                             and e["ts"] <= (launch.get(c["args"].get("correlation")) or c)["ts"] <= e["ts"] + e["dur"]]
                    s = steps[0]
                    lo, hi = s["ts"], s["ts"] + s["dur"]
                    # the step's CPU events and the kernels they launched
                    corrs = {l["args"]["correlation"] for l in ev if is_launch(l) and lo <= l["ts"] <= hi and "correlation" in (l.get("args") or {})}
                    for e in ev:
                        if "ts" not in e or e.get("ph") not in ("X", "i", "s", "f"):
                            continue
                        a = e.get("args") or {}
                        if (e.get("cat") in GPU and a.get("correlation") in corrs) or (e.get("cat") not in GPU and lo <= e["ts"] <= hi):
                            e["ts"] += delay
                    continue
                prevc = max([e["ts"] for e in gpu if is_coll(e) and e["ts"] < c["ts"]], default=None)
                before = [e for e in gpu if e.get("cat") == "kernel" and not is_coll(e) and e["ts"] < c["ts"] and (prevc is None or e["ts"] > prevc)]
                if p["mode"] == "gpu":
                    last = max(before, key=lambda e: e["ts"]) if before else None
                    t0 = (last["ts"] + last["dur"]) if last else c["ts"]
                    t0 = min(t0, c["ts"])
                    for e in gpu:
                        if e["ts"] >= t0:
                            e["ts"] += delay
                    a = dict((last or c).get("args") or {})
                    a = {k: a[k] for k in ("device", "stream", "context") if k in a}
                    a["correlation"] = D(987654321 + len(ev))
                    ev.append({"ph": "X", "cat": "kernel", "name": "planted_extra_gemm_kernel", "pid": (last or c).get("pid"),
                               "tid": (last or c).get("tid"), "ts": t0, "dur": delay, "args": a})
                    doc = byrank[r]
                    doc["traceEvents"].append(ev[-1])
                else:  # host
                    l = launch.get(c["args"].get("correlation"))
                    t0 = l["ts"] if l else c["ts"]
                    tc = c["ts"]
                    for e in ev:
                        if "ts" not in e or e.get("ph") not in ("X", "i"):
                            continue
                        if e.get("cat") in GPU:
                            if e["ts"] >= tc:
                                e["ts"] += delay
                        elif e["ts"] >= t0:
                            e["ts"] += delay
                        elif e.get("ph") == "X" and e["ts"] + e.get("dur", 0) > t0:
                            e["dur"] += delay  # open across the stall
            elif p["mode"] != "step":
                t0 = c["ts"]
                for e in gpu:
                    if e["ts"] > t0:
                        e["ts"] += delay
                c["dur"] += delay
    return idx


def identities(docs):
    """id(event) -> (pg, kind, index) from the unplanted docs."""
    out = {}
    for d in docs:
        for key, ks in index(d)[3].items():
            for i, e in enumerate(ks):
                out[id(e)] = (rank_of(d), key, i)
    return out


def main():
    spec = json.load(open(sys.argv[1]))
    outdir = sys.argv[2]
    docs = [load(p) for p in sys.argv[3:]]
    if spec.get("clone"):
        base = docs[0]
        docs = []
        for r in range(spec["clone"]):
            d = copy.deepcopy(base)
            d.setdefault("distributedInfo", {})["rank"] = r
            d["distributedInfo"]["world_size"] = spec["clone"]
            docs.append(d)
    ident = identities(docs)
    plant(docs, spec)
    byrank = {rank_of(d): d for d in docs}
    for dr in spec.get("drop", []):
        d = byrank[dr["rank"]]
        ev, launch, _, colls = index(d)
        c = colls[(dr.get("pg", ""), dr["kind"])][dr["index"]]
        l = launch.get(c["args"].get("correlation"))
        d["traceEvents"] = [e for e in d["traceEvents"] if e is not c and e is not l]
    for r, m in (spec.get("pg_map") or {}).items():
        d = byrank[int(r)]
        ev, _, cpu_args, colls = index(d)
        for (pg, kind), ks in colls.items():
            if kind in m:
                for e in ks:
                    e["args"]["Process Group Name"] = m[kind]
                    ext = e["args"].get("External id")
                    if ext in cpu_args:
                        cpu_args[ext]["Process Group Name"] = m[kind]
    strip = spec.get("strip")
    if strip:
        for d in docs:
            for e in d["traceEvents"]:
                a = e.get("args") if isinstance(e, dict) else None
                if not a:
                    continue
                for k in list(a):
                    if (strip == "all" and k in ("Collective name", "In msg nelems", "Out msg nelems", "dtype", "Group size", "Process Group Name",
                                                 "Process Group Description", "Process Group Ranks", "In split size", "Out split size", "Seq",
                                                 "Global rank start", "Global rank stride", "Rank")) or k in strip:
                        del a[k]
    for pat, rep in (spec.get("rename") or {}).items():
        rx = re.compile(pat)
        for d in docs:
            for e in d["traceEvents"]:
                if isinstance(e, dict) and is_coll(e):
                    e["name"] = rx.sub(rep, e["name"])
    for r, s in (spec.get("base_shift_s") or {}).items():
        d = byrank[int(r)]
        d["baseTimeNanoseconds"] = int(d.get("baseTimeNanoseconds", 0)) + int(s) * 10**9
        for e in d["traceEvents"]:
            if isinstance(e, dict) and "ts" in e:
                e["ts"] -= D(int(s) * 10**6)
    # key, from the final docs
    finals = {}
    for d in docs:
        r = rank_of(d)
        ev, launch, cpu_args, colls = index(d)
        base = int(d.get("baseTimeNanoseconds", 0) or 0)
        for key, ks in colls.items():
            for e in ks:
                if id(e) in ident:
                    _, okey, oi = ident[id(e)]
                    finals.setdefault((okey + key, oi), {})[r] = (key, e, base, cpu_args)
    lo = min(int(d.get("baseTimeNanoseconds", 0) or 0) for d in docs)
    ranks = sorted(byrank)
    out, late = [], {r: 0.0 for r in ranks}
    # group membership: ranks that have the group at all
    members = {}
    for (okey, oi), per in finals.items():
        members.setdefault(okey, set()).update(per)
    for (okey, oi), per in sorted(finals.items(), key=lambda x: (x[0][0], x[0][1])):
        if set(per) != members[okey]:
            continue  # a rank misses it: no instance
        any_ = next(iter(per.values()))
        start = {r: int(v[1]["ts"] * 1000) + v[2] - lo for r, v in per.items()}
        end = {r: int((v[1]["ts"] + v[1]["dur"]) * 1000) + v[2] - lo for r, v in per.items()}
        latest, earliest = max(start.values()), min(start.values())
        lastr = min(r for r in start if start[r] == latest)
        skew = (latest - earliest) / 1000
        transfer = (min(end.values()) - latest) / 1000
        kind_final = any_[0][1]
        _, a = kind_of(any_[1], any_[3])
        nb = nbytes(a)
        group = int(a.get("Group size", 0) or 0) or len(per)
        algbw = nb / (transfer * 1e3) if nb and transfer > 0 else None
        late[lastr] += skew
        out.append({"orig": [okey[0], okey[1], oi], "id": [okey[2], okey[3], oi], "pg": any_[0][0], "kind": kind_final, "skew_us": skew, "last_rank": lastr,
                    "start_ns": {str(r): s for r, s in sorted(start.items())},
                    "wait_us": {str(r): (latest - s) / 1000 for r, s in sorted(start.items())},
                    "transfer_us": transfer, "bytes": nb,
                    "busbw_gbps": algbw * factor(kind_final, group) if algbw is not None else None})
    straggler = max(sorted(late), key=lambda rk: late[rk])
    os.makedirs(os.path.join(outdir, "traces"), exist_ok=True)
    for d in docs:
        with gzip.open(os.path.join(outdir, "traces", "rank%d.json.gz" % rank_of(d)), "wt") as f:
            json.dump(d, f, default=lambda x: int(x) if x == int(x) else float(x))
    json.dump({"spec": spec, "instances": out, "lateness_us": {str(k): v for k, v in late.items()}, "straggler_rank": straggler},
              open(os.path.join(outdir, "key.json"), "w"), indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
