#!/bin/sh
# SPDX-License-Identifier: MIT
# The lessons a session finds on its own (beside its build, or installed)
# are read lazily: their headers at start, a lesson's steps when it is
# entered. A malformed body is then refused when the lesson is entered (or
# exported), with the FILE:LINE message the whole read gives, and the session
# goes on; a malformed header still stops the start. With --lessons DIR every
# lesson is read whole at start, as before: the same broken body stops it.
# The tree is a copy of the build's layout (a Makefile and shell/main.c mark
# the source tree, build/examples beside the binary), so that the binary
# finds its lessons there without --lessons.
. tests/e2e/lib/common
tree=$scratch/tree
mkdir -p "$tree/shell" "$tree/build" "$tree/lessons"
: >"$tree/Makefile"
: >"$tree/shell/main.c"
cp "$TUTOR" "$tree/build/pidns-tutor"
ln -s "$(cd "$O" && pwd)/examples" "$tree/build/examples"
cp "$FIX/lessons/01-tiny.adoc" "$tree/lessons/01-tiny.adoc"
cp -r "$FIX/examples" "$tree/examples"
# Lesson 2: a good header, a listing never closed at line 10.
printf '= Broken body\n:summary: a body that is never closed\n:minutes: 1\n\n== One\n\nText.\n\n[.run]\n----\ntrue\n' \
    >"$tree/lessons/02-broken.adoc"
T=$tree/build/pidns-tutor
out=$scratch/out
want="02-broken.adoc:10: a [.run] listing opened here is never closed (expected a line '----')"

printf 'lessons\nlesson 2\nexport 2\nlesson 1\nquit\n' | "$T" >"$out" 2>"$out.err"
rc=$?
check "a malformed body does not stop the start (exit $rc, 1: a command failed)" [ $rc -eq 1 ]
check "the list shows the broken lesson's title" grep -q "Broken body" "$out"
check "entering it says FILE:LINE and what is wrong" grep -qF "pidns-tutor: $tree/lessons/$want" "$out.err"
check "export says it too (twice in all: the file is read again)" \
    [ "$(grep -cF "$want" "$out.err")" -eq 2 ]
check "the other lesson is entered after it" grep -q "Lesson 1: " "$out"
check "nothing left of the session" nothing_left pidns-tutor

# The next session lists lesson 1, entered above, with its step count,
# though the start read only its header.
printf 'lessons\nquit\n' | "$T" >"$out" 2>"$out.err"
check "a lesson begun is listed with its steps counted ([step 1 of 2])" \
    grep -qF "[step 1 of 2]" "$out"

# Negative control: the same directory named with --lessons is read whole,
# and the same message stops the start.
echo quit | "$T" --lessons "$tree/lessons" >"$out" 2>"$out.err"
rc=$?
check "with --lessons the broken body stops the start (exit $rc)" [ $rc -eq 1 ]
check "with --lessons the same message" grep -qF "$want" "$out.err"
check "with --lessons nothing was started" sh -c "! grep -q 'Lesson 1' '$out'"

# A malformed header is still the start's error.
printf '= Bad header\n:minutes: 1\n\n== One\n\nText.\n' >"$tree/lessons/02-broken.adoc"
echo quit | "$T" >"$out" 2>"$out.err"
rc=$?
check "a malformed header stops the start (exit $rc)" [ $rc -eq 1 ]
check "with its FILE:LINE" \
    grep -qF "02-broken.adoc:1: the header has no ':summary:' (one line for the lesson list)" "$out.err"
finish
