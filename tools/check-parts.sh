#!/bin/sh
# SPDX-License-Identifier: MIT
# check-parts.sh: runs the parts of make check side by side (make check-run
# runs it once everything is built).
#
#   MAKE=make sh tools/check-parts.sh JOBS PART...
#
# Each PART is a make target (check-ownership, check-asan...); at most JOBS
# run at a time, started in the order given (the longest first, so that none
# starts last). A part's output is kept in its own log and printed whole when
# it ends, under "=== make PART (N s)", so that the parts' lines never mix.
# At the end: each part's time, what failed (the failing parts, each with the
# last lines of its log), and the wall time of them all. Exits 1 if any part
# failed; every part runs whatever the others do.
set -u
jobs=${1:?usage: check-parts.sh JOBS PART...}
shift
make=${MAKE:-make}
work=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-check.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
running="" failed=""
echo "check: $# parts, $jobs at a time: $*"

finish_next() { # waits until a running part ends, and prints it
    while :; do
        for p in $running; do
            [ -f "$work/$p.rc" ] || continue
            read -r rc secs <"$work/$p.rc"
            running=$(for r in $running; do [ "$r" = "$p" ] || printf ' %s' "$r"; done)
            printf '\n=== make %s (%s s)\n' "$p" "$secs"
            cat "$work/$p.log"
            echo "$secs $p" >>"$work/times"
            if [ "$rc" -ne 0 ]; then
                failed="$failed $p"
                { echo "make $p (exit status $rc), its last lines:"; tail -n 15 "$work/$p.log" | sed 's/^/  /'; } \
                    >>"$work/failures"
            fi
            return
        done
        sleep 0.2
    done
}

for part; do
    while [ "$(echo $running | wc -w)" -ge "$jobs" ]; do finish_next; done
    (
        t0=$(date +%s)
        $make --no-print-directory "$part" >"$work/$part.log" 2>&1 </dev/null
        echo "$? $(($(date +%s) - t0))" >"$work/$part.rc.new"
        mv "$work/$part.rc.new" "$work/$part.rc"
    ) &
    running="$running $part"
done
while [ -n "$(echo $running)" ]; do finish_next; done

printf '\ncheck: time per part (s), %s at a time:\n' "$jobs"
sort -rn "$work/times" | sed 's/^/  /'
if [ -n "$failed" ]; then
    echo "what failed:"
    cat "$work/failures"
    echo "failing parts:$failed"
fi
echo "check: $# parts in $(($(date +%s) - start)) s, $(echo $failed | wc -w) failed"
[ -z "$failed" ]
