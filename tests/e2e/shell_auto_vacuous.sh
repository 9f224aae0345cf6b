#!/bin/sh
# SPDX-License-Identifier: MIT
# --auto runs each exercise's check before its solution, and fails the
# lesson when the check already passes there: a check that holds before the
# work cannot tell a wrong attempt from the right one. The negative control
# is a fixture lesson with one such check beside a sound one.
. tests/e2e/lib/common
plan 7
out=$scratch/out

"$TUTOR" --auto all --lessons "$FIX/vacuous" >"$out" 2>&1
rc=$?
check "--auto on a check that passes before the work: exit status 1 (was $rc)" [ $rc -eq 1 ]
check "--auto says why the vacuous check failed" \
    grep -q "check: FAILED: it passes before the exercise is done" "$out"
check "--auto names the step of the vacuous check" \
    grep -q "lesson 1, step 1 (A vacuous check): FAILED" "$out"
check "--auto does not blame the sound check" sh -c "! grep -q 'step 2 (A sound check): FAILED' '$out'"
check "--auto tried the sound check before its solution" \
    grep -q "the check fails before the work, as it should" "$out"
check "--auto on a vacuous check: nothing left" nothing_left "no-such-marker-4247"

# The positive side: the same lessons' checks pass on the fixture lessons
# whose checks are sound (shell_auto.sh runs them in full).
"$TUTOR" --auto all --lessons "$FIX/lessons" >"$out" 2>&1
rc=$?
check "--auto on sound checks: exit status 0 (was $rc)" [ $rc -eq 0 ]

finish
