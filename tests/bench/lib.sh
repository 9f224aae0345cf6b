# SPDX-License-Identifier: MIT
# tests/bench/lib.sh: what the benchmark scripts share (sourced, not run).
#
# Each benchmark measures its figure against a baseline in the same
# hyperfine invocation, and repeats that invocation in rounds of
# BENCH_ROUND runs: between rounds the commands alternate, so a change in
# the machine's load (other users, other test suites) hits both sides alike.
# The raw JSON of every round goes to $BENCH_OUT/raw/; tests/bench/report.py
# merges the rounds and takes medians.

O=${O:-build}
BENCH_RUNS=${BENCH_RUNS:-20}
BENCH_ROUND=${BENCH_ROUND:-5}
BENCH_OUT=${BENCH_OUT:-$O/bench}
BENCH_WRAP=
mkdir -p "$BENCH_OUT/raw"

# bench_need TOOL...: stop with the reason when a tool is missing.
bench_need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || {
            echo "bench: $tool is needed (make deps-check installs it)" >&2
            exit 1
        }
    done
}

# bench_rounds NAME HYPERFINE-ARGS...: runs hyperfine ceil(BENCH_RUNS /
# BENCH_ROUND) times with BENCH_ROUND runs (and one warm-up) of each
# command, the rounds' JSON as $BENCH_OUT/raw/NAME.ROUND.json. A command
# that fails fails the benchmark: a figure of a failing run means nothing.
bench_rounds() {
    name=$1
    shift
    rounds=$(((BENCH_RUNS + BENCH_ROUND - 1) / BENCH_ROUND))
    rm -f "$BENCH_OUT/raw/$name".*.json
    r=1
    while [ "$r" -le "$rounds" ]; do
        printf '  %s: round %d of %d\r' "$name" "$r" "$rounds" >&2
        $BENCH_WRAP hyperfine --style none --warmup 1 --runs "$BENCH_ROUND" \
            --export-json "$BENCH_OUT/raw/$name.$r.json" "$@" >/dev/null 2>"$BENCH_OUT/raw/$name.err" || {
            echo "bench: $name: hyperfine failed:" >&2
            cat "$BENCH_OUT/raw/$name.err" >&2
            exit 1
        }
        r=$((r + 1))
    done
    printf '%*s\r' 40 '' >&2
}

# bench_peak_rss FILE CMD...: runs CMD with stdout discarded and writes its
# peak resident set (KiB, the largest process of its tree, as wait4 reports
# it) to FILE; returns CMD's exit status.
bench_peak_rss() {
    file=$1
    shift
    /usr/bin/time -f %M -o "$file" "$@" >/dev/null 2>&1
}
