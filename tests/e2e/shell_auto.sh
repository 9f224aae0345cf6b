#!/bin/sh
# SPDX-License-Identifier: MIT
# --auto: lessons run unattended (predictions and quizzes answered, each
# exercise's solution run then checked); the exit status says whether all
# passed; nothing is left behind.
. tests/e2e/lib/common
plan 13
out=$scratch/out

"$TUTOR" --auto all --lessons "$FIX/lessons" >"$out" 2>&1
rc=$?
check "--auto all on passing lessons: exit status 0 (was $rc)" [ $rc -eq 0 ]
check "--auto ran every check" grep -q "check: passed" "$out"
check "--auto summary" grep -q -- "--auto: 2 lesson(s) run, 0 failed" "$out"
check "--auto left nothing running" nothing_left "sleep 4244"
check "--auto does not record progress" [ ! -s "$XDG_STATE_HOME/pidns-tutor/progress" ] || ! grep -q lesson "$XDG_STATE_HOME/pidns-tutor/progress"

"$TUTOR" --auto 2 --lessons "$FIX/lessons" >"$out" 2>&1
check "--auto N runs that lesson only" grep -q -- "--auto: 1 lesson(s) run, 0 failed" "$out"

"$TUTOR" --auto all --lessons "$FIX/failing" >"$out" 2>&1
rc=$?
check "--auto with a differing output and a failing check: exit status 1" [ $rc -eq 1 ]
check "--auto names the failed steps" grep -q "lesson 1, step 2 (An impossible exercise): FAILED" "$out"
check "--auto shows the expected output" grep -q "not what the lesson expected" "$out"

"$TUTOR" --auto all --lessons "$FIX/late" >"$out" 2>&1
rc=$?
check "--auto waits for a solution whose effect comes late (status $rc)" [ $rc -eq 0 ]
check "--auto with a late solution: nothing left" nothing_left "sleep 4246"

"$TUTOR" --auto nosuch --lessons "$FIX/lessons" >"$out" 2>&1
check "--auto of an unknown lesson: exit status 1" [ $? -eq 1 ]
check "--auto of an unknown lesson: says so" grep -q "no lesson 'nosuch'" "$out"

finish
