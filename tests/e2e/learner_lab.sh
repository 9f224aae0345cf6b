#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner's path through the lab, played through a pseudo-terminal as a
# person plays it, not as --auto does: a lesson owns its lab. Lesson 1's
# exercise left running, then lesson 5: its steps show what the lesson says,
# and one line says what was stopped. Quit at lesson 5's exercise, start
# again: the earlier steps are replayed (one line), and the exercise can be
# done. `again` leaves one copy of the step's program, not two. A program the
# learner starts in the middle of lesson 5 does not change what step 3 shows.
# Besides the tutor's words, the kernel is asked: pgrep in the lab, and the
# host's /proc for the processes this test marked.
. tests/e2e/lib/common
plan 19

mark=learner-lab-$$
export LEARNER_LAB_MARK=$mark

# The transcript of a drive, without escape sequences and carriage returns.
screen() {
    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$scratch/$1.out" | tr -d '\r'
}

# How many of our marked processes are called $1, on the host's /proc.
marked() {
    n=0
    for e in $(grep -l -z -x "LEARNER_LAB_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null); do
        [ "$(cat "${e%/environ}/comm" 2>/dev/null)" = "$1" ] && n=$((n + 1))
    done
    echo "$n"
}

# Runs a drive in the background and prints the most processes called $1
# that ran at once meanwhile (polled on the host's /proc), then its status.
max_marked_during() {
    comm=$1
    shift
    "$@" >"$scratch/max.log" 2>&1 &
    pid=$!
    max=0
    while kill -0 "$pid" 2>/dev/null; do
        n=$(marked "$comm")
        [ "$n" -gt "$max" ] && max=$n
        sleep 0.05
    done
    wait "$pid"
    echo "$max $?"
}

# Lesson 5, from the prompt of step 1 up to the prompt of step 3, answering
# its two predictions (3, then 5) and its quiz (1).
lesson5_to_step3='
expect (5:1/4)> 
send \r
expect your prediction> 
send 3\r
expect (5:2/4)> 
send \r
expect your prediction> 
send 5\r
expect your answer (number)> 
send 1\r
expect (5:3/4)> 
'

# 1. Lesson 1's exercise done (two pidns_init_sleep running), then lesson 5.
{
    cat <<'X'
expect pidns-tutor> 
send lesson 1\r
expect (1:1/5)> 
send \r
expect your prediction> 
send 1\r
expect (1:2/5)> 
send \r
expect your answer (number)> 
send 2\r
expect (1:3/5)> 
send \r
expect (1:4/5)> 
send run pidns_init_sleep\r
expect keeps running
send check\r
expect Passed
send sh echo before: sleeps=$(pgrep -c -x sleep)\r
expect (1:4/5)> 
send lesson 5\r
expect multi_pidns 5
expect (5:1/4)> 
send sh echo after: sleeps=$(pgrep -c -x sleep) chains=$(pgrep -c -x multi_pidns)\r
X
    echo "$lesson5_to_step3"
    cat <<'X'
send quit\r
expect no process, mount or /procN left
exit 0
X
} | drive l1_then_l5 --lessons lessons
check "lesson 1's exercise, then lesson 5 to step 3: the session runs" [ $? -eq 0 ]
check "lesson 5 found lesson 1's programs still running (pgrep -c -x sleep: 2)" \
    grep -q 'before: sleeps=2' "$scratch/l1_then_l5.out"
check "lesson 5 starts with its own chain alone (pgrep: 1 sleep, 5 multi_pidns)" \
    grep -q 'after: sleeps=1 chains=5' "$scratch/l1_then_l5.out"
stopped=$(screen l1_then_l5 | grep -c '^ *(stopped [0-9]* programs\{0,1\} left by lesson 1)$')
check "one line says what lesson 1 left and was stopped ($stopped)" [ "$stopped" -eq 1 ]
shows_nspid() {
    screen "$1" | grep -qE '^NSpid:[[:space:]]+[0-9]+[[:space:]]+5[[:space:]]+4[[:space:]]+3[[:space:]]+2[[:space:]]+1$'
}
check "step 3 shows the sleep's NSpid line at every level" shows_nspid l1_then_l5
check "no step of lesson 5 differs from the lesson" sh -c "! grep -q 'not what the lesson expected' '$scratch/l1_then_l5.out'"
check "no 'Is a directory' from a pgrep that found several sleeps" \
    sh -c "! grep -q 'Is a directory' '$scratch/l1_then_l5.out'"

# 2. Quit at lesson 5's exercise; a new session resumes there.
rm -rf "$XDG_STATE_HOME"
{
    cat <<'X'
expect pidns-tutor> 
send lesson 5\r
X
    echo "$lesson5_to_step3"
    cat <<'X'
send \r
expect (5:4/4)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
} | drive quit_at_exercise --lessons lessons
check "lesson 5 played to its exercise, then quit" [ $? -eq 0 ]
drive resume --lessons lessons <<'X'
expect Welcome back
expect pidns-tutor> 
send lesson 5\r
expect (resuming at step 4)
expect (replayed steps 1-3 quietly: multi_pidns 5 is running again)
expect (5:4/4)> 
send sh grep State /proc0/1/status\r
expect sleeping
send check\r
expect Not yet
send sh s=$chain_pid; while c=$(pgrep -P $s); do s=$c; done; kill -STOP $s\r
expect (5:4/4)> 
send check\r
expect Passed
send quit\r
expect no process, mount or /procN left
exit 0
X
check "resumed at step 4 with the replay line; the chain runs again (State of /proc0/1); the check fails, then passes after the solution" [ $? -eq 0 ]
replayed=$(screen resume | grep -c '(replayed steps')
check "one replay line ($replayed)" [ "$replayed" -eq 1 ]

# 3. `again` on a step with a background job: one copy, not two.
rm -rf "$XDG_STATE_HOME"
cat >"$scratch/again.script" <<'X'
expect pidns-tutor> 
send lesson 5\r
expect (5:1/4)> 
send again\r
expect (stopped
expect Final child sleeping
expect (5:1/4)> 
send sh echo again: sleeps=$(pgrep -c -x sleep) chains=$(pgrep -c -x multi_pidns)\r
expect (5:1/4)> 
sleep 500
send quit\r
expect no process, mount or /procN left
exit 0
X
set -- $(max_marked_during sleep "$DRIVE" -t 30 -w 100 -o "$scratch/again.out" "$scratch/again.script" \
    -- "$TUTOR" --lessons lessons)
check "again: the session runs" [ "$2" -eq 0 ]
check "again: pgrep in the lab finds one chain" grep -q 'again: sleeps=1 chains=5' "$scratch/again.out"
check "again: at most one marked sleep ran at any time on the host ($1)" [ "$1" -eq 1 ]

# 4. The learner's own pidns_init_sleep during lesson 5 leaves step 3 as it was.
rm -rf "$XDG_STATE_HOME"
{
    cat <<'X'
expect pidns-tutor> 
send lesson 5\r
expect (5:1/4)> 
send run pidns_init_sleep\r
expect keeps running
X
    echo "$lesson5_to_step3"
    cat <<'X'
send sh echo extra: sleeps=$(pgrep -c -x sleep)\r
expect (5:3/4)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
} | drive extra_program --lessons lessons
check "a learner's extra program during lesson 5: the session runs" [ $? -eq 0 ]
check "a learner's extra program: 2 sleeps in the lab" grep -q 'extra: sleeps=2' "$scratch/extra_program.out"
check "a learner's extra program: step 3 still shows what the lesson expects" \
    sh -c "! grep -q 'not what the lesson expected' '$scratch/extra_program.out'"
check "a learner's extra program: step 3 shows the chain's sleep" shows_nspid extra_program
check "nothing of the sessions left" nothing_left "LEARNER_LAB_MARK|pidns_init_sleep|multi_pidns"
check "nothing marked left on the host" [ "$(marked sleep)" -eq 0 ]
finish
