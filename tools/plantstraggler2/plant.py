#!/usr/bin/env python3
"""Plant stragglers into real multi-rank Kineto traces — a second, independent planter (issue 19).

Written from the issue's definitions and docs/artifacts.md only, without reading analyzer/ranks,
analyzer/collectives or tools/plantstraggler. Python 3 standard library only.

Usage: plant.py [--plain] PLAN.json SHARED_ROOT OUT_DIR [CASE...]

SHARED_ROOT is the folder holding `testdata/` (../shared). For each case OUT_DIR/<case>/ gets one
trace per rank (gzip, or plain JSON with --plain) and OUT_DIR/keys.json the key of every case run.
A case without plants writes no traces: its key names the original files (`source`).

Planting methods (each changes one rank before one collective instance, then the whole job moves
on together, see `settle`):

- freeze  — the rank's process and GPU stop for `us` at a time T halfway between its previous
            collective's end and the target collective's start: every event of that rank (CPU ops,
            runtime calls, kernels, annotations, flows) at or after T starts `us` later; CPU ops and
            annotations spanning T last `us` longer; a kernel running at T is left as it is. Only
            planted where the rank already arrives last (so its own later events and its peers'
            move by the same amount and nothing downstream is inconsistent).
- stretch — the rank's compute phase before the collective (its non-collective kernels that start
            between its previous collective's start and the target's start, every stream) runs
            slower by one factor chosen so that it lasts `us` longer; later kernels of the phase
            move by the time added before them; the CPU is untouched (it was ahead).
- gemm    — a synthetic extra kernel of `us`, a copy of the rank's most launched GEMM kernel
            (same name, grid, block; a fresh correlation id, no launch on the CPU: an orphan kernel
            as many real ROCm traces have), runs on the compute stream right before the collective.
- persistent — `stretch` by `us` before every collective of a kind in a range of steps: a rank a
            little slow at every layer.

settle: after the planted rank's collective kernel starts S later, the instance's latest start
moves by D = max(0, new latest start − old latest start). Every rank's kernel of the instance ends
D later (the transfer happens once the last rank arrived), and every event of every rank from the
old end of its kernel on — CPU and GPU — moves D later (CPU ops and annotations spanning that
moment last D longer): the job as a whole is D behind. Only the planted instance's skew changes.

The key (per instance, from the planted timestamps, by the issue's definitions): each rank's
kernel start and end, wait = latest start − its start, skew = latest start − earliest start,
first/last rank, transfer = earliest end − latest start, bytes = max(In, Out msg nelems) × dtype
size, algbw = bytes / transfer, busbw = algbw × NCCL's factor (all_reduce 2(n−1)/n; all_gather,
reduce_scatter, all_to_all (n−1)/n; broadcast, reduce, send/recv 1), step = the last rank's
top-level annotation around the launch (numbered `name#k` from 0 when the name repeats). Instances
are matched by identity: the k-th collective kernel of a process group and kind on each rank (in
launch order), whatever the planter did to its time.
"""
import copy
import gzip
import hashlib
import json
import os
import sys

GPU_OPS = ("kernel", "gpu_memcpy", "gpu_memset")
GPU_ANN = ("gpu_user_annotation",)
KIND_BY_NAME = [  # kernel-name fragment (lower case) -> kind
    ("allreduce", "allreduce"), ("all_reduce", "allreduce"),
    ("allgather", "allgather"), ("all_gather", "allgather"),
    ("reducescatter", "reducescatter"), ("reduce_scatter", "reducescatter"),
    ("alltoall", "alltoall"), ("all_to_all", "alltoall"),
    ("sendrecv", "sendrecv"), ("broadcast", "broadcast"), ("reduce", "reduce"),
]
FACTOR = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
}
DTYPE_BYTES = {"bfloat16": 2, "half": 2, "float16": 2, "float": 4, "float32": 4, "double": 8,
               "float64": 8, "int": 4, "int32": 4, "long": 8, "int64": 8, "byte": 1, "char": 1,
               "int8": 1, "uint8": 1, "bool": 1, "short": 2, "int16": 2}


def coll_kind(ev):
    n = ev.get("name", "").lower()
    if "nccl" not in n and "rccl" not in n:
        return None
    for frag, kind in KIND_BY_NAME:
        if frag in n:
            return kind
    return "collective"


