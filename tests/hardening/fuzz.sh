#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh: runs the libFuzzer targets that mk/fuzz.mk builds.
#
#   O=build sh tests/hardening/fuzz.sh check [SECONDS [RUNS]]
#       (make check-fuzz) replays every file of tests/fuzz/corpus/NAME, then
#       fuzzes each target for at most SECONDS (15) or RUNS (200000) runs;
#       any crash, leak, hang or UB fails; the targets run side by side
#   O=build sh tests/hardening/fuzz.sh long [SECONDS]
#       (make fuzz) fuzzes each target for SECONDS (300); new inputs go to
#       $O/fuzz/corpus/NAME, crashes to $O/fuzz/crash-NAME-*
set -u
O=${O:-build}
mode=${1:-check}
fuzz=$O/fuzz
# Per run: a hang is an input slower than 10 s; leaks fail. Inputs are
# mutated up to 16 KiB (the replay still feeds its larger seeds whole).
run_flags="-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1"
# UBSan reports stop the process (-fno-sanitize-recover) with a stack trace.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

mutate_flags() { # of a fuzzing run (not of a replay) of target $1
    printf '%s' "-max_len=16384 -artifact_prefix=$fuzz/crash-$1-"
    [ ! -f "tests/fuzz/$1.dict" ] || printf ' %s' "-dict=tests/fuzz/$1.dict"
}

names=""
for f in tests/fuzz/fuzz_*.c; do
    name=${f#tests/fuzz/fuzz_}
    name=${name%.c}
    [ -x "$fuzz/fuzz_$name" ] || { echo "fuzz: $fuzz/fuzz_$name is not built (make fuzz-build)"; exit 1; }
    names="$names $name"
done

check() { # NAME SECONDS RUNS
    name=$1
    echo "check-fuzz: $name: replaying tests/fuzz/corpus/$name"
    # shellcheck disable=SC2086
    if ! "$fuzz/fuzz_$name" $run_flags "tests/fuzz/corpus/$name"/* >"$fuzz/replay-$name.log" 2>&1; then
        tail -40 "$fuzz/replay-$name.log"
        echo "check-fuzz: FAIL: $name: a corpus file crashes (log: $fuzz/replay-$name.log)"
        return 1
    fi
    rm -rf "$fuzz/check-corpus/$name" && mkdir -p "$fuzz/check-corpus/$name"
    echo "check-fuzz: $name: fuzzing for at most $2 s / $3 runs"
    # shellcheck disable=SC2046,SC2086
    if ! "$fuzz/fuzz_$name" $run_flags $(mutate_flags "$name") -max_total_time="$2" -runs="$3" \
        "$fuzz/check-corpus/$name" "tests/fuzz/corpus/$name" >"$fuzz/check-$name.log" 2>&1; then
        tail -40 "$fuzz/check-$name.log"
        echo "check-fuzz: FAIL: $name: reproducer in $fuzz/crash-$name-*; add it to tests/fuzz/corpus/$name once fixed"
        return 1
    fi
    echo "check-fuzz: $name: ok: $(grep -E '^#[0-9]+' "$fuzz/check-$name.log" | tail -1 |
        sed 's/ *lim:.*exec/, exec/; s/ rss:.*//')"
}

long() { # NAME SECONDS
    mkdir -p "$fuzz/corpus/$1"
    echo "fuzz: $1 for $2 s (new inputs: $fuzz/corpus/$1)"
    # shellcheck disable=SC2046,SC2086
    "$fuzz/fuzz_$1" $run_flags $(mutate_flags "$1") -max_total_time="$2" \
        "$fuzz/corpus/$1" "tests/fuzz/corpus/$1"
}

# check: the targets side by side, each one's lines printed whole, in order.
case $mode in
check)
    for name in $names; do
        (check "$name" "${2:-15}" "${3:-200000}" >"$fuzz/check-$name.out" 2>&1
            echo $? >"$fuzz/check-$name.status") &
    done
    wait
    status=0
    for name in $names; do
        cat "$fuzz/check-$name.out"
        [ "$(cat "$fuzz/check-$name.status")" -eq 0 ] || status=1
        rm -f "$fuzz/check-$name.out" "$fuzz/check-$name.status"
    done
    exit $status
    ;;
long)
    for name in $names; do long "$name" "${2:-300}" || exit 1; done ;;
*) echo "usage: fuzz.sh check [SECONDS [RUNS]] | long [SECONDS]"; exit 2 ;;
esac
