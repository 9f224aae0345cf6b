#!/bin/sh
# Benchmark of the guided shell: figures, not a pass/fail test (issue 4).
#  1. start to a finished session, lab built and torn down, against
#     util-linux `unshare -m true` in the same run (goal: at most 2x);
#     stdin is /dev/null for both, so the shell ends as on Ctrl-D (the
#     same path as `quit`); `echo quit |` is shown too, against the same
#     baseline through sh;
#  2. peak memory (maximum resident set size) of the shell (goal < 10 MiB).
#
#   O=build RUNS=100 sh tests/bench/shell.sh     (make bench-shell)
set -u
O=${O:-build}
T=$O/pidns-tutor
RUNS=${RUNS:-100}
state=$(mktemp -d)
json=$(mktemp)
trap 'rm -rf "$state" "$json"' EXIT
export XDG_STATE_HOME="$state"
base="unshare -m true"
[ "$(id -u)" -eq 0 ] || base="unshare -r -m true" # as an ordinary user: with a user namespace

for tool in hyperfine python3; do
    command -v $tool >/dev/null || { echo "bench-shell: $tool is needed"; exit 1; }
done
report() { # the medians of a hyperfine JSON file, and their ratio
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
for x in r:
    print("  %-36s median %7.2f ms  (mean %.2f, %d runs)" % (x["command"], x["median"] * 1000,
          x["mean"] * 1000, len(x["times"])))
print("  ratio: %.2fx (goal <= 2x)" % (r[0]["median"] / r[1]["median"]))
PY
}
echo "start to end of session, lab built and torn down (stdin /dev/null: ends as on Ctrl-D):"
hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$json" "$T" "$base" >/dev/null 2>&1
report "$json"
echo "the same with 'echo quit |' (through sh; hyperfine subtracts the shell's start):"
hyperfine --warmup 10 --runs "$RUNS" --export-json "$json" "echo quit | $T" "$base" >/dev/null 2>&1
report "$json"
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
q=$(echo quit | rss "$T")
l=$(printf 'lesson 1\n\n\n\nrun pidns_init_sleep /proc2\nps\ntree\nquit\n' | rss "$T")
echo "peak RSS: quit at once ${q} KiB; lesson 1 with ps and tree ${l} KiB (goal < 10240 KiB)"
