#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner who gets an exercise wrong first, in the same lab: for every
# exercise of lessons/ (not the coding ones), a new session resumed at its
# step types the first of its [.wrong] attempts as a learner would, then
# `check`, which must say "Not yet"; then the worked solution and `check`
# again. What the wrong try left (a program still running, a process it
# killed or changed) stays in the lab, so the learner must either pass now,
# or be told how to start clean (`again`), and pass after `again` and the
# solution. A learner is never left with a right answer refused and no way
# on. Once it passes, the step's debrief must run as the lesson has it, over
# what the wrong try left too (a `$(pgrep -fx 'sleep N')` there that takes two
# PIDs shows the learner an output that is not the lesson's). Sessions run
# three at a time, each with its own XDG_STATE_HOME.
#
#   LEARNER_LESSONS=DIR   plays the lessons of DIR (default lessons/)
#   LEARNER_ONLY="5 18"   only lessons 5 and 18 ("05 18" too)
#   LEARNER_ALL_WRONG=1   every [.wrong] attempt, each in a session of its own
. tests/e2e/lib/common
. tests/e2e/lib/learner
LESSONS=${LEARNER_LESSONS:-lessons}
PARALLEL=3
started=$(date +%s)
tab=$(printf '\t')

n=0
for f in "$LESSONS"/[0-9]*.adoc; do
    learner_wants "$f" || continue
    num=$(lesson_number "$f")
    exercise_rows "$f" >"$scratch/rows"
    wrong_rows "$f" >"$scratch/wrongs"
    while IFS="$tab" read -r step solution check; do
        awk -F '\t' -v k="$step" -v all="${LEARNER_ALL_WRONG:-}" '$1 == k { print; if (all == "") exit }' \
            "$scratch/wrongs" >"$scratch/these"
        while IFS= read -r wrong; do
            n=$((n + 1))
            dir=$scratch/case$(printf '%03d' $n)
            resume_at "$dir" "$f" "$step"
            title=$(printf '%s\n' "$wrong" | cut -f 2)
            attempt=$(printf '%s\n' "$wrong" | cut -f 3-)
            printf 'lesson %s step %d, "%s" first' "$num" "$step" "$title" >"$dir/name"
            {
                echo "lesson $num"
                type_attempt "$attempt"
                type_exercise "$solution" "$check"
                echo again
                type_exercise "$solution" "$check"
                echo quit
            } >"$dir/input"
        done <"$scratch/these"
    done <"$scratch/rows"
done

play_cases 120

direct=0 cleaned=0
plan $((n + 2)) # one result per case, and the two after
for dir in "$scratch"/case*; do
    name=$(cat "$dir/name")
    out=$dir/out
    # The verdicts of the three checks, in order: N (Not yet) or P (Passed).
    verdicts=$(sed -n 's/^Not yet\..*/N/p; s/^Passed: .*/P/p' "$out" | tr -d '\n')
    advice=$(grep -c '`again` rebuilds the lab as this' "$out")
    why=""
    case $verdicts in
    NPP) direct=$((direct + 1)) ;;
    NNP)
        cleaned=$((cleaned + 1))
        [ "$advice" -ge 1 ] || why="refused after the wrong try, and no word of \`again\`"
        ;;
    N*) why="the solution was refused even after \`again\` (checks: $verdicts)" ;;
    *) why="the wrong attempt was not refused (checks: $verdicts)" ;;
    esac
    if grep -q 'not what the lesson expected\|(the command failed' "$out"; then
        why="$why; the debrief differs from the lesson: $(grep -A 3 'not what the lesson expected\|(the command failed' "$out" | tr '\n' '|')"
    fi
    grep -q 'no process, mount or /procN left by the lab' "$out" || why="$why; no 'no process, mount or /procN left by the lab', the last lines: $(tail -n 3 "$out" | tr '\n' '|')"
    if [ -z "$why" ]; then
        ok "$name: $([ "$verdicts" = NPP ] && echo 'the solution passes over what the wrong try left' || echo 'told to start clean with `again`, then passes')"
    else
        bad "$name: ${why#; }"
        sed 's/^/     | /' "$out" | tail -n 20
    fi
done
check "every exercise with a solution has a case ($n sessions)" [ "$n" -ge 1 ]
check "nothing of the sessions left" nothing_left "pidns|sleep"
echo "# $n sessions, $PARALLEL at a time, in $(($(date +%s) - started)) s: $direct passed at once, $cleaned after \`again\`"
finish
