#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark of the guided shell: figures, not a pass/fail test.
#  1. start to a finished session, lab built and torn down, against
#     util-linux `unshare -m true` in the same run (goal: at most 2x): once
#     ending as on Ctrl-D (stdin /dev/null, no shell in between), once with
#     `echo quit |` against `echo quit | unshare -m true`, both through sh
#     (hyperfine subtracts the cost of starting sh, not of the pipeline);
#  2. the shell's own cost per guided step: `--auto` over a generated lesson
#     of 1 step and of 1+K steps whose command is `true`; the difference over
#     K is what one step costs, and `sh -c true` (what the lab runs for the
#     step) in the same run is the command's own share;
#  3. peak memory (maximum resident set) of the shell: quit at once, and
#     lesson 1 with run, ps and tree (goal: under 10 MiB).
#
#   O=build BENCH_RUNS=20 sh tests/bench/shell.sh     (make bench-shell)
set -eu
. tests/bench/lib.sh
T=$O/pidns-tutor
STEPS=${BENCH_STEPS:-10}
bench_need hyperfine python3 unshare /usr/bin/time

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/state" # progress files of the runs stay here
base="unshare -m true"
[ "$(id -u)" -eq 0 ] || base="unshare -r -m true" # as an ordinary user: with a user namespace

# A lesson of $2 steps, each running `true`, in directory $1.
make_lesson() {
    mkdir -p "$1"
    {
        printf '= Timing\n:summary: steps that run true\n:minutes: 1\n'
        i=0
        while [ "$i" -lt "$2" ]; do
            printf '\n== Step %d\n\nA step.\n\n[.run]\n----\ntrue\n----\n' "$i"
            i=$((i + 1))
        done
    } >"$1/01-timing.adoc"
}
make_lesson "$scratch/one" 1
make_lesson "$scratch/more" $((STEPS + 1))
"$T" --lessons "$scratch/more" --auto 1 >"$scratch/auto.out" 2>&1 ||
    { echo "bench-shell: the generated lesson fails:" >&2; cat "$scratch/auto.out" >&2; exit 1; }

echo "bench-shell: start to end of session, against $base"
bench_rounds shell-start -N -n pidns-tutor "$T" -n baseline "$base"
# Both sides through the same pipeline, so that sh's fork of `echo` is on
# both sides (hyperfine subtracts only the start of sh itself).
bench_rounds shell-quit -n "echo quit | pidns-tutor" "echo quit | $T" -n baseline "echo quit | $base"
echo "bench-shell: $STEPS guided steps running true"
bench_rounds shell-steps -N -n steps-1 "$T --lessons $scratch/one --auto 1" \
    -n steps-more "$T --lessons $scratch/more --auto 1" -n "sh -c true" "sh -c true"

echo "bench-shell: peak memory"
: >"$BENCH_OUT/raw/shell-rss.txt"
for i in 1 2 3; do
    echo quit | bench_peak_rss "$scratch/rss" "$T"
    printf 'quit\t%s\n' "$(tail -1 "$scratch/rss")" >>"$BENCH_OUT/raw/shell-rss.txt"
    printf 'lesson 1\n\n\n\nrun pidns_init_sleep /proc2\nps\ntree\nquit\n' |
        bench_peak_rss "$scratch/rss" "$T"
    printf 'lesson\t%s\n' "$(tail -1 "$scratch/rss")" >>"$BENCH_OUT/raw/shell-rss.txt"
done
python3 tests/bench/report.py shell "$BENCH_OUT" "$base" "$STEPS"
