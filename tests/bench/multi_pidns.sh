#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark of multi_pidns: figures, not a pass/fail test. For N = 1, 2, 4,
# 8, 16 and 31 nested PID namespaces, each with a procfs mounted and all torn
# down, times in the same hyperfine invocation:
#   multi_pidns N true                     the example;
#   unshare --pid --fork --mount-proc, nested N deep, then true
#                                          what a user would otherwise run
#                                          (goal: at most 0.5x);
#   bench_floor N true                     the floor: a bare clone, mount and
#                                          teardown chain (goal: within 1.1x);
#   bench_floor --copy-memory N true       the same with a copy of memory per
#                                          level, as the example has.
# Everything runs inside the sandbox (tmpfs root, private mounts): the /procK
# directories never reach the host. Needs root: util-linux's unshare --pid
# --mount-proc does, and so does the sandbox without a user namespace.
#
#   O=build BENCH_RUNS=20 sh tests/bench/multi_pidns.sh    (make bench-multi)
set -eu
. tests/bench/lib.sh
LEVELS=${BENCH_LEVELS:-1 2 4 8 16 31}
bench_need hyperfine python3 unshare

if [ "$(id -u)" -ne 0 ]; then
    echo "bench-multi: skipped: needs root (util-linux unshare --pid --fork --mount-proc" \
        "and the sandbox without a user namespace do; run: sudo make bench)" >&2
    printf '=== multi_pidns\n\n_Skipped: needs root (run `sudo make bench`)._\n\n' >"$BENCH_OUT/multi.adoc"
    exit 0
fi

here=$(pwd)
set --
for n in $LEVELS; do
    chain=true
    i=0
    while [ "$i" -lt "$n" ]; do chain="unshare --pid --fork --mount-proc $chain"; i=$((i + 1)); done
    set -- "$@" -n "multi_pidns $n" "$here/$O/examples/multi_pidns $n true" \
        -n "unshare-chain $n" "$chain" \
        -n "floor $n" "$here/$O/tests/helpers/bench_floor $n true" \
        -n "floor-copy $n" "$here/$O/tests/helpers/bench_floor --copy-memory $n true"
done
echo "bench-multi: N = $LEVELS, against unshare -pf --mount-proc and the floor"
BENCH_WRAP=$O/tests/helpers/in_sandbox
bench_rounds multi -N "$@"
python3 tests/bench/report.py multi "$BENCH_OUT"
