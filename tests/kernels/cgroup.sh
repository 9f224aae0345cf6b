#!/bin/sh
# SPDX-License-Identifier: MIT
# cgroup.sh: the bound per lab (shell/lab/lab_cgroup.c) on a real cgroup v2,
# in the check-kernels guest (Debian 12's kernel 6.1, TCG; this host has a
# cgroup v1 hybrid, with no delegated cgroup2 to try it on).
#
#   sh tests/kernels/cgroup.sh            (make check-cgroup; needs root)
#   CGROUP_TIMEOUT=1800                   the guest still running after this (s) is stopped
#   KERNELS_CACHE, FRESH_CACHE, KERNELS_PACKAGES, KERNELS_SMP, O: as for check-kernels.sh
#
# The guest's image is check-kernels' (the same key: built once, cached,
# never written; this script builds it the same way when it is missing). In
# the guest, with no systemd, the script does what systemd does for a user
# session: cgroup2 at /sys/fs/cgroup (init.sh mounts it; no v1 hierarchy is
# mounted, so every controller is v2's), +pids +memory for the root's
# children, and a delegated cgroup per learner (learner-USER, the directory
# and its cgroup.procs, cgroup.subtree_control and cgroup.threads owned by
# the learner, who enables +pids +memory below it and makes a leaf `shell`;
# root moves the learner's command into that leaf, as systemd places a
# session). Then:
#
#   1. --doctor: alice (delegated) is told the bound; carol (a cgroup owned
#      by root) and `learner` (the root cgroup) are told how the
#      administrator bounds learners.
#   2. alice runs a fork loop in her lab (1000 sleeps); bob runs --auto 1
#      meanwhile. bob passes; alice's lab cgroup never holds more than its
#      pids.max (512); the tutor names pids.max with its value; nothing is
#      left in either learner's cgroup once they quit.
#   3. The negative control: the same loop with PIDNS_TUTOR_LAB_CGROUP=0
#      takes more PIDs than the bound.
#
# Results on the console (`cgroup:` lines) and the logs in $O/cgroup/.
set -u
say() { echo "cgroup: $*"; }

