#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner who comes back the next day: every lesson resumed in a new
# session at each of its steps after the first. For every lesson L of
# lessons/ and every step K > 1, a state directory whose progress file (as
# shell/tutor/progress.c writes it) says "lesson L, step K", then a new
# session in batch mode (stdin not a terminal, which replays the same):
# `lesson L` must say it resumes at step K, replay steps 1..K-1 in one line,
# and show step K as the lesson has it: its commands' output matches, none
# fails. When step K holds an exercise, the learner types its worked
# solution (read from the lesson's [.solution]) and `check` must say
# Passed: the replayed lab held what the exercise needs. Sessions run three
# at a time, each with its own XDG_STATE_HOME.
#
#   LEARNER_LESSONS=DIR   plays the lessons of DIR (default lessons/)
#   LEARNER_ONLY="1 5"    only lessons 1 and 5 ("01 05" too)
. tests/e2e/lib/common
. tests/e2e/lib/learner
LESSONS=${LEARNER_LESSONS:-lessons}
PARALLEL=3
started=$(date +%s)

# One case per step after the first: a directory (input, progress, expected heading).
n=0
for f in "$LESSONS"/[0-9]*.adoc; do
    learner_wants "$f" || continue
    num=$(lesson_number "$f")
    steps=$(lesson_steps "$f")
    k=2
    while [ "$k" -le "$steps" ]; do
        n=$((n + 1))
        dir=$scratch/case$(printf '%03d' $n)
        resume_at "$dir" "$f" "$k"
        printf 'lesson %s step %d\n' "$num" "$k" >"$dir/name"
        printf '%d\n' "$((k - 1))" >"$dir/before"
        echo "Lesson $num, step $k of $steps" >"$dir/heading"
        : >"$dir/exercises"
        {
            echo "lesson $num"
            exercise_rows "$f" | awk -F '\t' -v k="$k" '$1 == k' >"$dir/exercises"
            while IFS="$(printf '\t')" read -r step solution check; do
                type_exercise "$solution" "$check"
            done <"$dir/exercises"
            echo quit
        } >"$dir/input"
        k=$((k + 1))
    done
done

play_cases 90

plan $((n + 2)) # one result per case, and the two after
for dir in "$scratch"/case*; do
    name=$(cat "$dir/name")
    out=$dir/out
    upto=$(cat "$dir/before")
    if [ "$upto" -eq 1 ]; then replayed="(replayed step 1 quietly"; else replayed="(replayed steps 1-$upto quietly"; fi
    why=$(session_faults "$dir")
    grep -qF "(resuming at step $((upto + 1)))" "$out" || why="$why; no '(resuming at step $((upto + 1)))'"
    [ "$(grep -cF "$replayed" "$out")" -eq 1 ] || why="$why; not one '$replayed' line"
    grep -qF "$(cat "$dir/heading")" "$out" || why="$why; step not shown"
    exercises=$(grep -c . "$dir/exercises")
    if [ -z "$why" ]; then
        ok "$name: resumed, replayed, shown as the lesson has it$([ "$exercises" -eq 0 ] || echo ', its exercise passes')"
    else
        bad "$name: ${why#; }"
        sed 's/^/     | /' "$out" | tail -n 25
    fi
done
check "every lesson has a case ($n sessions)" [ "$n" -ge 1 ]
check "nothing of the sessions left" nothing_left "pidns|sleep"
echo "# $n sessions, $PARALLEL at a time, in $(($(date +%s) - started)) s"
finish