class Rank:
    """One rank's trace, its events' times as planted so far, and its collective kernels."""

    def __init__(self, path):
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "rt") as f:
            self.doc = json.load(f)
        self.path = path
        self.ev = self.doc["traceEvents"]
        self.rank = int(self.doc["distributedInfo"]["rank"])
        self.orig = [(e.get("ts"), e.get("dur")) for e in self.ev]
        self.n0 = len(self.ev)
        self.added = 0
        self.pushed = 0
        self.ins_at = {}  # inserted op index -> the real time it was put at
        self.index()

    def restore(self):
        """Back to the real trace's times (a set is read once and planted case after case)."""
        del self.ev[self.n0:]
        self.ins_at = {}
        for e, (ts, dur) in zip(self.ev, self.orig):
            if ts is not None:
                e["ts"] = ts
            if dur is not None:
                e["dur"] = dur
        self.added = 0

    def index(self):
        ev = self.ev
        corr_kernel = {}
        launch = {}
        for i, e in enumerate(ev):
            c = e.get("cat")
            a = e.get("args") or {}
            if c in GPU_OPS and "correlation" in a:
                corr_kernel[a["correlation"]] = i
            elif c in ("cuda_runtime", "cuda_driver", "hip_runtime") and "correlation" in a:
                launch[a["correlation"]] = i
        self.corr_kernel = corr_kernel
        self.launch = launch
        self.flow_of = {}  # kernel index -> its flow end events
        for i, e in enumerate(ev):
            if e.get("ph") == "f" and e.get("cat") == "ac2g":
                k = corr_kernel.get(e.get("id"))
                if k is not None:
                    self.flow_of.setdefault(k, []).append(i)
        colls = []
        for i, e in enumerate(ev):
            if e.get("cat") != "kernel" or e.get("ph") != "X":
                continue
            k = coll_kind(e)
            if k is None:
                continue
            a = e.get("args") or {}
            pg = str(a.get("Process Group Name", ""))
            li = launch.get(a.get("correlation"))
            order = ev[li]["ts"] if li is not None else e["ts"]
            colls.append((pg, k, order, e["ts"], i))
        colls.sort(key=lambda x: (x[2], x[3]))
        self.colls = {}  # (pg, kind) -> [event index] in launch order
        self.all_colls = []  # every collective kernel index in launch order
        self.coll_key = {}  # kernel index -> (pg, kind, index)
        for pg, k, _, _, i in colls:
            self.coll_key[i] = (pg, k, len(self.colls.get((pg, k), [])))
            self.colls.setdefault((pg, k), []).append(i)
            self.all_colls.append(i)
        # top-level CPU annotations (steps), sorted
        anns = [i for i, e in enumerate(ev) if e.get("cat") == "user_annotation" and e.get("ph") == "X"]
        anns.sort(key=lambda i: (ev[i]["ts"], -ev[i].get("dur", 0)))
        top = []
        end = None
        for i in anns:
            e = ev[i]
            if end is not None and e["ts"] < end:
                continue
            top.append(i)
            end = e["ts"] + e.get("dur", 0)
        counts = {}
        for i in top:
            counts[ev[i]["name"]] = counts.get(ev[i]["name"], 0) + 1
        seen = {}
        self.steps = []  # (event index, label)
        for i in top:
            n = ev[i]["name"]
            if counts[n] > 1 and "#" not in n:
                lab = "%s#%d" % (n, seen.get(n, 0))
                seen[n] = seen.get(n, 0) + 1
            else:
                lab = n
            self.steps.append((i, lab))

    def step_of(self, kidx):
        """The top-level annotation around the launch of kernel kidx (else around the kernel)."""
        a = self.ev[kidx].get("args") or {}
        li = self.launch.get(a.get("correlation"))
        t = self.ev[li]["ts"] if li is not None else self.ev[kidx]["ts"]
        for i, lab in self.steps:
            e = self.ev[i]
            if e["ts"] <= t <= e["ts"] + e.get("dur", 0):
                return lab
        return ""

    def shift_from(self, t, d, skip=()):
        """Every event at or after t starts d later; CPU ops and annotations spanning t last d
        longer; a GPU op running at t is left alone; flow ends follow their kernel."""
        if d == 0:
            return
        moved_k = []
        for i, e in enumerate(self.ev):
            if i in skip:
                continue
            ts = e.get("ts")
            if ts is None or isinstance(ts, str):
                continue
            ph = e.get("ph")
            if ph == "f":
                continue
            if ts >= t:
                e["ts"] = ts + d
                if e.get("cat") in GPU_OPS:
                    moved_k.append(i)
            elif ph == "X" and e.get("cat") not in GPU_OPS and ts + e.get("dur", 0) > t:
                e["dur"] = e["dur"] + d
        self.fix_flows(moved_k)

    def fix_flows(self, kernels):
        """A flow's end sits on its kernel's start."""
        for k in kernels:
            for f in self.flow_of.get(k, ()):
                self.ev[f]["ts"] = self.ev[k]["ts"]

    def push(self):
        """Stream order: a GPU op starts no earlier than the op before it on its stream ends
        (ops a plant lengthened or inserted push the rest of their stream later until a gap
        absorbs it). Order is the real trace's; an inserted op goes before the ops that started
        where it was put. A collective kernel is not pushed here: a stream stops before it and
        it is returned with the start it needs, (needed ts, index), the earliest one, else None
        (the caller settles its instance and pushes again)."""
        per = {}
        for i, e in enumerate(self.ev):
            if e.get("cat") in GPU_OPS and e.get("ph") == "X":
                o = (self.orig[i][0], 0) if i < self.n0 else (self.ins_at[i], -1)
                per.setdefault((e["pid"], e["tid"]), []).append((o, i))
        colls = set(self.all_colls)
        moved = []
        pending = None
        for ops in per.values():
            ops.sort()
            end = None
            for _, i in ops:
                e = self.ev[i]
                if end is not None and e["ts"] < end:
                    if i in colls:
                        if pending is None or e["ts"] < self.ev[pending[1]]["ts"]:
                            pending = (end, i)
                        break
                    e["ts"] = end
                    moved.append(i)
                end = e["ts"] + e["dur"] if end is None else max(end, e["ts"] + e["dur"])
        self.fix_flows(moved)
        self.pushed += len(moved)
        return pending

    def prev_coll_end(self, kidx, edge="end"):
        """End (or start) of this rank's collective kernel just before kidx (any kind), else the
        start of the step around kidx."""
        s = self.ev[kidx]["ts"]
        best = None
        for i in self.all_colls:
            e = self.ev[i]
            end = e["ts"] + e["dur"]
            t = end if edge == "end" else e["ts"]
            if i != kidx and e["ts"] < s and end <= s and (best is None or t > best):
                best = t
        if best is None:
            lab = self.step_of(kidx)
            for i, l in self.steps:
                if l == lab:
                    best = self.ev[i]["ts"]
        return best

    def write(self, out, plain):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if plain:
            with open(out, "w") as f:
                json.dump(self.doc, f, separators=(",", ":"))
        else:
            with gzip.open(out, "wt", compresslevel=1) as f:
                json.dump(self.doc, f, separators=(",", ":"))


