#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian/Ubuntu packages named as arguments that are missing.
# As root it runs apt-get; otherwise it prints the one command to run.
set -u
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian/Ubuntu system; install by hand: a C compiler, make, pkg-config," \
         "readline and cmocka headers, asciidoctor, util-linux, procps, tmux, valgrind, clang" >&2
    exit 0
fi
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages:$missing" >&2
    echo "deps: run:  sudo apt-get install -y$missing   (then run make again)" >&2
    exit 1
fi
# apt-get and the scripts it runs read nothing: CI has no terminal to answer
# on, and with `echo quit | make run` the input is the tutorial's, not apt's.
exec </dev/null
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "deps: apt-get update failed" >&2; exit 1; }
# A name this release does not have (say, libclang-rt-dev on an older
# Ubuntu) is reported and left out rather than failing the whole install.
available=""
for p in $missing; do
    if apt-cache show "$p" >/dev/null 2>&1; then available="$available $p"
    else echo "deps: warning: no package $p in this release's lists; skipped" >&2; fi
done
missing=$available
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
    echo "deps: apt-get install$missing failed" >&2; exit 1; }
