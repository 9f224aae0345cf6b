#!/bin/sh
# SPDX-License-Identifier: MIT
# Background jobs as a shell user expects them: `sh CMD &` (and `run PROG &`)
# keeps CMD running as a job of the lab, listed by `status`, its output
# shown, stopped by `cleanup` and by quit; `sh a & b` runs a as a job and b
# in the foreground; Ctrl-C stops the foreground command only; a command
# typed at the prompt that still runs after 3 s says once how to stop it.
# What the tutor says is checked against what the kernel shows: the
# processes (found by the run's PIDNS_TUTOR_TEST_RUN marker), their PID
# namespace and the lab's mount table, read from outside the lab.
. tests/e2e/lib/common
plan 16

# observe WHAT ARG: run by the pty scripts (`shell` action) while the tutor
# runs; exits 0 when the kernel agrees.
#   job PATTERN       a process of ours whose "(comm): command line" matches
#                     PATTERN runs in a PID namespace below ours (NSpid has
#                     two PIDs: ours and the lab's)
#   gone PATTERN      no process of ours matches PATTERN
#   mounted /procN    the lab's keeper has a procfs at /procN, the host not
#   unmounted /procN  neither has
cat >"$scratch/observe" <<EOF
#!/bin/sh
# (leftovers runs alone: a grep beside it would list itself)
pids() { list=\$("$LEFTOVERS" "PIDNS_TUTOR_TEST_RUN=$PIDNS_TUTOR_TEST_RUN"); printf '%s\n' "\$list" | grep -E -- "\$1" | sed -n 's/^process \([0-9]*\) .*/\1/p'; }
keeper_has() { pid=\$(pids '^process [0-9]+ \(lab-init\)' | head -n 1); [ -n "\$pid" ] && grep -q " \$1 " /proc/\$pid/mountinfo; }
case \$1 in
job)
    pid=\$(pids "\$2" | head -n 1)
    [ -n "\$pid" ] || { echo "observe: no process matches \$2"; exit 1; }
    nspid=\$(sed -n 's/^NSpid:[[:space:]]*//p' /proc/\$pid/status)
    [ "\$(echo \$nspid | wc -w)" -eq 2 ] || { echo "observe: \$pid has NSpid '\$nspid', not in the lab"; exit 1; }
    [ "\$(readlink /proc/\$pid/ns/pid)" != "\$(readlink /proc/self/ns/pid)" ] ;;
gone)
    [ -z "\$(pids "\$2")" ] || { echo "observe: still running: \$(pids "\$2")"; exit 1; } ;;
mounted)
    keeper_has "\$2" && ! grep -q " \$2 " /proc/self/mountinfo ;;
unmounted)
    ! keeper_has "\$2" && ! grep -q " \$2 " /proc/self/mountinfo ;;
esac
EOF
chmod 755 "$scratch/observe"
OBSERVE=$scratch/observe

drive background <<X
expect pidns-tutor> 
send sh pidns_init_sleep /proc7 &\r
expect # pidns_init_sleep /proc7 &
expect Mounting procfs at /proc7
expect background as job 1
expect pidns-tutor> 
shell $OBSERVE job '\(pidns_init_slee\): pidns_init_sleep /proc7'
shell $OBSERVE mounted /proc7
send status\r
expect [1]  running
expect pidns_init_sleep /proc7
expect procfs mounted at /proc7
expect pidns-tutor> 
send sh (sleep 1; echo later-4271; sleep 4271) &\r
expect background as job 2
expect pidns-tutor> 
expect later-4271
send cleanup\r
expect Cleaned up: stopped
expect pidns-tutor> 
shell $OBSERVE gone 'pidns_init_sleep /proc7|sleep 4271'
shell $OBSERVE unmounted /proc7
send status\r
expect Nothing runs in the background.
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "sh CMD &: a job of the lab (status, its output, cleanup), as the kernel shows it" [ $? -eq 0 ]
check "sh CMD &: quit leaves nothing" nothing_left "pidns_init_sleep /proc7|sleep 4271"