def inst(ranks, pg, kind, idx):
    return [(r, r.colls[(pg, kind)][idx]) for r in ranks]


def latest_start(pairs):
    return max(r.ev[k]["ts"] for r, k in pairs)


def settle(ranks, pairs, old_ends, L0, planted, moved=(), from_ts=None):
    """After a plant moved the planted rank's kernel start, move the instance's ends and every
    rank's later events by D (module docstring). old_ends: rank -> its kernel's end before;
    moved: the planted rank's events the plant already placed."""
    L1 = latest_start(pairs)
    D = max(0.0, L1 - L0)
    for r, k in pairs:
        e = r.ev[k]
        new_end = old_ends[r.rank] + D
        if D > 0:
            t = from_ts if r is planted and from_ts is not None else old_ends[r.rank]
            r.shift_from(t, D, skip=(set(moved) if r is planted else set()) | {k})
        e["dur"] = new_end - e["ts"]
        if e["dur"] <= 0:
            raise SystemExit("plant left a non-positive collective duration on rank %d" % r.rank)
    return D


def push_and_settle(ranks, r):
    """Push the planted rank's streams; a collective kernel the push reaches starts later, its
    instance is settled like a plant's (the job moves on together), and the push goes on.
    Returns the knock-on instances: a plant that makes the rank late at a later collective too."""
    knock = []
    r.pushed = 0
    while True:
        pend = r.push()
        if pend is None:
            return knock
        need, c = pend
        pg, kind, j = r.coll_key[c]
        pairs = inst(ranks, pg, kind, j)
        L0 = latest_start(pairs)
        old_ends = {q.rank: q.ev[kk]["ts"] + q.ev[kk]["dur"] for q, kk in pairs}
        r.ev[c]["ts"] = need
        r.fix_flows([c])
        # the planted rank moves on from the kernel's new start: the ops pushed before it
        # (now between its old end and its new start) must not move again
        D = settle(ranks, pairs, old_ends, L0, r, from_ts=need)
        knock.append({"pg": pg, "kind": kind, "index": j, "lateness_added_us": round(D, 3)})


