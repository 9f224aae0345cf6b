# SPDX-License-Identifier: MIT
# qemu.sh: one boot of the check-kernels guest in qemu, sourced by
# check-kernels.sh and cgroup.sh: the one place of the qemu command line, of
# the bounded wait on the guest with its progress lines, and of stopping qemu.
#
# The caller sets img (the guest's image: vmlinuz, initrd.img, root.img) and
# scratch (a directory of its own), then:
#
#   qemu_disks TREE     makes the boot's two disks in $scratch: TREE as an
#                       ext4 image with 1 GiB to spare (tree.img, the guest's
#                       /srv/tree) and a qcow2 overlay of the root
#                       (root.qcow2: the image itself is never written)
#   qemu_boot SMP LOG PREFIX ON_STOP BOUND [START_BOUND START_LINE]
#                       boots the guest (TCG: -accel tcg -cpu max, as a KVM
#                       guest hangs at boot on these machines; -smp SMP,
#                       3 GiB, the serial console in LOG) and waits for it,
#                       printing each console line that starts with PREFIX as
#                       it comes. A guest still running after BOUND seconds,
#                       or after START_BOUND with no line starting with
#                       START_LINE yet, is stopped: first `ON_STOP bound` or
#                       `ON_STOP start` says why. Sets qemu_start (when it
#                       booted, date +%s) and qemu_secs (how long it ran).
#   qemu_stop           stops qemu if it still runs: the caller's EXIT trap
#                       calls it, so that no exit leaves a guest behind
# shellcheck shell=sh disable=SC2154 # img and scratch are the caller's
qemu_pid=
qemu_start=0
# shellcheck disable=SC2034 # read by the caller
qemu_secs=0

qemu_disks() { # $1 = the tree
    qemu_mb=$(($(du -sm "$1" | cut -f1) + 1024))
    mkfs.ext4 -q -F -L kernels-tree -d "$1" "$scratch/tree.img" "${qemu_mb}M" >/dev/null &&
        qemu-img create -q -f qcow2 -b "$img/root.img" -F raw "$scratch/root.qcow2"
}

qemu_stop() {
    [ -n "$qemu_pid" ] && kill -KILL "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
    qemu_pid=
}

# The console lines of $qemu_log from line $1 + 1 to $2 ($ for the end) that
# start with $qemu_prefix.
qemu_progress() {
    sed -n "$(($1 + 1)),$2p" "$qemu_log" | tr -d '\r' | grep -a "^$qemu_prefix"
}

# Why the guest is to be stopped now (bound, start), or nothing.
qemu_overdue() {
    qemu_elapsed=$(($(date +%s) - qemu_start))
    if [ "$qemu_elapsed" -gt "$qemu_bound" ]; then
        echo bound
    elif [ -n "$qemu_start_bound" ] && [ "$qemu_elapsed" -gt "$qemu_start_bound" ] &&
        ! grep -aq "^$qemu_start_line" "$qemu_log"; then
        echo start
    fi
}

qemu_boot() { # SMP LOG PREFIX ON_STOP BOUND [START_BOUND START_LINE]
    qemu_log=$2 qemu_prefix=$3 qemu_on_stop=$4 qemu_bound=$5
    qemu_start_bound=${6:-} qemu_start_line=${7:-}
    qemu_start=$(date +%s)
    qemu-system-x86_64 -accel tcg -cpu max -smp "$1" -m 3072 -nodefaults -no-reboot \
        -display none -monitor none -serial "file:$qemu_log" -net none \
        -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
        -append "root=/dev/vda rw console=ttyS0 init=/sbin/kernels-init panic=1 quiet" \
        -drive "file=$scratch/root.qcow2,if=virtio,format=qcow2" \
        -drive "file=$scratch/tree.img,if=virtio,format=raw" </dev/null &
    qemu_pid=$!
    qemu_shown=0
    while kill -0 "$qemu_pid" 2>/dev/null; do
        sleep 5
        # The guest's progress, as it comes.
        qemu_lines=$(grep -c '' "$qemu_log" 2>/dev/null) || qemu_lines=0
        [ "$qemu_lines" -gt "$qemu_shown" ] && qemu_progress "$qemu_shown" "$qemu_lines" && :
        qemu_shown=$qemu_lines
        qemu_why=$(qemu_overdue)
        if [ -n "$qemu_why" ]; then
            "$qemu_on_stop" "$qemu_why"
            kill -KILL "$qemu_pid"
            break
        fi
    done
    wait "$qemu_pid"
    qemu_pid=
    # shellcheck disable=SC2034 # read by the caller
    qemu_secs=$(($(date +%s) - qemu_start))
    qemu_progress "$qemu_shown" '$' || :
}
