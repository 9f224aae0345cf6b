#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner's progress tells only what happened (commit e67a26e), played
# through the real shell on the small lessons of tests/fixtures/shell/lessons
# (lesson 1: a step, then an exercise at step 2; lesson 2: two steps, no
# exercise), in batch sessions and, for what only a terminal shows (the
# greeting, a question), in a pseudo-terminal:
#
#   skip      `next` past an exercise that has not passed: the lesson is
#             "finished, 1 skipped", never [done], in `lessons` and the file
#   position  the step counter reads as a position: [step 1 of 2]
#   back      going back to the skipped exercise and passing it: done
#   return    `lesson 1` in a finished lesson with a skip: back at that
#             exercise (not step 1); passing it makes the lesson done
#   where     `where` after a pass says passed, not "waiting for check"
#   done      `lesson 1` for a lesson done: says so, restarts nothing;
#             `lesson 1 again` replays it, and it stays done
#   again     `lesson N again` starts at step 1, whatever the progress
#   after     the lesson suggested after a finish is one not done
#   resume    a resumed lesson says in one line what it did not restore, and
#             that is true: the learner's file and program are gone
#   format1   a progress file of the old format (written by the tutor before
#             skips were recorded) whose exercise never passed: skipped
#   welcome   "Welcome back" names the next lesson not done, and where in it
#   prompt    the prompt after a lesson left with a skip does not say done
#   replay    on a terminal, `lesson 1` for a lesson done asks before a replay
#
# Run against an older build (PIDNS_TUTOR_BUILD=DIR), each case fails: that
# is the negative control.
. tests/e2e/lib/common
plan 29
LESSONS=$FIX/lessons
state=$XDG_STATE_HOME/pidns-tutor
progress=$state/progress

# play NAME: a batch session (lines from stdin) on the state of $XDG_STATE_HOME;
# the transcript is $scratch/NAME.out.
play() {
    timeout 60 "$TUTOR" --lessons "$LESSONS" >"$scratch/$1.out" 2>&1
}
# fresh: no progress at all.
fresh() { rm -rf "$state"; }
# has NAME TEXT / hasnt NAME TEXT: the transcript holds TEXT (a fixed string), or not.
has() { grep -qF -- "$2" "$scratch/$1.out"; }
hasnt() { ! grep -qF -- "$2" "$scratch/$1.out"; }
# after NAME MARK TEXT: TEXT comes after the last line holding MARK.
# (MARK must be there.)
after() { awk -v m="$2" 'index($0, m) { n = NR } END { print n + 0 }' "$scratch/$1.out" >"$scratch/at" &&
    [ "$(cat "$scratch/at")" -gt 0 ] &&
    tail -n +"$(($(cat "$scratch/at") + 1))" "$scratch/$1.out" | grep -qF -- "$3"; }

fresh
printf 'lesson 1\nnext\nnext\nlessons\nwhere\n' | play skip
check "skip: \`next\` past an exercise says it is skipped" has skip "(exercise skipped: it has not passed"
check "skip: the lesson ends 'finished, 1 exercise skipped', not 'finished:'" \
    sh -c "grep -qF 'Lesson 1 finished, 1 exercise skipped (step 2)' '$scratch/skip.out' && ! grep -qF 'Lesson 1 finished: ' '$scratch/skip.out'"
check "skip: \`lessons\` shows it finished with 1 skipped, never [done]" \
    sh -c "grep -Eq '^\[finished, 1 skipped\] +1 ' '$scratch/skip.out' && ! grep -qF '[done]' '$scratch/skip.out'"
check "skip: \`where\` says finished with the exercise skipped, not done" \
    has skip "Lesson 1, A tiny lesson: finished, 1 exercise skipped (step 2): \`lesson 1\` goes"
check "skip: the progress file records the skip (step 2: skipped 2)" \
    grep -qx 'lesson 01-tiny step 0 finished 1 checked 0 skipped 2' "$progress"

