#!/bin/sh
# SPDX-License-Identifier: MIT
# lab_settle_asleep.sh: a background command is a job (settled) only once
# its processes are asleep, not while one still runs on its way to exec():
# a step that prints its expected line and then computes before it execs
# `sleep` is followed by a command that looks for the sleep
# (tests/fixtures/shell/busy). Negative control: with the wait turned off
# (PIDNS_TUTOR_BUSY_WAIT=0, the lab as it was), the next step finds no sleep.
. tests/e2e/lib/common
plan 5
out=$scratch/out

"$TUTOR" --auto all --lessons "$FIX/busy" >"$out" 2>&1
rc=$?
check "a program busy after its line: the next step finds its sleep (status $rc)" [ $rc -eq 0 ]
check "the step's expected line was shown" grep -qx "ready" "$out"

PIDNS_TUTOR_BUSY_WAIT=0 "$TUTOR" --auto all --lessons "$FIX/busy" >"$out" 2>&1
rc=$?
check "negative control: settled at the first quiet, the next step fails (status $rc)" [ $rc -eq 1 ]
check "negative control: it is the step that looks for the sleep" \
    grep -q "not what the lesson expected" "$out"
check "nothing left" nothing_left "sleep 4251"
finish
