#!/bin/sh
# SPDX-License-Identifier: MIT
# test_handbook.sh: what a reader of the handbook sees, in a real browser
# (headless Chromium) and in the PDF (poppler's pdftotext):
#  - each lesson page is titled "Lesson N: Title" (N from its file name, as the
#    shell numbers it), and its previous / contents / next links lead to the
#    neighbouring lessons' pages; the handbook's chapter links lead to chapters;
#  - the C and shell listings are highlighted (rouge tokens, with their styles);
#  - answers, hints, checks and solutions are folded: printed from Chromium,
#    the page shows "Worked solution" but not the solution (negative control:
#    the same page with the folds opened shows it);
#  - beside each pattern, the reference run's output, naming the kernel and the
#    date (negative control: REFERENCE=0 gives the patterns alone);
#  - the PDF handout has a table of contents and every lesson.
# Screenshots for a person to look at go to $BUILD/screenshots/.
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
unset MAKEFLAGS MAKELEVEL MFLAGS
. "$(dirname "$0")/lib/tap"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
check() { # check NAME PROBLEMS: ok when PROBLEMS is empty
    if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi
}
cd "$SRC" || exit 1
command -v asciidoctor >/dev/null || { skip_test "handbook" "asciidoctor is missing (make deps-check)"; finish; }
ls lessons/[0-9]*-*.adoc >/dev/null 2>&1 || { skip_test "handbook" "no lessons/ yet"; finish; }

# $BUILD/docs.lock: make check builds the docs beside the suite (mk/docs.mk).
mkdir -p "$BUILD"
if flock "$BUILD/docs.lock" make -s --no-print-directory O="$BUILD" docs >"$tmp/make.log" 2>&1; then
    ok "make docs builds the handbook, its lesson pages and its PDF"
else
    not_ok "make docs builds the handbook, its lesson pages and its PDF" "$(tail -n 20 "$tmp/make.log")"
    finish
fi
docs=$(cd "$BUILD/docs" && pwd)
shots=$BUILD/screenshots
mkdir -p "$shots"

# The lessons in the shell's order: NUMBER ID TITLE, one a line.
for f in lessons/[0-9]*-*.adoc; do
    b=$(basename "$f" .adoc)
    printf '%d %s %s\n' "$(echo "${b%%-*}" | sed 's/^0*\([0-9]\)/\1/')" "$b" "$(sed -n 's/^= *//p' "$f" | head -n 1)"
done | sort -n -k1,1 -k2,2 >"$tmp/lessons"
first=$(head -n 1 "$tmp/lessons" | cut -d' ' -f2)
last=$(tail -n 1 "$tmp/lessons" | cut -d' ' -f2)

# Static structure of every page (the HTML as built; cheap, no browser).
bad=""
prev=""
while read -r n id title; do
    page=$docs/lessons/$id.html
    [ -f "$page" ] || { bad="$bad $id(no page)"; continue; }
    grep -q "<h1>Lesson $n: " "$page" || bad="$bad $id(no 'Lesson $n:' title)"
    nav=$(grep -o '<nav class="lesson-nav">.*</nav>' "$page" | head -n 1)
    for href in $(echo "$nav" | grep -o 'href="[^"]*"' | sed 's/href="//; s/"$//'); do
        [ -f "$docs/lessons/${href%%#*}" ] || bad="$bad $id(link $href does not resolve)"
    done
    if [ -n "$prev" ]; then
        echo "$nav" | grep -q "rel=\"prev\" href=\"$prev.html\"" || bad="$bad $id(prev is not $prev)"
        grep -o '<nav class="lesson-nav">.*</nav>' "$docs/lessons/$prev.html" | head -n 1 |
            grep -q "rel=\"next\" href=\"$id.html\"" || bad="$bad $prev(next is not $id)"
    fi
    prev=$id
