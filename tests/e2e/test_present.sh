#!/bin/sh
# SPDX-License-Identifier: MIT
# test_present.sh: pidns-tutor --present LESSON driven through a pty as a
# teacher at a projector would: each step waits for Enter, a prediction and a
# quiz wait for the room's answer, the exercise waits, then runs its worked
# solution and check; the text wraps to a narrow (large-font) terminal; Ctrl-C
# at any pause leaves with the lab cleaned up and the host's verdict; the
# presenter's progress is not touched. Without a terminal it refuses.
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
. "$(dirname "$0")/lib/tap"
abs=$(cd "$BUILD" 2>/dev/null && pwd)
tutor=$abs/pidns-tutor drive=$abs/tests/helpers/pty_drive
for f in "$tutor" "$drive"; do
    [ -x "$f" ] || { not_ok "$f is built (make all)"; finish; }
done
cd "$SRC" || exit 1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" TERM=xterm NO_COLOR=1
unset SUDO_UID SUDO_GID
first=$(ls lessons/[0-9]*-*.adoc | head -n 1)
n=$(basename "$first" | sed 's/-.*//; s/^0*//')
steps=$(grep -c '^== ' "$first")
answer=$(awk '/^\[\.answer\]/ { getline; print; exit }' "$first")

# present SCRIPT-NAME WIDTH: drives --present N with the script on stdin.
present() {
    cat >"$tmp/$1.script"
    "$drive" -t 60 -w "$2" -o "$tmp/$1.raw" "$tmp/$1.script" -- "$tutor" --present "$n" >"$tmp/$1.drive" 2>&1
    rc=$?
    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$tmp/$1.raw" | tr -d '\r' >"$tmp/$1.out"
    return $rc
}

if ! grep -q '^\[\.predict\]' "$first" || ! grep -q '^\[\.quiz\]' "$first" || ! grep -q '^\[\.exercise\]' "$first"; then
    skip_test "--present through a lesson" "$first has no prediction, quiz and exercise to drive"
    finish
fi
say() { printf '%s\n' "$1"; } # dash's echo would turn \r into a carriage return
# Each step ends in a pause; predictions, quizzes and exercises pause inside
# it. Answer every prompt in order until the end of the lesson.
{
    echo "expect Lesson $n: " # the title may wrap
    echo "absent Lesson $n, step 2"
    prompts=$(awk '/^== /{print "step"} /^\[\.predict\]/{print "predict"} /^\[\.quiz\]/{print "quiz"} /^\[\.exercise\]/{print "exercise"}' "$first")
    s=0
    for p in $prompts; do
        case $p in
        step)
            if [ $s -gt 0 ]; then echo "expect [Enter: next step"; say 'send \r'; fi
            s=$((s + 1))
            echo "expect Lesson $n, step $s of $steps"
            ;;
        predict) echo "expect your prediction> "; say "send $answer\\r"; echo "expect Right." ;;
        quiz) echo "expect your answer (number)> "; say 'send \r'; echo "expect is right." ;;
        exercise) echo "expect [Enter: run the worked solution"; echo "absent type \`check\`"
            say 'send \r'; echo "expect check: passed" ;;
        esac
    done
    echo "expect End of lesson $n"
    echo "expect [Enter: close the lab"
    say 'send \r'
    echo "expect host unchanged"
    echo "exit 0"
} >"$tmp/plan"
if present whole 48 <"$tmp/plan"; then
    ok "--present $n: every step waits for Enter, the prediction and quiz for the room, the exercise runs its solution ($steps steps)"
else
    not_ok "--present $n through the whole lesson" "$(tail -n 15 "$tmp/whole.drive")"
fi
. "$(dirname "$0")/lib/screenshot"
sed -n '/step 2 of/,/Enter: next step/p' "$tmp/whole.out" | sed "1s/^/\$ pidns-tutor --present $n\n...\n/" >"$tmp/shot.txt"
if screenshot_text "$tmp/shot.txt" "$BUILD/screenshots/present.png"; then
    ok "a screenshot of a presented step in $BUILD/screenshots/present.png"
else
    skip_test "a screenshot of a presented step" "no chromium (make deps-check)"
fi
# Prose wraps to the 48 columns (listings, program output and the lab's cleanup report keep their lines).
long=$(grep -vE '^ *[0-9]+  |^# |^\[Enter|^stopped (job|process) ' "$tmp/whole.out" | awk 'length > 48' | head -n 3)
[ -z "$long" ] && ok "the presenter's text fits a 48-column (large-font) terminal" ||
    not_ok "the presenter's text fits a 48-column terminal" "$long"
[ ! -e "$XDG_STATE_HOME/pidns-tutor/progress" ] && ok "presenting leaves the presenter's progress as it was" ||
    not_ok "presenting leaves the presenter's progress as it was" "$(cat "$XDG_STATE_HOME/pidns-tutor/progress")"
# Negative control: an ordinary session on the same lesson does record progress.
printf 'lesson %s\nquit\n' "$n" | "$tutor" >/dev/null 2>&1
[ -e "$XDG_STATE_HOME/pidns-tutor/progress" ] && ok "(control) an ordinary session on the lesson records progress" ||
    not_ok "(control) an ordinary session on the lesson records progress" "no $XDG_STATE_HOME/pidns-tutor/progress"

# Ctrl-C at a pause, with a program of the lesson running in the lab.
if present ctrl_c 80 <<X; then
expect Lesson $n, step 1 of $steps
expect [Enter: next step
send \r
expect your prediction> 
send \r
expect [Enter: next step
send \x03
expect (presentation stopped)
expect host unchanged
exit 0
X
    ok "Ctrl-C at a pause leaves: the lab cleaned up, the host unchanged"
else
    not_ok "Ctrl-C at a pause leaves cleanly" "$(tail -n 15 "$tmp/ctrl_c.drive")"
fi
"$tutor" --present "$n" </dev/null >"$tmp/notty" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q -- '--present needs a terminal' "$tmp/notty" &&
    ok "without a terminal --present refuses (exit 1) and points to --auto" ||
    not_ok "without a terminal --present refuses" "exit $rc: $(cat "$tmp/notty")"
finish
