#!/bin/sh
# SPDX-License-Identifier: MIT
# distcheck.sh: the release tarball builds, passes its tests and installs
# cleanly where there is no git (make distcheck).
#
#   sh tests/dist/distcheck.sh TARBALL NAME
#   DISTCHECK_PLANT=leftover   negative control: a file planted in the staging
#                              prefix after uninstall must fail the check
#   DISTCHECK_PLANT=srcwrite   negative control: a file written into the
#                              unpacked sources must fail the check
#                              (either control skips step 3, the tests: it
#                              checks the check, not the tests)
#
# In a temporary directory (no .git in it or above it):
#   1. the tarball is unpacked, and its listing kept (names, sizes, times);
#   2. built with O=<tree>/build-distcheck (examples, tutor, tests), not in
#      the default build/; nothing may be written beside it (step 5). O= is
#      inside the unpacked tree because the tutor of a build tree finds its
#      lessons in the source tree above its binary (shell_find_dirs); a
#      tutor built with O= elsewhere looks in the installed DATADIR instead;
#   3. the quick tests: `make check-quick` when the Makefile has it, else the
#      unit and lesson runners (tests/run-tests.sh unit lesson), one lesson
#      unattended (pidns-tutor --auto 1) and the SPDX check (its path
#      without git);
#   4. make install into DESTDIR=<tmp>/stage (PREFIX=/usr/local), which must
#      hold the tutor, the examples, the lessons, the man pages, the docs;
#      make uninstall: no file or link may be left in the stage, and no
#      directory of pidns-tutor's own (the shared ones, bin/ or man1/, stay
#      as uninstall leaves them: empty);
#   5. the sources must be as unpacked (the build wrote only under O=).
# The temporary directory is removed at the end, whatever happens.
set -u
[ $# -eq 2 ] || { echo "usage: distcheck.sh TARBALL NAME" >&2; exit 2; }
tarball=$(realpath "$1") name=$2
MAKE=${MAKE:-make}
say() { echo "distcheck: $*"; }
die() { echo "distcheck: FAILED: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-distcheck.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
start=$(date +%s)
tar -xzf "$tarball" -C "$tmp" || die "cannot unpack $tarball"
src=$tmp/$name O=$tmp/$name/build-distcheck stage=$tmp/stage
[ -f "$src/Makefile" ] || die "$tarball has no $name/Makefile"
[ ! -e "$src/.git" ] && ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
    die "$src is inside a git checkout: the check would not be without git"
listing() { (cd "$src" && find . -mindepth 1 -path ./build-distcheck -prune -o -printf '%y %s %T@ %p\n' | LC_ALL=C sort); }
listing >"$tmp/src.before"
say "unpacked $(wc -l <"$tmp/src.before") entries into $src (no .git)"

cd "$src" || die "cannot enter $src"
$MAKE --no-print-directory -j2 O="$O" all >"$tmp/build.log" 2>&1 ||
    { tail -n 30 "$tmp/build.log"; die "make O=$O all"; }
say "built out of tree in $O ($(($(date +%s) - start)) s)"
[ "${DISTCHECK_PLANT:-}" = srcwrite ] && : >"$src/planted-by-distcheck"

if [ -n "${DISTCHECK_PLANT:-}" ]; then
    say "DISTCHECK_PLANT=$DISTCHECK_PLANT: the tests are skipped, this run must fail"
elif grep -q '^check-quick:' Makefile mk/*.mk 2>/dev/null; then
    say "make check-quick"
    $MAKE --no-print-directory O="$O" check-quick </dev/null || die "make check-quick"
else
    say "tests: run-tests.sh unit lesson, pidns-tutor --auto 1, tools/spdx.sh (no check-quick here)"
    O=$O sh tests/run-tests.sh unit lesson </dev/null || die "tests/run-tests.sh unit lesson"
    "$O/pidns-tutor" --auto 1 </dev/null >"$tmp/auto.log" 2>&1 ||
        { tail -n 20 "$tmp/auto.log"; die "pidns-tutor --auto 1"; }
    tail -n 1 "$tmp/auto.log"
    O=$O sh tools/spdx.sh || die "tools/spdx.sh on the unpacked tree"
fi

# The reference run is left out of the docs here (REFERENCE=0): the tutor
# was run above; the docs' build is what is checked.
inst="O=$O PREFIX=/usr/local DESTDIR=$stage REFERENCE=0"
# shellcheck disable=SC2086
$MAKE --no-print-directory $inst install >"$tmp/install.log" 2>&1 ||
    { tail -n 30 "$tmp/install.log"; die "make install"; }
p=$stage/usr/local
for f in bin/pidns-tutor libexec/pidns-tutor/pidns_init_sleep share/pidns-tutor/lessons/01-new-namespace.adoc \
    share/man/man1/pidns-tutor.1 share/doc/pidns-tutor/handbook.html \
    share/bash-completion/completions/pidns-tutor; do
    [ -e "$p/$f" ] || die "make install did not install $f"
done
installed=$(find "$stage" ! -type d | wc -l)
say "make install DESTDIR=$stage: $installed files"
# shellcheck disable=SC2086
$MAKE --no-print-directory $inst uninstall >"$tmp/uninstall.log" 2>&1 ||
    { tail -n 30 "$tmp/uninstall.log"; die "make uninstall"; }
[ "${DISTCHECK_PLANT:-}" = leftover ] && : >"$p/share/planted-by-distcheck"
left=$(cd "$stage" && { find . ! -type d; find . -type d -name '*pidns-tutor*'; })
[ -z "$left" ] || { echo "$left"; die "make uninstall left the above in the stage"; }
say "make uninstall: nothing left ($(cd "$stage" && find . -type d -empty | wc -l) empty shared directories)"

listing >"$tmp/src.after"
cmp -s "$tmp/src.before" "$tmp/src.after" ||
    { diff "$tmp/src.before" "$tmp/src.after" | head -n 20; die "the sources changed (the build must write only under O=)"; }
say "the sources are as unpacked"
say "$name: passed in $(($(date +%s) - start)) s"
