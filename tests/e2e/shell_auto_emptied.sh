#!/bin/sh
# --auto's emptied-lab control (issue 28): beside the wrong attempts, each
# exercise's check runs in the lab the exercise meets, emptied (the step's
# processes stopped, every /procN an empty tmpfs, the answer files at the
# lab's root removed), where it must fail: a check that passes there passes
# on absent evidence. The negative control is a fixture lesson whose first
# check compares two values with test "$(...)" = "$(...)", which holds once
# both are empty; its second check says the same with need and same, and
# must pass.
. tests/e2e/lib/common
out=$scratch/out

"$TUTOR" --auto all --lessons "$FIX/emptied" >"$out" 2>&1
rc=$?
check "--auto on a check that passes in an emptied lab: exit status 1 (was $rc)" [ $rc -eq 1 ]
check "--auto says why: it passes in an emptied lab" \
    grep -q "check: FAILED: it passes in an emptied lab" "$out"
check "--auto names the step of the empty == empty check" \
    grep -q "lesson 1, step 1 (Two empty values): FAILED" "$out"
check "the check with need and same fails in the emptied lab" \
    grep -q "the check fails in an emptied lab, as it should" "$out"
check "--auto does not blame the check with named conditions" \
    sh -c "! grep -q 'step 2 (The same, with named conditions): FAILED' '$out'"
check "--auto counts the check it caught" \
    grep -q "the emptied-lab control: 1 check(s) pass in an emptied lab" "$out"
check "--auto's emptied-lab control: nothing left" nothing_left "sleep 4246"

finish
