#!/usr/bin/env python3
"""Scores gputriage's collectives.json / ranks.json against tools/plantstraggler3's key.

usage: score.py KEYS.json OUT_DIR [--json]      (OUT_DIR/<case>/ holds breakdown's artifacts)

Per case:
* instances: every key instance has a row (kind, index) whose last rank is the key's and whose
  skew, every rank's wait, transfer and busbw are within 2 % (or 0.05 us) of the key.
* plants expected named (a hoststall or throttle that made its rank last by >= 0.5 ms): named =
  a `stalls` row, or the step row's straggler or stall, gives the planted rank at the planted
  collective ("kind #index"); rank_only = the step's straggler is the planted rank at another
  collective; else missed. A multi-step throttle: every step where the rank was made the step's
  largest late-comer must have it as the step's straggler or stall (named), some (partly), none.
* secondary (a rank late together with a later planted rank): reported, never a miss or false;
  named when a `late_ranks` entry of the step row (at its collective) or of a stall row at the
  planted collective gives the rank (ranks.json `late_ranks`, added after the first sight).
* negatives: an absorbed host stall or a slow link named as a stall, or a clock-shifted rank named
  anywhere (a stall, a step's straggler, the overall straggler) unless the notes say the clocks
  were aligned (a note that clocks may differ is a warning, not an alignment), is `named_falsely`.
* false stalls: a `stalls` row whose instance did not get >= 0.5 ms more skew than the real
  trace had with that rank last (a planted secondary rank at its instance excepted).
"""
import json
import os
import re
import sys

TOL = 0.02
ABS = 0.05
GROW = 500.0


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(ABS, TOL * abs(b))


def coll(s):
    m = re.search(r"(\w+) #(\d+)\b", s or "")  # "allreduce #404" or "allreduce #404 (pg 0 default_pg)"
    return (m.group(1), int(m.group(2))) if m else None


def score_case(c, out):
    d = os.path.join(out, c["name"])
    res = {"name": c["name"], "error": "", "plants": [], "instances": len(c["instances"]), "instance_fail": [],
           "false": []}
    try:
        col = json.load(open(os.path.join(d, "collectives.json")))
        rk = json.load(open(os.path.join(d, "ranks.json")))
    except (OSError, ValueError) as e:
        res["error"] = "no artifacts: %s" % e
        res["instance_fail"] = [{"kind": x["kind"], "index": x["index"], "why": "no artifacts"} for x in c["instances"]]
        return res
    rows = {(r["kind"], r["index"]): r for r in col["rows"]}
    notes = " ".join(col.get("notes", []) + rk.get("notes", [])).lower()
    # aligned = the tool says it put the ranks on one clock by their collectives (a warning that
    # clocks may differ is not an alignment: it still names the shifted rank)
    aligned = "clock" in notes and re.search(r"\b(aligned|realigned|corrected|estimated)\b[^.;]*\bclock|\bclock[^.;]*\b(aligned|realigned|corrected|estimated)\b", notes) is not None
    warned = "clock" in notes and "offset" in notes
    key = {(x["kind"], x["index"]): x for x in c["instances"]}
    clock_ranks = set(p["rank"] for p in c["plants"] if p["method"] == "clock")
    for k, x in sorted(key.items()):
        r = rows.get(k)
        if r is None:
            res["instance_fail"].append({"kind": k[0], "index": k[1], "why": "no row"})
            continue
        bad = []
        if x["skew_us"] >= 1 and r["last_rank"] != x["last_rank"]:
            bad.append("last rank %s, key %s" % (r["last_rank"], x["last_rank"]))
        for f in ("skew_us", "transfer_us"):
            if not close(r[f], x[f]):
                bad.append("%s %s, key %s" % (f, r[f], x[f]))
        if x["busbw_gbps"] is not None and not close(r["busbw_gbps"], x["busbw_gbps"]):
            bad.append("busbw %s, key %s" % (r["busbw_gbps"], x["busbw_gbps"]))
        waits = {y["rank"]: y["wait_us"] for y in r["ranks"]}
        for y in x["ranks"]:
            if not close(waits.get(y["rank"]), y["wait_us"]):
                bad.append("wait r%d %s, key %s" % (y["rank"], waits.get(y["rank"]), y["wait_us"]))
        if bad:
            res["instance_fail"].append({"kind": k[0], "index": k[1], "why": "; ".join(bad[:3])})
    steps = {s["step"]: s for s in rk["steps"]}
    stalls = [(s["rank"], s["kind"], s["index"]) for s in rk["stalls"]]

    def step_of(k):
        r = rows.get(k)
        return steps.get(r["step"]) if r else None

    def named_at(rank, k):
        if (rank, k[0], k[1]) in stalls:
            return "named"
        s = step_of(k)
        if s is None:
            return "missed"
        if (s["straggler_rank"] == rank and coll(s["collective"]) == k) or \
                (s["stall_rank"] == rank and coll(s["stall_collective"]) == k):
            return "named"
        if s["straggler_rank"] == rank or s["stall_rank"] == rank:
            return "rank_only"
        return "missed"

    def late_at(rank, k):
        # a late rank besides the last, at the step's collective or at a stall there
        s = step_of(k)
        rows_at = [s] if s is not None and coll(s["collective"]) == k else []
        rows_at += [st for st in rk["stalls"] if (st["kind"], st["index"]) == k]
        return any(l["rank"] == rank for r in rows_at for l in r.get("late_ranks", []))

    secondary = set()
    for p in c["plants"]:
        v = {"rank": p.get("rank"), "method": p["method"], "kind": p.get("kind"), "index": p.get("index"),
             "us": p.get("us", p.get("factor")), "expect": p["expect"], "steps": p.get("steps"), "verdict": ""}
        k = (p.get("kind"), p.get("index"))
        if p["expect"] == "secondary":
            secondary.add((p["rank"], k[0], k[1]))
        if p["method"] in ("throttle", "hostslow") and "steps" in p:
            eff = [s for s in p["per_step"] if s["effective"]]
            got = 0
            for s in eff:
                ks = [kk for kk, x in key.items() if x["step"] == s["step"]]
                gs = set(rows[kk]["step"] for kk in ks if kk in rows)
                ok = any(steps.get(g, {}).get("straggler_rank") == p["rank"] or steps.get(g, {}).get("stall_rank") == p["rank"]
                         or any(st[0] == p["rank"] and (st[1], st[2]) in ks for st in stalls) for g in gs)
                got += ok
            if eff:
                v["verdict"] = "named" if got == len(eff) else "partly %d/%d steps" % (got, len(eff)) if got else "missed"
            else:  # absorbed: a stall on the rank in those steps is a false naming
                ks = [kk for kk, x in key.items() if x["step"] in p["steps"]]
                hit = [st for st in stalls if st[0] == p["rank"] and (st[1], st[2]) in ks]
                v["verdict"] = "named_falsely (%d stalls)" % len(hit) if hit else "not_named"
        elif p["expect"] == "secondary":
            v["verdict"] = "named" if late_at(p["rank"], k) else named_at(p["rank"], k)
        elif p["expect"] == "named":
            v["verdict"] = named_at(p["rank"], k)
        elif p["method"] == "clock":
            r = p["rank"]
            hits = sum(1 for s in rk["steps"] if s["straggler_rank"] == r or s["stall_rank"] == r)
            hits += sum(1 for st in stalls if st[0] == r)
            hits += sum(1 for x in rk["steps"] + rk["stalls"] for l in x.get("late_ranks", []) if l["rank"] == r)
            overall = (rk.get("straggler") or {}).get("rank") == r
            if aligned:
                v["verdict"] = "aligned"
            elif hits or overall:
                v["verdict"] = "named_falsely (%d step/stall rows%s%s)" % (hits, ", overall straggler" if overall else "",
                                                                         ", notes warn of a clock offset" if warned else "")
            else:
                v["verdict"] = "not_named"
        elif p["method"] == "slowlink":
            hit = [i for i in p["indices"] if any((st[1], st[2]) == (p["kind"], i) for st in stalls)]
            v["verdict"] = "named_falsely (%d stalls)" % len(hit) if hit else "not_named"
        else:  # an absorbed plant
            v["verdict"] = "named_falsely" if (p["rank"], k[0], k[1]) in stalls else "not_named"
        res["plants"].append(v)
    for st in rk["stalls"]:
        k = (st["kind"], st["index"])
        x = key.get(k)
        ok = False
        if x is not None:
            grew = x["skew_base_us"] is None or x["skew_us"] - x["skew_base_us"] >= GROW or x["last_rank"] != x["last_rank_base"]
            ok = (st["rank"] == x["last_rank"] and grew and x["skew_us"] >= GROW) or (st["rank"], k[0], k[1]) in secondary
        if not ok:
            res["false"].append({"rank": st["rank"], "kind": k[0], "index": k[1], "step": st["step"], "by": st.get("by")})
    if clock_ranks:
        res["clock_ranks"] = sorted(clock_ranks)
    return res


