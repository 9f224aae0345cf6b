#!/bin/sh
# SPDX-License-Identifier: MIT
# The guided shell driven through a pseudo-terminal as a learner would:
# tab completion, an unknown command, a whole small lesson (prediction,
# live output, exercise with check and hints, quiz), Ctrl-C at the prompt
# and during a running step, Ctrl-D with cleanup and the verdict.
. tests/e2e/lib/common
plan 24

drive completion --lessons "$FIX/lessons" <<'X'
expect pidns-tutor> 
send les\t
expect lesson
send \x15wh\t\r
expect No lesson started
send lesson ti\t\r
expect Lesson 1, step 1 of 2
expect your prediction> 
send \x03
expect Step stopped
expect pidns-tutor (1:1/2)> 
send run pidns_in\t
expect run pidns_init_s
send l\t
expect leep 
send \x15source pidns_init_sl\t
expect source pidns_init_sleep
send \x7f:cl\t
expect :clone
send \x15sh ls -d /pro\t
expect /proc/
send \x15quit\r
expect no process, mount or /procN left
exit 0
X
check "Tab completes commands, lesson names and example names" [ $? -eq 0 ]

PAGER="less -R" drive pager <<'X'
expect pidns-tutor> 
send source pidns_init_sleep\r
expect pidns_init_sleep.c
sleep 300
absent pidns-tutor> 
send q
expect pidns-tutor> 
send source pidns_init_sleep:clone\r
expect clone(
expect pidns-tutor> 
send quit\r
exit 0
X
check "source: a long listing goes through the pager, a short one does not" [ $? -eq 0 ]

# No pager: PAGER unset and no less on PATH, as on a minimal Debian; then a
# pager that fails. Either way the whole listing is printed, without an error.
cat >"$scratch/no_pager.script" <<'X'
expect pidns-tutor> 
send source pidns_init_sleep\r
expect int status = waitForChild(&watched);
expect pidns-tutor> 
absent not found
send quit\r
exit 0
X
mkdir "$scratch/no-less"
env -u PAGER PATH="$scratch/no-less" "$DRIVE" -t 30 -w 100 -o "$scratch/no_pager.out" \
    "$scratch/no_pager.script" -- "$TUTOR"
check "source without less prints the whole listing" [ $? -eq 0 ]
PAGER=false drive failing_pager <"$scratch/no_pager.script"
check "source with a pager that fails prints the whole listing" [ $? -eq 0 ]

drive unknown <<'X'
expect pidns-tutor> 
send lesons\r
expect unknown command 'lesons': did you mean 'lessons'?
send ns\r
expect usage: ns PID
send where\r
expect No lesson started
send ls /proc2/1\r
expect unknown command 'ls': did you mean `sh ls /proc2/1`?
send multi_pidns 5\r
expect unknown command 'multi_pidns': did you mean `run multi_pidns 5`?
send quit\r
exit 0
X
check "an unknown command names the closest; bad arguments get the usage" [ $? -eq 0 ]

drive lesson --lessons "$FIX/lessons" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect Predict: What does the command print?
expect your prediction> 
send HELLO\r
expect Right.
expect # echo hello
expect hello
expect (1:1/2)> 
send \r
expect Lesson 1, step 2 of 2: An exercise
expect Exercise: Make the directory /proc9
expect (1:2/2)> 
send check\r
expect Not yet.
send hint\r
expect There is no /proc9 yet
send sh mkdir /proc9\r
expect (1:2/2)> 
send check\r
expect Passed
expect mkdir -p /proc9
expect your answer (number)> 
send 1\r
expect No: the lab's root is private.
send 2\r
expect Answer 2 is right.
expect (1:2/2)> 
send where\r
expect step 2 of 2
send \r
expect Lesson 1 finished
expect (1:done)> 
send lessons\r
expect [done]
send quit\r
expect no process, mount or /procN left
exit 0
X
check "a whole small lesson: predict, run, expect, exercise, hint, check, quiz" [ $? -eq 0 ]
check "the exercise's /proc9 never reached the host" nothing_left "sleep 4242"

drive ctrl_c --lessons "$FIX/slow" <<'X'
expect pidns-tutor> 
send half a line\x03
expect ^C
send where\r
expect No lesson started
send sh sleep 4242\r
sleep 800
send \x03
expect pidns-tutor> 
send sh echo still alive\r
expect still alive
send lesson 1\r
expect # sleep 4243
sleep 800
send \x03
expect Step stopped
expect pidns-tutor (1:1/2)> 
send \r
expect after the slow step
send quit\r
expect no process, mount or /procN left
exit 0
X
check "Ctrl-C cancels the line, the running command and the step; the shell survives" [ $? -eq 0 ]
check "nothing stopped by Ctrl-C is left running" nothing_left "sleep 424[23]"

drive ctrl_d --lessons "$FIX/lessons" <<'X'
expect pidns-tutor> 
send lesson 2\r
expect # sleep 4244
expect background
expect pidns-tutor (2:1/2)> 
send sh mkdir /proc3\r
expect # mkdir /proc3
expect pidns-tutor (2:1/2)> 
send \x04
expect no process, mount or /procN left
exit 0
X
check "Ctrl-D cleans up (background job, /proc3) and gives the verdict" [ $? -eq 0 ]
check "after Ctrl-D nothing is left" nothing_left "sleep 4244"

drive init_signal <<'X'
expect pidns-tutor> 
send sh kill -STOP 1\r
expect PID 1 here is the lab's init
expect no handler for SIGSTOP
expect pidns-tutor> 
send sh kill -s TERM 1\r
expect no handler for SIGTERM
expect pidns-tutor> 
send sh kill -0 1\r
expect pidns-tutor> 
absent lab's init
send sh grep State /proc/1/status\r
expect S (sleeping)
expect pidns-tutor> 
absent lab's init
send quit\r
expect no process, mount or /procN left
exit 0
X
check "a signal to the lab's init gets a note on why it was ignored; kill -0 and other lines none" [ $? -eq 0 ]

drive names <<'X'
expect pidns-tutor> 
send run pidns_init_sleep /proc2\r
expect background as job 1
expect pidns-tutor> 
send ps\r
expect NAME
expect pidns-tutor> 
send tree\r
expect level 1
expect pidns-tutor> 
send cleanup -v\r
expect removed directory /proc2
expect pidns-tutor> 
send quit\r
expect no process, mount or /procN left
exit 0
X
check "names: a session with a job, ps, tree and cleanup" [ $? -eq 0 ]
tr -d '\r' <"$scratch/names.out" >"$scratch/names.txt"
check "names: ps shows the program's full name" grep -qE '^ +[0-9]+ +[0-9]+ S +1 .* pidns_init_sleep$' "$scratch/names.txt"
check "names: tree shows it" grep -qE -- '-- [0-9]+ pidns_init_sleep$' "$scratch/names.txt"
check "names: cleanup names it" grep -qE '^stopped process [0-9]+ \(pidns_init_sleep\)$' "$scratch/names.txt"
check "levels: tree names the lab's namespace once, at level 1 as the kernel counts" [ "$(grep -c "level 1 (the lab's namespace)" "$scratch/names.txt")" -eq 1 ]
check "levels: the example's namespace is level 2 in tree" grep -qE -- '-- pid:\[[0-9]+\] level 2, 1 process$' "$scratch/names.txt"
check "levels: and LEVEL 2 in ps" grep -qE '^ +[0-9]+ +[0-9]+ S +2 .* sleep$' "$scratch/names.txt"
check "levels: the note counts from the lab's level" grep -q "sleep has 2 PIDs, one in each namespace from the lab's (level 1) down to its" "$scratch/names.txt"
check "names: never the kernel's 15-character cut" sh -c "! grep -qE 'pidns_init_slee([^p]|\$)' '$scratch/names.txt'"

drive summary <<'X'
expect pidns-tutor> 
send run multi_pidns 5\r
expect background as job 1
expect pidns-tutor> 
send cleanup\r
sleep 1500
absent stopped process
absent removed directory
expect Cleaned up: stopped 6 programs, unmounted /proc0-/proc4
expect pidns-tutor> 
send run pidns_init_sleep /proc2\r
expect background as job 1
expect pidns-tutor> 
send sh kill -9 $(pgrep -x pidns_init_slee); sleep 0.3\r
expect pidns-tutor> 
send cleanup -v\r
sleep 1500
absent stopped
expect unmounted /proc2 (proc)
expect Cleaned up: unmounted /proc2.
expect pidns-tutor> 
send cleanup\r
expect Nothing to clean up
send quit\r
expect no process, mount or /procN left
exit 0
X
check "cleanup: one summary line; -v for each; never a job that had ended" [ $? -eq 0 ]

# A state of its own: lesson 1 of the sessions above (01-tiny too) is done,
# and `lesson 1` would ask whether to replay it.
XDG_STATE_HOME=$scratch/state-hints drive check_hints --lessons tests/fixtures/shell/checkhint <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your prediction> 
send hello\r
expect (1:1/2)> 
send \r
expect Exercise: Make the directory /proc9
expect (1:2/2)> 
send hint\r
sleep 700
absent Type `check`
expect (1:2/2)> 
send hint\r
sleep 700
absent Type `check`
expect (1:2/2)> 
send hint\r
sleep 700
absent Type `check`
expect (1:2/2)> 
send sh mkdir /proc9\r
expect (1:2/2)> 
send hint\r
expect Hint:
expect (1:2/2)> 
send hint\r
expect Hint:
expect (1:2/2)> 
send hint\r
expect Hint:
expect (1:2/2)> 
send hint\r
expect Hint:
expect (1:2/2)> 
send check\r
expect Passed
expect your answer (number)> 
send 2\r
expect (1:2/2)> 
send back\r
expect (removed /proc9 to go back to step 1)
expect your prediction> 
send hello\r
expect (1:1/2)> 
send sh mkdir /proc9\r
expect (1:1/2)> 
send next\r
expect you have done this one already
expect (1:2/2)> 
send again\r
expect (removed /proc9 to run the step again)
expect Exercise: Make the directory /proc9
expect (1:2/2)> 
absent done this one already
send sh mkdir /proc9\r
expect (1:2/2)> 
send check\r
expect Passed
expect your answer (number)> 
send 2\r
expect (1:2/2)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
check "hints never contradict the check; \"done already\" only while the check passes (again and back run the step afresh)" [ $? -eq 0 ]
tr -d '\r' <"$scratch/check_hints.out" >"$scratch/check_hints.txt"
check "the \"type check\" hint came once the check passed" grep -q 'Hint: Type `check`.' "$scratch/check_hints.txt"

finish