drive ctrl_c <<X
expect pidns-tutor> 
send sh sleep 4272 & sleep 4273\r
expect # sleep 4272 &
expect background as job 1
expect # sleep 4273
sleep 800
shell $OBSERVE job '\(sleep\): sleep 4273'
send \x03
expect (stopped by Ctrl-C)
expect pidns-tutor> 
shell $OBSERVE gone 'sleep 4273'
shell $OBSERVE job '\(sleep\): sleep 4272'
send run pidns_init_sleep /proc8 &\r
expect background as job 2
expect pidns-tutor> 
absent (stopped by Ctrl-C)
send status\r
expect [1]  running
expect sleep 4272
expect [2]  running
expect pidns_init_sleep /proc8
expect pidns-tutor> 
send \x04
expect no process, mount or /procN left by the lab
exit 0
X
check "sh a & b: a is a job, b in the foreground; Ctrl-C stops b only; run PROG & too" [ $? -eq 0 ]
check "Ctrl-D after jobs leaves nothing" nothing_left "sleep 427[23]|pidns_init_sleep /proc8"

drive still_running <<'X'
expect pidns-tutor> 
send sh sleep 1; echo short-done\r
expect short-done
expect pidns-tutor> 
absent still running
send sh for i in 1 2 3 4 5 6 7; do echo tick-$i; sleep 1; done\r
expect tick-7
expect pidns-tutor> 
send sh printf part-; sleep 4; echo end; sleep 1\r
expect part-end
expect still running
expect pidns-tutor> 
send quit\r
expect no process, mount or /procN left by the lab
exit 0
X
check "the still-running note: a 7 s command gets it (once), a 1 s one not" [ $? -eq 0 ]
tr -d '\r' <"$scratch/still_running.out" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' >"$scratch/still_running.txt"
check "the note comes once per command, on a line of its own" \
    [ "$(grep -c '^  (still running: Ctrl-C stops it' "$scratch/still_running.txt")" -eq 2 ]
check "the note does not cut the ticks" \
    [ "$(grep -cxE 'tick-[1-7]' "$scratch/still_running.txt")" -eq 7 ]
check "a half-written line is finished before the note" \
    sh -c "grep -x -A1 'part-end' '$scratch/still_running.txt' | grep -q '^  (still running'"

printf 'sh sleep 3.5\nsh sleep 4274 &\nstatus\nquit\n' | "$TUTOR" >"$scratch/batch.out" 2>&1
check "batch: no still-running note" sh -c "! grep -q 'still running' '$scratch/batch.out'"
check "batch: sh CMD & is a job" grep -qE '^\[1\] +running .* sleep 4274$' "$scratch/batch.out"
check "batch: nothing left" nothing_left "sleep 427[4]"

if [ "$(id -u)" -eq 0 ]; then
    . tests/e2e/lib/stage
    stage_tree "$scratch/tree" || bad "staging a copy of the tree for nobody"
    chmod 777 "$scratch"
    su nobody -s /bin/sh -c "cd '$scratch' && printf 'sh pidns_init_sleep /proc9 &\nstatus\nsh sleep 0.2\nstatus\ncleanup -v\nquit\n' | env -u XDG_STATE_HOME HOME=/nonexistent NO_COLOR=1 '$scratch/tree/build/pidns-tutor'" >"$scratch/nobody.out" 2>&1
    check "as nobody: sh CMD & is a job" grep -qE '^\[1\] +running .* pidns_init_sleep /proc9$' "$scratch/nobody.out"
    check "as nobody: it outlives the next command" [ "$(grep -cE '^\[1\] +running' "$scratch/nobody.out")" -eq 2 ]
    check "as nobody: cleanup stops it" grep -q '^stopped job \[1\] pidns_init_sleep /proc9' "$scratch/nobody.out"
    check "as nobody: no process, mount or /procN left" grep -q "no process, mount or /procN left by the lab" "$scratch/nobody.out"
    check "as nobody: nothing left" nothing_left "pidns_init_sleep /proc9"
else
    for what in "sh CMD & is a job" "it outlives the next command" "cleanup stops it" \
        "no process, mount or /procN left" "nothing left"; do
        skip "as nobody: $what" "needs root to become nobody"
    done
fi

finish
