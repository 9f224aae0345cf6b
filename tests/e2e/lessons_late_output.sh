#!/bin/sh
# SPDX-License-Identifier: MIT
# A step's expected output is compared once it has come, not after a fixed
# silence (commit 9e77764): a [.run.background] program that prints what
# its [.expect] shows only 1.5 s after it starts (as a quick example does on
# a loaded machine) passes, in --auto and in a terminal, and --auto's quiet
# replay of that step (the lab an exercise meets) waits for it too; a worked
# solution whose effect comes 6 s after it became a job passes --auto.
# Negative controls: with the wait's bound (PIDNS_TUTOR_EXPECT_WAIT) below
# the delays both lessons fail, as they did when the lab compared after
# 0.3 s of quiet and --auto gave a solution 5 s; a program whose first line
# already differs still fails at once; one that never prints fails when
# the bound has passed, without hanging.
. tests/e2e/lib/common
out=$scratch/out
ms() { echo $(($(date +%s%N) / 1000000)); }

t0=$(ms)
"$TUTOR" --auto 1 --lessons "$FIX/lateoutput" >"$out" 2>&1
rc=$?
took=$(($(ms) - t0))
check "--auto: a step whose output comes 1.5 s late passes (status $rc)" [ $rc -eq 0 ]
check "--auto: the exercise on what it made passes after the replays" \
    grep -q "lesson 1 (01-late-output): passed" "$out"
# The two lines, then the note that the program became a job: not the
# lesson's expected text, which a failing step shows after its complaint.
check "--auto: it showed both late lines, then made the program a job" \
    sh -c "grep -A2 '^first line, late' '$out' | tr '\n' ' ' |
        grep -q '^first line, late second line, later *(it keeps running in the background as job 1'"
check "--auto: no step's output was called wrong" sh -c "! grep -q 'not what the lesson expected' '$out'"
check "--auto: a program that ends 1 s late is compared once it ended" \
    sh -c "grep -A1 \"^# sh -c 'sleep 1; echo ended late'\" '$out' | grep -qx 'ended late'"
check "--auto: each wait took the delay, not the 30 s bound (${took} ms)" [ "$took" -lt 25000 ]
check "--auto: a silent program with an empty [.expect] became a job" \
    sh -c "grep -A1 '^# sleep 4247' '$out' | grep -q 'it keeps running in the background'"

"$TUTOR" --auto 2 --lessons "$FIX/lateoutput" >"$out" 2>&1
rc=$?
check "--auto: a solution whose effect comes 6 s late passes (status $rc)" [ $rc -eq 0 ]

PIDNS_TUTOR_EXPECT_WAIT=0.5 "$TUTOR" --auto all --lessons "$FIX/lateoutput" >"$out" 2>&1
rc=$?
check "negative control: with a 0.5 s bound the late step fails (status $rc)" [ $rc -eq 1 ]
check "negative control: it is the late step that fails" \
    grep -q "lesson 1, step 1 (A late first line): FAILED" "$out"
check "negative control: and the late solution's check" \
    grep -q "lesson 2, step 1 (Something that comes much later): FAILED" "$out"

t0=$(ms)
PIDNS_TUTOR_EXPECT_WAIT=4 "$TUTOR" --auto all --lessons "$FIX/wrongoutput" >"$out" 2>&1
rc=$?
took=$(($(ms) - t0))
check "output that differs or never comes fails the steps (status $rc)" [ $rc -eq 1 ]
check "a first line that differs fails its step" grep -q "step 1 (A line that differs): FAILED" "$out"
check "output that never comes fails its step" grep -q "step 2 (Nothing at all): FAILED" "$out"
check "it says it was still waiting when the bound ran out" \
    sh -c "tr -s '\n ' '  ' <'$out' | grep -q 'still waiting for the rest of what the lesson expects after 4 s'"
check "a line that differs is not called late" sh -c "[ \$(grep -c 'still waiting for the rest' '$out') -eq 1 ]"
check "only the silent step waited for the 4 s bound (${took} ms)" \
    sh -c "[ $took -ge 4000 ] && [ $took -lt 25000 ]"

# In a terminal: the learner sees the late lines and no complaint.
drive late --lessons "$FIX/lateoutput" <<'SCRIPT'
expect pidns-tutor> 
send lesson 1\r
expect second line, later
expect Enter: next step
absent not what the lesson expected
send \r
expect the late job is
send quit\r
SCRIPT
check "in a terminal, the late step passes" [ "$drive_rc" -eq 0 ]

# A learner waiting for output that does not come is told how to stop it.
PIDNS_TUTOR_EXPECT_WAIT=20 drive silent --lessons "$FIX/wrongoutput" <<'SCRIPT'
expect pidns-tutor> 
send lesson 1\r
expect not what the lesson expected
send \r
expect waiting for the output the lesson expects
send \x03
expect Step stopped
send quit\r
SCRIPT
check "in a terminal, a long wait says so and Ctrl-C ends it" [ "$drive_rc" -eq 0 ]
check "nothing left" nothing_left "sleep 42(4[789]|50)"
finish
