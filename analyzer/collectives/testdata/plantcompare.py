#!/usr/bin/env python3
"""Compare gputriage's collectives.json/ranks.json with plantcase.py's key
(gputriage issue 19; written for the planted-straggler sweep of 2026-11-26).

Usage: plantcompare.py CASE_DIR OUT_DIR [--require-named-us N]   (CASE_DIR/key.json from plantcase.py; OUT_DIR from
`gputriage breakdown -o OUT_DIR CASE_DIR/traces/*`). Each gputriage instance is identified by
its ranks' kernel starts (ns) and must hold kernels of one key instance (else: misaligned);
every key instance must be found with skew, transfer, each rank's wait and busbw within 2 %
(or 2 ns); each plant is named (its instance's last rank, and its step's straggler or a stall
there), absorbed (the key has another rank last: it made nobody wait) or missed, with the
reason its mode implies (host launched late / GPU was busier); plants of at least N µs must be
named (or absorbed) with that reason; the overall straggler must be the key's.
Prints PASS or FAIL and why. Standard library only."""
import json, sys, os
keydir, outdir = sys.argv[1], sys.argv[2]
key = json.load(open(os.path.join(keydir, "key.json")))
import decimal
coll = json.load(open(os.path.join(outdir, "collectives.json")), parse_float=decimal.Decimal)
ranks = json.load(open(os.path.join(outdir, "ranks.json")))
rows = coll.get("rows") or coll.get("instances") or coll
# identity of each kernel by (rank, start_ns)
who = {}
for k in key["instances"]:
    for r, s in k["start_ns"].items():
        who[(int(r), s)] = tuple(k["orig"] + k.get("id", k["orig"]))
def near(g, w):
    g = float(g)
    return abs(g - w) <= 0.002 or abs(g - w) <= 0.02 * abs(w)
bad = []
found = {}
mis = 0
for row in rows:
    ids = set()
    for rt in row["ranks"]:
        ns = int(rt["start_us"] * 1000)
        ids.add(who.get((rt["rank"], ns), ("?", rt["rank"], ns)))
    if len(ids) != 1 or any(i[0] == "?" for i in ids):
        mis += 1
        if mis <= 3:
            bad.append("misaligned/unknown instance %s #%s: %s" % (row["kind"], row["index"], sorted(map(str, ids))[:4]))
        continue
    found[ids.pop()] = row
missing = 0
for k in key["instances"]:
    row = found.get(tuple(k["orig"] + k.get("id", k["orig"])))
    if row is None:
        missing += 1
        if missing <= 3:
            bad.append("key instance %s not found" % (k["orig"],))
        continue
    errs = []
    if row["kind"] != k["kind"] or row["pg"] != k["pg"]:
        errs.append("pg/kind %s/%s key %s/%s" % (row["pg"], row["kind"], k["pg"], k["kind"]))
    if not near(float(row["skew_us"]), k["skew_us"]): errs.append("skew %s key %s" % (row["skew_us"], k["skew_us"]))
    if not near(float(row["transfer_us"]), k["transfer_us"]): errs.append("transfer %s key %s" % (row["transfer_us"], k["transfer_us"]))
    if k["skew_us"] > 0.001 and row["last_rank"] != k["last_rank"]: errs.append("last %s key %s" % (row["last_rank"], k["last_rank"]))
    for rt in row["ranks"]:
        if not near(float(rt["wait_us"]), k["wait_us"][str(rt["rank"])]): errs.append("wait r%d %s key %s" % (rt["rank"], rt["wait_us"], k["wait_us"][str(rt["rank"])]))
    kb, gb = k["busbw_gbps"], row.get("busbw_gbps")
    if (kb is None) != (gb is None) or (kb is not None and abs(float(gb) - kb) > 0.02 * abs(kb)):
        errs.append("busbw %s key %s" % (gb, kb))
    if errs:
        bad.append("%s: %s" % (k["orig"], "; ".join(errs[:4])))
# planted: named (the instance's last rank, and its step's straggler or a
# stall naming that instance), absorbed (the key has another rank last
# there: the plant made nobody wait) or missed; the reason by the plant's
# mode (host: "host launched late", gpu: "GPU was busier")
need = float(sys.argv[sys.argv.index("--require-named-us") + 1]) if "--require-named-us" in sys.argv else None
steprows = {s["step"]: s for s in ranks.get("steps", [])}
stalls = ranks.get("stalls") or []
WHY = {"host": "host launched late", "gpu": "GPU was busier"}
for p in key["spec"].get("plants", []):
    orig = (p.get("pg", ""), p["kind"], p["index"])
    kk = next((k for k in key["instances"] if tuple(k["orig"]) == orig and str(p["rank"]) in k["wait_us"]), None)
    row = next((v for kk2, v in found.items() if kk2[:3] == orig and any(rt["rank"] == p["rank"] for rt in v["ranks"])), None)
    if row is None or kk is None:
        bad.append("PLANT %s not matched" % (orig,)); continue
    label = "%s #%s" % (row["kind"], row["index"])
    s = steprows.get(row.get("step")) or {}
    stall = next((x for x in stalls if x["rank"] == p["rank"] and x["kind"] == row["kind"] and x["index"] == row["index"] and x["pg"] == row["pg"]), None)
    if kk["last_rank"] != p["rank"]:
        outcome, reason = "absorbed", None
    elif row["last_rank"] == p["rank"] and (stall or (s.get("straggler_rank") == p["rank"] and (s.get("collective") or "").startswith(label + " ")
                                                     or s.get("collective") == label)):
        outcome, reason = "named", (stall or s).get("reason", "")
    else:
        outcome, reason = "missed", None
    why = WHY.get(p.get("mode"))
    rs = "" if reason is None else ("reason ok" if why and why in reason else "reason %r" % reason[:80])
    print("PLANT %s rank %d %s %s us: %s %s" % (orig, p["rank"], p.get("mode"), p["delay_us"], outcome, rs))
    if need is not None and p["delay_us"] >= need:
        if outcome == "missed":
            bad.append("PLANT %s rank %d %s us: missed (step %s straggler %s at %s)" % (orig, p["rank"], p["delay_us"], s.get("step"), s.get("straggler_rank"), s.get("collective")))
        elif outcome == "named" and why and why not in reason:
            bad.append("PLANT %s rank %d %s: reason %r" % (orig, p["rank"], p.get("mode"), reason[:120]))
st = ranks.get("straggler") or {}
if st.get("rank") != key["straggler_rank"]:
    bad.append("straggler %s key %s" % (st.get("rank"), key["straggler_rank"]))
print("instances: key %d, gputriage %d, matched %d, misaligned %d, key-missing %d" % (len(key["instances"]), len(rows), len(found), mis, missing))
print("notes:", coll.get("notes"))
print("straggler:", (st.get("reason") or "")[:300])
for e in (st.get("evidence") or [])[:3]: print("  ev:", e["text"][:250])
print("PASS" if not bad else "FAIL")
for b in bad[:15]: print("  ", b)
