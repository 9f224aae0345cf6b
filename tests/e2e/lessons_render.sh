#!/bin/sh
# SPDX-License-Identifier: MIT
# lessons_render.sh: every lesson, and the lesson format reference, render
# with asciidoctor without a single warning (the HTML handbook's source is the
# same lessons/ the shell reads, includes of the examples resolved).
set -u
if ! command -v asciidoctor >/dev/null 2>&1; then
    echo "lessons_render: asciidoctor is not installed (make deps installs it)"
    exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for f in lessons/*.adoc docs/lesson-format.adoc; do
    if asciidoctor --failure-level WARN -o "$out/page.html" "$f" 2>"$out/err"; then
        echo "ok: $f"
    else
        echo "FAILED: $f"; cat "$out/err"
        status=1
    fi
done
exit $status