def plant_one(ranks, p, log):
    byrank = {r.rank: r for r in ranks}
    r = byrank[p["rank"]]
    pg, kind, idx = p["pg"], p["kind"], p["index"]
    pairs = inst(ranks, pg, kind, idx)
    k = r.colls[(pg, kind)][idx]
    L0 = latest_start(pairs)
    before = instance_row(ranks, pg, kind, idx)
    old_ends = {q.rank: q.ev[kk]["ts"] + q.ev[kk]["dur"] for q, kk in pairs}
    s = r.ev[k]["ts"]
    us = float(p["us"])
    method = p["method"]
    extra = {}
    if method == "freeze":
        if s < L0:
            raise SystemExit("freeze needs rank %d last at %s #%d" % (r.rank, kind, idx))
        prev = r.prev_coll_end(k)
        T = prev + 0.5 * (s - prev)
        r.shift_from(T, us)
        extra["freeze_at_us"] = round(T, 3)
        # the rank's own later events already moved by us == D: settle only the peers
        L1 = latest_start(pairs)
        D = L1 - L0
        for q, kk in pairs:
            if q is r:
                continue
            q.shift_from(old_ends[q.rank], D, skip={kk})
            q.ev[kk]["dur"] = old_ends[q.rank] + D - q.ev[kk]["ts"]
    elif method in ("stretch", "persistent"):
        # from the previous collective's start: on the H200 pair the next layer's kernels run on
        # the compute stream while the all-reduce before waits on its own stream
        prev = r.prev_coll_end(k, "start")
        coll_set = set(r.all_colls)
        ops = [i for i, e in enumerate(r.ev) if e.get("cat") in GPU_OPS and i not in coll_set
               and e.get("ph") == "X" and prev <= e["ts"] < s]
        ops.sort(key=lambda i: r.ev[i]["ts"])
        phase = [i for i in ops if r.ev[i]["cat"] == "kernel"]
        kt = sum(r.ev[i]["dur"] for i in phase)
        if kt <= 0 and method == "persistent":  # back-to-back collectives: nothing to slow
            log.append({"rank": r.rank, "method": method, "pg": pg, "kind": kind, "index": idx,
                        "us": us, "step": before["step"], "skipped": "no compute before it",
                        "effective": False, "lateness_added_us": 0})
            return
        if kt <= 0:
            raise SystemExit("no compute before %s #%d on rank %d" % (kind, idx, r.rank))
        f = 1.0 + us / kt
        acc = 0.0
        for i in ops:  # kernels run f times longer; copies and fills only move
            e = r.ev[i]
            e["ts"] += acc
            if e["cat"] == "kernel":
                add = e["dur"] * (f - 1.0)
                e["dur"] += add
                acc += add
        phase = ops
        r.ev[k]["ts"] = s + us
        r.fix_flows(phase + [k])
        extra["factor"] = round(f, 4)
        extra["phase_kernels"] = len(phase)
        extra["phase_kernel_us"] = round(kt, 3)
        D = settle(ranks, pairs, old_ends, L0, r, moved=phase)
        extra["knock_on"] = push_and_settle(ranks, r)
        extra["pushed_ops"] = r.pushed
    elif method == "gemm":
        coll_set = set(r.all_colls)
        names = {}
        for i, e in enumerate(r.ev):
            if e.get("cat") == "kernel" and i not in coll_set:
                n = e["name"].lower()
                if "gemm" in n or "nvjet" in n or "cutlass" in n or n.startswith("cijk_"):
                    names.setdefault(e["name"], []).append(i)
        if not names:
            raise SystemExit("rank %d has no GEMM kernel to copy" % r.rank)
        tmpl = max(names.items(), key=lambda kv: (len(kv[1]), kv[0]))[1][0]
        # the compute stream: the stream of the last non-collective kernel before the target
        last = None
        for i, e in enumerate(r.ev):
            if e.get("cat") == "kernel" and i not in coll_set and e["ts"] < s and (last is None or e["ts"] > r.ev[last]["ts"]):
                last = i
        g = copy.deepcopy(r.ev[tmpl])
        g["pid"], g["tid"] = r.ev[last]["pid"], r.ev[last]["tid"]
        g["ts"], g["dur"] = s, us
        ga = g.setdefault("args", {})
        ga.pop("External id", None)
        ga["correlation"] = 900000000 + r.added
        if "stream" in (r.ev[last].get("args") or {}):
            ga["stream"] = r.ev[last]["args"]["stream"]
        r.added += 1
        r.ev[k]["ts"] = s + us
        r.fix_flows([k])
        D = settle(ranks, pairs, old_ends, L0, r)
        r.ev.append(g)  # after settle: it must not move with the peers' shift
        r.ins_at[len(r.ev) - 1] = s
        extra["knock_on"] = push_and_settle(ranks, r)
        extra["pushed_ops"] = r.pushed
        extra["kernel"] = g["name"]
        extra["stream"] = g["tid"]
    else:
        raise SystemExit("unknown method %r" % method)
    after = instance_row(ranks, pg, kind, idx)
    row = {"rank": r.rank, "method": method, "pg": pg, "kind": kind, "index": idx, "us": us,
           "step": after["step"], "lateness_added_us": round(D, 3),
           "skew_before_us": before["skew_us"], "skew_after_us": after["skew_us"],
           "last_rank_before": before["last_rank"], "last_rank_after": after["last_rank"],
           "effective": D > 0 and after["last_rank"] == r.rank}
    row.update(extra)
    log.append(row)