fresh
printf 'lesson 1\nlessons\nnext\nlessons\n' | play position
check "position: \`lessons\` says [step 1 of 2], then [step 2 of 2], never [N/2]" \
    sh -c "grep -Eq '^\[step 1 of 2\] +1 ' '$scratch/position.out' && grep -Eq '^\[step 2 of 2\] +1 ' '$scratch/position.out' &&
           ! grep -Eq '\[[0-9]+/[0-9]+\]' '$scratch/position.out'"

fresh
printf 'lesson 1\nnext\nnext\nback\nsh mkdir /proc9\ncheck\nlessons\n' | play back
check "back: passing the skipped exercise makes the lesson done" has back "Lesson 1 is done now: every exercise passed."
check "back: \`lessons\` then says [done]" sh -c "grep -Eq '^\[done\] +1 ' '$scratch/back.out'"
check "back: the file's skip is cleared" grep -qx 'lesson 01-tiny step 1 finished 1 checked 2 skipped 0' "$progress"

fresh
printf 'lesson 1\nnext\nnext\n' | play return1
printf 'lesson 1\nsh mkdir /proc9\ncheck\nlessons\n' | play return
check "return: \`lesson 1\` goes back to the skipped exercise, not to step 1" \
    sh -c "grep -qF '(back to the exercise you skipped, at step 2)' '$scratch/return.out' && ! grep -qF 'Lesson 1, step 1 of 2' '$scratch/return.out'"
check "return: once it passes the lesson is [done]" sh -c "grep -Eq '^\[done\] +1 ' '$scratch/return.out'"

fresh
printf 'lesson 1\nnext\nwhere\nsh mkdir /proc9\ncheck\nwhere\n' | play where
check "where: before the pass, the exercise waits for check" has where "Exercise waiting for \`check\`"
check "where: after the pass, it says passed (and no longer waiting)" after where "Passed:" "Exercise passed: Make the directory /proc9"
check "where: after the pass, nothing waits for check" sh -c "! tail -n 4 '$scratch/where.out' | grep -q 'waiting for'"

fresh
printf 'lesson 1\nnext\nsh mkdir /proc9\ncheck\nnext\n' | play done1
printf 'lesson 1\nlessons\nlesson 1 again\nlessons\n' | play done
one_replay() {
    [ "$(grep -c 'Lesson 1, step 1 of 2' "$scratch/done.out")" -eq 1 ] &&
        after done "Next unfinished:" "Lesson 1, step 1 of 2"
}
check "done: \`lesson 1\` says the lesson is done, and how to replay it" \
    sh -c "grep -qF 'Lesson 1, A tiny lesson, is done: every exercise in it passed.' '$scratch/done.out' && grep -qF '\`lesson 1 again\` replays it' '$scratch/done.out'"
check "done: it names the next unfinished lesson" has done "Next unfinished: \`lesson 2\`, A second lesson."
check "done: \`lesson 1\` alone restarts nothing; \`lesson 1 again\` replays from step 1" \
    one_replay
check "done: the replayed lesson stays [done]" [ "$(grep -Ec '^\[done\] +1 ' "$scratch/done.out")" -eq 2 ]

# again: `lesson 1 again` in a lesson at its step 2 starts it at step 1.
fresh
printf 'lesson 1\nnext\n' | play again1
printf 'lesson 1 again\n' | play again
check "again: \`lesson 1 again\` starts at step 1, not where the lesson was left" \
    sh -c "grep -qF 'Lesson 1, step 1 of 2' '$scratch/again.out' && ! grep -qF 'resuming' '$scratch/again.out'"

# after: lesson 2 is done already; finishing lesson 1 does not offer it
# again, and Enter does not replay it.
fresh
mkdir -p "$state" && printf 'lesson 02-second step 0 finished 1 checked 0 skipped 0\n' >"$progress"
printf 'lesson 1\nnext\nsh mkdir /proc9\ncheck\nnext\nnext\n' | play after
check "after: a lesson done is not suggested next; Enter starts no replay" \
    sh -c "grep -qF 'That was the last lesson to do.' '$scratch/after.out' && grep -qF 'No other lesson left to do' '$scratch/after.out' &&
           ! grep -qF 'Lesson 2, step 1' '$scratch/after.out'"

