#!/bin/sh
# SPDX-License-Identifier: MIT
# asan_logs_nobody.sh: an instrumented program run as nobody can write its
# sanitizer log in the directory check-asan makes, also where a root
# program wrote a file of the same name first (check-asan runs it before its
# steps; needs the ASan build and root, to become nobody).
#
#   O=build/asan sh tests/hardening/asan_logs_nobody.sh
#
# Two cases, each in a directory made the old way (mktemp, mode 1777: the
# control, which must fail as check-asan failed 2 runs in 3 from a fresh
# clone) and in one made by sanitizer_log_dir (which must pass):
#  1. a forced notice: sanitizer_notice (tests/helpers) writes to its log on
#     purpose; run as root, then as nobody, each as PID 1 of a new PID
#     namespace: both log to asan.sanitizer_notice.1;
#  2. the nobody cases as check-asan runs them: test_pidns_translate, whose
#     root case's clone child logs a notice as PID 1 ("ignoring requested
#     __asan_handle_no_return") before its nobody case's child does, under
#     the same name. Nothing moves files aside here (check-asan's keeper
#     does that every 50 ms, later under load): the collision is certain.
set -u
O=${O:-build/asan}
. tests/hardening/sanitizer_logs.sh
notice=$O/tests/helpers/sanitizer_notice
translate=$O/tests/integration/test_pidns_translate
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
if [ "$(id -u)" -ne 0 ]; then
    echo "skip - asan_logs_nobody: needs root to become nobody"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
if [ ! -x "$notice" ] || [ ! -x "$translate" ]; then
    echo "FAIL $notice or $translate is not built (make O=$O SANITIZE=1)"
    exit 1
fi
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# forced_notice DIR: 0 when root's and then nobody's PID 1 both logged.
forced_notice() {
    sanitizer_options "$1"
    unshare -p -f "$notice" || return 1
    nobody unshare -r -p -f "$notice" 2>"$1.err"
    rc=$?
    unset ASAN_OPTIONS UBSAN_OPTIONS
    [ $rc -eq 0 ] && [ "$(grep -l sanitizer_print_stack_trace "$1"/asan.sanitizer_notice.1)" ]
}
# nobody_cases DIR: test_pidns_translate's root and nobody cases, its
# output in DIR.out; 0 when all passed.
nobody_cases() {
    sanitizer_options "$1"
    timeout -s KILL 300 "$translate" >"$1.out" 2>&1
    rc=$?
    unset ASAN_OPTIONS UBSAN_OPTIONS
    return $rc
}

# the old way, as asan.sh made it before
old_dir() { _d=$(mktemp -d /tmp/pidns-tutor-asan-old.XXXXXX) && chmod 1777 "$_d" && echo "$_d"; }
old=$(old_dir) && old2=$(old_dir) && new=$(sanitizer_log_dir) && new2=$(sanitizer_log_dir) || exit 1
trap 'for d in "$old" "$old2" "$new" "$new2"; do rm -rf "$d" "$d.err" "$d.out"; done' EXIT

if forced_notice "$old"; then
    bad "control: nobody wrote over root's log in a 1777 directory (the collision did not happen)"
elif grep -q "Can't open file.*reason: 13" "$old.err"; then
    ok "control: in a 1777 directory nobody's log fails as in check-asan ($(head -c 120 "$old.err"))"
else
    bad "control: nobody's run failed, but not on its log: $(head -c 200 "$old.err")"
fi
if forced_notice "$new"; then
    ok "a forced notice: root's then nobody's PID 1 both write asan.sanitizer_notice.1"
else
    bad "a forced notice as nobody failed: $(head -c 200 "$new.err")"
fi

# The notice of case 2 depends on where the clone stack lands: a control
# that does not collide is said, not counted (case 1's control is certain).
if nobody_cases "$old2"; then
    echo "# control: test_pidns_translate passed in a 1777 directory (no notice collided this time)"
elif grep -q "Can't open file.*reason: 13" "$old2.out"; then
    ok "control: test_pidns_translate's nobody case fails in a 1777 directory"
else
    echo "# control: test_pidns_translate failed in a 1777 directory, not on its log"
fi
if nobody_cases "$new2"; then
    ok "test_pidns_translate, root and nobody cases, pass in the directory check-asan makes"
else
    bad "test_pidns_translate in the directory check-asan makes:"
    grep -E "FAILED|Can't open|ERROR" "$new2.out" | head -n 8 | sed 's/^/    /'
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
