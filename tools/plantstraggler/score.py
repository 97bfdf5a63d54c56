#!/usr/bin/env python3
"""Score gputriage's cross-rank artifacts against plant.py's keys.

    score.py KEYS.json OUTROOT [--json]   # OUTROOT/<case>/{ranks,collectives}.json from `gputriage breakdown -o`
                                          # --json: the score as JSON on stdout, the text on stderr

A plant (rank R, step S, collective C) is NAMED when ranks.json names it: a `stalls` row with
R, S and C, or S's step row with straggler_rank R and collective C (or stall_rank R and
stall_collective C). Lenient (reported apart): S's row names R and C as its largest skew
(worst_rank/worst_collective). EFFECTIVE plants are those that made R arrive later relative to its
peers by at least half the planted µs and made R the last to arrive (a host stall a queued GPU
absorbed, or a delay with another rank later still, made no one wait for R).
Per instance: skew, every rank's wait, transfer and busbw within 2 % of the key (+1 ns rounding).
FALSE: a stall on a control, or on an instance no plant changed.
Step labels: plant.py numbers repeated top-level annotations from 1 (decode_step#1); gputriage
writes them from 0 and leaves an unrepeated one bare (prefill): the key's label is converted.
"""
import json
import os
import sys


def step_label(key_step, counts):
    if key_step is None or "#" not in key_step or key_step.startswith("ProfilerStep#"):
        return key_step
    name, k = key_step.rsplit("#", 1)
    return name if counts.get(name, 0) <= 1 else "%s#%d" % (name, int(k) - 1)


def close(a, k):
    if k is None or a is None:
        return a is None and k is None
    return abs(a - k) <= 0.02 * abs(k) + 0.001


def names(label, kind, index):
    """gputriage's collective label: "allreduce #7", with " (pg …)" when the group has a name."""
    c = "%s #%d" % (kind, index)
    return label == c or (label or "").startswith(c + " (")


def score_case(case, out):
    res = {"name": case["name"], "plants": [], "instances": 0, "instance_fail": [], "false": []}
    try:
        ranks = json.load(open(os.path.join(out, "ranks.json")))
        colls = json.load(open(os.path.join(out, "collectives.json")))
    except OSError as e:
        res["error"] = str(e)
        return res
    counts = {}
    for it in case["instances"]:
        if it["step"] and "#" in it["step"]:
            n = it["step"].rsplit("#", 1)[0]
            counts.setdefault(n, set()).add(it["step"])
    counts = {k: len(v) for k, v in counts.items()}
    rows = {(r["pg"], r["kind"], r["index"]): r for r in colls["rows"]}
    for it in case["instances"]:
        res["instances"] += 1
        r = rows.get((it["pg"], it["kind"], it["index"]))
        bad = []
        if r is None:
            bad.append("missing")
        else:
            if not close(r["skew_us"], it["skew_us"]):
                bad.append("skew %s vs %s" % (r["skew_us"], it["skew_us"]))
            if not close(r["transfer_us"], it["transfer_us"]):
                bad.append("transfer %s vs %s" % (r["transfer_us"], it["transfer_us"]))
            if not close(r.get("busbw_gbps"), it["busbw_gbps"]):
                bad.append("busbw %s vs %s" % (r.get("busbw_gbps"), it["busbw_gbps"]))
            w = {str(x["rank"]): x["wait_us"] for x in r["ranks"]}
            for rk, kw in it["wait_us"].items():
                if not close(w.get(rk), kw):
                    bad.append("wait[%s] %s vs %s" % (rk, w.get(rk), kw))
            # a tie at the latest start: any rank there is last
            if r["last_rank"] != it["last_rank"] and it["wait_us"].get(str(r["last_rank"])) != 0:
                bad.append("last_rank %s vs %s" % (r["last_rank"], it["last_rank"]))
        if bad:
            res["instance_fail"].append({"pg": it["pg"], "kind": it["kind"], "index": it["index"], "why": bad})
    steps = {s["step"]: s for s in ranks.get("steps") or []}
    stalls = ranks.get("stalls") or []
    planted = set()
    for p in case["plants"]:
        planted.add((p["rank"], p["coll"], p["index"]))
        st = step_label(p["step"], counts)
        c = "%s #%d" % (p["coll"], p["index"])
        row = steps.get(st) or {}
        by_stall = any(s["rank"] == p["rank"] and s["kind"] == p["coll"] and s["index"] == p["index"] for s in stalls)
        by_step = (row.get("straggler_rank") == p["rank"] and names(row.get("collective"), p["coll"], p["index"])) or \
                  (row.get("stall_rank") == p["rank"] and names(row.get("stall_collective"), p["coll"], p["index"]))
        lenient = row.get("worst_rank") == p["rank"] and names(row.get("worst_collective"), p["coll"], p["index"])
        effective = p["offset_gain_us"] >= 0.5 * p["us"] and p["last_rank_after"] == p["rank"]
        res["plants"].append({"rank": p["rank"], "kind": p["kind"], "coll": c, "step": st, "us": p["us"],
                              "effective": effective, "offset_gain_us": p["offset_gain_us"],
                              "named": by_stall or by_step, "by_stall": by_stall, "by_step": by_step,
                              "lenient": by_stall or by_step or lenient,
                              "step_row": {k: row.get(k) for k in ("straggler_rank", "collective", "worst_rank", "worst_collective", "stall_rank", "stall_collective")}})
    changed = {(c["pg"], c["kind"], c["index"]) for c in case["changed_instances"]}
    for s in stalls:
        if (s["rank"], s["kind"], s["index"]) in planted:
            continue
        if (s.get("pg", ""), s["kind"], s["index"]) in changed:
            continue
        res["false"].append({k: s.get(k) for k in ("rank", "step", "collective", "excess_us", "threshold_us")})
    return res


