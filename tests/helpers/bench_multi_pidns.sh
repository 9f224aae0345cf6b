#!/bin/sh
# bench_multi_pidns.sh: a benchmark, not a test. Times `multi_pidns 31 true`
# (31 nested PID namespaces, a procfs mounted for each, all torn down)
# against util-linux's `unshare --pid --fork --mount-proc` nested 31 deep,
# with hyperfine, inside the sandbox (tmpfs root, private mounts: the /procK
# directories never reach the host). The two alternate in ROUNDS rounds of 10
# runs each, so that a change in the machine's load hits both alike; prints
# the median of all runs of each and the ratio (goal: at most 0.5).
# Needs root, hyperfine and python3.
#
#   sh tests/helpers/bench_multi_pidns.sh [ROUNDS]    (from the repository top)
set -eu
O=${O:-build}
rounds=${1:-6}
here=$(pwd)
chain=true
i=0
while [ $i -lt 31 ]; do chain="unshare --pid --fork --mount-proc $chain"; i=$((i + 1)); done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
r=0
while [ $r -lt "$rounds" ]; do
    "$O/tests/helpers/in_sandbox" hyperfine -N -w 2 -r 10 --export-json "$dir/$r.json" \
        -n multi_pidns "$here/$O/examples/multi_pidns 31 true" \
        -n unshare-chain "$chain" >/dev/null 2>&1
    r=$((r + 1))
done
python3 - "$dir"/*.json <<'PY'
import json, statistics, sys
times = {}
for path in sys.argv[1:]:
    for result in json.load(open(path))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
ours = statistics.median(times["multi_pidns"])
theirs = statistics.median(times["unshare-chain"])
n = len(times["multi_pidns"])
print("multi_pidns 31 true:            median %.1f ms (%d runs)" % (ours * 1000, n))
print("unshare -pf --mount-proc x31:   median %.1f ms (%d runs)" % (theirs * 1000, n))
print("ratio: %.2f (goal <= 0.50)" % (ours / theirs))
PY
