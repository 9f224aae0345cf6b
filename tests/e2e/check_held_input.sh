#!/bin/sh
# SPDX-License-Identifier: MIT
# check_held_input.sh: a check's `program_held` (shell/tutor/tutor_conditions.sh)
# gives the learner's program an input that stays open until `release`, so a
# program that keeps a state until its input ends (lessons 4 and 9) keeps it
# however long a starved check takes to look; `release`, or the check's end,
# ends it. Negative control: with `program` (input /dev/null) the same program
# has ended before the check looks. The prelude runs as the tutor runs it: sh,
# in the program's directory.
. "$(dirname "$0")/lib/tap"
plan 5
prelude=$(pwd)/shell/tutor/tutor_conditions.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/prog" <<'PROG'
#!/bin/sh
echo ready
cat >/dev/null
echo "input ended"
PROG
chmod +x "$tmp/prog"
# run_check SCRIPT: the prelude, then SCRIPT, in $tmp, as a check's shell.
run_check() {
    (cd "$tmp" && TUTOR_PROGRAM=./prog sh -c ". '$prelude'; $1")
}
# alive PID: the process runs (not ended, not a zombie).
alive() {
    [ -r "/proc/$1/stat" ] && ! awk '{ exit !($3 == "Z" || $3 == "X") }' "/proc/$1/stat"
}

# The check pauses 3 s, as a starved one may, before it looks.
out=$(run_check 'program_held; sleep 3; if kill -0 $program_pid 2>/dev/null && ! test -e ended; then echo running; fi; release
await "it ends" $$ test -s ended; cat ended out')
case $out in
running*) ok "program_held: after a 3 s pause the program still waits for its input" ;;
*) not_ok "program_held: after a 3 s pause the program still waits for its input" "$out" ;;
esac
case $out in
*"exit 0"*"input ended"*) ok "release: the program reads end of file and ends (exit 0)" ;;
*) not_ok "release: the program reads end of file and ends (exit 0)" "$out" ;;
esac

out=$(run_check 'program; sleep 3; if kill -0 $program_pid 2>/dev/null && ! test -e ended; then echo running; else echo ended; fi')
case $out in
ended) ok "negative control: with program (input /dev/null) it has ended before the check looks" ;;
*) not_ok "negative control: with program (input /dev/null) it has ended before the check looks" "$out" ;;
esac

# A check that ends without release (a failed condition): the input ends with it.
pid=$(run_check 'program_held; await "it is ready" $program_pid grep -q ready out; echo $program_pid')
ended=no
for _ in $(seq 1 200); do
    if ! alive "$pid"; then ended=yes; break; fi
    sleep 0.05
done
check "a check that ends without release: its program reads end of file and ends (PID $pid)" [ "$ended" = yes ]
check "... having printed that its input ended" grep -qx "input ended" "$tmp/out"
finish
