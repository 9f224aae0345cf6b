#!/bin/sh
# SPDX-License-Identifier: MIT
# A step marked [kernel=X.Y] is skipped, and said to be, on an older
# kernel: shown in the shell, in --auto (counted as a skip whose reason
# starts with "kernel:") and in an exported script. The fixture gates a
# failing step on Linux 99.0; the negative control lowers the gate to 1.0,
# where the same lesson must fail.
. tests/e2e/lib/common
out=$scratch/out
lower="$scratch/lower"
mkdir -p "$lower"
sed 's/^\[kernel=99\.0\]$/[kernel=1.0]/' "$FIX/kernelgate/01-gate.adoc" >"$lower/01-gate.adoc"
check "the negative control's fixture differs from the gated one" \
    sh -c "! cmp -s '$FIX/kernelgate/01-gate.adoc' '$lower/01-gate.adoc'"

"$TUTOR" --auto all --lessons "$FIX/kernelgate" >"$out" 2>&1
rc=$?
check "--auto with a step for Linux 99.0: exit status 0 (was $rc)" [ $rc -eq 0 ]
# said TEXT: the output holds TEXT, whatever the line wrapping.
said() { tr -s '\n ' '  ' <"$out" | grep -qF "$1"; }
check "--auto says the step is skipped, and why" \
    said "lesson 1, step 2 (Needs a kernel from the future): skipped, kernel: needs Linux 99.0, this is $(uname -r)"
check "--auto's verdict on the lesson counts the skip" grep -q "lesson 1 (01-gate): passed (1 step skipped" "$out"
check "--auto did not run the gated step's command" sh -c "! grep -q 'gated step ran' '$out'"
check "--auto ran the steps around it" sh -c "grep -q '^ *before' '$out' && grep -q '^ *after' '$out'"

"$TUTOR" --auto all --lessons "$lower" >"$out" 2>&1
rc=$?
check "negative control: the same step gated on 1.0 runs and fails --auto (was $rc)" [ $rc -eq 1 ]
check "negative control: its command ran" grep -q "gated step ran" "$out"

# The exported script skips it the same way.
printf 'export 1 %s/gate.sh\nquit\n' "$scratch" | "$TUTOR" --lessons "$FIX/kernelgate" >"$out" 2>&1
sh "$scratch/gate.sh" >"$out" 2>&1
rc=$?
check "the exported script passes, skipping the step (was $rc)" [ $rc -eq 0 ]
check "the exported script says why" \
    said "This step needs Linux 99.0 or later; this kernel is $(uname -r), so it is skipped" "$out"
check "the exported script did not run the gated command" sh -c "! grep -q 'gated step ran' '$out'"
printf 'export 1 %s/lower.sh\nquit\n' "$scratch" | "$TUTOR" --lessons "$lower" >/dev/null 2>&1
sh "$scratch/lower.sh" >"$out" 2>&1
rc=$?
check "negative control: exported with the gate at 1.0, the script fails (was $rc)" [ $rc -ne 0 ]

# In the shell: the step says so and has no exercise to trap the learner.
drive gate --lessons "$FIX/kernelgate" <<'SCRIPT'
expect pidns-tutor> 
send lesson 1\r
expect Enter: next step
send \r
expect so it is skipped
send check\r
expect (1:2/3)> 
send \r
expect step 3 of 3
send quit\r
SCRIPT
check "the shell shows the gated step as skipped and goes on" [ "$drive_rc" -eq 0 ]
check "the shell never ran the gated command" sh -c "! grep -q 'gated step ran' '$scratch/gate.out'"
check "check on the skipped step finds no exercise" grep -qi "no exercise" "$scratch/gate.out"
# A lesson whose ':kernel:' is newer than this one: each step is gated by it.
whole="$scratch/whole"
mkdir -p "$whole"
sed 's/^:kernel: 99\.0$/:kernel: 1.0/' "$FIX/kernellesson/01-whole.adoc" >"$whole/01-whole.adoc"
"$TUTOR" --auto all --lessons "$FIX/kernellesson" >"$out" 2>&1
rc=$?
check "--auto with a lesson for Linux 99.0: exit status 0, the lesson skipped, not passed (was $rc)" \
    sh -c "[ $rc -eq 0 ] && ! grep -q '(01-whole): passed' '$out'"
check "--auto says the whole lesson is skipped, and why" \
    said "lesson 1 (01-whole): skipped, kernel: every step needs Linux 99.0 or later, this is $(uname -r)"
check "--auto says why for each step" \
    said "lesson 1, step 2 (The second step it cannot show): skipped, kernel: needs Linux 99.0, this is $(uname -r)"
check "--auto ran none of its commands" sh -c "! grep -q 'whole-lesson step ran' '$out'"
"$TUTOR" --auto all --lessons "$whole" >"$out" 2>&1
rc=$?
check "negative control: the same lesson for Linux 1.0 runs and fails --auto (was $rc)" \
    sh -c "[ $rc -eq 1 ] && grep -q 'whole-lesson step ran' '$out'"
printf 'export 1 %s/whole.sh\nquit\n' "$scratch" | "$TUTOR" --lessons "$FIX/kernellesson" >/dev/null 2>&1
sh "$scratch/whole.sh" >"$out" 2>&1
rc=$?
check "the exported lesson for Linux 99.0 exits 0, running none of its steps (was $rc)" \
    sh -c "[ $rc -eq 0 ] && ! grep -q 'whole-lesson step ran' '$out'"
check "... and says so, not that the lesson holds" \
    sh -c "grep -q '^Lesson 1: every step needs a newer kernel' '$out' && ! grep -q 'holds on this machine' '$out'"
# One step of three skipped: the script says how many.
printf 'export 1 %s/gate2.sh\nquit\n' "$scratch" | "$TUTOR" --lessons "$FIX/kernelgate" >/dev/null 2>&1
sh "$scratch/gate2.sh" >"$out" 2>&1
check "an exported lesson with one step skipped says so in its last line" \
    grep -q "^Lesson 1 holds on this machine: every step this kernel has, as the lesson says (1 skipped" "$out"
check "nothing left" nothing_left "no-such-marker-4248"
finish
