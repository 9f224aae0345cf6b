#!/bin/sh
# SPDX-License-Identifier: MIT
# `--auto all` on a loaded machine, where it must pass too: once on its own, then
# two at once beside `make -j2` of the tree (in a scratch O= directory,
# rebuilt from clean over and over) and a CPU hog (tests/load/hog.sh, one
# busy loop per CPU). Prints each run's pass/fail and time, and the failed
# steps: "not what the lesson expected" is a step's output (the lab's wait),
# "check: FAILED" an exercise's check. Loads the machine for several
# minutes: not part of `make check`.
#
#   O=build sh tests/load/auto_all_loaded.sh [LESSON]   (default: all)
#   LOAD_CPUS=N    busy loops of the hog (default: one per CPU)
set -u
O=${O:-build}
T=$O/pidns-tutor
which=${1:-all}
[ -x "$T" ] || { echo "auto_all_loaded: $T is not built (make first)" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-load.XXXXXX")
hog= builder=
finish() {
    [ -n "$hog" ] && kill "$hog" 2>/dev/null
    [ -n "$builder" ] && kill "$builder" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$scratch"
}
trap finish EXIT
trap 'exit 130' INT TERM HUP
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.0f", $2 - $1 }'; }

# run NAME: one --auto $which, its own state directory; status in NAME.rc,
# time in NAME.time.
run() {
    mkdir -p "$scratch/$1.state"
    t0=$(now)
    XDG_STATE_HOME="$scratch/$1.state" "$T" --auto "$which" >"$scratch/$1.out" 2>&1
    echo $? >"$scratch/$1.rc"
    secs "$t0" "$(now)" >"$scratch/$1.time"
}
report() {
    rc=$(cat "$scratch/$1.rc") t=$(cat "$scratch/$1.time")
    if [ "$rc" -eq 0 ]; then v=passed; else v="FAILED (status $rc)"; fi
    echo "$1: --auto $which $v in ${t} s"
    grep -E "step [0-9]+ .*: FAILED|not what the lesson expected|check: FAILED|wrong attempt .* passes" \
        "$scratch/$1.out" | sed 's/^ */    /'
    grep -q "not what the lesson expected" "$scratch/$1.out" &&
        echo "    (a step's output: the lab's wait for it)"
    [ "$rc" -eq 0 ]
}

echo "auto_all_loaded: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) before"
run idle
report idle
idle_ok=$?

sh tests/load/hog.sh 1800 ${LOAD_CPUS:-} &
hog=$!
(
    m=
    trap '[ -n "$m" ] && kill $m 2>/dev/null; wait; exit 0' TERM
    while :; do
        make -s O="$scratch/build" clean >/dev/null 2>&1
        make -s -j2 O="$scratch/build" >"$scratch/make.log" 2>&1 &
        m=$!
        wait $m || echo "make failed" >"$scratch/make.failed"
        echo built >>"$scratch/make.rounds"
    done
) &
builder=$!
sleep 5 # make and the hog under way
run loaded1 &
a=$!
run loaded2 &
b=$!
load=$(cut -d' ' -f1-3 /proc/loadavg)
wait "$a" "$b"
echo "auto_all_loaded: with the hog and make -j2 (load $load during, $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
loaded_ok=0
report loaded1 || loaded_ok=1
report loaded2 || loaded_ok=1
echo "auto_all_loaded: make -j2 of the tree finished $(wc -l <"$scratch/make.rounds" 2>/dev/null || echo 0) time(s) meanwhile"
[ -e "$scratch/make.failed" ] && echo "note: make -j2 of the tree failed (or was stopped) at least once"
sed -n 's/^/    make: /p' "$scratch/make.log" | tail -n 3
[ "$idle_ok" -eq 0 ] && [ "$loaded_ok" -eq 0 ]
