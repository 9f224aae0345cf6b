#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner at the real lessons' questions and exercises, through a
# pseudo-terminal (the questions are asked only on a terminal): `next` typed
# at a real prediction (the next step still meets the lab it needs: the
# skipped rest of the step is replayed), `help` at a real quiz then its
# answer, a wrong quiz number then the right one, a plausible wrong attempt
# at a real exercise (`check` says Not yet, `hint` says why without
# contradicting it, then the right work passes), and a program of the
# learner's own started with `sh CMD &` in the middle of a lesson, which
# changes nothing the lesson shows. lesson_questions.sh covers the same
# paths on a fixture lesson; here they run on lessons 1 and 5 as shipped.
. tests/e2e/lib/common
. tests/e2e/lib/learner
plan 7

screen() { sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$scratch/$1.out" | tr -d '\r'; }
clean() { screen "$1" >"$scratch/$1.txt"; ! unexpected "$scratch/$1.txt" | grep -v "^Not yet\." | sed 's/^/     unexpected: /' | grep .; }

# Lesson 1: next at step 2's prediction, help then a wrong number then the
# answer at step 3's quiz, a wrong attempt at step 4's exercise.
export XDG_STATE_HOME="$scratch/state-l1"
drive lesson1 --lessons lessons <<'X'
expect pidns-tutor> 
send lesson 1\r
expect (1:1/5)> 
send \r
expect Which number will
expect your prediction> 
send next\r
expect (the question is left unanswered: running `next`)
expect (replayed steps 1-2 quietly: pidns_init_sleep is running again)
expect Lesson 1, step 3 of 5
expect Name:	sleep
expect your answer (number)> 
send help\r
expect (the question waits: running `help`)
expect Commands (help COMMAND for more):
expect Quiz: Why does the child
expect your answer (number)> 
send 1\r
expect Not 1.
expect your answer (number)> 
send 2\r
expect Answer 2 is right.
expect (1:3/5)> 
send \r
expect Exercise: Have two PID namespaces
expect (1:4/5)> 
send sh pidns_proc_mount sleep 600 &\r
expect background as job
expect (1:4/5)> 
send check\r
expect Not yet.
expect (1:4/5)> 
send hint\r
expect Hint: One namespace is running
expect (1:4/5)> 
send run pidns_init_sleep\r
expect keeps running
expect (1:4/5)> 
send check\r
expect Passed
expect (1:4/5)> 
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "lesson 1: next at a prediction, help and a wrong number at the quiz, a wrong attempt at the exercise" [ $? -eq 0 ]
check "lesson 1: step 3 after next at the prediction shows what the lesson expects" clean lesson1
check "lesson 1: the hint after a wrong attempt is not the 'done' one" \
    sh -c "! grep -qi '^  Hint: .*done already' '$scratch/lesson1.txt'"

# Lesson 5: the learner's own job started at step 2 with `sh CMD &`, then
# step 3 as the lesson has it; the exercise tried on the wrong process.
export XDG_STATE_HOME="$scratch/state-l5"
drive lesson5 --lessons lessons <<'X'
expect pidns-tutor> 
send lesson 5\r
expect (5:1/4)> 
send \r
expect your prediction> 
send 3\r
expect (5:2/4)> 
send sh pidns_init_sleep /proc9 &\r
expect Mounting procfs at /proc9
expect background as job
expect (5:2/4)> 
send \r
expect your prediction> 
send 5\r
expect your answer (number)> 
send 2\r
expect Not 2.
expect your answer (number)> 
send 1\r
expect Answer 1 is right.
expect (5:3/4)> 
send status\r
expect multi_pidns 5
expect pidns_init_sleep /proc9
expect (5:3/4)> 
send \r
expect Exercise: From the lab, stop the innermost
expect (5:4/4)> 
send sh kill -STOP $chain_pid\r
expect (5:4/4)> 
send check\r
expect Not yet.
expect (5:4/4)> 
send hint\r
expect Hint: The `sleep` is still sleeping (`S`)
expect (5:4/4)> 
send sh kill -CONT $chain_pid; s=$chain_pid; while c=$(pgrep -P $s); do s=$c; done; kill -STOP $s\r
expect (5:4/4)> 
send check\r
expect Passed
expect (5:4/4)> 
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "lesson 5: sh CMD & at step 2, a wrong quiz number, a wrong attempt at the exercise" [ $? -eq 0 ]
check "lesson 5: every step shows what the lesson expects, the learner's job beside it" clean lesson5
check "lesson 5: step 3 shows the chain's sleep, not the learner's" \
    grep -qE '^NSpid:[[:space:]]+[0-9]+[[:space:]]+5[[:space:]]+4[[:space:]]+3[[:space:]]+2[[:space:]]+1$' "$scratch/lesson5.txt"
check "nothing of the sessions left" nothing_left "pidns|sleep"
finish
