#!/bin/sh
# SPDX-License-Identifier: MIT
# --auto's emptied-lab control (commit 0c5fca5): beside the wrong attempts, each
# exercise's check runs in the lab the exercise meets, emptied (the step's
# processes stopped, every /procN an empty tmpfs, the answer files at the
# lab's root removed), where it must fail: a check that passes there passes
# on absent evidence. The negative control is a fixture lesson whose first
# check compares two values with test "$(...)" = "$(...)", which holds once
# both are empty; its second check says the same with need and same, and
# must pass.
. tests/e2e/lib/common
plan 10
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
check "a solution that leaves nothing: the lab the exercise meets is emptied instead" \
    grep -q "the solution leaves nothing to empty" "$out"
check "--auto names the step whose check only reads that the sleep is gone" \
    grep -q "lesson 2, step 1 (A task of taking something down): FAILED" "$out"
check "--auto does not blame the check that reads how the job ended" \
    sh -c "! grep -q 'step 2 (The same, with the evidence of how it ended): FAILED' '$out'"
check "--auto counts the checks it caught" \
    grep -q "the emptied-lab control: 2 check(s) pass in an emptied lab" "$out"
check "--auto's emptied-lab control: nothing left" nothing_left "sleep 424[678]"

finish
