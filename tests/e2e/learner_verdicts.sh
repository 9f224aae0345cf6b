#!/bin/sh
# SPDX-License-Identifier: MIT
# What a learner reads when a check does not pass (commit a644554), through the
# real shell in a pseudo-terminal:
#  - lesson 2's false pass: `cleanup`, then a tmpfs at /proc7, passed
#    because two empty readlinks compared equal; now `check` names the first
#    condition that fails (the lesson's sleep), `check -v` every one with what
#    it saw (/proc7 a tmpfs), and `hint` is chosen by the failing condition;
#    after `again`, the same tmpfs fails at "/proc7 is a procfs";
#  - lesson 1's C exercise with wrong programs: the check shows the program's
#    last lines and how it ended (still running, or its exit status), then the
#    condition; `hint` inside `watch` answers;
#  - a fixture check still waiting (await) says so, with `not` and `same`.
# The negative control of the first part is the old check (git history;
# `--auto 2` with it fails on the [.wrong] attempt of the issue).
. tests/e2e/lib/common
plan 12
EX=exercises/01-two-pids

export HOME="$scratch/home"
mkdir -p "$HOME" "$XDG_STATE_HOME/pidns-tutor"
progress=$XDG_STATE_HOME/pidns-tutor/progress

# Lesson 2, at its exercise (step 4).
printf '# pidns-tutor progress, format 1\ncurrent 02-proc-and-pid-namespaces\nlesson 02-proc-and-pid-namespaces step 3 done 0 checked 0\n' >"$progress"
drive tmpfs_attempt --lessons lessons <<X
expect pidns-tutor> 
send lesson 2\r
expect Mount a procfs for the namespace
expect pidns-tutor (2
send cleanup\r
expect Cleaned up
expect pidns-tutor (2
send sh mkdir -p /proc7\r
expect pidns-tutor (2
send sh mount -t tmpfs x /proc7\r
expect pidns-tutor (2
send check\r
expect Not yet.
expect the lesson's sleep is running: no
absent Passed
expect pidns-tutor (2
send check -v\r
expect /proc7 is a mount point: yes
expect /proc7 is a procfs: no (it is a tmpfs)
expect nothing to compare
absent Passed
expect pidns-tutor (2
send hint\r
expect is not running any more
expect pidns-tutor (2
send again\r
expect pidns-tutor (2
send sh mkdir -p /proc7\r
expect pidns-tutor (2
send sh mount -t tmpfs x /proc7\r
expect pidns-tutor (2
send check\r
expect the lesson's sleep is running: yes
expect /proc7 is a mount point: yes
expect /proc7 is a procfs: no (it is a tmpfs)
absent Passed
expect pidns-tutor (2
send hint\r
expect but not a procfs
expect pidns-tutor (2
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "lesson 2's tmpfs attempt: check names the failing condition, check -v all, hint by the condition" [ $? -eq 0 ]

# Lesson 1's coding exercise (step 5) with wrong programs.
printf '# pidns-tutor progress, format 1\ncurrent 01-new-namespace\nlesson 01-new-namespace step 4 done 0 checked 0\n' >"$progress"
file=$HOME/pidns-exercises/01-two-pids/two_pids.c
mkdir -p "${file%/*}"
cp "$EX/wrong-no-newpid.c" "$file"
# v2: the parent kills its child at once and exits 0.
sed 's/if (waitpid(child, NULL, 0) == -1) {/if (kill(child, SIGKILL), waitpid(child, NULL, 0) == -1) {/' \
    "$EX/solution.c" >"$scratch/v2.c"
check "the killing variant differs from the solution" sh -c "! cmp -s '$scratch/v2.c' '$EX/solution.c'"
drive code_verdicts --lessons lessons <<X
expect pidns-tutor> 
send lesson 1\r
expect pidns-tutor (1
send check\r
expect Your program printed
expect | child: PID
expect It was still running when the check ended
expect the child printed 'child: PID 1, parent 0' before its exec: no
absent Passed
expect pidns-tutor (1
send hint\r
expect CLONE_NEWPID
expect pidns-tutor (1
shell cp '$scratch/v2.c' '$file'
send check\r
expect It ended: exit status 0.
expect the program ended first
absent Passed
expect pidns-tutor (1
send watch\r
expect still watching
send hint\r
expect Hint:
send \x03
expect (stopped watching)
expect pidns-tutor (1
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "lesson 1's wrong programs: their output and end, then the condition; hint inside watch" [ $? -eq 0 ]
check "lesson 1's C check shows the program's last lines and how it ended, then the condition" \
    grep -q "the program ended first" "$scratch/code_verdicts.out"
check "hint answers inside watch" sh -c "sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' '$scratch/code_verdicts.out' | tr -d '\r' | sed -n '/still watching/,\$p' | grep -q 'Hint:'"
# Still waiting (await's bound, here 1 s), not and same, as a script types
# them: still waiting is said as such, also with -v after a later failure;
# the hint follows the condition that fails now.
printf 'lesson 1\ncheck\ncheck -v\nhint\nsh touch /waited\ncheck\nhint\nsh echo yes > /waited\ncheck\nquit\n' |
    TUTOR_WAIT_SECONDS=1 "$TUTOR" --lessons "$FIX/waiting" >"$scratch/waiting.out" 2>&1
tr -s ' \n' '  ' <"$scratch/waiting.out" >"$scratch/waiting.flat"
check "a check still waiting says so, twice (check and check -v), never 'Not yet' first" sh -c \
    "[ \$(grep -o 'Still waiting: the file /waited appears' '$scratch/waiting.flat' | wc -l) -eq 2 ] &&
     ! grep -q 'Not yet. What the check looked at, in order: the sleep is running: yes no sleep 4248 runs: yes the file /waited appears: still' '$scratch/waiting.flat'"
check "not: the condition holds when the command fails" grep -q "no sleep 4248 runs: yes" "$scratch/waiting.flat"
check "same: an empty value is no match, and says so" \
    grep -q "/waited says yes: no (nothing to compare: the first value is empty)" "$scratch/waiting.flat"
check "the hint follows the condition that fails now" sh -c \
    "grep -q 'Hint: Type .sh touch /waited.' '$scratch/waiting.flat' && grep -q 'Hint: Write yes into it' '$scratch/waiting.flat'"
check "then it passes" grep -q "Passed: the kernel's state shows it is done." "$scratch/waiting.flat"
"$TUTOR" --auto all --lessons "$FIX/waiting" >"$scratch/waiting-auto.out" 2>&1
check "--auto on the waiting fixture passes (emptied lab and the empty file refused)" [ $? -eq 0 ]

check "nothing left" nothing_left 'two_pids|sleep 30|sleep 600|sleep 4247'
finish
