#!/bin/sh
# SPDX-License-Identifier: MIT
# capture.sh: records the sample sessions shown in the example reference
# pages (docs/man/NAME.1.adoc include docs/samples/NAME.txt), by really
# running them, inside the sandbox (a private mount namespace with a tmpfs
# root: /proc2 and friends never reach the host) and a PID namespace of their
# own, like the tutorial's lab.
#
#   make docs-samples             (as root: the same as the article's shell)
#   O=build sh docs/samples/capture.sh [NAME...]
#
# NAME.session holds the commands, one per line. Each is shown as "# LINE"
# (a root prompt, as in the article) followed by its output. A line starting
# with "@" is run but not shown (waits, clean-up); one starting with "!" is
# shown with its variables expanded (readlink /proc/$P/... shows the PID;
# such a line must not contain double quotes). Tabs are expanded, as a
# terminal would show them. The built examples are
# first on PATH, so a line names them as a reader would.
set -eu
O=${O:-build}
here=$(cd "$(dirname "$0")" && pwd)
sandbox=$(cd "$O" && pwd)/tests/helpers/in_sandbox
examples=$(cd "$O" && pwd)/examples
[ -x "$sandbox" ] || { echo "capture: $sandbox is not built (run make)" >&2; exit 1; }
[ $# -gt 0 ] || set -- $(cd "$here" && ls *.session | sed 's/\.session$//')

for name in "$@"; do
    session=$here/$name.session
    [ -f "$session" ] || { echo "capture: no $session" >&2; exit 1; }
    # Run from /tmp so that relative paths do not depend on the caller.
    # A PID namespace of its own with its own /proc, as the tutorial's lab has:
    # ps then shows this session only, not whatever else runs on the machine.
    (cd /tmp && PATH="$examples:$PATH" LC_ALL=C "$sandbox" unshare -pf --mount-proc sh -c '
        while IFS= read -r line; do
            case $line in
            "") ;;
            @*) eval "${line#@}" ;;
            !*) line=${line#!}; eval "printf \"# %s\\n\" \"$line\""; eval "$line" 2>&1 ;;
            *) printf "# %s\n" "$line"; eval "$line" 2>&1 ;;
            esac
        done' <"$session" 2>&1 | expand) >"$here/$name.txt.tmp" || true
    # Keep the record only if it looks like a real run (not a sandbox failure).
    if grep -q '^in_sandbox:' "$here/$name.txt.tmp"; then
        cat "$here/$name.txt.tmp" >&2; rm -f "$here/$name.txt.tmp"; exit 1
    fi
    mv "$here/$name.txt.tmp" "$here/$name.txt"
    echo "capture: docs/samples/$name.txt ($(wc -l <"$here/$name.txt") lines)"
done