done <"$tmp/lessons"
grep -q 'rel="prev"' "$docs/lessons/$first.html" && bad="$bad $first(a previous link)"
grep -q 'rel="next"' "$docs/lessons/$last.html" && bad="$bad $last(a next link)"
check "every lesson page is titled 'Lesson N: ...' and links to the lessons before and after it ($(wc -l <"$tmp/lessons") pages)" "$bad"

# The handbook's chapter links point to chapters that exist.
bad=""
for href in $(grep -o '<nav class="lesson-nav[^>]*>.*</nav>' "$docs/handbook.html" | grep -o 'href="#[^"]*"' | sed 's/href="#//; s/"$//' | sort -u); do
    grep -q " id=\"$href\"" "$docs/handbook.html" || bad="$bad #$href"
done
n=$(grep -c '<nav class="lesson-nav">' "$docs/handbook.html")
[ "$n" -eq "$(wc -l <"$tmp/lessons")" ] || bad="$bad ($n chapter navigations for $(wc -l <"$tmp/lessons") lessons)"
check "the handbook's previous/next/contents links lead to its chapters" "$bad"

# Folds: every answer, hint, check, solution and wrong attempt of the lessons is in a closed <details>.
bad=""
while read -r n id title; do
    f=lessons/$id.adoc page=$docs/lessons/$id.html
    want=$(grep -cE '^\[\.(answer|hint|check|solution)[],]' "$f")
    got=$(grep -cE '<details class="(answer|hint|check|solution)-fold">' "$page")
    [ "$want" -eq "$got" ] || bad="$bad $id($want to fold, $got folded)"
    # the [.wrong] attempts of an exercise share one fold, which holds them all
    want=$(awk '$0 == "[.exercise]" { w = 0 } $0 == "[.wrong]" && !w++ { n++ } END { print n + 0 }' "$f")
    got=$(grep -c '<details class="wrong-fold">' "$page")
    [ "$want" -eq "$got" ] || bad="$bad $id($want exercises with wrong attempts, $got wrong folds)"
    outside=$(awk '/<details class="wrong-fold">/ { inside = 1 } /<\/details>/ { inside = 0 }
        /class="listingblock wrong"/ && !inside { n++ } END { print n + 0 }' "$page")
    [ "$outside" -eq 0 ] || bad="$bad $id($outside wrong attempts outside a fold)"
    grep -q '<details[^>]* open' "$page" && bad="$bad $id(a fold is open)"
    grep -qE '<li><p>(&#10003;|<i class="fa fa-check-square-o">)' "$page" && bad="$bad $id(a quiz choice is ticked)"
done <"$tmp/lessons"
check "answers, hints, checks, solutions and wrong attempts are folded, and no quiz choice is ticked" "$bad"

command -v chromium >/dev/null || { skip_test "the handbook in a browser" "chromium is missing (make deps-check)"; finish; }
browse() { # browse OPTION URL: headless Chromium, its own profile, no network
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$tmp/profile" --no-first-run --disable-extensions \
        --proxy-server=127.0.0.1:9 --window-size=1100,2400 "$@" 2>>"$tmp/chromium.log"
}

page=$docs/lessons/$first.html
n1=$(head -n 1 "$tmp/lessons" | cut -d' ' -f1)
browse --dump-dom "file://$page" >"$tmp/dom.html"
bad=""
grep -q "<h1>Lesson $n1: " "$tmp/dom.html" || bad="$bad no-title"
grep -qE '<pre class="rouge highlight"><code data-lang="c">[^<]*<span class="' "$tmp/dom.html" || bad="$bad no-highlighted-C"
grep -qE '<code data-lang="shell">.*<span class="' "$tmp/dom.html" || bad="$bad no-highlighted-shell"
grep -q 'pre.rouge .k' "$tmp/dom.html" || bad="$bad no-rouge-stylesheet"
grep -q 'Unresolved directive' "$tmp/dom.html" && bad="$bad unresolved-include"
check "Chromium loads lesson $n1: its title, highlighted C and shell with rouge's styles, includes resolved" "$bad"

# What a reader sees: the page printed by Chromium, as text.
browse --no-pdf-header-footer --print-to-pdf="$tmp/page.pdf" "file://$page" >/dev/null
pdftotext -layout "$tmp/page.pdf" "$tmp/page.txt" 2>/dev/null
sed 's/<details class="/<details open class="/g' "$page" >"$tmp/open-folds.html" # a page with no file of its own to load
browse --no-pdf-header-footer --print-to-pdf="$tmp/open.pdf" "file://$tmp/open-folds.html" >/dev/null
pdftotext -layout "$tmp/open.pdf" "$tmp/open.txt" 2>/dev/null
# The first line of the lesson's first solution: hidden folded, shown open.
solution=$(sed -n '/^\[\.solution\]/,/^====/p' "lessons/$first.adoc" | sed -n '3p')
if [ ! -s "$tmp/page.txt" ] || [ -z "$solution" ]; then
    not_ok "folded answers are hidden from a reader until clicked" "no text printed from Chromium, or no [.solution] in $first"
elif ! grep -q 'Worked solution' "$tmp/page.txt"; then
    not_ok "folded answers are hidden from a reader until clicked" "'Worked solution' is not shown"
elif ! grep -qF -- "$solution" "$tmp/open.txt"; then
    not_ok "folded answers are hidden from a reader until clicked" "negative control: the opened fold does not show '$solution' either"
elif [ "$(grep -cF -- "$solution" "$tmp/page.txt")" -ge "$(grep -cF -- "$solution" "$tmp/open.txt")" ]; then
    not_ok "folded answers are hidden from a reader until clicked" "'$solution' shows while folded"
else
    ok "folded answers are hidden from a reader until clicked (and shown once opened)"
fi

# The reference run beside each pattern, with the kernel and the date.
meta=$docs/reference/meta
if [ ! -f "$meta" ] || ! grep -q '^status=passed' "$meta"; then
    skip_test "reference output beside each pattern" "no reference run here ($(cat "$meta" 2>/dev/null | tr '\n' ' '))"
else
    kernel=$(sed -n 's/^kernel=//p' "$meta") date=$(sed -n 's/^date=//p' "$meta")
    bad=""
    # A step gated on a newer kernel than the run's ([kernel=X.Y], or the
    # lesson's :kernel:) was skipped: its patterns have no output beside them.
    patterns_run() {
        awk -v k="$kernel" '
            function newer(v,   a, b) {
                split(v, a, "."); split(k, b, ".")
                return a[1] + 0 > b[1] + 0 || (a[1] + 0 == b[1] + 0 && a[2] + 0 > b[2] + 0)
            }
            /^:kernel: *[0-9.]+$/ { sub(/^:kernel: */, ""); whole = newer($0); next }
            /^\[kernel=[0-9.]+\]$/ { gate = substr($0, 9, length($0) - 9); next }
            /^== / { skip = whole || (gate != "" && newer(gate)); gate = ""; next }
            /^\[\.expect/ && !skip { n++ }
            END { print n + 0 }' "$1"
    }
    while read -r n id title; do
        want=$(patterns_run "lessons/$id.adoc")
        got=$(grep -c '<div class="literalblock reference">' "$docs/lessons/$id.html")
        [ "$want" -eq "$got" ] || bad="$bad $id($want patterns, $got outputs)"
    done <"$tmp/lessons"
    # As printed: the label may be wrapped in its column, so compare without blanks.
    tr -d ' \n' <"$tmp/page.txt" | grep -qiF "Referencerun(Linux$kernel,$date)" || bad="$bad $first(kernel $kernel and date $date not shown)"
    check "beside each pattern, the output of a reference run on Linux $kernel, $date" "$bad"
    # What a job prints while a later command runs is marked in the
    # transcript and kept out of that command's output: lesson 24's server
    # speaks of its client during the next steps, before or after their
    # output (in CI once after it, so the output failed its pattern and the
    # page had 7 outputs for 8 patterns). Negative control: the line is there.
    transcript=$docs/reference/transcript.txt
    page=$docs/lessons/24-who-is-on-the-other-end.html
    if [ ! -f "$page" ]; then
        not_ok "a background job's later lines are marked and left out of the outputs" "no page $page"
    elif ! grep -q '^\[job\] server: client 1: SO_PEERCRED' "$transcript"; then
        not_ok "a background job's later lines are marked and left out of the outputs" \
            "lesson 24's server line about its client is not marked '[job] ' in $transcript: $(grep -m1 'server: client 1' "$transcript")"
    elif grep -q 'server: client 1' "$page"; then
        not_ok "a background job's later lines are marked and left out of the outputs" \
            "lesson 24's page shows the server's later line as a command's output: $(grep -m1 -o '.\{0,60\}server: client 1.\{0,40\}' "$page")"
    else
        ok "a background job's later lines are marked [job] in the reference run and left out of the outputs (lesson 24's server)"
    fi
    # The pictures: a lesson whose reference run had a namespace below the
    # lab's has one SVG of the tree, beside its text; every namespace of the
    # text is a box, or counted in the line that ends a chain too deep to draw.
    bad="" pictures=0
    while read -r n id title; do
        page=$docs/lessons/$id.html
        # the lesson's own part of the transcript: from its first step to its verdict
        sed -n "/^Lesson $n, step 1 of /,/^lesson $n (/p" "$docs/reference/transcript.txt" >"$tmp/part"
        want=$(grep -c "^tree after lesson $n, step " "$tmp/part")
        got=$(grep -c '<svg [^>]*class="ns-picture"' "$page")
        if [ "$want" -eq 0 ]; then
            [ "$got" -eq 0 ] || bad="$bad $id(a picture without a tree)"
            continue
        fi
        [ "$got" -eq 1 ] || { bad="$bad $id($got pictures)"; continue; }
        pictures=$((pictures + 1))
        sed -n '/class="literalblock ns-tree-text"/,/<\/pre>/p' "$page" >"$tmp/text"
        text_ns=$(grep -o 'pid:\[[0-9]*\]' "$tmp/text" | sort -u)
        boxes=$(grep -o 'data-inode="[0-9]*"' "$page" | tr -dc '0-9\n' | sed '/^$/d')
        more=$(grep -o 'data-more="[0-9]*"' "$page" | tr -dc '0-9')
        [ -n "$text_ns" ] || { bad="$bad $id(no text tree beside the picture)"; continue; }
        for inode in $boxes; do
            echo "$text_ns" | grep -qF "pid:[$inode]" || bad="$bad $id(box pid:[$inode] not in the text)"
        done
        [ $(($(echo "$boxes" | wc -l) + ${more:-0})) -eq "$(echo "$text_ns" | wc -l)" ] ||
            bad="$bad $id($(echo "$boxes" | wc -l) boxes + ${more:-0} more for $(echo "$text_ns" | wc -l) namespaces)"
        grep -q 'The namespace tree after this step (reference run, Linux' "$page" || bad="$bad $id(no title)"
    done <"$tmp/lessons"
    [ "$pictures" -gt 0 ] || bad="$bad (no lesson has a picture: no tree in the transcript?)"
    check "a picture of the namespace tree beside its text in each lesson whose run nests ($pictures lessons)" "$bad"
    # As a reader's browser draws it: the boxes are laid out (a size of their own).
    pic=$(grep -l '<svg [^>]*class="ns-picture"' "$docs"/lessons/*.html | head -n 1)
    if [ -n "$pic" ]; then
        browse --dump-dom "file://$pic" >"$tmp/pic-dom.html"
        browse --screenshot="$shots/handbook-picture-$(basename "$pic" .html).png" "file://$pic" >/dev/null
        n_dom=$(grep -o '<g class="pidns"' "$tmp/pic-dom.html" | wc -l)
        n_src=$(grep -o '<g class="pidns"' "$pic" | wc -l)
        if [ "$n_dom" -ge 2 ] && [ "$n_dom" -eq "$n_src" ]; then
            ok "Chromium draws the picture of $(basename "$pic" .html): $n_dom namespace boxes"
        else
            not_ok "Chromium draws the picture of $(basename "$pic" .html)" "$n_dom boxes in the browser's DOM, $n_src in the page"
        fi
    fi
    # Negative control: without the reference run, the patterns stand alone.
    if make -s --no-print-directory O="$tmp/out" REFERENCE=0 "$tmp/out/docs/lessons/$first.html" >"$tmp/ref0.log" 2>&1; then
        if grep -qE 'literalblock reference|class="ns-picture"' "$tmp/out/docs/lessons/$first.html" || [ -e "$tmp/out/docs/reference" ]; then
            not_ok "REFERENCE=0 builds the pages without a reference run" "a reference was captured or shown"
        else
            ok "REFERENCE=0 builds the pages without a reference run"
        fi
    else
        not_ok "REFERENCE=0 builds the pages without a reference run" "$(tail -n 5 "$tmp/ref0.log")"
    fi
fi

# Screenshots, for a person to look at.
browse --screenshot="$shots/handbook-lesson-$first.png" "file://$page" >/dev/null
browse --window-size=1100,1400 --screenshot="$shots/handbook.png" "file://$docs/handbook.html" >/dev/null
bad=""
for s in "$shots/handbook-lesson-$first.png" "$shots/handbook.png"; do
    [ "$(head -c 8 "$s" 2>/dev/null | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ] || bad="$bad $s"
    [ "$(wc -c <"$s" 2>/dev/null || echo 0)" -gt 20000 ] || bad="$bad $s(tiny)"
done
check "screenshots of a lesson page and the handbook in $shots/" "$bad"

# The PDF handout.
pdf=$docs/handbook.pdf
if ! command -v pdftotext >/dev/null; then
    skip_test "the PDF handout" "poppler-utils is missing (make deps-check)"
elif [ ! -f "$pdf" ]; then
    not_ok "the PDF handout holds a table of contents and every lesson" "no $pdf (is asciidoctor-pdf installed?)"
else
    pdftotext "$pdf" "$tmp/pdf.txt"
    squeeze() { tr -cd '[:alnum:]' | tr '[:upper:]' '[:lower:]'; } # titles wrap across lines
    squeeze <"$tmp/pdf.txt" >"$tmp/pdf.sq"
    bad=""
    grep -q 'Table of Contents' "$tmp/pdf.txt" || bad="$bad no-table-of-contents"
    while read -r n id title; do
        t=$(echo "Lesson $n: $title" | sed "s/\`//g; s/'/’/g" | squeeze)
        [ "$(grep -oF "$t" "$tmp/pdf.sq" | wc -l)" -ge 2 ] || bad="$bad $id(not in the contents and as a chapter)"
    done <"$tmp/lessons"
    grep -q 'Unresolved directive' "$tmp/pdf.txt" && bad="$bad unresolved-include"
    grep -q '<nav' "$tmp/pdf.txt" && bad="$bad raw-html"
    if grep -q '^tree after lesson ' "$docs/reference/transcript.txt" 2>/dev/null && grep -q '^status=passed' "$docs/reference/meta" 2>/dev/null; then
        grep -q 'here; by level 1-' "$tmp/pdf.txt" || bad="$bad no-namespace-picture"
    fi
    check "the PDF handout holds a table of contents and every lesson ($(pdfinfo "$pdf" 2>/dev/null | sed -n 's/^Pages: *//p') pages)" "$bad"
fi
finish
