#!/bin/sh
# SPDX-License-Identifier: MIT
# The shell with standard input not a terminal: commands one a line, no
# prompt, no colour, a non-zero exit status when a command failed, and
# absurd input (binary, NUL, a 100 KB line) refused without a crash.
. tests/e2e/lib/common
plan 22
unset NO_COLOR
out=$scratch/out
err=$scratch/err
esc=$(printf '\033')

printf 'help\nwhere\nsh echo from the lab\n' | "$TUTOR" >"$out" 2>"$err"
rc=$?
check "good commands: exit status 0" [ $rc -eq 0 ]
check "good commands: their output" grep -q "from the lab" "$out"
check "no prompt in batch mode" sh -c "! grep -q 'pidns-tutor>' '$out'"
check "no colour when output is not a terminal" sh -c "! grep -q '$esc' '$out' '$err'"
check "the lab's verdict at the end" grep -q "no process, mount or /procN left" "$out"

printf 'help\nlesons\nwhere\n' | "$TUTOR" >"$out" 2>"$err"
check "a failed command: exit status 1" [ $? -eq 1 ]
check "a failed command: one line naming the closest" grep -qx "pidns-tutor: unknown command 'lesons': did you mean 'lessons'? (type help for the list)" "$err"
check "a failed command: the next ones still run" grep -q "No lesson started" "$out"

printf 'sh exit 3\n' | "$TUTOR" >"$out" 2>"$err"
check "a command failing in the lab: exit status 1" [ $? -eq 1 ]

head -c 8192 /dev/urandom | "$TUTOR" >"$out" 2>"$err"
rc=$?
check "binary input: refused, no crash (status $rc)" [ $rc -eq 1 ]
check "binary input: said politely" grep -q "input refused" "$err"

{ head -c 102400 /dev/zero | tr '\0' a; printf '\nwhere\n'; } | "$TUTOR" >"$out" 2>"$err"
check "a 100 KB line: refused" grep -q "input refused: the line is too long" "$err"
check "a 100 KB line: the next command runs" grep -q "No lesson started" "$out"

printf 'help\000quit\nwhere\n' | "$TUTOR" >"$out" 2>"$err"
check "a NUL byte: refused" grep -q "NUL byte" "$err"

printf 'run pidns_init_sleep /proc42\nsh echo after\nquit\n' | timeout 30 "$TUTOR" >"$out" 2>"$err"
rc=$?
check "quit with a background job still running: ends (status $rc)" [ $rc -eq 0 ]
check "quit with a background job: its output was shown" grep -q "childFunc(): PID  = 1" "$out"
check "quit with a background job: no process, mount or /procN left" grep -q "no process, mount or /procN left" "$out"
check "quit with a background job: nothing left" nothing_left "pidns_init_sleep /proc42"

printf 'reset\n' | "$TUTOR" >"$out" 2>"$err"
check "reset in a script asks for -y" grep -q "reset -y" "$err"


# `lessons`: a table whose columns stay when it fits the width, without the
# names column when only that fits; never a line wider than the width.
echo lessons | COLUMNS=120 "$TUTOR" >"$out" 2>"$err"
check "lessons at 120 columns: number, name and title in columns" \
    grep -Eq '^\[    \]   1  01-new-namespace +A new PID namespace' "$out"
echo lessons | COLUMNS=80 "$TUTOR" >"$out" 2>"$err"
check "lessons at 80 columns: the names column is left out" \
    grep -Eq '^\[    \]   1  A new PID namespace' "$out"
longest=$(awk '{ if (length > m) m = length } END { print m }' "$out")
check "lessons at 80 columns: no line is wider (longest $longest)" [ "$longest" -le 80 ]

finish
