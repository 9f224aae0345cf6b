#!/bin/sh
# SPDX-License-Identifier: MIT
# test_examples reads ps's output whatever kernel.pid_max is (commit 34f4f12): ps
# sizes its PID columns from pid_max (5 wide at the kernel's default 32768,
# as on Debian 12 without systemd or in a container; 7 at 4194304), and the
# test once expected the 7-wide columns. Here the example's `ps` is a
# wrapper that first sets pid_max in the example's own PID namespace, then
# runs ps under its own name: the test must pass at both values. pid_max is
# per PID namespace only since Linux 6.14: before, the write would change
# the host's, so older kernels skip. The negative control: the old
# fixed-width expectation, checked here on the same ps output, fails at
# 32768; and TEST_EXAMPLES=/path/to/an/older/test_examples runs that
# binary instead (main's before the fix fails at 32768: 2 checks).
. tests/e2e/lib/common
if [ "$(id -u)" -ne 0 ]; then
    skip_all "needs root (it writes pid_max in a PID namespace of its own)"
fi
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 14 ]; }; then
    skip_all "kernel: pid_max is per PID namespace from Linux 6.14 (this is $(uname -r))"
fi
bash=$(command -v bash) || skip_all "needs bash (exec -a)"
ps=$(command -v ps) || skip_all "needs ps"
plan 5
mkdir -p "$scratch/bin"
cat >"$scratch/bin/ps" <<WRAP
#!$bash
# ps as the example's PID 1, with this namespace's pid_max set first.
echo "\$PS_PID_MAX" > /proc/sys/kernel/pid_max || exit 1
exec -a ps $ps "\$@"
WRAP
chmod 755 "$scratch/bin/ps"
host_max=$(cat /proc/sys/kernel/pid_max)

for max in 32768 4194304; do
    PS_PID_MAX=$max PATH="$scratch/bin:$PATH" "${TEST_EXAMPLES:-$O/tests/integration/test_examples}" \
        >"$scratch/ex.$max" 2>&1
    rc=$?
    check "test_examples passes with ps's columns sized from pid_max $max (status $rc)" [ $rc -eq 0 ]
done
# What ps prints there, and the old expectation against it.
out=$(unshare -p -f -m --mount-proc env PS_PID_MAX=32768 "$scratch/bin/ps" -e -o pid,ppid,cmd)
check "ps in a namespace with pid_max 32768 has 5-wide columns" \
    sh -c "printf '%s\n' '$out' | grep -qx '    1     0 ps -e -o pid,ppid,cmd'"
check "negative control: the old fixed-width expectation fails there" \
    sh -c "! printf '%s\n' '$out' | grep -qF '  1       0 ps -e -o pid,ppid,cmd'"
check "the host's pid_max is untouched ($host_max)" [ "$(cat /proc/sys/kernel/pid_max)" = "$host_max" ]
finish
