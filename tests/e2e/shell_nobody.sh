#!/bin/sh
# The shell as an ordinary user (nobody, through a user namespace): the
# same commands work, the learner is root inside the lab only, /procN stays
# in the lab, and a home that cannot be written is only a warning.
. tests/e2e/lib/common
if [ "$(id -u)" -ne 0 ]; then
    echo "skip: needs root to become nobody"
    exit 0
fi
abs_tutor=$(cd "$(dirname "$TUTOR")" && pwd)/pidns-tutor
abs_fix=$(pwd)/$FIX
if ! su nobody -s /bin/sh -c "test -x '$abs_tutor' && test -r '$abs_fix/lessons/01-tiny.adoc'"; then
    echo "skip: nobody cannot reach $abs_tutor (a private directory above the build)"
    exit 0
fi
out=$scratch/out
chmod 777 "$scratch"

su nobody -s /bin/sh -c "cd '$scratch' && printf 'sh id -u\nsh mkdir /proc5 && ls -d /proc5\nstatus\nquit\n' | env -u XDG_STATE_HOME HOME=/nonexistent NO_COLOR=1 '$abs_tutor' --lessons '$abs_fix/lessons'" >"$out" 2>&1
rc=$?
check "as nobody: batch commands succeed (status $rc)" [ $rc -eq 0 ]
check "as nobody: root inside the lab" grep -qx "0" "$out"
check "as nobody: /proc5 made in the lab" grep -qx "/proc5" "$out"
check "as nobody: host unchanged" grep -q "host unchanged" "$out"
check "as nobody: an unwritable home is a warning" grep -q "warning: cannot write" "$out"
check "as nobody: /proc5 never reached the host" nothing_left "pidns-tutor --lessons $abs_fix"

su nobody -s /bin/sh -c "cd '$scratch' && env -u XDG_STATE_HOME HOME=/nonexistent '$abs_tutor' --auto all --lessons '$abs_fix/lessons'" >"$out" 2>&1
rc=$?
check "as nobody: --auto all passes (status $rc)" [ $rc -eq 0 ]
check "as nobody: nothing left after --auto" nothing_left "sleep 30"

finish
