#!/bin/sh
# SPDX-License-Identifier: MIT
# classroom_private.sh: answers an older tutor left readable by everyone
# (before 686d4e8) are made the learner's alone when the tutor starts. A throwaway
# account whose ~/pidns-exercises and state directory are 0755 with 0644
# files, as a tutor before the fix made them, starts the tutor: they become
# 0700 and 0600 (an executable 0700), the tutor says so in one line, and says
# nothing the next time. What is not the learner's is left as it was: a file
# owned by root in the directory, and a file outside it that a symbolic link
# in it points to. Nothing is left: the account and its home go (a trap
# removes them on failure).
#
# Negative control: PIDNS_TUTOR_BUILD=/work/main/build (a tutor before this
# change) leaves the modes as they were and says nothing.
. tests/e2e/lib/common
. tests/e2e/lib/stage
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root to create a learner account"
    exit 0
fi
for tool in useradd userdel su; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool is missing (needed for a throwaway learner account)"
        exit 0
    fi
done
u=ppriv$$
made=""
cleanup() {
    for pid in $(ps -o pid= -u "$u" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    [ -n "$made" ] && userdel "$u" >/dev/null 2>&1
    rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

stage_tree "$scratch/tree" || { bad "staging a copy of the tree"; finish; }
tutor=$scratch/tree/build/pidns-tutor
home=$scratch/home
mkdir -m 755 "$home"
useradd -M -d "$home" -s /bin/sh "$u" >/dev/null 2>&1 || { bad "useradd $u"; finish; }
made=$u
chown "$u:" "$home"
ex=$home/pidns-exercises
state=$home/.local/state/pidns-tutor
# As the older tutor left them (umask 022), made by the learner.
su "$u" -s /bin/sh -c "umask 022 && mkdir -p '$ex/01-two-pids' '$state' &&
    echo 'int main(void) { return 0; }' >'$ex/01-two-pids/two_pids.c' &&
    cp '$ex/01-two-pids/two_pids.c' '$ex/01-two-pids/two_pids.c.bak' &&
    cp /bin/true '$ex/01-two-pids/two_pids' && chmod 755 '$ex/01-two-pids/two_pids' &&
    printf '# pidns-tutor progress, format 1\n' >'$state/progress'" ||
    { bad "making the older tutor's files"; finish; }
echo notes >"$ex/root-notes" && chmod 644 "$ex/root-notes" # root's, not the learner's
echo outside >"$scratch/outside" && chmod 644 "$scratch/outside"
ln -s "$scratch/outside" "$ex/01-two-pids/link"
chown -h "$u:" "$ex/01-two-pids/link"

start() { # $1 = transcript
    su "$u" -s /bin/sh -c "cd '$home' && printf 'quit\n' |
        env -u XDG_STATE_HOME HOME='$home' NO_COLOR=1 COLUMNS=300 '$tutor' --lessons '$scratch/tree/lessons'" \
        >"$1" 2>&1
}
start "$scratch/first.out"
modes() { stat -c '%a %n' "$@" | sed "s|$home/||" | tr '\n' ' '; }
said=$(grep -c "(made $ex and $state yours alone: 3 directories and 4 files that others on this machine could read are now 0700 and 0600)" "$scratch/first.out")
check "the tutor says once what it made private ($(grep '(made ' "$scratch/first.out" | head -n 1))" [ "$said" -eq 1 ]
check "the directories are 0700 ($(modes "$ex" "$ex/01-two-pids" "$state"))" \
    sh -c "[ \"\$(stat -c %a '$ex' '$ex/01-two-pids' '$state' | sort -u)\" = 700 ]"
check "the answers and the progress are 0600 ($(modes "$ex/01-two-pids/two_pids.c" "$ex/01-two-pids/two_pids.c.bak" "$state/progress"))" \
    sh -c "[ \"\$(stat -c %a '$ex/01-two-pids/two_pids.c' '$ex/01-two-pids/two_pids.c.bak' '$state/progress' | sort -u)\" = 600 ]"
check "the built program is 0700 ($(modes "$ex/01-two-pids/two_pids"))" [ "$(stat -c %a "$ex/01-two-pids/two_pids")" = 700 ]
check "root's file in the directory is left 0644 ($(modes "$ex/root-notes"))" [ "$(stat -c %a "$ex/root-notes")" = 644 ]
check "the file a link points to is left 0644 ($(stat -c %a "$scratch/outside"))" [ "$(stat -c %a "$scratch/outside")" = 644 ]
start "$scratch/second.out"
check "the next start says nothing" sh -c "! grep -q '(made ' '$scratch/second.out'"
check "no process of the account left" sh -c "[ -z \"\$(ps -o pid= -u '$u')\" ]"
userdel "$u" >/dev/null 2>&1
made=""
check "the throwaway account is gone" sh -c "! id '$u' >/dev/null 2>&1"
finish
