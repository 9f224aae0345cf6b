#!/bin/sh
# bench_multi_pidns.sh: a benchmark, not a test. Times `multi_pidns 31 true`
# (31 nested PID namespaces, a procfs mounted for each, all torn down)
# against util-linux's `unshare --pid --fork --mount-proc` nested 31 deep,
# in the same hyperfine run, inside the sandbox (tmpfs root, private mounts:
# the /procK directories never reach the host). Prints both medians and the
# ratio; the goal is a ratio of at most 0.5. Needs root and hyperfine.
#
#   sh tests/helpers/bench_multi_pidns.sh [RUNS]     (from the repository top)
set -eu
O=${O:-build}
runs=${1:-50}
here=$(pwd)
chain=true
i=0
while [ $i -lt 31 ]; do chain="unshare --pid --fork --mount-proc $chain"; i=$((i + 1)); done
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$O/tests/helpers/in_sandbox" hyperfine -N -w 5 -r "$runs" --export-json "$json" \
    -n multi_pidns "$here/$O/examples/multi_pidns 31 true" \
    -n unshare-chain "$chain" >/dev/null
python3 - "$json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ours, theirs = r["multi_pidns"]["median"], r["unshare-chain"]["median"]
print("multi_pidns 31 true:              median %.1f ms" % (ours * 1000))
print("unshare -pf --mount-proc x31:     median %.1f ms" % (theirs * 1000))
print("ratio: %.2f (goal <= 0.50)" % (ours / theirs))
PY
