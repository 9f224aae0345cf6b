#!/bin/sh
# SPDX-License-Identifier: MIT
# capture-reference.sh: records what every lesson really prints, for the
# handbook's "reference run" beside each expected-output pattern.
#
#   sh docs/handbook/capture-reference.sh TUTOR LESSONS_DIR OUT_DIR
#
# Runs `TUTOR --no-color --auto all` (every step, solution and check, in the
# tutor's private lab: nothing is left on the host), with PIDNS_TUTOR_TREES=1
# so that the lab's namespace tree after each step that has one below the
# lab's is printed too (for the pictures), and PIDNS_TUTOR_MARK_JOBS=1, so
# that what a background job prints while a later command runs is marked and
# kept apart from that command's output (it may come before or after it), and writes
#   OUT_DIR/transcript.txt  what the tutor printed (one note a line: wide COLUMNS)
#   OUT_DIR/meta            kernel=, machine=, date=, status= (passed, failed,
#                           unavailable): the handbook names the kernel and date
# A machine where the lab cannot start (no root, no user namespaces) still gets
# its docs: the meta says so and the pages show the patterns alone. Exit 0 then;
# exit 2 only on a usage error or an unwritable OUT_DIR.
set -u
if [ $# -ne 3 ]; then
    echo "usage: capture-reference.sh TUTOR LESSONS_DIR OUT_DIR" >&2
    exit 2
fi
tutor=$1 lessons=$2 out=$3
mkdir -p "$out" || exit 2
tmp=$(mktemp "$out/.transcript.XXXXXX") || exit 2
trap 'rm -f "$tmp"' EXIT INT TERM
status=unavailable
if [ ! -x "$tutor" ]; then
    echo "capture-reference: $tutor is not built: no reference output" >&2
    : >"$tmp"
elif COLUMNS=1000 PIDNS_TUTOR_TREES=1 PIDNS_TUTOR_MARK_JOBS=1 "$tutor" --no-color --lessons "$lessons" --auto all >"$tmp" 2>&1 </dev/null; then
    status=passed
elif grep -q '^lesson [0-9]* (.*): passed' "$tmp"; then
    # Some lessons failed: the handbook shows the output of those that passed.
    status=failed
    echo "capture-reference: some lessons failed on this machine; their pages show no reference output:" >&2
    grep '^lesson [0-9]* (.*): ' "$tmp" | grep -v ': passed$' >&2
else
    echo "capture-reference: the lab did not run here (pidns-tutor --doctor says why); no reference output:" >&2
    tail -n 3 "$tmp" >&2
fi
mv "$tmp" "$out/transcript.txt" || exit 2
trap - EXIT INT TERM
{
    echo "kernel=$(uname -r)"
    echo "machine=$(uname -m)"
    echo "date=$(date -u +%Y-%m-%d)"
    echo "status=$status"
} >"$out/meta"
