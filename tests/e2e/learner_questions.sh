#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner's path at a question (a prediction, a quiz), through the real
# shell in a pseudo-terminal: a command typed there runs (`help` and `ps`
# within the question, `next`, `lesson 2` and `quit` instead of it), a quiz
# takes the text of a choice, a number or a command's name that the lesson
# expects is still an answer, Ctrl-D leaves. Then the shape of the output:
# `help` keeps its columns at 100 and at 40 columns, with and without colour,
# and `ps`/`tree` leave the tutorial's own processes out unless --all.
. tests/e2e/lib/common
plan 13
Q=$FIX/questions

export XDG_STATE_HOME="$scratch/state-quiz"
drive quiz_commands --lessons "$Q" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send help\r
expect (the question waits: running `help`)
expect Commands (help COMMAND for more):
expect Ctrl-D leaves.
expect Quiz: Where does a directory made in the lab live?
expect your answer (number)> 
send ps\r
expect (the question waits: running `ps`)
expect lab-init
expect your answer (number)> 
send in the\r
expect That fits more than one answer
expect your answer (number)> 
send in the LAB\r
expect Answer 2 is right.
expect pidns-tutor (1:1/3)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
check "help and ps at a quiz run, then the quiz is asked again; a quiz takes an answer's text" [ $? -eq 0 ]

export XDG_STATE_HOME="$scratch/state-path"
drive question_path --lessons "$Q" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send next\r
expect (the question is left unanswered: running `next`)
absent Answer 2 is right.
expect Lesson 1, step 2 of 3
expect your prediction> 
send 2\r
expect Not what the lesson expects (1)
expect # echo 1
expect pidns-tutor (1:2/3)> 
send \r
expect Which word will `echo status` print?
expect your prediction> 
send status\r
expect Right. Let's see it happen:
absent the question
expect # echo status
expect pidns-tutor (1:3/3)> 
send back\r
expect your prediction> 
send sh echo typed at a question\r
expect (the question is left unanswered: running `sh echo typed at a question`)
expect typed at a question
expect (the step stopped at its question: `again` shows it from the start)
expect pidns-tutor (1:2/3)> 
send again\r
expect your prediction> 
send quit\r
expect (the question is left unanswered: running `quit`)
expect Cleaned up: stopped
expect no process, mount or /procN left by the lab
exit 0
X
rc=$?
check "next at a quiz moves on; a number is a guess, a command's name the lesson expects an answer; sh leaves the step; quit at a prediction leaves (exit 0)" [ $rc -eq 0 ]
check "quit at a prediction cleaned the lab up: no sleep 4245 left, no /procN" \
    eval '[ $rc -eq 0 ] && nothing_left "sleep 4245"'

export XDG_STATE_HOME="$scratch/state-program"
drive program_at_question --lessons "$Q" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send ls /proc\r
expect (`ls /proc` reads like a command: to run it in the lab, type `sh` before it)
expect Type a number from 1 to
expect your answer (number)> 
send 2\r
expect Answer 2 is right.
expect pidns-tutor (1:1/3)> 
send \r
expect your prediction> 
send cat /proc/self/status\r
expect (`cat /proc/self/status` reads like a command: to run it in the lab, type `sh` before it)
expect Not what the lesson expects (1)
expect pidns-tutor (1:2/3)> 
send again\r
expect your prediction> 
send sleep\r
absent reads like a command
expect Not what the lesson expects (1)
expect pidns-tutor (1:2/3)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
check "a command line typed as an answer is told how to run it (sh); one word alone is a guess, without a note" [ $? -eq 0 ]

export XDG_STATE_HOME="$scratch/state-lesson"
drive lesson_at_prediction --lessons "$Q" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send 2\r
expect Answer 2 is right.
expect pidns-tutor (1:1/3)> 
send \r
expect your prediction> 
send lesson 2\r
expect (the question is left unanswered: running `lesson 2`)
expect Lesson 2: After the questions
expect pidns-tutor (2:1/1)> 
send quit\r
expect no process, mount or /procN left
exit 0
X
check "lesson 2 at a prediction starts lesson 2" [ $? -eq 0 ]

