#!/bin/sh
# run.sh GPUTRIAGE WORKDIR [CASE...]: plants the fourth blind straggler set into WORKDIR, runs
# `breakdown` on every case and prints the score (tools/plantstraggler4/score.go).
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=$(cd "$root/../shared/testdata" && pwd)
(cd "$root" && go build -o "$work/plantstraggler4" ./tools/plantstraggler4/cmd/plantstraggler4)
mkdir -p "$work"
[ -f "$work/keys.json" ] || "$work/plantstraggler4" plant "$shared" "$work" "$@"
for c in "$work"/*/; do
	[ -d "$c" ] || continue
	rm -rf "$c/out"
	"$bin" breakdown -o "$c/out" "$c"/*.json.gz >/dev/null 2>"$c/breakdown.err" || { echo "breakdown failed on $c"; cat "$c/breakdown.err"; }
done
"$work/plantstraggler4" score "$work"
