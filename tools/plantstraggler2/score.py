#!/usr/bin/env python3
"""Score `gputriage breakdown` outputs against plant.py's key (issue 19, second blind set).

Usage: score.py KEYS.json OUT_DIR [--json]   (OUT_DIR/<case>/ holds ranks.json, collectives.json)

Per plant (a persistent plant counts once per step it covers), from ranks.json:
  named             a `stalls` row names the planted rank at the planted collective (pg, kind,
                    index), or the planted step's row names the rank as straggler or stall rank
                    with the planted collective; for a persistent plant, the step's straggler is
                    the planted rank
  largest-skew-only the step's largest single skew (`worst_*`) is the plant, nothing else names it
  rank-only         the step's straggler is the planted rank, at another collective
  missed            none of these
  absorbed          the plant made no one wait (another rank was later still): not counted
  reason            informational: "host" expected for a freeze (its launch came late), "gpu"
                    for stretch, gemm and persistent (more kernel time before the collective)
Per instance, from collectives.json matched by (pg, kind, index): skew, last rank, every rank's
wait, transfer and busbw within 2 % of the key (or 0.05 µs, timestamps carry 3 decimals), and
the step label.
False stall: a `stalls` row at an instance no plant made late on that rank (a plant's knock-on
instances, where its pushed stream made the rank late at a later collective, are the plant's).
"""
import json
import os
import re
import sys

COLL = re.compile(r"^(\w+) #(\d+)(?: \(pg (\S+))?")


def parse_coll(s):
    m = COLL.match(s or "")
    if not m:
        return None
    return (m.group(3) or "", m.group(1), int(m.group(2)))


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(0.02 * abs(b), 0.05)


def reason_kind(text):
    t = (text or "").lower()
    if "host" in t or "launch" in t:
        return "host"
    if "gpu" in t or "busier" in t or "kernel" in t:
        return "gpu"
    return ""


