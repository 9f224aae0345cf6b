#!/bin/sh
# SPDX-License-Identifier: MIT
# make-image.sh: the root image of the check-kernels guest, built once and
# cached (tests/kernels/check-kernels.sh calls it; needs root).
#
#   sh tests/kernels/make-image.sh BASE ARCHIVES OUT
#
# On top of BASE (check-fresh's cached minimal Debian 12 root, never
# written: an overlay), in a private mount and PID namespace: Debian 12's
# stock kernel (linux-image-amd64) and $KERNELS_PACKAGES from the package
# registry, an initramfs holding only the modules to find the root disk
# (MODULES=list: virtio_pci, virtio_blk, ext4 and its crc32c), an ordinary
# user `learner`, and tests/kernels/init.sh as /sbin/kernels-init. OUT gets
# vmlinuz, initrd.img and root.img (ext4, made straight from the directory
# with mkfs.ext4 -d: no loop device, nothing mounted on the host), and
# `done` last. The namespace ends with the script, its mounts with it.
set -u
say() { echo "check-kernels: $*"; }
die() { echo "check-kernels: $*" >&2; exit 1; }
MODULES="virtio_pci virtio_blk ext4 crc32c_generic"

# --- in the private namespaces ----------------------------------------------
# $1 = BASE, $2 = ARCHIVES, $3 = OUT, $4 = work directory (on disk)
inside() {
    base=$1 archives=$2 out=$3 work=$4
    here=$(cd "$(dirname "$0")" && pwd)
    mount --make-rprivate / || die "cannot make the mounts private"
    mkdir -p "$work/upper" "$work/work" "$work/root" &&
        mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" \
            "$work/root" || die "cannot mount the overlay of $base"
    r=$work/root
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" &&
        mount -t tmpfs -o mode=1777 tmp "$r/tmp" &&
        mount --bind "$archives" "$r/var/cache/apt/archives" ||
        die "cannot mount /proc, /dev, /sys, /tmp or the package cache in the new root"
    cp -L /etc/resolv.conf "$r/etc/resolv.conf"
    # The host's apt sources when it is bookworm too (its mirror, its proxy).
    if [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = bookworm ]; then
        rm -f "$r/etc/apt/sources.list"
        cp /etc/apt/sources.list "$r/etc/apt/" 2>/dev/null
        for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && cp "$f" "$r/etc/apt/sources.list.d/"
        done
        for f in /etc/apt/apt.conf.d/*; do
            [ -f "$f" ] && grep -q '^[[:space:]]*Acquire' "$f" && cp "$f" "$r/etc/apt/apt.conf.d/"
        done
    fi
    in_root() { chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive HOME=/root "$@"; }
    say "installing linux-image-amd64 initramfs-tools $KERNELS_PACKAGES"
    in_root apt-get update -qq >"$work/apt.log" 2>&1 &&
        in_root apt-get install -y -qq --no-install-recommends linux-image-amd64 initramfs-tools \
            $KERNELS_PACKAGES >>"$work/apt.log" 2>&1 ||
        { tail -n 20 "$work/apt.log"; die "apt-get install failed in the image's root"; }
    printf '%s\n' $MODULES >"$r/etc/initramfs-tools/modules" &&
        echo MODULES=list >"$r/etc/initramfs-tools/conf.d/check-kernels" &&
        in_root update-initramfs -u -k all >>"$work/apt.log" 2>&1 ||
        { tail -n 20 "$work/apt.log"; die "update-initramfs failed"; }
    in_root useradd -m -s /bin/sh learner || die "useradd learner failed"
    cp "$here/init.sh" "$r/sbin/kernels-init" && chmod 755 "$r/sbin/kernels-init" &&
        cp -L "$r/vmlinuz" "$out/vmlinuz" && cp -L "$r/initrd.img" "$out/initrd.img" ||
        die "cannot copy the init in, or the kernel and initramfs out"
    rm -f "$r/var/cache/apt/archives/"*.deb 2>/dev/null
    umount -R "$r/proc" "$r/dev" "$r/sys" "$r/tmp" "$r/var/cache/apt/archives" ||
        die "cannot unmount the new root's /proc, /dev, /sys, /tmp"
    rm -f "$r/etc/resolv.conf"
    # Room for the tests: 2 GiB over what the root holds (a sparse file).
    mb=$(($(du -sxm "$r" | cut -f1) + 2048))
    mkfs.ext4 -q -F -L kernels-root -d "$r" "$out/root.img" "${mb}M" >/dev/null ||
        die "mkfs.ext4 -d failed"
    say "image: $(ls "$r"/lib/modules) in $out/root.img (${mb} MiB, $(du -sm "$out/root.img" | cut -f1) MiB used)"
    exit 0
}

[ "${1:-}" = --inside ] && { shift; inside "$@"; }

# --- on the host ----------------------------------------------------------
[ $# -eq 3 ] || die "usage: make-image.sh BASE ARCHIVES OUT"
[ -d "$1" ] && [ -d "$2" ] || die "no base root $1 or package cache $2"
mkdir -p "$3" && rm -f "$3/done" || die "cannot create $3"
work=$(mktemp -d "$3.build.XXXXXX") || die "cannot make a work directory"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
start=$(date +%s)
unshare --mount --pid --fork --kill-child /bin/sh "$0" --inside "$1" "$2" "$3" "$work" &&
    touch "$3/done" || die "the image was not built (in $(($(date +%s) - start)) s)"
say "the image took $(($(date +%s) - start)) s"
