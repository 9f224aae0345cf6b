#!/bin/sh
# Runs every test program: cmocka unit tests, cmocka integration tests on the
# real kernel, then the end-to-end scripts. Prints each runner's own summary,
# then one total line, and exits non-zero if anything failed.
#
#   O=build sh tests/run-tests.sh [PATTERN]    (PATTERN filters by file name)
#
# What the suite starts is marked: every runner runs with
# PIDNS_TUTOR_TEST_RUN=<this run>.<runner> in its environment, which every
# process it starts inherits (in any namespace, as any user). After each
# runner, tests/helpers/leftovers lists the processes that still carry its
# mark: any is a failure of that runner, named, and is killed. Processes that
# do not carry it (a learner's pidns-tutor, another user's containers) are
# never counted or touched. Each runner also gets its own TMPDIR, which must
# be empty after it, and must leave the host's /procN mounts and / as they
# were.
#
# Skips are counted apart and each reason printed. A skip's reason is the
# text after "SKIP: " (cmocka tests) or after "skip - NAME: " (TAP scripts).
# As root with CI=true, any skip fails the run unless its reason starts with
# "kernel:" (this kernel cannot do it, whoever runs the suite).
set -u
O=${O:-build}
pattern=${1:-}
export PIDNS_TUTOR_BUILD="$O"
export PIDNS_TUTOR_SRC="$(pwd)"
LEFTOVERS=$O/tests/helpers/leftovers
passed=0 failed=0 skipped=0 broken="" reasons="" runners=0
run=$(date +%s).$$
work=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-tests.XXXXXX") || exit 1
chmod 755 "$work"
log=$work/log
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
[ -x "$LEFTOVERS" ] || { echo "tests: $LEFTOVERS is not built (make tests)"; exit 1; }
ci_root=0
[ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ] && ci_root=1

count() { # cmocka's "[  PASSED  ] 3 test(s)." style lines
    sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test.*/\1/p" "$log" | head -n 1
}

# What a runner must leave as it found it on the host: the /procN mounts of
# our mount namespace and the entries of /.
host_view() {
    awk '$5 ~ /^\/proc[0-9]+$/ { print "mount " $5 }' /proc/self/mountinfo
    ls -a / | sed 's/^/root /'
}

# After runner $1 (marked $2, temp dir $3): nothing of it left. Prints what
# is left and returns 1 if anything is, after ending its processes.
left_by() {
    tries=0
    while :; do
        procs=$("$LEFTOVERS" "PIDNS_TUTOR_TEST_RUN=$2")
        view=$(host_view)
        files=$(ls -A "$3")
        [ -z "$procs" ] && [ "$view" = "$host_before" ] && [ -z "$files" ] && return 0
        tries=$((tries + 1))
        [ $tries -ge 20 ] && break
        sleep 0.1
    done
    echo "LEFT BEHIND by $1:"
    [ -z "$procs" ] || printf '%s\n' "$procs" | sed 's/^/  /'
    "$LEFTOVERS" -k "PIDNS_TUTOR_TEST_RUN=$2" >/dev/null
    if [ "$view" != "$host_before" ]; then
        printf '%s\n' "$host_before" >"$work/before"
        printf '%s\n' "$view" | diff "$work/before" - | sed -n 's/^< /  gone from the host: /p; s/^> /  new on the host: /p'
        host_before=$view # blamed once, on this runner
    fi
    [ -z "$files" ] || printf '%s\n' "$files" | sed "s|^|  in its TMPDIR: |"
    return 1
}

run_one() { # $1 = program or script
    name="$*"
    case "$name" in *"$pattern"*) ;; *) return ;; esac
    runners=$((runners + 1))
    mark=$run.$runners
    mkdir -m 1777 "$work/tmp.$runners"
    printf '\n=== %s\n' "$name"
    PIDNS_TUTOR_TEST_RUN=$mark TMPDIR=$work/tmp.$runners "$@" >"$log" 2>&1 </dev/null
    rc=$?
    cat "$log"
    left_by "$name" "$mark" "$work/tmp.$runners" >>"$log" 2>&1 || {
        sed -n '/^LEFT BEHIND/,$p' "$log"
        rc=1
    }
    rm -rf "$work/tmp.$runners"
    p=$(count PASSED); f=$(count FAILED); s=$(count SKIPPED)
    why=$(sed -n 's/^SKIP: //p; s/^skip - [^:]*: //p' "$log")
    if [ -z "$p$f" ]; then # not cmocka: the script's exit status is one result
        s=$(printf '%s' "$why" | grep -c .)
        if [ $rc -ne 0 ]; then f=1
        elif [ "$s" -gt 0 ] && ! grep -q '^ok' "$log"; then p=0 # it only skipped
        else p=1; fi
    fi
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ -n "$why" ]; then
        for last; do :; done
        reasons="$reasons$(printf '%s\n' "$why" | sed "s|^|  $(basename "$last" .sh): |")
"
        if [ $ci_root -eq 1 ] && printf '%s\n' "$why" | grep -qv '^kernel:'; then
            echo "a skip as root in CI whose reason does not start with 'kernel:' fails the run"
            rc=1
        fi
    fi
    if [ $rc -ne 0 ]; then
        broken="$broken $name"
        { # what failed, again at the end, where a truncated log still shows it
            printf '%s:\n' "$name"
            grep -E '^(FAIL |not ok|\[  ERROR|\[   LINE|# drive|#   |LEFT BEHIND|  (gone from|new on|in its)|a skip as root)|^[a-z/_.]+\.c:[0-9]+: ' "$log" | head -n 40 | sed 's/^/  /'
        } >>"$work/failures"
        [ -z "$f" ] || [ "$f" -eq 0 ] && failed=$((failed + 1))
    fi
}

host_before=$(host_view)
for t in "$O"/tests/unit/test_* "$O"/tests/integration/test_*; do
    [ -x "$t" ] && run_one "$t"
done
for t in tests/e2e/*.sh ${PIDNS_TUTOR_EXTRA_TESTS:-}; do
    [ -f "$t" ] && run_one sh "$t"
done

ran=$((passed + failed))
printf '\n'
if [ -n "$reasons" ]; then
    echo "not tested ($skipped skipped), and why:"
    printf '%s' "$reasons"
fi
if [ -n "$broken" ]; then
    echo "what failed:"
    cat "$work/failures"
    echo "failing runners:$broken"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$ran" -eq 0 ]; then echo "tests: no test ran (nothing built?)"; exit 1; fi
[ "$failed" -eq 0 ] && [ -z "$broken" ]
