#!/bin/sh
# SPDX-License-Identifier: MIT
# deb.sh: the Debian package, built as a distribution would build it: from
# the release tarball (make dist), unpacked in a temporary directory, by
# dpkg-buildpackage -us -uc -b (debian/rules builds with the project's
# Makefile, PREFIX=/usr); then lintian on the result, which must report no
# error and no warning (the overrides, each with its reason, are in
# debian/pidns-tutor.lintian-overrides).
#
#   sh tests/dist/deb.sh OUT_DIR VERSION     (make deb)
#
# OUT_DIR gets the .deb, .buildinfo and .changes, and lintian.txt. Nothing is
# written beside the source tree. Needs dpkg-dev, debhelper, lintian and the
# Build-Depends of debian/control (dpkg-buildpackage names any missing).
set -u
[ $# -eq 2 ] || { echo "usage: deb.sh OUT_DIR VERSION" >&2; exit 2; }
out=$1 version=$2
MAKE=${MAKE:-make}
say() { echo "deb: $*"; }
die() { echo "deb: FAILED: $*" >&2; exit 1; }
for c in dpkg-buildpackage dh lintian; do
    command -v $c >/dev/null ||
        die "needs $c: apt-get install dpkg-dev debhelper lintian (and debian/control's Build-Depends)"
done
mkdir -p "$out" && out=$(realpath "$out") || die "cannot make $out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-deb.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
start=$(date +%s)
$MAKE --no-print-directory dist >/dev/null && tar -xzf "pidns-tutor-$version.tar.gz" -C "$tmp" ||
    die "make dist, or unpacking its tarball"
(cd "$tmp/pidns-tutor-$version" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 ||
    { tail -n 30 "$tmp/build.log"; die "dpkg-buildpackage -us -uc -b (log above)"; }
rm -f "$out"/pidns-tutor_* "$out"/pidns-tutor-dbgsym_*
for f in "$tmp"/pidns-tutor_* "$tmp"/pidns-tutor-dbgsym_*; do # no dbgsym with noautodbgsym
    [ ! -e "$f" ] || mv "$f" "$out/" || die "cannot move the results to $out"
done
say "built $(cd "$out" && ls pidns-tutor_*.deb) in $(($(date +%s) - start)) s"
changes=$(ls "$out"/pidns-tutor_*.changes)
lintian -I --fail-on error,warning "$changes" >"$out/lintian.txt" 2>&1
rc=$?
cat "$out/lintian.txt"
[ $rc -eq 0 ] || die "lintian reports errors or warnings (above; $out/lintian.txt)"
say "lintian: no error, no warning ($(wc -l <"$out/lintian.txt") lines of information and overrides above)"
say "$out: $(cd "$out" && ls | tr '\n' ' ')"
