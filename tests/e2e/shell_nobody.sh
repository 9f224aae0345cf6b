#!/bin/sh
# SPDX-License-Identifier: MIT
# The shell as an ordinary user (nobody, through a user namespace): the
# same commands work, the learner is root inside the lab only, /procN stays
# in the lab, and a home that cannot be written is only a warning.
. tests/e2e/lib/common
. tests/e2e/lib/stage
if [ "$(id -u)" -ne 0 ]; then
    skip_all "needs root to become nobody"
fi
plan 22
# A copy nobody can reach wherever the checkout is (a clone under /root too).
stage_tree "$scratch/tree" || bail_out "staging a copy of the tree for nobody"
abs_tutor=$scratch/tree/build/pidns-tutor
abs_fix=$scratch/tree/$FIX
check "nobody can reach the staged tutor and lessons" \
    su nobody -s /bin/sh -c "test -x '$abs_tutor' && test -r '$abs_fix/lessons/01-tiny.adoc'"
out=$scratch/out
chmod 777 "$scratch"

su nobody -s /bin/sh -c "cd '$scratch' && printf 'sh id -u\nsh mkdir /proc5 && ls -d /proc5\nstatus\nquit\n' | env -u XDG_STATE_HOME HOME=/nonexistent NO_COLOR=1 '$abs_tutor' --lessons '$abs_fix/lessons'" >"$out" 2>&1
rc=$?
check "as nobody: batch commands succeed (status $rc)" [ $rc -eq 0 ]
check "as nobody: root inside the lab" grep -qx "0" "$out"
check "as nobody: /proc5 made in the lab" grep -qx "/proc5" "$out"
check "as nobody: no process, mount or /procN left" grep -q "no process, mount or /procN left" "$out"
check "as nobody: an unwritable home is a warning" grep -q "warning: cannot write" "$out"
check "as nobody: /proc5 never reached the host" nothing_left "pidns-tutor --lessons $abs_fix"

# The walls hold (lab_walls.c): the view's mounts are locked for the
# learner's root, so it cannot be lifted from inside. Control: main's binary
# before the walls printed 0 for all three and left the file on the host.
probe=/tmp/pidns-tutor-walls.$$
su nobody -s /bin/sh -c "cd '$scratch' && printf '%s\n' 'sh umount -l /tmp 2>/dev/null; echo umount-tmp \$?' 'sh mount -o remount,rw,bind /etc 2>/dev/null; echo remount-etc \$?' 'sh umount -l /proc 2>/dev/null; echo umount-proc \$?' 'sh mount -o remount,rw,bind /tmp 2>/dev/null; touch $probe' quit | env -u XDG_STATE_HOME HOME=/nonexistent NO_COLOR=1 '$abs_tutor' --lessons '$abs_fix/lessons'" >"$out" 2>&1
check "as nobody: umount -l /tmp fails in the lab" sh -c "grep -qx 'umount-tmp [1-9][0-9]*' '$out'"
check "as nobody: remount,rw of /etc fails in the lab" sh -c "grep -qx 'remount-etc [1-9][0-9]*' '$out'"
check "as nobody: umount -l /proc fails in the lab" sh -c "grep -qx 'umount-proc [1-9][0-9]*' '$out'"
check "as nobody: a file written to /tmp in the lab is not on the host" [ ! -e "$probe" ]
rm -f "$probe"

su nobody -s /bin/sh -c "cd '$scratch' && printf 'ls /proc2/1\nmulti_pidns 5\nsh kill -STOP 1\nrun pidns_init_sleep /proc2\nps\ntree\n' | env -u XDG_STATE_HOME HOME=/nonexistent NO_COLOR=1 '$abs_tutor' --lessons '$abs_fix/lessons'" >"$out" 2>&1
check "as nobody: a program typed without sh gets the sh line" grep -q "did you mean \`sh ls /proc2/1\`?" "$out"
check "as nobody: an example typed without run gets the run line" grep -q "did you mean \`run multi_pidns 5\`?" "$out"
check "as nobody: kill -STOP 1 in the lab gets the init note" grep -q "PID 1 here is the lab's init" "$out"
check "as nobody: tree shows the lab at level 1, the example's namespace at 2" sh -c "grep -q \"level 1 (the lab's namespace)\" '$out' && grep -qE -- '-- pid:\\[[0-9]+\\] level 2, 1 process\$' '$out'"
check "as nobody: ps shows the full name" grep -qE ' pidns_init_sleep$' "$out"

su nobody -s /bin/sh -c "cd '$scratch' && env -u XDG_STATE_HOME HOME=/nonexistent '$abs_tutor' --auto all --lessons '$abs_fix/lessons'" >"$out" 2>&1
rc=$?
check "as nobody: --auto all passes (status $rc)" [ $rc -eq 0 ]
check "as nobody: nothing left after --auto" nothing_left "sleep 4244"

# A lab that cannot open (a user namespace whose owner has no mapping, so no
# further namespace can be set up): one clear line, exit 1, nothing started.
su nobody -s /bin/sh -c "cd '$scratch' && echo quit | unshare -U env HOME=/nonexistent '$abs_tutor' --lessons '$abs_fix/lessons'" >"$out" 2>&1
rc=$?
check "no lab possible: exit status 1 (was $rc)" [ $rc -eq 1 ]
check "no lab possible: what is missing and the fix, in one line" grep -q "^pidns-tutor: cannot open the lab: .*(fix: " "$out"
check "no lab possible: said once" [ "$(grep -c 'cannot open the lab' "$out")" -eq 1 ]
check "no lab possible: no verdict, since nothing was started" sh -c "! grep -q 'no process, mount or /procN left' '$out'"

finish