def score_case(case, outdir):
    res = {"name": case["name"], "error": "", "plants": [], "instances": len(case["instances"]),
           "instance_fail": [], "false": []}
    try:
        with open(os.path.join(outdir, "ranks.json")) as f:
            ranks = json.load(f)
        with open(os.path.join(outdir, "collectives.json")) as f:
            colls = json.load(f)
    except OSError as e:
        res["error"] = str(e)
        return res
    rows = {(r["pg"], r["kind"], r["index"]): r for r in colls.get("rows", [])}
    for k in case["instances"]:
        key = (k["pg"], k["kind"], k["index"])
        r = rows.get(key)
        bad = []
        if r is None:
            res["instance_fail"].append({"instance": "%s #%d pg %s" % (k["kind"], k["index"], k["pg"]), "off": ["missing"]})
            continue
        for fld in ("skew_us", "transfer_us", "busbw_gbps"):
            if not close(r.get(fld), k[fld]):
                bad.append("%s %s vs key %s" % (fld, r.get(fld), k[fld]))
        if r.get("last_rank") != k["last_rank"] and k["skew_us"] > 0.05:
            bad.append("last_rank %s vs key %s" % (r.get("last_rank"), k["last_rank"]))
        if r.get("step") != k["step"]:
            bad.append("step %r vs key %r" % (r.get("step"), k["step"]))
        got = {x["rank"]: x["wait_us"] for x in r.get("ranks", [])}
        for x in k["ranks"]:
            if not close(got.get(x["rank"]), x["wait_us"]):
                bad.append("rank %d wait %s vs key %s" % (x["rank"], got.get(x["rank"]), x["wait_us"]))
        if bad:
            res["instance_fail"].append({"instance": "%s #%d pg %s" % (k["kind"], k["index"], k["pg"]), "off": bad})
    steps = {s["step"]: s for s in ranks.get("steps", [])}
    stalls = ranks.get("stalls", []) or []
    planted = set()  # (rank, pg, kind, index) a plant made late
    plants = []
    persist = {}
    for p in case["plants"]:
        if p.get("skipped"):
            continue
        planted.add((p["rank"], p["pg"], p["kind"], p["index"]))
        for k in p.get("knock_on", []):  # the plant made the rank late there too
            planted.add((p["rank"], k["pg"], k["kind"], k["index"]))
        if p["method"] == "persistent":
            g = persist.setdefault((p["rank"], p["step"]), dict(p, instances=0, effective_n=0, lateness_added_us=0.0))
            g["instances"] += 1
            g["effective_n"] += 1 if p["effective"] else 0
            g["lateness_added_us"] += p["lateness_added_us"]
        else:
            plants.append(p)
    for g in persist.values():
        g["effective"] = g["effective_n"] > 0
        g["lateness_added_us"] = round(g["lateness_added_us"], 3)
        plants.append(g)
    for p in plants:
        out = {"rank": p["rank"], "method": p["method"], "pg": p["pg"], "kind": p["kind"],
               "index": p["index"] if p["method"] != "persistent" else None, "step": p["step"],
               "us": p["us"], "lateness_added_us": p["lateness_added_us"],
               "effective": bool(p["effective"]), "verdict": "absorbed", "said": "", "reason": ""}
        if p["method"] == "persistent":
            out["instances"] = p["instances"]
        res["plants"].append(out)
        if not p["effective"]:
            continue
        st = steps.get(p["step"], {})
        me = (p["pg"], p["kind"], p["index"])
        out["said"] = "step %s: straggler %s at %s; stall %s at %s; largest skew %s at %s" % (
            p["step"], st.get("straggler_rank"), st.get("collective"), st.get("stall_rank"),
            st.get("stall_collective"), st.get("worst_rank"), st.get("worst_collective"))
        if p["rank"] in (st.get("straggler_rank"), st.get("stall_rank")):  # else it is another rank's
            out["reason"] = reason_kind(st.get("reason"))
        if p["method"] == "persistent":
            out["verdict"] = "named" if st.get("straggler_rank") == p["rank"] else "missed"
            continue
        hit = [s for s in stalls if s.get("rank") == p["rank"] and s.get("kind") == p["kind"]
               and s.get("index") == p["index"] and (s.get("pg") or "") == p["pg"]]
        if hit:
            out["verdict"] = "named"
            out["said"] = "stall row: excess %s µs (threshold %s); " % (hit[0].get("excess_us"), hit[0].get("threshold_us")) + out["said"]
            if not out["reason"]:
                out["reason"] = reason_kind(hit[0].get("reason"))
        elif (st.get("straggler_rank") == p["rank"] and parse_coll(st.get("collective")) == me) or \
                (st.get("stall_rank") == p["rank"] and parse_coll(st.get("stall_collective")) == me):
            out["verdict"] = "named"
        elif st.get("worst_rank") == p["rank"] and parse_coll(st.get("worst_collective")) == me:
            out["verdict"] = "largest-skew-only"
        elif st.get("straggler_rank") == p["rank"]:
            out["verdict"] = "rank-only"
        else:
            out["verdict"] = "missed"
    persist_steps = {(r, s) for (r, s) in persist}
    for s in stalls:
        k = (s.get("rank"), s.get("pg") or "", s.get("kind"), s.get("index"))
        if k in planted or (s.get("rank"), s.get("step")) in persist_steps:
            continue
        res["false"].append({"rank": s.get("rank"), "collective": "%s #%s pg %s" % (s.get("kind"), s.get("index"), s.get("pg")),
                             "step": s.get("step"), "excess_us": s.get("excess_us")})
    return res


def main(argv):
    js = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    with open(argv[0]) as f:
        keys = json.load(f)
    cases = [score_case(c, os.path.join(argv[1], c["name"])) for c in keys["cases"]]
    if js:
        json.dump({"cases": cases}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    tot = {"named": 0, "eff": 0, "inst": 0, "ok": 0, "false": 0}
    w = sys.stderr if js else sys.stdout
    for c in cases:
        if c["error"]:
            w.write("%s: ERROR %s\n" % (c["name"], c["error"]))
            continue
        ok = c["instances"] - len(c["instance_fail"])
        tot["inst"] += c["instances"]
        tot["ok"] += ok
        tot["false"] += len(c["false"])
        w.write("%s: instances within 2 %% %d/%d, false stalls %d\n" % (c["name"], ok, c["instances"], len(c["false"])))
        for p in c["plants"]:
            if p["effective"]:
                tot["eff"] += 1
                tot["named"] += p["verdict"] == "named"
            w.write("  r%d %s %gus %s #%s %s: %s (reason %s) — %s\n" % (
                p["rank"], p["method"], p["us"], p["kind"], p["index"], p["step"], p["verdict"],
                p["reason"] or "-", p["said"]))
        for x in c["instance_fail"][:5]:
            w.write("  instance off: %s\n" % json.dumps(x))
        for x in c["false"]:
            w.write("  false stall: %s\n" % json.dumps(x))
    w.write("TOTAL named %d/%d effective plants; instances within 2 %% %d/%d; false stalls %d\n" % (
        tot["named"], tot["eff"], tot["ok"], tot["inst"], tot["false"]))


if __name__ == "__main__":
    main(sys.argv[1:])
