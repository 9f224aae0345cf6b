#!/bin/sh
# SPDX-License-Identifier: MIT
# Peak memory of each example: figures, not a pass/fail test. Each runs in
# the sandbox with arguments that make it finish (the ones that would wait
# for Ctrl-C are sent SIGTERM after a moment, which they clean up on), under
# /usr/bin/time: the figure is the maximum resident set, in KiB, of the
# largest process of the example's tree (what wait4() reports). Median of 3.
#
#   O=build sh tests/bench/memory.sh         (make bench-memory)
set -eu
. tests/bench/lib.sh
bench_need python3 /usr/bin/time
if [ "$(id -u)" -ne 0 ]; then
    echo "bench-memory: not root: the sandbox uses a user namespace; examples that need" \
        "real root report their failure in the table" >&2
fi

E=$(pwd)/$O/examples
out=$BENCH_OUT/raw/memory.txt
: >"$out"
# One line each: the arguments, or "TERM ARGS" for one that runs until signalled.
cases='multi_pidns 5 true
multi_pidns 31 true
pidns_ancestry
pidns_init_signals
TERM pidns_init_sleep /proc2
pidns_kill_probe
pidns_max_depth
pidns_mini_init -q true
pidns_orphan
pidns_parents
pidns_probe
pidns_siginfo
pidns_pidfd
pidns_threads
pidns_proc_mount true
pidns_set_tid
pidns_reboot restart
pidns_translate --ioctl
pidns_peer
pidns_kept
pidns_nsid --reuse --ids
pidns_setns $$ true
pidns_unshare
pidns_unshare --launch true'

# In the sandbox: each case three times, "case<TAB>exit status<TAB>KiB" a line.
E="$E" CASES="$cases" "$O/tests/helpers/in_sandbox" sh -c '
    rss=$(mktemp)
    echo "$CASES" | while IFS= read -r c; do
        for i in 1 2 3; do
            case "$c" in
            TERM\ *)
                set -- ${c#TERM }
                /usr/bin/time -f %M -o "$rss" "$E/$@" >/dev/null 2>&1 &
                timer=$!
                sleep 0.3
                child=$(pgrep -P "$timer" || true)
                [ -n "$child" ] && kill -TERM "$child"
                status=0; wait "$timer" || status=$?
                [ "$status" -eq 143 ] && status=0 # it ended as asked
                shown=${c#TERM }
                ;;
            *)
                eval "set -- $c"
                status=0; /usr/bin/time -f %M -o "$rss" "$E/$@" >/dev/null 2>&1 </dev/null || status=$?
                shown=$c
                ;;
            esac
            printf "%s\t%s\t%s\n" "$shown" "$status" "$(tail -1 "$rss")"
        done
    done
    rm -f "$rss"
' >"$out"
python3 tests/bench/report.py memory "$BENCH_OUT"