def main():
    keys = json.load(open(sys.argv[1]))
    root = sys.argv[2]
    allres = [score_case(c, os.path.join(root, c["name"])) for c in keys["cases"]]
    text = sys.stderr if "--json" in sys.argv else sys.stdout

    def print_(*a):
        print(*a, file=text)
    tot = {"plants": 0, "effective": 0, "named": 0, "lenient": 0, "instances": 0, "instance_fail": 0, "false": 0}
    for r in allres:
        eff = [p for p in r["plants"] if p["effective"]]
        tot["plants"] += len(r["plants"])
        tot["effective"] += len(eff)
        tot["named"] += sum(p["named"] for p in eff)
        tot["lenient"] += sum(p["lenient"] for p in eff)
        tot["instances"] += r["instances"]
        tot["instance_fail"] += len(r["instance_fail"])
        tot["false"] += len(r["false"])
        line = "%-18s named %d/%d (lenient %d, planted %d)  instances %d/%d within 2%%  false stalls %d%s" % (
            r["name"], sum(p["named"] for p in eff), len(eff), sum(p["lenient"] for p in eff), len(r["plants"]),
            r["instances"] - len(r["instance_fail"]), r["instances"], len(r["false"]), "  ERROR " + r["error"] if "error" in r else "")
        print_(line)
        for p in r["plants"]:
            if p["effective"] and not p["named"]:
                print_("    missed r%d %s %s %s %gus gain %.0f: %s" % (p["rank"], p["kind"], p["coll"], p["step"], p["us"], p["offset_gain_us"], p["step_row"]))
        for f in r["instance_fail"][:3]:
            print_("    instance", f)
        for f in r["false"][:3]:
            print_("    false", f)
    print_("TOTAL named %(named)d/%(effective)d effective plants (lenient %(lenient)d; %(plants)d planted), "
          "instances within 2%%: %(ok)d/%(instances)d, false stalls %(false)d" % dict(tot, ok=tot["instances"] - tot["instance_fail"]))
    if "--json" in sys.argv:
        json.dump({"total": tot, "cases": allres}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
