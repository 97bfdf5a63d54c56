#!/usr/bin/env python3
"""Physical-consistency check of planted traces: usage: check.py TRACE.json...

Per trace: no GPU op starts before its launch call starts, no negative duration, no two ops of
one stream overlap (beyond 0.01 us), no host event on a thread partially overlaps another (nesting
kept). Prints one line per trace; exits 1 on any fault. The real traces pass (DLRM, H200 TP=2).
"""
import collections
import gzip
import json
import sys


def check(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        ev = json.load(f)["traceEvents"]
    bad = collections.Counter()
    launch = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = e
    streams = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            streams[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
            la = launch.get(e.get("args", {}).get("correlation"))
            if la and e["ts"] < la["ts"]:
                bad["GPU op before its launch"] += 1
            if e["dur"] < 0:
                bad["negative duration"] += 1
    for v in streams.values():
        v.sort()
        for a, b in zip(v, v[1:]):
            if b[0] < a[1] - 0.01:
                bad["stream overlap"] += 1
    threads = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver"):
            threads[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], e["ts"] + e["dur"]))
    for v in threads.values():
        v.sort()
        stack = []
        for s, _, end in v:
            while stack and stack[-1] <= s + 0.01:  # times are written to the ns
                stack.pop()
            if stack and end > stack[-1] + 0.01:
                bad["host events overlap without nesting"] += 1
            stack.append(end)
    return bad


def main(paths):
    fail = False
    for p in paths:
        bad = check(p)
        fail = fail or bool(bad)
        print("%s: %s" % (p, ", ".join("%s %d" % kv for kv in sorted(bad.items())) or "ok"))
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