def instance_row(ranks, pg, kind, idx):
    pairs = inst(ranks, pg, kind, idx)
    rows = []
    for r, k in pairs:
        e = r.ev[k]
        rows.append({"rank": r.rank, "start_us": e["ts"], "end_us": e["ts"] + e["dur"]})
    L = max(x["start_us"] for x in rows)
    first = min(rows, key=lambda x: (x["start_us"], x["rank"]))
    last = max(rows, key=lambda x: (x["start_us"], -x["rank"]))
    for x in rows:
        x["wait_us"] = L - x["start_us"]
    transfer = min(x["end_us"] for x in rows) - L
    lr, lk = [(r, k) for r, k in pairs if r.rank == last["rank"]][0]
    a = lr.ev[lk].get("args") or {}
    nb = None
    if "In msg nelems" in a or "Out msg nelems" in a:
        ne = max(int(a.get("In msg nelems", 0) or 0), int(a.get("Out msg nelems", 0) or 0))
        sz = DTYPE_BYTES.get(str(a.get("dtype", "")).lower())
        if sz:
            nb = ne * sz
    n = int(a.get("Group size", len(pairs)) or len(pairs))
    algbw = busbw = None
    if nb is not None and transfer > 0:
        algbw = nb / (transfer * 1000.0)
        busbw = algbw * FACTOR.get(kind, lambda n: 1.0)(n)
    return {"pg": pg, "kind": kind, "index": idx, "step": lr.step_of(lk),
            "ranks": [{"rank": x["rank"], "start_us": round(x["start_us"], 3),
                       "end_us": round(x["end_us"], 3), "wait_us": round(x["wait_us"], 3)} for x in rows],
            "skew_us": round(L - first["start_us"], 3), "first_rank": first["rank"],
            "last_rank": last["rank"], "transfer_us": round(transfer, 3), "bytes": nb,
            "group_size": n, "algbw_gbps": None if algbw is None else round(algbw, 6),
            "busbw_gbps": None if busbw is None else round(busbw, 6)}


