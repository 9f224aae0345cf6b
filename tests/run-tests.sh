#!/bin/sh
# Runs every test program: cmocka unit tests, cmocka integration tests on the
# real kernel, then the end-to-end scripts. Prints each runner's own summary,
# then one total line, and exits non-zero if anything failed.
#
#   O=build sh tests/run-tests.sh [PATTERN]    (PATTERN filters by file name)
set -u
O=${O:-build}
pattern=${1:-}
export PIDNS_TUTOR_BUILD="$O"
export PIDNS_TUTOR_SRC="$(pwd)"
passed=0 failed=0 skipped=0 broken=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count() { # cmocka's "[  PASSED  ] 3 test(s)." style lines
    sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test.*/\1/p" "$log" | head -n 1
}

run_one() { # $1 = program or script
    name="$*"
    case "$name" in *"$pattern"*) ;; *) return ;; esac
    printf '\n=== %s\n' "$name"
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    p=$(count PASSED); f=$(count FAILED); s=$(count SKIPPED)
    if [ -z "$p$f" ]; then # not cmocka: the script's exit status is one result
        if [ $rc -eq 0 ]; then p=1; else f=1; fi
    fi
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ $rc -ne 0 ]; then
        broken="$broken $name"
        [ -z "$f" ] || [ "$f" -eq 0 ] && failed=$((failed + 1))
    fi
}

for t in "$O"/tests/unit/test_* "$O"/tests/integration/test_*; do
    [ -x "$t" ] && run_one "$t"
done
for t in tests/e2e/*.sh; do
    [ -f "$t" ] && run_one sh "$t"
done

printf '\n'
[ -n "$broken" ] && echo "failing runners:$broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ $((passed + failed)) -eq 0 ]; then echo "tests: no test ran (nothing built?)"; exit 1; fi
[ "$failed" -eq 0 ] && [ -z "$broken" ]
