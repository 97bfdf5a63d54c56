#!/bin/sh
# Plant the third blind set, run `gputriage breakdown` on every case and score it (issue 19).
# usage: tools/plantstraggler3/run.sh GPUTRIAGE WORKDIR [CASE...]
# Needs ../shared beside the repository; WORKDIR gets plant/ (traces, keys.json) and out/.
# A planted case's traces are removed once analysed (the H200 pair is 2 x 79 MB of JSON).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=$1 work=$2
shift 2
shared="$repo/../shared"
python3 "$here/plant.py" --plain "$repo/testdata/straggler-blind3/plan.json" "$shared" "$work/plant" "$@"
python3 - "$work/plant/keys.json" "$shared" "$work/plant" > "$work/cases.txt" <<'PY'
import json, os, sys
k = json.load(open(sys.argv[1]))
for c in k["cases"]:
    fs = [os.path.join(sys.argv[3], t) for t in c["traces"]] or [os.path.join(sys.argv[2], s) for s in c["source"]]
    print(c["name"], " ".join(fs))
PY
while read -r name files; do
	# shellcheck disable=SC2086
	"$bin" breakdown -q -o "$work/out/$name" $files >/dev/null
	[ -d "$work/plant/$name" ] && rm -rf "${work:?}/plant/$name"
done < "$work/cases.txt"
python3 "$here/score.py" "$work/plant/keys.json" "$work/out"
