#!/bin/sh
# SPDX-License-Identifier: MIT
# init.sh: PID 1 of the check-kernels guest (/sbin/kernels-init in its image).
# No systemd: it mounts what the tests need, mounts the second disk (the
# build tree and the plan, /dev/vdb) on /srv/tree, runs /srv/tree/.kernels/run
# with its output on the serial console, and powers the machine off, whatever
# happened. As PID 1 the shell reaps the orphans that come to it while it
# waits.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts -o mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -o remount,rw /
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=755 run /run
hostname kernels
mkdir -p /srv/tree
if mount -t ext4 /dev/vdb /srv/tree && [ -x /srv/tree/.kernels/run ]; then
    /srv/tree/.kernels/run </dev/null >/dev/console 2>&1
    echo "kernels-init: the run ended, exit $?" >/dev/console
else
    echo "kernels-init: no /dev/vdb with .kernels/run in it" >/dev/console
fi
sync
umount /srv/tree
mount -o remount,ro /
echo o >/proc/sysrq-trigger
sleep 10
