#!/bin/sh
# SPDX-License-Identifier: MIT
# The learner who experiments first: every lesson entered after programs of
# their own were left running, then played straight through to its end, in
# batch mode (stdin not a terminal: the questions are shown with their
# answers). Before `lesson L`: `run pidns_init_sleep /proc2` (it keeps
# running), `sh multi_pidns 3 &` and `sh pidns_proc_mount sleep 600 &`.
# Then Enter through every step; at an exercise the learner types its worked
# solution (read from the lesson's [.solution]) and `check`. The learner must
# see one "(stopped N programs left running, unmounted /proc0-/proc2)" line, every
# step as the lesson has it, every check passed, the lesson finished, and at
# the end "no process, mount or /procN left by the lab"; nothing of ours may be left running.
# As root every lesson; as nobody (a staged copy, the unprivileged route)
# a few. Sessions run three at a time, each with its own XDG_STATE_HOME.
#
#   LEARNER_LESSONS=DIR   plays the lessons of DIR (default lessons/)
#   LEARNER_ONLY="1 5"    only lessons 1 and 5 ("01 05" too)
#   LEARNER_NOBODY="01 05 09"  the lessons played as nobody too (root only)
. tests/e2e/lib/common
. tests/e2e/lib/learner
LESSONS=${LEARNER_LESSONS:-lessons}
NOBODY_LESSONS=${LEARNER_NOBODY-01 05 09}
PARALLEL=3
started=$(date +%s)

# One case: $1 = its directory (input, who: root or nobody).
cat >"$scratch/play" <<EOF
#!/bin/sh
cd "$(pwd)"
dir=\$1
if [ "\$(cat "\$dir/who")" = nobody ]; then
    su nobody -s /bin/sh -c "cd '\$dir' && HOME=/nonexistent XDG_STATE_HOME='\$dir/state' timeout -s KILL 120 '$scratch/tree/build/pidns-tutor' --lessons '$scratch/tree/lessons' <input >out 2>&1"
else
    XDG_STATE_HOME=\$dir/state timeout -s KILL 120 "$TUTOR" --lessons "$LESSONS" <"\$dir/input" >"\$dir/out" 2>&1
fi
echo \$? >"\$dir/rc"
EOF

if [ "$(id -u)" -ne 0 ]; then
    NOBODY_LESSONS=""
elif [ -n "$NOBODY_LESSONS" ]; then
    . tests/e2e/lib/stage
    stage_tree "$scratch/tree" || bad "staging a copy of the tree for nobody"
    [ "$LESSONS" = lessons ] || cp "$LESSONS"/*.adoc "$scratch/tree/lessons/"
    chmod 755 "$scratch"
fi

n=0
add_case() { # $1 = lesson file, $2 = root or nobody
    f=$1
    n=$((n + 1))
    dir=$scratch/case$(printf '%03d' $n)
    mkdir -p "$dir/state"
    echo "$2" >"$dir/who"
    num=$(lesson_number "$f")
    steps=$(lesson_steps "$f")
    printf 'lesson %s as %s\n' "$num" "$2" >"$dir/name"
    echo "$num" >"$dir/number"
    exercise_rows "$f" >"$dir/exercises"
    {
        echo "run pidns_init_sleep /proc2"
        echo "sh multi_pidns 3 &"
        echo "sh pidns_proc_mount sleep 600 &"
        echo "lesson $num"
        k=1
        while [ "$k" -le "$steps" ]; do
            awk -F '\t' -v k="$k" '$1 == k' "$dir/exercises" |
                while IFS="$(printf '\t')" read -r step solution check; do
                    type_exercise "$solution" "$check"
                done
            echo "" # Enter: the next step, or the end of the lesson
            k=$((k + 1))
        done
        echo quit
    } >"$dir/input"
    [ "$2" = root ] || chmod -R 777 "$dir"
}
for f in "$LESSONS"/[0-9]*.adoc; do
    learner_wants "$f" || continue
    id=$(basename "$f" .adoc)
    add_case "$f" root
    case " $NOBODY_LESSONS " in *" ${id%%-*} "*) add_case "$f" nobody ;; esac
done

ls -d "$scratch"/case* | xargs -P $PARALLEL -n 1 sh "$scratch/play"

plan $((n + 2)) # one result per case, and the two after
for dir in "$scratch"/case*; do
    name=$(cat "$dir/name")
    out=$dir/out
    why=$(session_faults "$dir")
    # the programs typed before the lesson ran, then the lesson stopped them, in one line
    grep -q '^# pidns_proc_mount sleep 600 &' "$out" && grep -q 'Mounting procfs at /proc2' "$out" ||
        why="$why; the experiments did not run"
    stops=$(grep -c '^ *(stopped ' "$out")
    grep -qE '^ *\(stopped [0-9]+ programs left running, unmounted /proc0-/proc2\)$' "$out" && [ "$stops" -eq 1 ] ||
        why="$why; not one '(stopped N programs left running, unmounted /proc0-/proc2)' line ($stops: $(grep '^ *(stopped ' "$out" | head -n 1))"
    exercises=$(grep -c . "$dir/exercises")
    grep -q "^Lesson $(cat "$dir/number") finished" "$out" || why="$why; the lesson did not finish"
    if [ -z "$why" ]; then
        ok "$name: after 3 experiments, one line stopped them; played to its end as the lesson has it, $exercises exercise(s) passed"
    else
        bad "$name: ${why#; }"
        sed 's/^/     | /' "$out" | tail -n 30
    fi
done
check "every lesson has a case ($n sessions)" [ "$n" -ge 1 ]
check "nothing of the sessions left" nothing_left "pidns|sleep"
echo "# $n sessions, $PARALLEL at a time, in $(($(date +%s) - started)) s"
finish
