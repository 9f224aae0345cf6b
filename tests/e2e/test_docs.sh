#!/bin/sh
# SPDX-License-Identifier: MIT
# test_docs.sh: the documentation describes what really exists, and a broken
# document fails the build.
#  - every example has a reference page (docs/man/NAME.1.adoc), a recorded
#    session, and an entry on the index page; every page has an example;
#  - each example's options (from its own --help) are in its page;
#  - pidns-tutor(1) lists exactly the options of pidns-tutor --help, and the
#    user guide and the man page name every command of the shell's help;
#  - the handbook holds every lesson, with the code its includes pull in;
#  - a recorded session matches its script (re-record with make docs-samples);
#  - a document with a broken include fails make docs and leaves no page.
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
command -v asciidoctor >/dev/null || { skip_test "docs" "asciidoctor is missing (make deps-check)"; finish; }

# $BUILD/docs.lock: make check builds the docs beside the suite (mk/docs.mk).
mkdir -p "$BUILD"
if flock "$BUILD/docs.lock" make -s --no-print-directory O="$BUILD" docs >"$tmp/make.log" 2>&1; then
    ok "make docs builds every page with --failure-level WARN"
else
    not_ok "make docs builds every page with --failure-level WARN" "$(tail -n 20 "$tmp/make.log")"
fi

# Examples and their reference pages.
bad=""
for f in examples/*.c; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .c)
    [ -f "docs/man/$n.1.adoc" ] || bad="$bad $n(no docs/man/$n.1.adoc)"
    [ -f "docs/samples/$n.txt" ] || bad="$bad $n(no docs/samples/$n.txt)"
    grep -q "man/$n.1.html" docs/index.adoc || bad="$bad $n(not on docs/index.adoc)"
    grep -qF "*$n*(1)" docs/man/pidns-tutor.1.adoc || bad="$bad $n(not in pidns-tutor(1) SEE ALSO)"
done
for f in docs/man/*.1.adoc; do
    n=$(basename "$f" .1.adoc)
    [ "$n" = pidns-tutor ] || [ -f "examples/$n.c" ] || bad="$bad $f(no examples/$n.c)"
done
check "every example has a reference page, a recorded session, an index entry and a SEE ALSO in pidns-tutor(1), and back" "$bad"

bad=""
for f in examples/*.c; do
    n=$(basename "$f" .c)
    [ -x "$BUILD/examples/$n" ] && [ -f "docs/man/$n.1.adoc" ] || continue
    # Options are on the usage line and on lines that start with blanks and a dash.
    for o in $("$BUILD/examples/$n" --help 2>&1 | grep -E '^(Usage|usage):|^[[:blank:]]+-' |
        grep -oE -- '(^|[ ,[|])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,[|]*//' | sort -u); do
        grep -qF -- "*$o*" "docs/man/$n.1.adoc" || bad="$bad $n:$o"
    done
done
check "each example's options (from its --help) are documented in its page" "$bad"

bad=""
for f in docs/samples/*.session; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .session)
    while IFS= read -r line; do
        case $line in "" | @* | !*) continue ;; esac
        grep -qxF -- "# $line" "docs/samples/$n.txt" || bad="$bad $n:'$line'"
    done <"$f"
done
check "each recorded session holds every command of its script (else: make docs-samples)" "$bad"

tutor=$BUILD/pidns-tutor
if [ -x "$tutor" ]; then
    help_opts=$("$tutor" --help 2>&1 | grep -E '^[[:blank:]]+-' |
        grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]*//' | sort -u)
    man_opts=$(sed -n '/^== OPTIONS/,/^== /p' docs/man/pidns-tutor.1.adoc | grep -E '::$' |
        grep -oE -- '\*--?[a-zA-Z][a-zA-Z-]*\*' | tr -d '*' | sort -u)
    [ "$help_opts" = "$man_opts" ] && ok "pidns-tutor(1) OPTIONS are exactly those of --help" ||
        not_ok "pidns-tutor(1) OPTIONS are exactly those of --help" "--help: $(echo $help_opts)" "man:    $(echo $man_opts)"
    cmds=$(printf 'help\nquit\n' | "$tutor" --no-color 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | sort -u)
    if [ -z "$cmds" ]; then
        not_ok "the shell's help lists commands" "no command found in: $(printf 'help\nquit\n' | "$tutor" 2>&1 | head -n 5)"
    else
        bad=""
        for c in $cmds; do
            grep -q "^\`$c[\` ]" docs/user-guide.adoc || bad="$bad user-guide:$c"
            grep -qE "^\*$c\*|, \*$c\*" docs/man/pidns-tutor.1.adoc || bad="$bad pidns-tutor.1:$c"
        done
        check "the user guide and pidns-tutor(1) describe every command of help ($(echo $cmds | wc -w))" "$bad"
    fi
