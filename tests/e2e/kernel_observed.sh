#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel_observed.sh: what the examples say the kernel did, observed in the
# kernel's own answers instead of the examples' words. Each example runs in
# the sandbox under `strace -ff` (one trace per process, named by its PID as
# the host sees it); the checks read the system calls' results from the
# traces, so an example that prints the right sentence while doing something
# else fails here.
#
#   sh tests/e2e/kernel_observed.sh
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
. "$(dirname "$0")/lib/tap"
abs_build=$(cd "$BUILD" 2>/dev/null && pwd) || bail_out "$BUILD is not built"
SANDBOX=$abs_build/tests/helpers/in_sandbox
command -v strace >/dev/null || skip_all "strace is missing (make deps-check)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (strace in the sandbox)"
plan 8
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pidns-kernel-observed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# trace NAME EXAMPLE [ARGS...]: runs the example under strace; the traces are
# $tmp/NAME/t.PID, the top process's PID in $top, its output in $tmp/NAME.out.
trace() {
    name=$1
    shift
    mkdir -p "$tmp/$name"
    (cd "$abs_build/examples" && timeout 60 "$SANDBOX" strace -ff -qq -o "$tmp/$name/t" \
        -e trace=execve,kill,rt_sigtimedwait,clone,clone3,getpid,getppid,ioctl,exit_group "./$@") \
        >"$tmp/$name.out" 2>&1
    top=$(grep -l "^execve(\"./$1\"" "$tmp/$name"/t.* | head -n 1 | sed 's/.*\.//')
}
# Whether trace file of $1 holds a line matching the extended regex $2.
in_trace() { grep -qE -- "$2" "$tmp/$name/t.$1" 2>/dev/null; }
# The PIDs whose trace holds a line matching $1.
traced_by() { grep -lE -- "$1" "$tmp/$name"/t.* 2>/dev/null | sed 's/.*\.//'; }

# kill() from inside a child namespace at an ancestor's PID: ESRCH, while
# that ancestor (the example's top process) is alive until the very end.
trace kill pidns_kill_probe
if [ -n "$top" ] && [ -n "$(traced_by "^kill\($top, [^)]*\) += -1 ESRCH")" ] && in_trace "$top" '^exit_group\('; then
    ok "kill() at an ancestor's PID from inside: ESRCH, the ancestor alive"
else
    not_ok "kill() at an ancestor's PID from inside: ESRCH, the ancestor alive" "$(cat "$tmp/kill.out")"
fi
# Negative control: the same kill from the top process itself succeeds.
in_trace "$top" "^kill\([0-9]+, SIGUSR1\) += 0" && ok "control: the parent's kill(SIGUSR1) into the namespace succeeds" ||
    not_ok "control: the parent's kill(SIGUSR1) into the namespace succeeds"

# A signal from outside arrives with si_pid 0 (the sender has no PID there).
if [ -n "$(traced_by 'rt_sigtimedwait\(.*si_signo=SIGUSR1, si_code=SI_USER, si_pid=0,.*= [0-9]+ \(SIGUSR1\)')" ]; then
    ok "SIGUSR1 from the parent namespace arrives with si_pid=0"
else
    not_ok "SIGUSR1 from the parent namespace arrives with si_pid=0"
fi

# clone3() with set_tid: the child gets PID 42 in its namespace.
trace set_tid pidns_set_tid
# The call returns 42 to the init; the last PID of set_tid is the child's
# PID out here, which names its trace.
child=$(grep -hE '^clone3\(\{.*set_tid=\[42, [0-9]+\].*\) += 42$' "$tmp/set_tid"/t.* |
    sed 's/.*set_tid=\[42, \([0-9]*\)\].*/\1/' | head -n 1)
if [ -n "$child" ] && in_trace "$child" '^getpid\(\) += 42$'; then
    ok "clone3(set_tid=[42, ...]) made a process whose getpid() is 42"
else
    not_ok "clone3(set_tid=[42, ...]) made a process whose getpid() is 42" "$(cat "$tmp/set_tid.out")"
fi
[ -n "$(traced_by '^clone3\(\{.*set_tid=\[42\].*= -1 EEXIST')" ] &&
    ok "clone3(set_tid=[42]) again while 42 lives: EEXIST" || not_ok "clone3(set_tid=[42]) again while 42 lives: EEXIST"

# NS_GET_PARENT: answers a file descriptor below, EPERM at the top.
trace ancestry pidns_ancestry 3
ups=$(cat "$tmp/ancestry"/t.* | grep -cE '^ioctl\([0-9]+, NS_GET_PARENT\) += [0-9]+$')
[ "$ups" -ge 3 ] && [ -n "$(traced_by '^ioctl\([0-9]+, NS_GET_PARENT\) += -1 EPERM')" ] &&
    ok "NS_GET_PARENT climbs 3 levels ($ups answers), then EPERM" ||
    not_ok "NS_GET_PARENT climbs 3 levels, then EPERM" "$ups answers" "$(cat "$tmp/ancestry.out")"

# 32 nested PID namespaces, and the 33rd clone() is refused with ENOSPC.
trace depth pidns_max_depth
made=$(cat "$tmp/depth"/t.* | grep -cE '^clone\(.*CLONE_NEWPID.*\) = [0-9]+$')
# The initial PID namespace has the fixed inode PROC_PID_INIT_INO
# (0xEFFFFFFC). Started below it (CI may run the suite in a container), the
# suite cannot learn its own level from inside, so fewer than 32 fit.
if [ "$(readlink /proc/self/ns/pid)" = "pid:[4026531836]" ]; then
    want_made=32 where="below the root namespace"
else
    want_made=$made where="below this suite's own namespace (not the root one: $made fit)"
    [ "$made" -ge 1 ] && [ "$made" -lt 32 ] || want_made=32
fi
if [ "$made" -eq "$want_made" ] && [ -n "$(traced_by '^clone\(.*CLONE_NEWPID.*\) = -1 ENOSPC')" ]; then
    ok "$made clone(CLONE_NEWPID) succeed $where, the next fails with ENOSPC"
else
    not_ok "32 clone(CLONE_NEWPID) succeed, the 33rd fails with ENOSPC" "$made succeeded" "$(tail -5 "$tmp/depth.out")"
fi

# An orphan's getppid() changes when its parent dies: to the subreaper.
trace orphan pidns_orphan
moved=""
for f in "$tmp/orphan"/t.*; do
    [ "$(grep -E '^getppid\(\) += [0-9]+$' "$f" | sort -u | wc -l)" -ge 2 ] && moved="$moved ${f##*.}"
done
[ -n "$moved" ] && ok "an orphan's getppid() answers change when its parent dies (PID$moved)" ||
    not_ok "an orphan's getppid() answers change when its parent dies" "$(cat "$tmp/orphan.out")"
finish