# --- in the guest (init.sh runs this as root, in /srv/tree) ----------------
guest() {
    O=$1
    cg=/sys/fs/cgroup
    res=/srv/tree/.kernels/results
    tutor=/srv/tree/$O/pidns-tutor
    loop=/srv/tree/.kernels/forkloop
    fails=0
    mkdir -p "$res" && chmod 777 "$res"
    check() { # DESCRIPTION COMMAND...
        d=$1
        shift
        if "$@"; then say "ok   $d"; else say "FAIL $d"; fails=$((fails + 1)); fi
    }
    # The text of a log with its line wrapping undone.
    flat() { tr -s '\n ' '  ' <"$1"; }
    say "Linux $(uname -r); cgroup2 controllers: $(cat $cg/cgroup.controllers);" \
        "v1 hierarchies mounted: $(grep -c ' cgroup ' /proc/mounts); pid_max $(cat /proc/sys/kernel/pid_max)"
    echo "+pids +memory" >$cg/cgroup.subtree_control || say "FAIL cannot enable +pids +memory at the root"
    for u in alice bob carol; do
        id "$u" >/dev/null 2>&1 || useradd -m -s /bin/sh "$u" || say "FAIL useradd $u"
    done
    # Delegated the way systemd delegates user@UID.service.
    for u in alice bob; do
        d=$cg/learner-$u
        mkdir "$d" && chown "$u:" "$d" "$d/cgroup.procs" "$d/cgroup.subtree_control" "$d/cgroup.threads" &&
            runuser -u "$u" -- sh -c "echo '+pids +memory' >$d/cgroup.subtree_control && mkdir $d/shell" ||
            say "FAIL cannot delegate $d to $u"
    done
    # carol's cgroup is root's: not delegated.
    mkdir $cg/learner-carol && echo "+pids +memory" >$cg/learner-carol/cgroup.subtree_control &&
        mkdir $cg/learner-carol/shell || say "FAIL cannot make $cg/learner-carol"
    say "alice's cgroup: $(stat -c '%U %a' $cg/learner-alice), subtree_control" \
        "\"$(cat $cg/learner-alice/cgroup.subtree_control)\""
    # as USER COMMAND...: USER's command, in USER's leaf cgroup (learner: the root cgroup).
    as() {
        u=$1
        shift
        p=$cg/learner-$u/shell/cgroup.procs
        [ "$u" = learner ] && p=/dev/null
        sh -c 'echo $$ >"$0" && exec "$@"' "$p" runuser -u "$u" -- env HOME="/home/$u" \
            XDG_STATE_HOME="/home/$u/.local/state" NO_COLOR=1 LANG=C.UTF-8 COLUMNS=400 "$@"
    }
    printf '%s\n' '#!/bin/sh' '# N sleeps in the background, as many as fork gives.' 'n=0' \
        'while [ $n -lt "$1" ]; do' '    sleep 900 </dev/null >/dev/null 2>&1 &' '    n=$((n + 1))' \
        '    [ $((n % 250)) -eq 0 ] && echo "forkloop: $n started"' 'done' \
        'echo "forkloop: all $n started"' >$loop && chmod 755 $loop

    # 1. --doctor
    for u in alice carol learner; do
        as $u timeout -s KILL 600 "$tutor" --doctor </dev/null >"$res/doctor.$u.log" 2>&1
        grep -a 'bound per lab' "$res/doctor.$u.log" | sed 's/^/cgroup:   | /'
    done
    check "alice, delegated: --doctor says the lab bounds itself (pids.max 512, memory.max 1G)" \
        grep -q "^ok    a bound per lab: a cgroup under $cg/learner-alice with pids.max 512 and memory.max 1G" \
        "$res/doctor.alice.log"
    check "carol, a cgroup of root's: --doctor says it is not delegated and what the administrator sets" \
        sh -c "grep -q '^note  no bound per lab: $cg/learner-carol is not delegated to you (owner uid 0)' '$res/doctor.carol.log' &&
            grep -q 'systemctl set-property user-[0-9]*.slice TasksMax=512' '$res/doctor.carol.log' &&
            grep -q 'nproc 512. in /etc/security/limits.conf' '$res/doctor.carol.log'"
    check "learner, the root cgroup: --doctor says so and what the administrator sets" \
        sh -c "grep -q '^note  no bound per lab: this session runs in the root cgroup' '$res/doctor.learner.log' &&
            grep -q 'TasksMax=512' '$res/doctor.learner.log'"

    # 2. alice's fork loop, bob's lesson beside it.
    sample() { # FILE: the peak of alice's tasks, her lab's bounds, every second
        peak=0 labpeak=0
        while [ ! -f "$res/stop-sampler" ]; do
            n=$(cat $cg/learner-alice/pids.current 2>/dev/null || echo 0)
            [ "$n" -gt $peak ] && peak=$n
            for f in $cg/learner-alice/pidns-tutor-lab.*/pids.current; do
                [ -f "$f" ] || continue
                l=$(cat "$f") && [ "$l" -gt $labpeak ] && labpeak=$l &&
                    echo "${f%/*} $(cat "${f%/*}/pids.max") $(cat "${f%/*}/memory.max")" >"$1.lab"
            done
            echo "$peak $labpeak" >"$1"
            sleep 1
        done
    }
    rm -f "$res/stop-sampler" "$res/b.done"
    sample "$res/peak.bound" &
    sampler=$!
    t=$(date +%s)
    {
        printf 'sh %s 1000\n' "$loop"
        i=0
        while [ ! -f "$res/b.done" ] && [ $i -lt 1200 ]; do sleep 1; i=$((i + 1)); done
        printf 'quit\n'
    } | as alice timeout -s KILL 1500 "$tutor" --lessons lessons >"$res/a.log" 2>&1 &
    alice=$!
    i=0
    while [ $i -lt 600 ] && ! grep -q 'a limit was hit\|forkloop: all' "$res/a.log"; do sleep 2; i=$((i + 2)); done
    say "alice's loop: $(grep -a -c 'forkloop: .* started' "$res/a.log") progress lines, held after $(($(date +%s) - t)) s;" \
        "peak (alice's tasks, her lab's) $(cat "$res/peak.bound")"
    t=$(date +%s)
    as bob timeout -s KILL 1200 "$tutor" --auto 1 --lessons lessons </dev/null >"$res/b.log" 2>&1
    rc=$?
    say "bob's --auto 1: status $rc in $(($(date +%s) - t)) s; alice's peak then $(cat "$res/peak.bound")"
    touch "$res/b.done"
    wait $alice
    touch "$res/stop-sampler"
    wait $sampler
    rm -f "$res/stop-sampler"
    set -- $(cat "$res/peak.bound")
    say "alice's lab cgroup (dir pids.max memory.max): $(cat "$res/peak.bound.lab" 2>/dev/null)"
    flat "$res/a.log" | grep -o 'Cannot fork\|a limit was hit: .\{0,420\}' | sort -u | sed 's/^/cgroup:   | /'
    check "bob's lesson 1 passes beside alice's fork loop (status $rc)" \
        sh -c "[ $rc -eq 0 ] && tr -s '\n ' '  ' <'$res/b.log' | grep -q 'lesson 1 ([0-9a-z-]*): passed'"
    check "alice's loop hit a fork failure" grep -q 'Cannot fork' "$res/a.log"
    check "alice's lab never held more than its pids.max (peak $2 <= 512; all her tasks: $1)" \
        sh -c "[ $2 -gt 400 ] && [ $2 -le 512 ]"
    check "alice's lab had pids.max 512 and memory.max 1G" \
        grep -q "pidns-tutor-lab\.[0-9]* 512 1073741824$" "$res/peak.bound.lab"
    check "the tutor named the lab's pids.max and its value" \
        sh -c "tr -s '\n ' '  ' <'$res/a.log' | grep -q 'a limit was hit: this lab may hold 512 tasks at once (pids.max 512 of its own cgroup $cg/learner-alice/pidns-tutor-lab\.[0-9]*, the bound per lab; [0-9]* now)'"
    check "the tutor said no sudo" sh -c "! grep -qi sudo '$res/a.log'"
    i=0
    while [ $i -lt 30 ] && ls -d $cg/learner-*/pidns-tutor-lab.* >/dev/null 2>&1; do sleep 1; i=$((i + 1)); done
    check "no lab cgroup left in alice's or bob's cgroup once they quit" \
        sh -c "! ls -d $cg/learner-*/pidns-tutor-lab.* 2>/dev/null"
    check "nothing of alice's left running ($(cat $cg/learner-alice/pids.current) tasks)" \
        [ "$(cat $cg/learner-alice/pids.current)" -eq 0 ]

    # 3. The negative control: the bound turned off.
    sample "$res/peak.off" &
    sampler=$!
    printf 'sh %s 1000\nsh sleep 3\nquit\n' "$loop" |
        as alice env PIDNS_TUTOR_LAB_CGROUP=0 timeout -s KILL 900 "$tutor" --lessons lessons >"$res/off.log" 2>&1
    touch "$res/stop-sampler"
    wait $sampler
    set -- $(cat "$res/peak.off")
    say "without the bound: $(grep -a 'forkloop: all' "$res/off.log"); alice's peak $1 tasks"
    check "control: without the bound the same loop takes more than 512 PIDs (peak $1)" \
        sh -c "[ $1 -gt 600 ] && ! grep -q 'Cannot fork' '$res/off.log'"
    check "control: without the bound no lab cgroup was made (${2} in one)" [ "$2" -eq 0 ]
    say "verdict: $([ $fails -eq 0 ] && echo ok || echo "FAIL ($fails)")"
}

if [ "${1:-}" = --guest ]; then
    guest "$2"
    exit 0
fi

# --- on the host ------------------------------------------------------------
KERNELS_CACHE=${KERNELS_CACHE:-/var/cache/pidns-tutor-kernels}
FRESH_CACHE=${FRESH_CACHE:-/var/cache/pidns-tutor-fresh}
KERNELS_PACKAGES=${KERNELS_PACKAGES:-gcc make pkg-config libc6-dev libreadline-dev util-linux procps less libcmocka-dev}
CGROUP_TIMEOUT=${CGROUP_TIMEOUT:-1800}
O=${O:-build}
export KERNELS_PACKAGES
die() { echo "cgroup: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (qemu's disks, the image); try: sudo make check-cgroup"
src=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) && cd "$src" || die "not in a git checkout"
# qemu_disks, qemu_boot, qemu_stop
# shellcheck source=tests/kernels/qemu.sh
. tests/kernels/qemu.sh
[ -x "$O/pidns-tutor" ] || die "$O is not built (make all first)"
command -v qemu-system-x86_64 >/dev/null && command -v qemu-img >/dev/null &&
    command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null ||
    die "needs qemu-system-x86_64, qemu-img and e2fsprogs (make check-kernels installs qemu)"

# check-kernels' image: the same key, built the same way when missing.
key=$(cat tests/kernels/make-image.sh tests/kernels/init.sh | { cat; echo "$KERNELS_PACKAGES"; } |
    sha256sum | cut -c1-16)
img=$KERNELS_CACHE/bookworm-$key
mkdir -p "$KERNELS_CACHE" && exec 9>"$KERNELS_CACHE/lock" && flock 9 || die "cannot lock $KERNELS_CACHE/lock"
if [ ! -f "$img/done" ]; then
    say "building the guest's image in $img"
    FRESH_CACHE=$FRESH_CACHE sh tests/fresh/check-fresh.sh --base &&
        sh tests/kernels/make-image.sh "$FRESH_CACHE/bookworm-minbase" "$FRESH_CACHE/apt-archives" "$img" ||
        die "the guest's image was not built"
fi
exec 8>>"$img/in-use" && flock -s 8 || die "cannot lock $img/in-use"
exec 9>&-

scratch=$(mktemp -d "$KERNELS_CACHE/cgroup.XXXXXX") || die "cannot make a scratch directory"
stop() {
    qemu_stop
    rm -rf "$scratch"
}
trap stop EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP
results=$O/cgroup
rm -rf "$results" && mkdir -p "$results" || die "cannot make $results"

tree=$scratch/tree
mkdir -p "$tree/.kernels"
git ls-files -z -co --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf - | tar -xf - -C "$tree" || die "cannot copy the tree"
tar --exclude="$O/kernels*" --exclude="$O/cgroup" -cf - "$O" | tar -xf - -C "$tree" || die "cannot copy $O"
chmod -R a+rX "$tree"
printf '#!/bin/sh\ncd /srv/tree && exec sh tests/kernels/cgroup.sh --guest %s\n' "$O" >"$tree/.kernels/run" &&
    chmod 755 "$tree/.kernels/run"
qemu_disks "$tree" || die "cannot make the guest's disks"
log=$results/console
say "tree: $(git log --oneline -1 | cut -c1-60)$(git status --porcelain | grep -q . && echo ' (with changes)');" \
    "booting Debian 12's kernel, TCG (the console in $log)"
# Says why qemu_boot stops the guest (only at CGROUP_TIMEOUT: no start bound).
# shellcheck disable=SC2317 # qemu_boot calls it by name
guest_stopped() {
    say "still running after $CGROUP_TIMEOUT s, stopped"
}
qemu_boot "${KERNELS_SMP:-2}" "$log" cgroup: guest_stopped "$CGROUP_TIMEOUT"
debugfs -R "rdump /.kernels/results $results" "$scratch/tree.img" >/dev/null 2>&1
say "the guest took $(($(date +%s) - qemu_start)) s (logs in $results)"
tr -d '\r' <"$log" | grep -a -q '^cgroup: verdict: ok' && exit 0
say "FAILED"
exit 1
