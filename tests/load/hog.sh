#!/bin/sh
# SPDX-License-Identifier: MIT
# A CPU hog in plain sh, for running the tutorial on a loaded machine:
# one busy loop per CPU (or N), each ended after SECONDS by itself, and all
# of them at once when this script is stopped (SIGTERM, SIGINT, SIGHUP).
#
#   sh tests/load/hog.sh SECONDS [N]
#
# It prints nothing; it exits when its loops have ended.
set -u
seconds=${1:?usage: hog.sh SECONDS [N]}
n=${2:-$(nproc 2>/dev/null || echo 2)}
case "$seconds$n" in *[!0-9]*) echo "hog.sh: SECONDS and N are whole numbers" >&2; exit 2 ;; esac
pids=
stop() {
    [ -n "$pids" ] && kill $pids 2>/dev/null
    wait
    exit 0
}
trap stop TERM INT HUP
i=0
while [ "$i" -lt "$n" ]; do
    # The loop itself cannot look at a clock without slowing down: timeout
    # ends it; the sh in between is what `kill $pids` reaches.
    timeout "$seconds" sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
wait
