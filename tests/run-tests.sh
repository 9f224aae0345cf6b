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

# The host before and after the whole suite: /procN mounts, the entries of /,
# and how many processes run in PID namespaces other than ours.
host_view() {
    awk '$5 ~ /^\/proc[0-9]+$/ { print "mount " $5 }' /proc/self/mountinfo
    ls -a / | sed 's/^/root /'
}
foreign_processes() {
    self=$(readlink /proc/self/ns/pid) n=0
    for p in /proc/[0-9]*; do
        l=$(readlink "$p/ns/pid" 2>/dev/null) || continue
        [ "$l" != "$self" ] && n=$((n + 1))
    done
    echo "$n"
}
host_before=$(host_view)
foreign_before=$(foreign_processes)

for t in "$O"/tests/unit/test_* "$O"/tests/integration/test_*; do
    [ -x "$t" ] && run_one "$t"
done
for t in tests/e2e/*.sh; do
    [ -f "$t" ] && run_one sh "$t"
done

ran=$((passed + failed))
printf '\n=== the host after the whole suite\n'
tries=0
while :; do
    host_after=$(host_view)
    foreign_after=$(foreign_processes)
    if [ "$host_after" = "$host_before" ] && [ "$foreign_after" -le "$foreign_before" ]; then
        echo "host unchanged: same /procN mounts and / entries, no process left in another PID namespace"
        passed=$((passed + 1))
        break
    fi
    tries=$((tries + 1))
    if [ $tries -ge 20 ]; then
        echo "host CHANGED by the test suite:"
        printf '%s\n' "$host_before" >"$log.before"
        printf '%s\n' "$host_after" | diff "$log.before" - | sed -n 's/^[<>]/  &/p'
        rm -f "$log.before"
        echo "  processes in other PID namespaces: $foreign_before before, $foreign_after after"
        failed=$((failed + 1)); broken="$broken host-check"
        break
    fi
    sleep 0.1
done

printf '\n'
[ -n "$broken" ] && echo "failing runners:$broken"
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$ran" -eq 0 ]; then echo "tests: no test ran (nothing built?)"; exit 1; fi
[ "$failed" -eq 0 ] && [ -z "$broken" ]
