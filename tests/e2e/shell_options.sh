#!/bin/sh
# SPDX-License-Identifier: MIT
# The command line: --help, --version, bad options, --doctor, --lessons
# (missing directory, malformed lesson), colour on a terminal and never
# with --no-color or NO_COLOR.
. tests/e2e/lib/common
plan 18
out=$scratch/out
err=$scratch/err

"$TUTOR" --help >"$out" 2>&1
check "--help: exit 0 and usage" sh -c "[ $? -eq 0 ] && grep -q '^Usage: pidns-tutor' '$out'"
"$TUTOR" --version >"$out" 2>&1
check "--version" grep -qE '^pidns-tutor [0-9]+\.[0-9]+\.[0-9]+$' "$out"
"$TUTOR" --bogus >"$out" 2>&1
check "an unknown option: exit 1, points to --help" sh -c "[ $? -eq 1 ] && grep -q \"Try 'pidns-tutor --help'\" '$out'"
"$TUTOR" extra >"$out" 2>&1
check "an unexpected argument: exit 1" [ $? -eq 1 ]

"$TUTOR" --doctor >"$out" 2>&1
rc=$?
check "--doctor: exit 0 on this machine (was $rc)" [ $rc -eq 0 ]
check "--doctor: names the kernel" grep -q "^ok    kernel $(uname -r)" "$out"
check "--doctor: user namespaces sysctl" grep -q "user.max_user_namespaces = " "$out"
check "--doctor: the route the lessons take" grep -q "route: " "$out"

echo where | "$TUTOR" --lessons "$scratch/none" >"$out" 2>"$err"
check "--lessons DIR missing: a warning, the shell still works" sh -c "[ $? -eq 0 ] && grep -q 'no lessons at' '$err'"
echo where | "$TUTOR" --lessons "$FIX/malformed" >"$out" 2>"$err"
rc=$?
check "--lessons with a malformed lesson: exit 1 (was $rc)" [ $rc -eq 1 ]
check "--lessons with a malformed lesson: FILE:LINE" grep -q "malformed/01-broken.adoc:5: " "$err"
check "--lessons with a malformed lesson: the error is all it says (no verdict of a lab built for nothing)" [ ! -s "$out" ]

"$TUTOR" --commands-adoc >"$out"
check "docs/commands.adoc is what the command table says (make commands-doc)" diff -u docs/commands.adoc "$out"

# Each command is typed at its prompt, never while the one before is still
# printing: between prompts the terminal echoes what is typed itself, and
# that echo lands wherever the output has got to (a red CI-like run on
# 7fca070 had a line of 50 columns here, most likely 39 of help's and the 11
# of `help export` typed ahead). The width measured is the shell's own.
COLUMNS_WIDE=40 drive narrow --lessons "$FIX/lessons" <<'X'
expect pidns-tutor> 
send help\r
expect Commands
expect pidns-tutor> 
send help export\r
expect to FILE
expect pidns-tutor> 
send lesson 1\r
expect your prediction> 
send \x03
expect Step stopped
expect /2)> 
send quit\r
exit 0
X
check "a narrow terminal (40 columns): session works" [ $? -eq 0 ]
narrow=$(sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$scratch/narrow.out" | tr -d '\r')
wide=$(printf '%s\n' "$narrow" | awk 'length > 40 { print "line " NR " has " length " columns: " $0 }')
if ! printf '%s\n' "$narrow" | grep -q 'Step stopped'; then
    not_ok "a narrow terminal: output wrapped to 40 columns" "the transcript does not reach 'Step stopped': nothing to measure"
elif [ -n "$wide" ]; then
    not_ok "a narrow terminal: output wrapped to 40 columns" "$wide"
else
    ok "a narrow terminal: output wrapped to 40 columns"
fi

unset NO_COLOR
drive colour <<'X'
expect pidns-tutor> 
send help\r
expect Commands
send quit\r
exit 0
X
check "colour on a terminal" grep -q "$(printf '\033')\[[0-9;]*m" "$scratch/colour.out"
drive nocolour --no-color <<'X'
expect pidns-tutor> 
send help\r
expect Commands
send quit\r
exit 0
X
check "no colour with --no-color" sh -c "! grep -q \"$(printf '\033')\[[0-9;]*[0-9]m\" '$scratch/nocolour.out'"
export NO_COLOR=1
drive nocolour2 <<'X'
expect pidns-tutor> 
send help\r
expect Commands
send quit\r
exit 0
X
check "no colour with NO_COLOR" sh -c "! grep -q \"$(printf '\033')\[[0-9;]*[0-9]m\" '$scratch/nocolour2.out'"

finish
