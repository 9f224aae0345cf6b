#!/bin/sh
# SPDX-License-Identifier: MIT
# check-fresh.sh: the README's two commands on a really fresh machine.
#
# A minimal Debian 12 root (debootstrap --variant=minbase with make and git,
# nothing else) is built once from Debian's package registry and kept in
# $FRESH_CACHE. Each run then works in a private mount and PID namespace: an
# overlay of that root (its changes on a tmpfs, so neither the cached root nor
# the host's root is written) is pivoted in, this checkout's HEAD is cloned to
# /root/main (mode 700, as a newcomer's would be) and, as root and with no
# terminal, the README's commands run one after the other:
#
#   make run     with `quit` typed: the tutorial starts and leaves no process, mount or /procN
#   make check   every test passes, none skipped
#
# Each step is reported with its time; the exit status says whether all passed.
# The namespace ends with the script: whatever happens, its mounts and
# processes go with it.
#
#   sh tests/fresh/check-fresh.sh          (make check-fresh; needs root)
#   FRESH_STEPS=make-run                   make run only, a quick look
#   FRESH_STEPS=deb FRESH_DEB=X.deb        the package instead (make check-deb):
#                                          tests/fresh/check-deb.sh in the root
#   FRESH_CACHE=/var/cache/pidns-tutor-fresh   the cached root; remove it to rebuild
#   sh tests/fresh/check-fresh.sh --base   only build the cached root (tests/kernels uses it)
set -u
FRESH_CACHE=${FRESH_CACHE:-/var/cache/pidns-tutor-fresh}
FRESH_STEPS=${FRESH_STEPS:-make-run make-check}
SUITE=bookworm
base=$FRESH_CACHE/$SUITE-minbase
archives=$FRESH_CACHE/apt-archives

say() { echo "check-fresh: $*"; }
die() { echo "check-fresh: $*" >&2; exit 1; }

# --- inside the new root (after pivot_root), as PID 1's child ---------------
# Runs one step, reports it; returns its verdict: passed when it exits 0, its
# output has a line matching $3 and none matching $4 (extended regexps).
step() { # $1 = name, $2 = shell command line, $3 = wanted, $4 = unwanted
    say "--- $1 (in /root/main)"
    start=$(date +%s)
    out=$(mktemp)
    # Shown as it comes (CI's log), and kept to look for the verdict.
    { (cd /root/main && eval "$2") 2>&1; echo $? >"$out.rc"; } | tee "$out"
    rc=$(cat "$out.rc" 2>/dev/null) || rc=1
    secs=$(($(date +%s) - start))
    if [ "$rc" -eq 0 ] && grep -Eq -- "$3" "$out" && ! grep -Eq -- "$4" "$out"; then
        say "$1: passed in ${secs} s"
        verdict=0
    else
        say "$1: FAILED in ${secs} s (exit $rc; wanted a line /$3/ and none /$4/)"
        grep -E -- "$4" "$out" | head -n 20
        verdict=1
    fi
    rm -f "$out" "$out.rc"
    return $verdict
}

inside() {
    export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    git -c advice.detachedHead=false clone -q /tmp/pidns-tutor.bundle /root/main ||
        die "git clone failed"
    rm -f /tmp/pidns-tutor.bundle
    say "cloned $(git -C /root/main log --oneline -1) into /root/main ($(stat -c %a /root))"
    failed=""
    for s in $FRESH_STEPS; do
        case $s in
        make-run) step "make run, typing quit" "echo quit | make run" "^no process, mount or /procN left" \
            "^pidns-tutor: |^make: \*\*\*" ;;
        # Every test runs: no skip, whatever the runner (cmocka, TAP, a script).
        make-check) step "make check" "make check </dev/null" \
            "^tests: [0-9]+ passed, 0 failed, 0 skipped" \
            "^tests: .*[1-9][0-9]* (failed|skipped)|^skip|^SKIP|SKIPPED|^FAIL|^not ok" ;;
        deb) step "the package: install, --auto all as root and as a learner, export, purge" \
            "sh /tmp/check-deb.sh /tmp/$FRESH_DEB_NAME" "^check-deb: all passed" "^check-deb: FAILED" ;;
        esac || failed="$failed $s"
    done
    [ -z "$failed" ] && say "all passed: $FRESH_STEPS" && exit 0
    say "failed:$failed"
    exit 1
}

