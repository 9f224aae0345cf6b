#!/bin/sh
# SPDX-License-Identifier: MIT
# asan.sh: the tests against the ASan+UBSan build (make check-asan builds it
# with make O=build/asan SANITIZE=1, then runs this).
#
#   O=build/asan sh tests/hardening/asan.sh
#
# Runs the unit and integration tests (the integration tests run every
# example of that build, in the lab and in the sandbox) and the shell's
# end-to-end tests, through tests/run-tests.sh. Every sanitizer report, from
# any process (an example's child in a PID namespace, the shell run as nobody)
# goes to a file (log_path) in a directory under /tmp that root and nobody
# can both write (tests/hardening/sanitizer_logs.sh says how), moved to
# $O/sanitizer-logs/ at the end: a child's report on a captured stderr would
# otherwise be lost, or read as the expected output. Any report file fails the
# run, even if the tests passed.
#
# LeakSanitizer stays on everywhere but in two places, where it cannot work
# (its tracer task is born in the caller's pid_for_children namespace):
#  - pidns_unshare, pidns_setns and pidns_ancestry, which exit with their
#    pid_for_children moved: the sanitizer build links
#    tests/hardening/no_leak_check.c into them;
#  - shell_nobody.sh, the shell as an ordinary user, and lessons_auto_all.sh,
#    which takes that route too: the unprivileged lab cannot setns() back to
#    its first PID namespace before exiting (lab.h).
# make check-valgrind checks those for leaks.
#
# Not run here: the tests that do not run our C code (docs, install, lesson
# rendering, bash completion).
set -u
O=${O:-build/asan}
if [ ! -x "$O/pidns-tutor" ]; then
    echo "check-asan: $O/pidns-tutor is not built (make O=$O SANITIZE=1)"
    exit 1
fi
logs=$(cd "$O" && pwd)/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
. tests/hardening/sanitizer_logs.sh
live=$(sanitizer_log_dir) || exit 1
out=$logs/tests.out
: >"$out"

status=0
start=$(date +%s)

# A report file is named PREFIX.EXE.PID with the PID as the process sees it,
# and opened with O_TRUNC: processes in PID namespaces reuse small PIDs, so a
# later pidns_orphan PID 3 would empty an earlier one's report (or, as
# nobody, fail to open root's file). So every new file is moved aside to a
# unique name at once (the writer keeps writing through its descriptor).
keep_reports() {
    n=0
    while [ -d "$live" ]; do
        for f in "$live"/asan.* "$live"/ubsan.*; do
            case $f in *"*"* | *.kept.*) continue ;; esac
            n=$((n + 1))
            mv "$f" "$f.kept.$n" 2>/dev/null
        done
        sleep 0.05
    done
}
keep_reports &
keeper=$!
trap 'kill $keeper 2>/dev/null; rm -rf "$live"' EXIT

# step N NAME EXTRA_ASAN_OPTIONS PATTERN...: run-tests.sh with the PATTERNs,
# in the background (its output in $logs/step.N.out); report N prints its
# line once it has ended. The two steps run side by side, one runner at a
# time each (TEST_JOBS=1): two at a time in all. A step is killed after
# 1800 s (a hang: the first holds what eight steps of 900 s each held).
step() {
    n=$1 name=$2 extra=$3
    shift 3
    (
        t0=$(date +%s)
        sanitizer_options "$live" "$extra"
        O=$O TEST_JOBS=${ASAN_TEST_JOBS:-1} \
            timeout -s KILL 1800 sh tests/run-tests.sh "$@" >"$logs/step.$n.out" 2>&1
        echo "$? $(($(date +%s) - t0))" >"$logs/step.$n.rc"
    ) &
    steps="$steps $n" pids="$pids $!"
    echo "$name" >"$logs/step.$n.name"
}
report() {
    read -r rc secs <"$logs/step.$1.rc"
    cat "$logs/step.$1.out" >>"$out"
    summary=$(grep '^tests: ' "$logs/step.$1.out" | tail -n 1)
    printf 'check-asan: %-44s %s (%ss)\n' "$(cat "$logs/step.$1.name")" "${summary:-no summary (exit status $rc)}" "$secs"
    if [ "$rc" -ne 0 ]; then
        grep -E '^(failing runners|FAIL|not ok)' "$logs/step.$1.out" | sed 's/^/    /'
        failed_tests_lines "$logs/step.$1.out" | sed 's/^/    /'
        status=1
    fi
    rm -f "$logs/step.$1".*
}
# failed_tests_lines FILE: each failing cmocka test's own lines, from its
# "[ RUN      ]" to its "[  FAILED  ]" (the last 15 of them): the summary
# then says why, not only which (a sanitizer's "Can't open file" is there).
failed_tests_lines() {
    awk '/^\[ RUN      \] / { name = $NF; n = 0 }
         { if (name != "") buf[++n] = $0 }
         /^\[  FAILED  \] / && $NF == name && name != "" {
             from = n > 15 ? n - 14 : 1
             for (i = from; i <= n; i++) print buf[i]
             name = ""
         }' "$1"
}

# First: nobody's logs can be written where root's came first (the runs
# below rely on it; its control reproduces the failure of the old 1777 dir).
if ! O=$O sh tests/hardening/asan_logs_nobody.sh >"$logs/logs_nobody.out" 2>&1; then
    status=1
fi
sed 's/^/check-asan: logs as nobody: /' "$logs/logs_nobody.out"
cat "$logs/logs_nobody.out" >>"$out"

steps="" pids=""
step 1 "unit, integration, e2e shell_*" "" "$O/tests/" tests/e2e/shell_auto.sh tests/e2e/shell_batch.sh \
    tests/e2e/shell_history.sh tests/e2e/shell_options.sh tests/e2e/shell_pty.sh
step 2 "e2e shell_nobody, lessons_auto_all" "detect_leaks=0" tests/e2e/shell_nobody.sh tests/e2e/lessons_auto_all.sh
# shellcheck disable=SC2086
wait $pids # (not the keeper of the reports)
for n in $steps; do report "$n"; done

kill $keeper
wait $keeper 2>/dev/null
for f in "$live"/*; do
    [ -f "$f" ] && mv "$f" "$logs/"
done
rm -rf "$live"
# Reports. ASan warns once in a process that leaves a clone() child's own
# stack (the examples' child functions): "ignoring requested
# __asan_handle_no_return" is a notice that it skips unpoisoning that stack,
# not an error; a file holding only that is counted, not failed.
notice='ASan is ignoring requested __asan_handle_no_return|^False positive error reports may follow|^For details see https://github.com/google/sanitizers/issues/189'
reports=0 notices=0
for f in "$logs"/asan.* "$logs"/ubsan.*; do
    [ -f "$f" ] || continue
    if grep -Evq "$notice" "$f"; then
        reports=$((reports + 1))
        echo "check-asan: sanitizer report $f:"
        sed 's/^/    /' "$f"
    else
        notices=$((notices + 1))
    fi
done
[ $reports -eq 0 ] || status=1
echo "check-asan: $reports sanitizer report(s), $notices clone-stack notice(s); full output in $out"
if [ $status -eq 0 ]; then
    echo "check-asan: passed in $(($(date +%s) - start))s"
else
    echo "check-asan: FAILED ($(($(date +%s) - start))s)"
fi
exit $status
