#!/bin/sh
# SPDX-License-Identifier: MIT
# lessons_render.sh: every lesson, and the lesson format reference, render
# with asciidoctor without a single warning (the HTML handbook's source is the
# same lessons/ the shell reads, includes of the examples resolved).
set -u
. tests/e2e/lib/tap
command -v asciidoctor >/dev/null 2>&1 || bail_out "asciidoctor is not installed (make deps installs it)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plan $(ls lessons/*.adoc docs/lesson-format.adoc | wc -l)
for f in lessons/*.adoc docs/lesson-format.adoc; do
    if asciidoctor --failure-level WARN -o "$out/page.html" "$f" 2>"$out/err"; then
        ok "$f renders without a warning"
    else
        not_ok "$f renders without a warning" "$(cat "$out/err")"
    fi
done
finish
