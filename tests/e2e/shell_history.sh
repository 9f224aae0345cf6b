#!/bin/sh
# SPDX-License-Identifier: MIT
# History and progress across sessions, in $XDG_STATE_HOME/pidns-tutor/;
# under sudo they belong to the invoking user; an unwritable home is a
# warning, never a failure.
. tests/e2e/lib/common
plan 11

drive first --lessons "$FIX/lessons" <<'X'
expect Michael Kerrisk
expect lesson 1 gives its address
expect `lesson 1` to begin
expect pidns-tutor> 
send help ns\r
expect namespace links
send lesson 1\r
expect your prediction> 
send hello\r
expect (1:1/2)> 
send \r
expect (1:2/2)> 
send \x04
expect no process, mount or /procN left
exit 0
X
check "first session" [ $? -eq 0 ]
check "history saved" grep -qx "help ns" "$XDG_STATE_HOME/pidns-tutor/history"
check "progress saved" grep -q "lesson 01-tiny step 1" "$XDG_STATE_HOME/pidns-tutor/progress"

drive second --lessons "$FIX/lessons" <<'X'
expect Welcome back: `lesson 1` resumes A tiny lesson
expect pidns-tutor> 
absent to begin
send \e[A\e[A\e[A
expect help ns
send \x15lesson 1\r
expect resuming at step 2
expect Lesson 1, step 2 of 2
send quit\r
exit 0
X
check "the next session resumes, and Up recalls old commands" [ $? -eq 0 ]

drive hangup <<'X'
expect pidns-tutor> 
send help tree\r
expect hierarchy of PID namespaces
X
check "terminal closed (SIGHUP): the session's history is kept" grep -qx "help tree" "$XDG_STATE_HOME/pidns-tutor/history"
check "terminal closed (SIGHUP): nothing left" nothing_left "pidns-tutor-e2e-never-matches"

if [ "$(id -u)" -eq 0 ]; then
    export XDG_STATE_HOME="$scratch/sudo"
    export SUDO_UID=65534 SUDO_GID=65534
    drive sudo --lessons "$FIX/lessons" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your prediction> 
send \x03
expect Step stopped
send quit\r
exit 0
X
    check "under sudo: session" [ $? -eq 0 ]
    check "under sudo: history belongs to SUDO_UID" [ "$(stat -c %u:%g "$XDG_STATE_HOME/pidns-tutor/history")" = 65534:65534 ]
    check "under sudo: progress belongs to SUDO_UID" [ "$(stat -c %u "$XDG_STATE_HOME/pidns-tutor/progress")" = 65534 ]
    unset SUDO_UID SUDO_GID
else
    for what in session "history belongs to SUDO_UID" "progress belongs to SUDO_UID"; do
        skip "under sudo: $what" "needs root"
    done
fi

touch "$scratch/file"
export XDG_STATE_HOME="$scratch/file/state"
printf 'where\n' | "$TUTOR" >"$scratch/out" 2>"$scratch/err"
check "unwritable home: still exit 0" [ $? -eq 0 ]
check "unwritable home: one warning" grep -q "warning: cannot write .*this session only" "$scratch/err"

finish