else
    skip_test "options and commands of the shell documented" "$tutor is not built"
fi

if ls lessons/[0-9]*.adoc >/dev/null 2>&1; then
    bad=""
    for f in lessons/[0-9]*.adoc; do
        # The title as asciidoctor writes it in HTML (entities, typographic apostrophe).
        title=$(sed -n 's/^= *//p' "$f" | head -n 1 |
            sed "s/&/\\&amp;/g; s/</\\&lt;/g; s/>/\\&gt;/g; s/'/\\&#8217;/g")
        grep -qF -- "$title" "$BUILD/docs/handbook.html" || bad="$bad $f('$title')"
        [ -f "$BUILD/docs/lessons/$(basename "$f" .adoc).html" ] || bad="$bad $f(no page)"
    done
    grep -q 'Unresolved directive' "$BUILD/docs/handbook.html" && bad="$bad unresolved-include"
    check "the handbook and the lesson pages hold every lesson, includes resolved" "$bad"
    n=$(grep -ho '^include::[^[]*\.c\[' lessons/[0-9]*.adoc | wc -l)
    # Highlighted by rouge (<code data-lang="c">) or plain (class="language-c").
    code=$(grep -cE '<pre class="[a-z ]*highlight"><code (class="language-c"|data-lang="c")' "$BUILD/docs/handbook.html")
    [ "$n" -eq 0 ] || [ "$code" -ge 1 ] && ok "the handbook shows the lessons' code ($code C listings, $n includes)" ||
        not_ok "the handbook shows the lessons' code" "$n includes, $code listings"
else
    skip_test "the handbook holds every lesson" "no lessons/ yet"
fi

# The pages work offline (classroom machines) and show no unrendered markup.
bad=$(grep -lE '<(link|script)[^>]*(href|src)="https?:' "$BUILD"/docs/*.html "$BUILD"/docs/*/*.html 2>/dev/null)
check "no page loads anything from the network" "$bad"
bad=$(grep -lE 'kbd:\[|xref:[a-z]|Unresolved directive' "$BUILD"/docs/*.html "$BUILD"/docs/*/*.html 2>/dev/null)
check "no page shows unrendered macros (kbd:, xref:, unresolved includes)" "$bad"

# A broken document must fail the build, and leave no page behind.
mkdir -p "$tmp/tree/docs" "$tmp/tree/mk"
cp Makefile "$tmp/tree/" && cp mk/*.mk "$tmp/tree/mk/"
printf '= Broken\n\ninclude::no-such-file.adoc[]\n' >"$tmp/tree/docs/broken.adoc"
if make -s -C "$tmp/tree" O="$tmp/out" "$tmp/out/docs/broken.html" >"$tmp/broken.log" 2>&1; then
    not_ok "a document with a missing include fails make docs" "make succeeded"
elif [ -e "$tmp/out/docs/broken.html" ]; then
    not_ok "a document with a missing include fails make docs" "the broken page was left behind"
elif grep -q 'include file not found' "$tmp/broken.log"; then
    ok "a document with a missing include fails make docs and leaves no page"
else
    not_ok "a document with a missing include fails make docs" "$(cat "$tmp/broken.log")"
fi
finish
