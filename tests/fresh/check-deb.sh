#!/bin/sh
# SPDX-License-Identifier: MIT
# check-deb.sh: the Debian package on a fresh Debian 12 (make check-deb).
#
# Run by tests/fresh/check-fresh.sh (FRESH_STEPS=deb) inside its fresh root:
# a private mount and PID namespace, an overlay of the cached debootstrap
# root, so the host is never touched. Never run it on a machine of yours: it
# installs and purges a package and adds a user.
#
#   sh check-deb.sh PACKAGE.deb
#
# 1. a learner account is made and the package lists are fetched; then the
#    list of every file of the root is kept;
# 2. apt-get install ./PACKAGE.deb (with what it depends on);
# 3. its files are where the packaging promises (/usr/bin, /usr/libexec,
#    /usr/share/pidns-tutor, the man pages, the handbook, the completion);
# 4. pidns-tutor --auto all passes as root (the root route) and as the
#    learner (the unprivileged route);
# 5. as each of them, in a directory of their own: `export 1 l1.sh` typed to
#    pidns-tutor, then exactly what the tutor says to run (sh l1.sh);
# 6. apt-get purge pidns-tutor: none of its files may be left; then the
#    packages the install pulled in are purged too (less, the compiler...),
#    and the list of files must be the list of step 1 again (apart from
#    apt's and dpkg's own records and logs).
# Homes are on the namespace's /tmp (a tmpfs), so what the learners leave
# (progress, history, l1.sh) is theirs, not the package's.
#
#   CHECK_DEB_PLANT=leftover   negative control: a file planted after the
#                              purge must fail the check (the lessons are
#                              not run then: it checks the check)
set -u
deb=$1
say() { echo "check-deb: $*"; }
die() { echo "check-deb: FAILED: $*"; exit 1; }
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
# Every file of the root: /proc, /sys, /dev, /tmp, /run and apt's archive
# cache are other file systems (-xdev).
snapshot() { find / -xdev -print | LC_ALL=C sort; }
# apt's and dpkg's own records and logs change with any install.
bookkeeping='^/var/(log|cache/(apt|debconf|ldconfig)|lib/(apt|dpkg))/'

mkdir -p /tmp/root-home && useradd -m -d /tmp/learner -s /bin/sh learner ||
    die "cannot make the learner account"
apt-get update -qq || die "apt-get update"
# The installed packages, one a line.
packages() { dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | LC_ALL=C sort; }
snapshot >/tmp/files.before
packages >/tmp/packages.before
t=$(date +%s)
apt-get install -y -qq "$deb" >/tmp/install.log 2>&1 || { tail -n 20 /tmp/install.log; die "apt-get install $deb"; }
say "apt-get install ./$(basename "$deb"): $(($(date +%s) - t)) s, $(dpkg -L pidns-tutor | wc -l) paths"
for f in /usr/bin/pidns-tutor /usr/libexec/pidns-tutor/pidns_init_sleep \
    /usr/share/pidns-tutor/lessons/01-new-namespace.adoc /usr/share/pidns-tutor/examples/pidns_init_sleep.c \
    /usr/share/man/man1/pidns-tutor.1.gz /usr/share/doc/pidns-tutor/handbook.html \
    /usr/share/doc/pidns-tutor/handbook.pdf /usr/share/doc/pidns-tutor/copyright \
    /usr/share/bash-completion/completions/pidns-tutor; do
    [ -e "$f" ] || die "the package did not install $f"
done
ls -d /usr/share/pidns-tutor/exercises/*/ >/dev/null 2>&1 || die "the package installed no exercises"
say "the tutor, examples, lessons, exercises, man pages, handbook and completion are in place"

# $1 = who (root or learner), $2... = the command, run in that one's home.
as() {
    who=$1
    shift
    if [ "$who" = root ]; then
        (cd /tmp/root-home && HOME=/tmp/root-home "$@")
    else
        runuser -u learner -- env -i HOME=/tmp/learner PATH=/usr/bin:/bin LC_ALL=C.UTF-8 \
            sh -c 'cd "$HOME" && exec "$@"' sh "$@"
    fi
}
for who in root learner; do
    t=$(date +%s)
    if [ -n "${CHECK_DEB_PLANT:-}" ]; then
        [ $who = learner ] || say "CHECK_DEB_PLANT=$CHECK_DEB_PLANT: the lessons are skipped, this run must fail"
        continue
    fi
    as $who pidns-tutor --no-color --auto all </dev/null >/tmp/auto.$who 2>&1 ||
        { tail -n 30 /tmp/auto.$who; die "pidns-tutor --auto all as $who"; }
    say "pidns-tutor --auto all as $who: passed in $(($(date +%s) - t)) s ($(grep -c '^lesson [0-9]* (.*): passed' /tmp/auto.$who) lessons passed)"
    printf 'export 1 l1.sh\nquit\n' | as $who pidns-tutor --no-color >/tmp/export.$who 2>&1
    told=$(tr -s '\n ' '  ' </tmp/export.$who | grep -o 'run it with: sh l1\.sh') ||
        { cat /tmp/export.$who; die "export 1 l1.sh as $who: the tutor did not say to run sh l1.sh"; }
    as $who sh l1.sh </dev/null >/tmp/l1.$who 2>&1 ||
        { tail -n 20 /tmp/l1.$who; die "sh l1.sh as $who (exit $?)"; }
    say "export 1 l1.sh, then '${told#run it with: }' as $who: ran ($(wc -l </tmp/l1.$who) lines)"
done

dpkg -L pidns-tutor | grep -vx '/\.' | LC_ALL=C sort >/tmp/package.files # but "/."
apt-get purge -y -qq pidns-tutor >/tmp/purge.log 2>&1 || { tail -n 20 /tmp/purge.log; die "apt-get purge pidns-tutor"; }
# Its files, but for the directories that were there before (/usr/bin...).
mine=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\n' "$f"; done </tmp/package.files |
    LC_ALL=C comm -23 - /tmp/files.before)
[ -z "$mine" ] || { echo "$mine" | head -n 30; die "apt-get purge pidns-tutor left the above"; }
pulled=$(packages | LC_ALL=C comm -13 /tmp/packages.before -)
say "apt-get purge pidns-tutor: none of its $(wc -l </tmp/package.files) paths left; purging what it pulled in: $(echo $pulled)"
# shellcheck disable=SC2086
[ -z "$pulled" ] || apt-get purge -y -qq $pulled >>/tmp/purge.log 2>&1 ||
    { tail -n 20 /tmp/purge.log; die "apt-get purge $pulled"; }
[ "${CHECK_DEB_PLANT:-}" = leftover ] && : >/usr/share/planted-by-check-deb
snapshot >/tmp/files.after
left=$(LC_ALL=C comm -13 /tmp/files.before /tmp/files.after | grep -Ev "$bookkeeping")
gone=$(LC_ALL=C comm -23 /tmp/files.before /tmp/files.after | grep -Ev "$bookkeeping")
[ -z "$left$gone" ] || {
    [ -z "$left" ] || { echo "left behind:"; echo "$left" | head -n 30; }
    [ -z "$gone" ] || { echo "removed, though there before:"; echo "$gone" | head -n 30; }
    die "the purges did not give back the file list of before the install"
}
say "after the purges, the file list is as before the install ($(wc -l </tmp/files.before) paths)"
say "all passed"