# resume: the first session leaves a file and a program of the learner's own
# in the lab; the next resumes at step 2 and says they are not restored.
fresh
printf 'lesson 1\nnext\nsh echo mine >/tmp/learner-file\nsh sleep 4251 &\nquit\n' | play resume1
printf 'lesson 1\nsh cat /tmp/learner-file || echo FILE-GONE\nsh pgrep -x sleep || echo PROGRAM-GONE\n' | play resume
check "resume: it says in one line what was not restored" \
    sh -c "grep -A1 -F '(resuming at step 2)' '$scratch/resume.out' | grep -qF 'Not restored: the programs you started and the files you made in the lab'"
check "resume: and it is so: the learner's file and program are gone" \
    sh -c "grep -qx FILE-GONE '$scratch/resume.out' && grep -qx PROGRAM-GONE '$scratch/resume.out'"

# format1: the file the tutor of format 1 wrote after `next` twice.
fresh
mkdir -p "$state" && cp tests/fixtures/progress/format1-skipped "$progress"
printf 'lessons\nlesson 1\n' | play format1
check "format1: an old file's exercise never passed shows skipped, not [done]" \
    sh -c "grep -Eq '^\[finished, 1 skipped\] +1 ' '$scratch/format1.out' && ! grep -qF '[done]' '$scratch/format1.out'"
check "format1: \`lesson 1\` goes back to that exercise" has format1 "(back to the exercise you skipped, at step 2)"

# welcome: lesson 1 done and current (the file the tutor writes after it):
# the greeting names lesson 2; then with the skip, lesson 1 at step 2.
fresh
mkdir -p "$state" && printf 'current 01-tiny\nlesson 01-tiny step 0 finished 1 checked 2 skipped 0\n' >"$progress"
drive welcome_done --lessons "$LESSONS" <<'X'
expect Welcome back: lesson 1 is done; `lesson 2` starts A second
absent resumes A tiny lesson
expect pidns-tutor> 
send quit\r
exit 0
X
check "welcome: a lesson done is not offered; the next one not done is" [ $? -eq 0 ]
cp tests/fixtures/progress/format1-skipped "$progress"
drive welcome_skip --lessons "$LESSONS" <<'X'
expect Welcome back: `lesson 1` returns to A tiny lesson, at the
expect exercise you skipped in step 2 of 2
expect pidns-tutor> 
send quit\r
exit 0
X
check "welcome: a finished lesson with a skip: named, with the step of the skip" [ $? -eq 0 ]

# prompt: on a terminal, the prompt of a lesson left with a skip is not "done".
fresh
drive prompt --lessons "$LESSONS" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your prediction> 
send hello\r
expect (1:1/2)> 
send \r
expect (1:2/2)> 
send \r
expect exercise skipped
expect (1:finished, 1 skipped)> 
send quit\r
exit 0
X
check "prompt: a lesson left with a skip: (1:finished, 1 skipped), not (1:done)" [ $? -eq 0 ]

# replay: on a terminal `lesson 1` for a lesson done asks; No keeps all as it
# was, Yes replays from step 1.
printf 'current 01-tiny\nlesson 01-tiny step 0 finished 1 checked 2 skipped 0\n' >"$progress"
drive replay --lessons "$LESSONS" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect is done: every exercise in it passed.
expect Replay it from step 1? It stays done whatever you do. [y/N] 
send n\r
expect Next unfinished: `lesson 2`
absent Lesson 1, step 1 of 2
expect pidns-tutor> 
send lesson 1\r
expect [y/N] 
send y\r
expect Lesson 1, step 1 of 2
send quit\r
exit 0
X
check "replay: on a terminal, \`lesson 1\` for a lesson done asks first" [ $? -eq 0 ]

check "nothing of the sessions left" nothing_left "sleep 4251"
finish
