#!/bin/sh
# SPDX-License-Identifier: MIT
# lessons_auto_all.sh: the real lessons, taken unattended by the real shell
# (--auto all): every command runs, every [.expect] matches this kernel's
# output, every exercise's check refuses each of its [.wrong] attempts and
# passes after its solution; by both routes
# (root, and the user-namespace route a learner without root takes); and the
# host is left as it was.
set -u
. tests/e2e/lib/tap
O=${PIDNS_TUTOR_BUILD:-build}
TUTOR=$O/pidns-tutor
[ -x "$TUTOR" ] || bail_out "$TUTOR is not built (make first)"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-lessons.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/state" NO_COLOR=1
count=$(ls lessons/[0-9]*-*.adoc | wc -l)
wrongs=$(cat lessons/[0-9]*-*.adoc | grep -c '^\[\.wrong\]$')

# The routes run side by side (each with its own state directory), their
# results printed in order; the host's /procN mounts are counted before and
# after both. A route is killed after 40 s a lesson (a hang: 1120 s for 28
# lessons; side by side on a 2-CPU machine at load 20, the ASan build took
# over 600 s for 27; unloaded, the plain build takes about 8 s a lesson).
run_route() { # $1 = name, then options
    name=$1
    shift
    mkdir -p "$scratch/state/$name"
    # Wide lines: a failing step's line ("lesson N, step K (title): FAILED")
    # stays whole for the grep below, not wrapped at 80 columns.
    COLUMNS=400 XDG_STATE_HOME="$scratch/state/$name" timeout -s KILL $((count * 40)) "$TUTOR" "$@" --auto all --lessons lessons \
        </dev/null >"$scratch/$name.out" 2>&1
    echo $? >"$scratch/$name.rc"
}
verdict() { # $1 = name
    name=$1
    rc=$(cat "$scratch/$name.rc")
    refused=$(grep -c "^  (wrong attempt '" "$scratch/$name.out")
    if [ "$rc" -eq 0 ] && grep -q -- "--auto: $count lesson(s) run, 0 failed" "$scratch/$name.out" &&
        grep -q "no process, mount or /procN left" "$scratch/$name.out" && [ "$before" = "$after" ] &&
        [ "$refused" -eq "$wrongs" ]; then
        ok "--auto all, $name: $count lessons passed, their checks refused all $wrongs wrong attempts, no process, mount or /procN left"
    else
        not_ok "--auto all, $name (exit status $rc; $refused of $wrongs wrong attempts refused; host /procN mounts $before before, $after after); the failing steps:" \
            "$(grep -E '^lesson [0-9]+(, step [0-9]+)? \(.*\): FAILED|--auto: ' "$scratch/$name.out" | head -20
               grep -B 12 -E '\): FAILED$' "$scratch/$name.out" | head -60)"
    fi
}

before=$(grep -cE ' /proc[0-9]+ ' /proc/self/mountinfo)
if [ "$(id -u)" -eq 0 ]; then
    run_route root &
    run_route user-namespace --user-namespace &
    wait
    after=$(grep -cE ' /proc[0-9]+ ' /proc/self/mountinfo)
    verdict root
    verdict user-namespace
else
    run_route "unprivileged (uid $(id -u))"
    after=$(grep -cE ' /proc[0-9]+ ' /proc/self/mountinfo)
    verdict "unprivileged (uid $(id -u))"
fi
check "no /procN directory left on the host" sh -c '! ls -d /proc[0-9]* >/dev/null 2>&1'
finish