def main(argv):
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    keys = json.load(open(argv[0]))
    out = argv[1]
    cases = [score_case(c, out) for c in keys["cases"]]
    tot = {"named": 0, "expected": 0, "instances": 0, "within": 0, "false": 0, "negatives": 0, "named_falsely": 0}
    for c in cases:
        tot["instances"] += c["instances"]
        tot["within"] += c["instances"] - len(c["instance_fail"])
        tot["false"] += len(c["false"])
        for p in c["plants"]:
            if p["expect"] == "named":
                tot["expected"] += 1
                tot["named"] += p["verdict"] == "named"
            elif p["expect"] == "not_named":
                tot["negatives"] += 1
                tot["named_falsely"] += p["verdict"].startswith("named_falsely")
    if as_json:
        json.dump({"cases": cases, "total": tot}, sys.stdout, indent=1, sort_keys=True)
        print()
    for c in cases:
        print("%s: instances %d/%d within 2%%, false stalls %d%s" % (c["name"], c["instances"] - len(c["instance_fail"]),
              c["instances"], len(c["false"]), (" ERROR " + c["error"]) if c["error"] else ""), file=sys.stderr)
        for p in c["plants"]:
            print("  r%s %s %s %s#%s expect %s: %s" % (p["rank"], p["method"], p["us"], p["kind"], p["index"],
                  p["expect"], p["verdict"]), file=sys.stderr)
        for f in c["instance_fail"][:5]:
            print("  instance %s #%s: %s" % (f["kind"], f["index"], f["why"]), file=sys.stderr)
        for f in c["false"][:5]:
            print("  false stall r%s %s #%s (%s)" % (f["rank"], f["kind"], f["index"], f["step"]), file=sys.stderr)
    print("total: named %(named)d/%(expected)d, instances %(within)d/%(instances)d within 2%%, false stalls %(false)d, "
          "negatives named falsely %(named_falsely)d/%(negatives)d" % tot, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
