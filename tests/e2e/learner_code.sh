#!/bin/sh
# SPDX-License-Identifier: MIT
# A coding exercise through the real shell in a pseudo-terminal, as a learner
# meets it (lesson 1's last step, two_pids.c): the file as given builds and
# fails the check (the file exists once the step is shown, for an editor
# elsewhere), and `hint` reads what the program did; `edit` with a
# scripted editor (EDITOR=a script, each call writing the next version) first
# makes a compile error, which `build` shows with the learner's file and
# line; then a program that forgets fflush() before exec, which the check
# refuses, showing what the program printed and the failing condition, and
# the hint explains; then the right one, which passes and shows
# the learner's version and the reference; `build` names the program's path
# in the lab, where the learner runs it by hand; `watch` rebuilds and checks on a
# save; `reset-file -y` brings the file back as given, keeping theirs. Then
# --auto 1 as nobody: the gap and the wrong programs fail, the solution
# passes, by the user-namespace route.
. tests/e2e/lib/common
. tests/e2e/lib/stage
plan 8
EX=exercises/01-two-pids

export HOME="$scratch/home"
mkdir -p "$HOME" "$XDG_STATE_HOME"
file=$HOME/pidns-exercises/01-two-pids/two_pids.c
# Resume lesson 1 at its coding exercise (step 5).
mkdir -p "$XDG_STATE_HOME/pidns-tutor"
printf '# pidns-tutor progress, format 1\ncurrent 01-new-namespace\nlesson 01-new-namespace step 4 done 0 checked 0\n' \
    >"$XDG_STATE_HOME/pidns-tutor/progress"

# The versions the scripted editor writes, one per call.
sed 's/printf("parent: child is PID %ld\\n", (long)child);/printf("parent: child is PID %ld\\n", (long)child)/' \
    "$EX/solution.c" >"$scratch/v1.c" # a missing ';'
cp "$EX/wrong-no-flush.c" "$scratch/v2.c"
cp "$EX/solution.c" "$scratch/v3.c"
broken_line=$(grep -n 'parent: child is PID' "$scratch/v1.c" | cut -d: -f1)
cat >"$scratch/editor" <<E
#!/bin/sh
n=\$(cat "$scratch/edits" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$scratch/edits"
cp "$scratch/v\$n.c" "\$1"
E
chmod +x "$scratch/editor"
export EDITOR="$scratch/editor"
unset VISUAL

drive code_exercise --lessons lessons <<X
expect pidns-tutor> 
send lesson 1\r
expect (copied the exercise to
expect pidns-exercises/01-two-pids/two_pids.c
expect pidns-tutor (1:5/5)> 
send check\r
expect Built
expect Not yet.
expect pidns-tutor (1:5/5)> 
send hint\r
expect Your program ended before any child of it ran
expect pidns-tutor (1:5/5)> 
send edit\r
expect pidns-tutor (1:5/5)> 
send build\r
expect $file:$broken_line:
expect error
expect The compiler refused
expect pidns-tutor (1:5/5)> 
send edit\r
expect pidns-tutor (1:5/5)> 
send check\r
expect Your program printed
expect the child printed 'child: PID 1, parent 0' before its exec: no
expect pidns-tutor (1:5/5)> 
send hint\r
expect The parent's line came, the child's never did
expect pidns-tutor (1:5/5)> 
send edit\r
expect pidns-tutor (1:5/5)> 
send check\r
expect Passed: the kernel's state shows it is done.
expect Your version
expect The reference solution
expect One process, two PIDs
expect pidns-tutor (1:5/5)> 
send build\r
expect (in the lab it is /tmp/pidns-exercises/01-two-pids/two_pids:
expect pidns-tutor (1:5/5)> 
send sh cd /tmp/pidns-exercises/01-two-pids && ./two_pids\r
expect child: PID 1, parent 0
expect pidns-tutor (1:5/5)> 
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "a coding exercise: the gap fails, a compile error shows file:line, a wrong program fails with its hint, the right one passes beside the reference" [ $? -eq 0 ]
check "the learner's file is kept in their home, as they wrote it" cmp -s "$file" "$EX/solution.c"
check "the progress records the exercise as checked" grep -q "lesson 01-new-namespace step 4 .*checked 16" "$XDG_STATE_HOME/pidns-tutor/progress"

# watch: the file as given first (refused), then saved right; a save from
# elsewhere (here, this script once the shell says it watches) is seen.
cp "$EX/two_pids.c" "$file"
( i=0; while [ $i -lt 900 ] && ! grep -q 'still watching' "$scratch/code_watch.out" 2>/dev/null; do
    i=$((i + 1)); sleep 0.1; done; cp "$EX/solution.c" "$file" ) &
saver=$!
drive code_watch --lessons lessons <<X
expect pidns-tutor> 
send lesson 1\r
expect pidns-tutor (1:5/5)> 
send watch\r
expect (watching
expect Not yet. What the check looked at
expect Passed: the kernel's state shows it is done.
expect pidns-tutor (1:5/5)> 
send reset-file -y\r
expect (your version is kept as
expect Your file is as the exercise gave it again.
expect pidns-tutor (1:5/5)> 
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "watch builds and checks on every save, until the check passes; reset-file -y brings the file back" [ $? -eq 0 ]
wait $saver
check "reset-file: the file as given, the learner's kept as .bak" sh -c "cmp -s '$file' '$EX/two_pids.c' && cmp -s '$file.bak' '$EX/solution.c'"

# As nobody (the user-namespace route): --auto verifies the exercise.
stage_tree "$scratch/tree"
mkdir -m 777 "$scratch/nobody-home"
(cd "$scratch/tree" && su nobody -s /bin/sh -c \
    "HOME=$scratch/nobody-home XDG_STATE_HOME=$scratch/nobody-home TMPDIR=$scratch/nobody-home build/pidns-tutor --auto 1" \
    >"$scratch/nobody.out" 2>&1)
rc=$?
check "as nobody, --auto 1 passes" [ $rc -eq 0 ]
tr -s ' \n' '  ' <"$scratch/nobody.out" >"$scratch/nobody.flat"
check "as nobody, the file as given and each wrong program are refused, the solution passes" sh -c \
    "grep -q 'two_pids.c: builds, and the check refuses it as given, as it should' '$scratch/nobody.flat' &&
     grep -q 'wrong-no-flush.c: the check refuses this wrong program, as it should' '$scratch/nobody.flat' &&
     grep -q 'wrong-no-newpid.c: the check refuses this wrong program, as it should' '$scratch/nobody.flat' &&
     grep -q 'check: passed' '$scratch/nobody.flat'"
check "nothing left" nothing_left 'two_pids|sleep 30'
finish
