#!/bin/sh
# SPDX-License-Identifier: MIT
# classroom_walls.sh: a class on one machine, two throwaway learner accounts
# (homes under the test's scratch directory), each pushing on the lab's walls
# at the same time as the other: `umount -l /tmp`, `mount -o remount,rw,bind`
# of /tmp and /etc, a file "written to /tmp", `umount -l /proc` (which would
# show the host's procfs). Every probe that could lift the read-only view
# must fail, and the host's /tmp must get no file. Then each learner's
# answers: after `edit` (EDITOR=true) and `reset-file -y`, ~/pidns-exercises
# is 0700 and the files 0600, and the classmate cannot read them. Nothing is
# left: accounts, homes, processes, mounts (a trap removes them on failure).
#
# Negative control: PIDNS_TUTOR_BUILD=/work/main/build (a tutor before the
# walls) fails the probe checks and the modes.
. tests/e2e/lib/common
. tests/e2e/lib/stage
if [ "$(id -u)" -ne 0 ]; then
    skip_all "needs root to create learner accounts"
fi
for tool in useradd userdel su; do
    if ! command -v $tool >/dev/null 2>&1; then
        skip_all "$tool is missing (needed for throwaway learner accounts)"
    fi
done
tag=$$
learners="pwall${tag}a pwall${tag}b"
made=""
cleanup() {
    for u in $made; do
        # Only the throwaway account's processes, by their PIDs.
        for pid in $(ps -o pid= -u "$u" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        userdel "$u" >/dev/null 2>&1
    done
    for u in $learners; do rm -f "/tmp/pidns-walls-probe.$u" "/etc/pidns-walls-probe.$u"; done
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

stage_tree "$scratch/tree" || { bad "staging a copy of the tree for the learners"; finish; }
tutor=$scratch/tree/build/pidns-tutor
mkdir -m 755 "$scratch/homes"
for u in $learners; do
    if ! useradd -M -d "$scratch/homes/$u" -s /bin/sh "$u" >/dev/null 2>&1; then
        bad "useradd $u"
        finish
    fi
    made="$made $u"
    mkdir -m 755 "$scratch/homes/$u" && chown "$u:" "$scratch/homes/$u"
done

# One learner's session: the probes, then edit and reset-file on lesson 1's
# coding exercise (resumed at it). Each probe prints "probe NAME STATUS".
session() { # $1 = account
    u=$1
    home=$scratch/homes/$u
    su "$u" -s /bin/sh -c "mkdir -p '$home/.local/state/pidns-tutor' && printf '# pidns-tutor progress, format 1\ncurrent 01-new-namespace\nlesson 01-new-namespace step 4 done 0 checked 0\n' >'$home/.local/state/pidns-tutor/progress'"
    su "$u" -s /bin/sh -c "cd '$home' && printf '%s\n' \
        'sh umount -l /tmp 2>/dev/null; echo probe umount-tmp \$?' \
        'sh mount -o remount,rw,bind /tmp 2>/dev/null; echo probe remount-tmp \$?' \
        'sh touch /tmp/pidns-walls-probe.$u 2>/dev/null; echo probe touch-tmp \$?' \
        'sh mount -o remount,rw,bind /etc 2>/dev/null; echo probe remount-etc \$?' \
        'sh touch /etc/pidns-walls-probe.$u 2>/dev/null; echo probe touch-etc \$?' \
        'sh umount -l /proc 2>/dev/null; echo probe umount-proc \$?' \
        'lesson 1' 'edit' 'reset-file -y' 'quit' |
        env -u XDG_STATE_HOME HOME='$home' EDITOR=true NO_COLOR=1 '$tutor' --lessons '$scratch/tree/lessons'" \
        >"$scratch/$u.out" 2>&1
    echo $? >"$scratch/$u.rc"
}
for u in $learners; do session "$u" & done
wait

probe() { # $1 = account, $2 = probe name: its exit status in the lab
    sed -n "s/^probe $2 \\([0-9]*\\)\$/\\1/p" "$scratch/$1.out"
}
other() { for v in $learners; do [ "$v" != "$1" ] && echo "$v"; done; }
for u in $learners; do
    home=$scratch/homes/$u
    ex=$home/pidns-exercises
    check "$u: the session ends well (status $(cat "$scratch/$u.rc"))" [ "$(cat "$scratch/$u.rc")" -eq 0 ]
    check "$u: umount -l /tmp fails in the lab (status $(probe "$u" umount-tmp))" \
        [ "$(probe "$u" umount-tmp)" -ne 0 ]
    check "$u: remount,rw of /etc fails in the lab (status $(probe "$u" remount-etc))" \
        [ "$(probe "$u" remount-etc)" -ne 0 ]
    check "$u: a file in /etc cannot be made (status $(probe "$u" touch-etc))" \
        [ "$(probe "$u" touch-etc)" -ne 0 ]
    check "$u: umount -l /proc fails: the host's procfs stays hidden (status $(probe "$u" umount-proc))" \
        [ "$(probe "$u" umount-proc)" -ne 0 ]
    check "$u: the file written to /tmp in the lab is not in the host's /tmp" \
        [ ! -e "/tmp/pidns-walls-probe.$u" ]
    check "$u: nor in the host's /etc" [ ! -e "/etc/pidns-walls-probe.$u" ]
    check "$u: the verdict" grep -q "no process, mount or /procN left by the lab" "$scratch/$u.out"
    check "$u: ~/pidns-exercises is 0700 (is $(stat -c %a "$ex" 2>&1))" [ "$(stat -c %a "$ex" 2>&1)" = 700 ]
    check "$u: the answer, and its .bak after reset-file, are 0600 ($(stat -c %a "$ex"/01-two-pids/two_pids.c* 2>&1 | tr '\n' ' '))" \
        sh -c "[ \"\$(stat -c %a '$ex/01-two-pids/two_pids.c' '$ex/01-two-pids/two_pids.c.bak' | sort -u)\" = 600 ]"
    check "$u: the classmate cannot read the answer" \
        sh -c "! su '$(other "$u")' -s /bin/sh -c \"cat '$ex/01-two-pids/two_pids.c'\" >/dev/null 2>&1"
    check "$u: no process left" sh -c "[ -z \"\$(ps -o pid= -u '$u')\" ]"
done
check "no /procN left on the host" nothing_left "pidns-tutor --lessons $scratch/tree"

# The accounts and homes go now (the trap does it on failure): check it.
cleanup_accounts_ok=1
for u in $made; do
    userdel "$u" >/dev/null 2>&1 || cleanup_accounts_ok=0
    rm -rf "$scratch/homes/$u"
    ! id "$u" >/dev/null 2>&1 && [ ! -e "$scratch/homes/$u" ] || cleanup_accounts_ok=0
done
made=""
check "the throwaway accounts and their homes are gone" [ $cleanup_accounts_ok -eq 1 ]
finish
