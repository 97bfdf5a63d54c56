#!/bin/sh
# Plant, analyse and score the blind set: run.sh GPUTRIAGE WORKDIR [PLAN]
# (plant.py writes WORKDIR/plant/<case>/ and keys.json; gputriage breakdown writes WORKDIR/out/<case>/)
set -eu
bin=$1; work=$2; here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
plan=${3:-$root/testdata/straggler-blind/plan.json}
mkdir -p "$work/plant" "$work/out"
[ -f "$work/plant/keys.json" ] || python3 "$here/plant.py" "$plan" "$root/../shared" "$work/plant"
for d in "$work"/plant/*/; do
  c=$(basename "$d")
  "$bin" breakdown -q -o "$work/out/$c" "$d" >/dev/null
done
python3 "$here/score.py" "$work/plant/keys.json" "$work/out"
