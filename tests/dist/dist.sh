#!/bin/sh
# SPDX-License-Identifier: MIT
# dist.sh: writes the release tarball (make dist).
#
#   sh tests/dist/dist.sh NAME TARBALL
#
# In a git checkout: the files git tracks, as they are in the work tree (a
# tracked file deleted but not committed is left out). Out of one (a tarball
# unpacked): every file but .git/, the build directories (build*/), the
# build's leftovers and tarballs. Entries are sorted, owned by root, and
# dated by the last commit (or SOURCE_DATE_EPOCH), so the same tree gives the
# same bytes. Only the names get the NAME/ prefix, not the targets of
# symbolic links (tests/fixtures has links whose targets the tests read).
set -u
[ $# -eq 2 ] || { echo "usage: dist.sh NAME TARBALL" >&2; exit 2; }
name=$1 tarball=$2
die() { echo "dist: $*" >&2; exit 1; }

# Temporary files of their own, and the tarball moved into place whole: two
# runs at once (make deb beside make distcheck) do not mix their bytes.
list=$(mktemp) && tar=$(mktemp "$tarball.XXXXXX") && gz=$(mktemp "$tarball.XXXXXX") ||
    die "cannot make a temporary file"
trap 'rm -f "$list" "$tar" "$gz"' EXIT INT TERM
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -z "$(git rev-parse --show-prefix)" ]; then
    git -c core.quotepath=off ls-files --cached | while IFS= read -r f; do
        { [ -e "$f" ] || [ -L "$f" ]; } && printf '%s\n' "$f"
    done >"$list"
    epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
else
    find . -type d \( -name .git -o -name 'build*' \) -prune -o ! -type d \
        ! -name '*.o' ! -name '*.a' ! -name '*.d' ! -name core ! -name 'vgcore.*' \
        ! -name 'pidns-tutor-*.tar.gz*' -print | sed 's|^\./||' >"$list"
    epoch=${SOURCE_DATE_EPOCH:-$(date +%s)}
fi
[ -s "$list" ] || die "no files to put in $tarball"
LC_ALL=C sort -o "$list" "$list"
tar --create --file="$tar" --no-recursion --transform="s|^|$name/|S" --sort=name \
    --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=gnu --files-from="$list" &&
    gzip -n -9 <"$tar" >"$gz" && chmod 644 "$gz" && mv "$gz" "$tarball" ||
    die "cannot write $tarball"
echo "dist: $tarball: $(wc -l <"$list") files, $(wc -c <"$tarball") bytes"