# --- in the private namespaces, before the pivot ------------------------------
# $1 = scratch directory (a tmpfs is mounted on it), $2 = the bundle of HEAD.
enter() {
    scratch=$1
    mount --make-rprivate / &&
        mount -t tmpfs -o mode=755 fresh "$scratch" &&
        mkdir "$scratch/upper" "$scratch/work" "$scratch/root" &&
        mount -t overlay overlay \
            -o "lowerdir=$base,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root" ||
        die "cannot mount the overlay of $base"
    r=$scratch/root
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" &&
        mount -t tmpfs -o mode=1777 tmp "$r/tmp" && mount -t tmpfs -o mode=755 run "$r/run" &&
        mount --bind "$archives" "$r/var/cache/apt/archives" ||
        die "cannot mount /proc, /dev, /sys, /tmp, /run or the package cache in the new root"
    # The network and the package mirrors are the host's: its resolver and,
    # when it is the same release, its apt sources and fetch settings.
    cp -L /etc/resolv.conf "$r/etc/resolv.conf"
    if [ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = $SUITE ]; then
        rm -f "$r/etc/apt/sources.list"
        cp /etc/apt/sources.list "$r/etc/apt/" 2>/dev/null
        for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && cp "$f" "$r/etc/apt/sources.list.d/"
        done
        for f in /etc/apt/apt.conf.d/*; do
            [ -f "$f" ] && grep -q '^[[:space:]]*Acquire' "$f" && cp "$f" "$r/etc/apt/apt.conf.d/"
        done
    fi
    cp "$2" "$r/tmp/pidns-tutor.bundle" && cp "$0" "$r/tmp/check-fresh.sh" ||
        die "cannot copy the clone's bundle and this script into the new root"
    if [ -n "${FRESH_DEB:-}" ]; then
        cp "$FRESH_DEB" "$r/tmp/" && cp "$(dirname "$0")/check-deb.sh" "$r/tmp/check-deb.sh" ||
            die "cannot copy $FRESH_DEB and check-deb.sh into the new root"
    fi
    # The host's root is detached: nothing below can reach it.
    cd "$r" && mkdir .oldroot && pivot_root . .oldroot && cd / && umount -l /.oldroot &&
        rmdir /.oldroot || die "cannot pivot into the new root and detach the host's"
    # No terminal, a clean environment: as CI runs it. This shell stays PID 1
    # of the namespace and reaps the orphans that come to it while it waits.
    /usr/bin/env -i FRESH_STEPS="$FRESH_STEPS" FRESH_DEB_NAME="$(basename "${FRESH_DEB:-none}")" \
        CHECK_DEB_PLANT="${CHECK_DEB_PLANT:-}" \
        setsid -w /bin/sh /tmp/check-fresh.sh --inside </dev/null
    exit $?
}

case ${1:-} in
--inside) inside ;;
--enter) enter "$2" "$3" ;;
esac

# --- on the host --------------------------------------------------------------
for s in $FRESH_STEPS; do
    case $s in make-run | make-check) ;;
    deb) [ -f "${FRESH_DEB:-}" ] || die "step deb: FRESH_DEB='${FRESH_DEB:-}' is no file (make check-deb builds it)" ;;
    *) die "unknown step '$s' in FRESH_STEPS (make-run make-check deb)" ;;
    esac
done
[ -z "${FRESH_DEB:-}" ] || FRESH_DEB=$(realpath "$FRESH_DEB")
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mounts, pivot_root); try: sudo make check-fresh"
command -v git >/dev/null || die "needs git"
here=$(cd "$(dirname "$0")" && pwd)
src=$(git -C "$here" rev-parse --show-toplevel) || die "not in a git checkout"
mkdir -p "$FRESH_CACHE" "$archives/partial" || die "cannot create $FRESH_CACHE"

# One run at a time builds the cached root; the others wait for it.
exec 9>"$FRESH_CACHE/lock" && flock 9 || die "cannot lock $FRESH_CACHE/lock"
if [ ! -f "$base.done" ]; then
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; } \
            </dev/null >/dev/null || die "cannot install debootstrap (apt-get install debootstrap)"
    fi
    # The host's mirror for this release when it has one, else Debian's.
    mirror=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Identifier: Packages' \
        2>/dev/null | awk -v s=$SUITE '$1 == s { print $2; exit }')
    mirror=${mirror:-http://deb.debian.org/debian/}
    say "debootstrap --variant=minbase --include=make,git $SUITE from $mirror"
    start=$(date +%s)
    rm -rf "$base" "$base.tmp"
    debootstrap --variant=minbase --include=make,git $SUITE "$base.tmp" "$mirror" \
        >"$FRESH_CACHE/debootstrap.log" 2>&1 ||
        { tail -n 20 "$FRESH_CACHE/debootstrap.log"; rm -rf "$base.tmp"; die "debootstrap failed"; }
    rm -f "$base.tmp/var/cache/apt/archives/"*.deb
    mv "$base.tmp" "$base" && touch "$base.done" || die "cannot keep $base"
    say "debootstrap took $(($(date +%s) - start)) s; cached in $base"
fi
exec 9>&-
[ "${1:-}" = --base ] && exit 0

scratch=$(mktemp -d "$FRESH_CACHE/run.XXXXXX") || die "cannot make a scratch directory"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/ns" && git -C "$src" bundle create -q "$scratch/head.bundle" HEAD ||
    die "git bundle failed"
say "HEAD $(git -C "$src" log --oneline -1 | cut -c1-60); steps: $FRESH_STEPS"
start=$(date +%s)
unshare --mount --pid --fork --kill-child /bin/sh "$0" --enter "$scratch/ns" "$scratch/head.bundle"
rc=$?
say "finished in $(($(date +%s) - start)) s, exit $rc"
exit $rc