export XDG_STATE_HOME="$scratch/state-eof"
drive eof_at_quiz --lessons "$Q" <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send \x04
expect (the question is left unanswered: Ctrl-D leaves)
absent Answer 2 is right.
expect no process, mount or /procN left by the lab
exit 0
X
check "Ctrl-D at a quiz leaves the tutorial (exit 0)" [ $? -eq 0 ]

# help's columns: each summary starts at the same column on every line, and
# no line of the table is wider than the terminal.
help_script='expect pidns-tutor> 
send help\r
expect Ctrl-D leaves.
expect pidns-tutor> 
send quit\r
exit 0'
"$TUTOR" --commands-adoc | sed -n 's/^`\([^`]*\)`: \(.*\)\.$/\1\t\2/p' >"$scratch/table"
columns_aligned() { # $1 = transcript, $2 = width
    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$1" | tr -d '\r' |
        sed -n '/^Commands (help COMMAND for more):/,/^Enter on an empty line/p' |
        sed '1d;$d' >"$1.help"
    [ "$(wc -l <"$scratch/table")" -ge 20 ] || return 1
    awk -F '\t' -v width="$2" '
        FILENAME == ARGV[1] { synopsis[++n] = $1; summary[n] = substr($2, 1, 14); next }
        { line[++m] = $0; if (length($0) > width) { print "     too wide: " $0; bad = 1 } }
        END {
            for (i = 1; i <= n; i++) {
                col = 0
                for (j = 1; j <= m && col == 0; j++)
                    if (index(line[j], summary[i]) > 0) col = index(line[j], summary[i])
                if (col == 0) { print "     no line holds: " summary[i]; bad = 1; continue }
                if (want == 0) want = col
                if (col != want) { printf "     %s starts at column %d, not %d\n", summary[i], col, want; bad = 1 }
            }
            exit bad || want < 6
        }' "$scratch/table" "$1.help"
}
for width in 100 40; do
    for colour in no colour; do
        name=help_${width}_$colour
        if [ $colour = colour ]; then
            printf '%s\n' "$help_script" >"$scratch/$name.script"
            env -u NO_COLOR "$DRIVE" -t 30 -w $width -o "$scratch/$name.out" \
                "$scratch/$name.script" -- "$TUTOR" --lessons "$Q"
        else
            printf '%s\n' "$help_script" | COLUMNS_WIDE=$width drive $name --lessons "$Q"
        fi
        # (a colour run must really hold colour: escape sequences)
        check "help at $width columns ($colour): the summaries start at one column" \
            eval "columns_aligned '$scratch/$name.out' $width &&
                { [ $colour = no ] || grep -q '\[1;4mCommands' '$scratch/$name.out'; }"
    done
done
# At 100 columns each summary is on its command's line, two spaces or more on.
check "help at 100 columns: a table, each summary beside its command" \
    grep -Eq '^  lesson N\|NAME \[again\] {2,}start or resume a lesson$' "$scratch/help_100_no.out.help"

export XDG_STATE_HOME="$scratch/state-ps"
drive ps_plumbing <<'X'
expect pidns-tutor> 
send run pidns_init_sleep /proc2\r
expect keeps running in the background
expect pidns-tutor> 
send ps\r
expect NAME
expect pidns_init_sleep
expect sleep
expect pidns-tutor> 
absent lab-runner
absent tutor-output
send tree\r
expect (the lab's namespace)
expect pidns_init_sleep
expect pidns-tutor> 
absent lab-runner
send ps --all\r
expect NAME
expect lab-runner
expect pidns-tutor> 
send tree -A\r
expect (the lab's namespace)
expect tutor-output
expect pidns-tutor> 
send help ps\r
expect `ps --all`
expect pidns-tutor> 
send quit\r
expect no process, mount or /procN left
exit 0
X
rc=$?
check "ps and tree leave lab-runner and tutor-output out; --all (-A) shows them; help ps says so; nothing left" \
    eval '[ $rc -eq 0 ] && nothing_left pidns_init_sleep'

# A yes/no question (shell_confirm): anything but y or yes keeps what was.
drive confirm <<'X'
expect pidns-tutor> 
send reset\r
expect [y/N] 
send n\r
expect Kept your progress.
send reset\r
expect [y/N] 
send yes\r
expect Progress forgotten
expect pidns-tutor> 
send quit\r
exit 0
X
check "reset asks: n keeps the progress, yes forgets it" [ $? -eq 0 ]

finish
