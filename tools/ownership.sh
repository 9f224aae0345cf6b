#!/bin/sh
# SPDX-License-Identifier: MIT
# ownership.sh: the test suite touches only what it started (make check runs
# the suite through this script; make check-ownership is the same).
#
#   O=build sh tools/ownership.sh [PATTERN]
#
# 1. Starts two tutors that are not the suite's, as a learner on the same
#    machine would: one as root from this very build, with `run multi_pidns
#    4` in its lab (four nested PID namespaces), and one as the user nobody
#    (as root; otherwise as ourselves) with `run multi_pidns 2`. They do not
#    carry the suite's mark (tests/run-tests.sh).
# 2. Runs the whole suite (tests/run-tests.sh) beside them: it must pass, and
#    every process of both tutors must still be alive afterwards, the same
#    processes (PID and start time).
# 3. Runs the suite's leftover checks on four planted leaks, each a test
#    that leaves one thing behind: a process in a new PID namespace, a plain
#    process, a /procN mount (in a sandbox, not on the real host), a file in
#    its TMPDIR. Each must fail the run, naming the test and what it left.
set -u
O=${O:-build}
pattern=${1:-}
abs_build=$(cd "$O" && pwd) || exit 1
DRIVE=$abs_build/tests/helpers/pty_drive
TUTOR=$abs_build/pidns-tutor
work=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-ownership.XXXXXX") || exit 1
chmod 755 "$work"
drivers=""
cleanup() {
    for p in $drivers; do kill "$p" 2>/dev/null; done
    for p in $drivers; do wait "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fails=0
bad() { echo "ownership: FAIL: $1"; fails=$((fails + 1)); }

# A foreign tutor: NAME USER EXAMPLE-COMMAND, driven through a terminal; it
# stays at its prompt until we end its driver.
start_tutor() {
    name=$1 user=$2 command=$3
    printf '%s\n' 'expect pidns-tutor> ' "send $command\\r" 'expect pidns-tutor> ' \
        'send status\r' 'expect pidns-tutor> ' 'sleep 3600000' >"$work/$name.script"
    mkdir -m 777 "$work/$name.state"
    launch="env -u PIDNS_TUTOR_TEST_RUN -u PIDNS_TUTOR_TEST_ROW XDG_STATE_HOME=$work/$name.state \
        NO_COLOR=1 TERM=xterm $DRIVE -t 60 -o $work/$name.out $work/$name.script -- $TUTOR"
    if [ "$user" = "$(id -un)" ]; then
        sh -c "cd / && exec $launch" >"$work/$name.drive" 2>&1 &
    else
        su "$user" -s /bin/sh -c "cd / && exec $launch" >"$work/$name.drive" 2>&1 &
    fi
    drivers="$drivers $!"
}

# The processes below PID $1, one "PID STARTTIME" a line.
tree_of() {
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c $(cut -d ')' -f 2 /proc/"$c"/stat 2>/dev/null | awk '{ print $20 }') $(tr '\0' ' ' </proc/"$c"/cmdline 2>/dev/null)"
        tree_of "$c"
    done
}
alive() { # the lines of $1 ("PID STARTTIME") whose process is gone or another one
    printf '%s\n' "$1" | while read -r pid start command; do
        now=$(cut -d ')' -f 2 /proc/"$pid"/stat 2>/dev/null | awk '{ print $20 }')
        [ "$now" = "$start" ] || echo "$pid ($command)"
    done
}

other=$(id -un)
[ "$(id -u)" -eq 0 ] && su nobody -s /bin/sh -c "test -x '$TUTOR' && test -x '$DRIVE'" 2>/dev/null &&
    other=nobody
start_tutor learner "$(id -un)" "run multi_pidns 4 sleep 3600"
start_tutor other "$other" "run multi_pidns 2 sleep 3600"
# How many PID namespaces deep the deepest process below PID $1 is (the
# host's counts 1, a tutor's lab 2).
deepest() {
    tree_of "$1" | while read -r pid start command; do
        grep '^NSpid:' /proc/"$pid"/status 2>/dev/null | awk '{ print NF - 1 }'
    done | sort -n | tail -1
}
# Ready when the learner's sleep is 4 namespaces below its lab, and the other
# tutor's 2 below its own. (Both sleep an hour: a suite on a busy machine
# outlasts the 10 minutes of an example's own sleep.)
set -- $drivers
tries=0
until [ "$(deepest "$1")" = 6 ] && [ "$(deepest "$2")" = 4 ]; do
    tries=$((tries + 1))
    if [ $tries -ge 300 ]; then
        bad "the foreign tutors did not start (namespace depths $(deepest "$1") and $(deepest "$2"))"
        cat "$work"/*.drive
        exit 1
    fi
    sleep 0.1
done
foreign=$(for p in $drivers; do tree_of "$p"; done)
echo "ownership: two foreign tutors run ($(printf '%s\n' "$foreign" | grep -c .) processes, as $(id -un) and $other; the deepest 6 PID namespaces down)"

O=$O sh tests/run-tests.sh "$pattern"
suite=$?

gone=$(alive "$foreign")
if [ -z "$gone" ]; then
    echo "ownership: both foreign tutors survived the suite, every process of them"
else
    bad "the suite ended processes it did not start: $(echo $gone)"
fi
for p in $drivers; do
    kill -0 "$p" 2>/dev/null || bad "a foreign tutor's driver ended ($(cat "$work"/*.drive))"
done

# Planted leaks: each must fail, named.
mkdir -p "$work/planted"
# Each is a passing e2e script (tests/e2e/lib/tap) but for its leak.
cat >"$work/planted/leak_pidns.sh" <<'X'
. tests/e2e/lib/tap
setsid unshare --pid --fork --kill-child=SIGKILL sleep 4271 </dev/null >/dev/null 2>&1 &
ok planted; finish
X
cat >"$work/planted/leak_process.sh" <<'X'
. tests/e2e/lib/tap
setsid sleep 4272 </dev/null >/dev/null 2>&1 &
ok planted; finish
X
cat >"$work/planted/leak_mount.sh" <<'X'
. tests/e2e/lib/tap
check planted sh -c 'mkdir /proc4271 && mount -t tmpfs planted /proc4271'; finish
X
cat >"$work/planted/leak_tmpfile.sh" <<'X'
. tests/e2e/lib/tap
check planted sh -c 'echo planted >"$TMPDIR/leak-4273"'; finish
X
if :; then
    # In the sandbox (a private mount namespace on a scratch root), so that
    # the planted mount and its directory never reach the host, where other
    # test runs on the machine would see them.
    PIDNS_TUTOR_EXTRA_TESTS=$(echo "$work"/planted/*.sh) O=$abs_build "$abs_build/tests/helpers/in_sandbox" \
        sh -c 'cd "$1" && sh tests/run-tests.sh leak_' sh "$(pwd)" >"$work/planted.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] || bad "a run with planted leaks passed"
    for want in "leak_pidns.sh:|sleep 4271" "leak_process.sh:|sleep 4272" \
        "leak_mount.sh:|new on the host: mount /proc4271" "leak_tmpfile.sh:|in its TMPDIR: leak-4273"; do
        test=${want%%|*} what=${want#*|}
        if sed -n "/^LEFT BEHIND by .*$test/,/^=== /p" "$work/planted.log" | grep -qF "$what"; then
            echo "ownership: planted leak caught: ${test%:} left '$what'"
        else
            bad "the planted leak of ${test%:} ($what) was not named"
        fi
    done
    [ $fails -eq 0 ] || cat "$work/planted.log"
fi
[ $fails -eq 0 ] && [ $suite -eq 0 ]