def resolve(ranks, p):
    """A plan plant names its collective by step and position; give it its index."""
    if "index" in p:
        return [dict(p)]
    byrank = {r.rank: r for r in ranks}
    r = byrank[p["rank"]]
    pg, kind = p.get("pg", ""), p["kind"]
    if (pg, kind) not in r.colls:
        raise SystemExit("no %s in pg %r on rank %d" % (kind, pg, r.rank))
    steps = p["steps"] if "steps" in p else [p["step"]]
    out = []
    for st in steps:
        cand = [j for j, k in enumerate(r.colls[(pg, kind)]) if r.step_of(k) == st]
        if not cand:
            raise SystemExit("no %s in %s on rank %d" % (kind, st, r.rank))
        if p.get("where") == "last":  # where the rank already arrives last (freeze)
            cand = [j for j in cand if instance_row(ranks, pg, kind, j)["last_rank"] == r.rank]
            if not cand:
                raise SystemExit("rank %d is never last at %s in %s" % (r.rank, kind, st))
        if p.get("every"):
            picks = cand
        else:
            picks = [cand[min(int(p.get("nth", 0)), len(cand) - 1)]]
        for j in picks:
            q = {k: v for k, v in p.items() if k not in ("steps", "step", "nth", "where", "every")}
            q["pg"], q["index"] = pg, j
            out.append(q)
    return out


def check_streams(r, orig_overlaps):
    """No GPU stream may run two ops at once where the real trace did not."""
    per = {}
    for e in r.ev:
        if e.get("cat") in GPU_OPS and e.get("ph") == "X":
            per.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    bad = 0
    for v in per.values():
        v.sort()
        for a, b in zip(v, v[1:]):
            if b[0] < a[1] - 0.01:
                bad += 1
    return bad


def count_overlaps(r):
    return check_streams(r, 0)


def main(argv):
    plain = False
    if argv and argv[0] == "--plain":
        plain, argv = True, argv[1:]
    if len(argv) < 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    plan_path, root, out = argv[0], argv[1], argv[2]
    only = set(argv[3:])
    with open(plan_path) as f:
        plan = json.load(f)
    os.makedirs(out, exist_ok=True)
    keys = {"tool": "tools/plantstraggler2/plant.py", "plan": os.path.basename(plan_path), "cases": []}
    cache = {}
    for case in plan["cases"]:
        if only and case["name"] not in only:
            continue
        files = [os.path.join(root, f) for f in plan["sets"][case["set"]]]
        sys.stderr.write("plant2: %s\n" % case["name"])
        ranks = cache.get(case["set"])
        if ranks is None:
            ranks = cache[case["set"]] = sorted((Rank(f) for f in files), key=lambda r: r.rank)
        for r in ranks:
            r.restore()
        before = {r.rank: count_overlaps(r) for r in ranks}
        log = []
        todo = [q for p in case.get("plants", []) for q in resolve(ranks, p)]
        byrank = {r.rank: r for r in ranks}
        # in time order: a plant's settle then moves every later one with the job
        todo.sort(key=lambda q: byrank[q["rank"]].ev[byrank[q["rank"]].colls[(q["pg"], q["kind"])][q["index"]]]["ts"])
        for q in todo:
            plant_one(ranks, q, log)
        for r in ranks:
            bad = count_overlaps(r)
            if bad > before[r.rank]:
                raise SystemExit("%s: rank %d: %d GPU ops overlap on a stream (real trace: %d)" %
                                 (case["name"], r.rank, bad, before[r.rank]))
        groups = sorted(ranks[0].colls)
        instances = []
        for pg, kind in groups:
            n = min(len(r.colls.get((pg, kind), [])) for r in ranks)
            for j in range(n):
                instances.append(instance_row(ranks, pg, kind, j))
        written = []
        if case.get("plants"):
            for r in ranks:
                base = os.path.basename(r.path)
                if base.endswith(".gz"):
                    base = base[:-3]
                dst = os.path.join(out, case["name"], base + ("" if plain else ".gz"))
                r.write(dst, plain)
                written.append(os.path.relpath(dst, out))
        blob = json.dumps(instances, sort_keys=True, separators=(",", ":")).encode()
        keys["cases"].append({
            "name": case["name"], "set": case["set"], "note": case.get("note", ""),
            "traces": written, "source": [] if written else plan["sets"][case["set"]],
            "plants": log, "instances": instances,
            "instances_sha256": hashlib.sha256(blob).hexdigest(),
        })
    with open(os.path.join(out, "keys.json"), "w") as f:
        json.dump(keys, f, indent=1, sort_keys=True)
    plants = {"cases": [{"name": c["name"], "plants": c["plants"], "instances": len(c["instances"]),
                         "instances_sha256": c["instances_sha256"]} for c in keys["cases"]]}
    with open(os.path.join(out, "keys.plants.json"), "w") as f:
        json.dump(plants, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
