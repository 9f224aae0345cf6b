#!/bin/sh
# SPDX-License-Identifier: MIT
# test_install.sh: `make install` into a temporary DESTDIR with a PREFIX puts
# every file where the layout says (and nothing else), the installed program
# runs from there and finds its own lessons and examples with no option and
# no build tree left, and `make uninstall` removes every file again.
#
# The build is made in a scratch O= with PREFIX compiled in; PREFIX is a
# symlink to DESTDIR/PREFIX, so the program runs as if really installed there.
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
unset MAKEFLAGS MAKELEVEL MFLAGS
. "$(dirname "$0")/lib/tap"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix dest=$tmp/dest obuild=$tmp/build
# REFERENCE=0: the docs without a second reference run of every lesson (15 s).
vars="O=$obuild PREFIX=$prefix DESTDIR=$dest REFERENCE=0"

command -v asciidoctor >/dev/null || { skip_test "install" "asciidoctor is missing (make deps-check)"; finish; }

cd "$SRC" || exit 1
first=$(cd lessons 2>/dev/null && ls [0-9]*.adoc 2>/dev/null | head -n 1 | sed 's/\.adoc$//')
build_auto=1
if [ -n "$first" ] && [ -x "$BUILD/pidns-tutor" ]; then
    "$BUILD/pidns-tutor" --auto "$first" >/dev/null 2>&1
    build_auto=$?
fi
# Reuse the docs already built (timestamps kept, so make sees them current),
# once no build of them is under way ($BUILD/docs.lock, mk/docs.mk).
[ -d "$BUILD/docs" ] && mkdir -p "$obuild" && flock "$BUILD/docs.lock" cp -a "$BUILD/docs" "$obuild/docs"
if make -s -j2 --no-print-directory $vars install >"$tmp/install.log" 2>&1; then
    ok "make install PREFIX=... DESTDIR=... succeeds"
else
    not_ok "make install PREFIX=... DESTDIR=... succeeds" "$(tail -n 20 "$tmp/install.log")"
    finish
fi

# What must be there: derived from the source tree, not from the makefile.
share=share/pidns-tutor doc=share/doc/pidns-tutor
{
    [ -f shell/main.c ] && echo bin/pidns-tutor
    for f in examples/*.c; do
        [ -f "$f" ] || continue
        n=$(basename "$f" .c)
        echo "libexec/pidns-tutor/$n"; echo "$share/examples/$n.c"
    done
    for f in lessons/*.adoc; do [ -f "$f" ] && echo "$share/lessons/${f#lessons/}"; done
    for f in exercises/[0-9]*/*.c; do [ -f "$f" ] && echo "$share/$f"; done
    for f in lessons/[0-9]*.adoc; do [ -f "$f" ] && echo "$doc/lessons/$(basename "$f" .adoc).html"; done
    for f in docs/man/*.1.adoc; do
        [ -f "$f" ] || continue
        n=$(basename "$f" .adoc); echo "share/man/man1/$n"; echo "$doc/man/$n.html"
    done
    for f in docs/*.adoc; do [ -f "$f" ] && echo "$doc/$(basename "$f" .adoc).html"; done
    echo "$doc/handbook.html"
    command -v asciidoctor-pdf >/dev/null && echo "$doc/handbook.pdf"
    echo share/bash-completion/completions/pidns-tutor
} | sort >"$tmp/want"
(cd "$dest$prefix" && find . ! -type d | sed 's|^\./||' | sort) >"$tmp/got"
if cmp -s "$tmp/want" "$tmp/got"; then
    ok "every file landed under DESTDIR/PREFIX, and nothing else ($(wc -l <"$tmp/want") files)"
else
    not_ok "every file landed under DESTDIR/PREFIX, and nothing else" \
        "missing: $(comm -23 "$tmp/want" "$tmp/got" | tr '\n' ' ')" \
        "extra:   $(comm -13 "$tmp/want" "$tmp/got" | tr '\n' ' ')"
fi
[ -z "$(find "$dest" ! -type d ! -path "$dest$prefix/*")" ] &&
    ok "nothing was written outside DESTDIR/PREFIX" ||
    not_ok "nothing was written outside DESTDIR/PREFIX" "$(find "$dest" -maxdepth 3)"

bad=""
for f in "$dest$prefix"/libexec/pidns-tutor/* "$dest$prefix"/bin/*; do
    [ -e "$f" ] || continue
    [ -x "$f" ] || bad="$bad $f"
done
[ -z "$bad" ] && ok "installed programs are executable" || not_ok "installed programs are executable" "$bad"

# The lessons' include::../examples/NAME.c[...] lines must resolve in the installed tree.
bad=""
for f in "$dest$prefix/$share"/lessons/*.adoc; do
    [ -f "$f" ] || continue
    for target in $(sed -n 's/^include::\([^[]*\)\[.*/\1/p' "$f"); do
        [ -f "$(dirname "$f")/$target" ] || bad="$bad ${f##*/}:$target"
    done
done
[ -z "$bad" ] && ok "the installed lessons' include:: targets all exist" ||
    not_ok "the installed lessons' include:: targets all exist" "unresolved:$bad"

bad=""
for m in "$dest$prefix"/share/man/man1/*.1; do
    [ -f "$m" ] || continue
    MANWIDTH=80 man -l "$m" 2>/dev/null | grep -q . || bad="$bad $m"
done
[ -z "$bad" ] && ok "installed man pages render with man -l" || not_ok "installed man pages render with man -l" "$bad"

# Run the installed program as if it were installed at PREFIX, from /, with the
# build tree gone: it can only use what was installed.
ln -s "$dest$prefix" "$prefix"
rm -rf "$obuild"
tutor=$prefix/bin/pidns-tutor
if [ ! -x "$tutor" ]; then
    skip_test "running the installed pidns-tutor" "shell/main.c does not exist yet"
else
    version=$(sed -n 's/^VERSION *:= *//p' Makefile)
    out=$(cd / && "$tutor" --version 2>&1)
    case $out in
    *"$version"*) ok "installed pidns-tutor --version prints $version" ;;
    *) not_ok "installed pidns-tutor --version prints $version" "got: $out" ;;
    esac
    if [ -z "$first" ]; then
        skip_test "a session of the installed program" "no lessons/ yet"
    else
        out=$(cd / && printf 'lessons\nquit\n' | "$tutor" 2>&1)
        rc=$?
        title=$(sed -n 's/^= *//p' "lessons/$first.adoc" | head -n 1)
        if [ $rc -eq 0 ] && printf '%s' "$out" | grep -qF -- "${title#*: }"; then
            ok "installed pidns-tutor lists its installed lessons with no option"
        else
            not_ok "installed pidns-tutor lists its installed lessons with no option" \
                "exit status $rc, looked for: ${title#*: }" "$(printf '%s' "$out" | head -n 15)"
        fi
        ex=$(ls examples/*.c 2>/dev/null | head -n 1 | xargs -r basename | sed 's/\.c$//')
        if [ -n "$ex" ]; then
            out=$(cd / && printf 'sh command -v %s\nquit\n' "$ex" | "$tutor" 2>&1)
            case $out in
            *"$prefix/libexec/pidns-tutor/$ex"*) ok "the lab runs the installed examples from LIBEXECDIR" ;;
            *) not_ok "the lab runs the installed examples from LIBEXECDIR" "$(printf '%s' "$out" | head -n 10)" ;;
            esac
            want=$(head -n 1 "examples/$ex.c" | cut -c 1-40)
            out=$(cd / && printf 'source %s\nquit\n' "$ex" | "$tutor" 2>&1)
            case $out in
            *"$want"*) ok "source shows the installed example's code from DATADIR/examples" ;;
            *) not_ok "source shows the installed example's code from DATADIR/examples" \
                "looked for: $want" "$(printf '%s' "$out" | head -n 5)" ;;
            esac
        fi
        # The installed copy must do what the build tree's copy does: a lesson
        # that fails in the build tree is not an install problem.
        out=$(cd / && "$tutor" --auto "$first" 2>&1)
        rc=$?
        if [ $rc -eq 0 ]; then
            ok "installed pidns-tutor --auto $first passes"
        elif [ "$build_auto" -ne 0 ]; then
            skip_test "installed pidns-tutor --auto $first" \
                "it fails in the build tree too (exit status $build_auto): not an install problem"
        else
            not_ok "installed pidns-tutor --auto $first passes (it does in the build tree)" \
                "exit status $rc" "$(printf '%s' "$out" | tail -n 15)"
        fi
    fi
fi

rm -f "$prefix"
if make -s --no-print-directory $vars uninstall >"$tmp/uninstall.log" 2>&1; then
    ok "make uninstall succeeds"
else
    not_ok "make uninstall succeeds" "$(tail -n 20 "$tmp/uninstall.log")"
fi
left=$(find "$dest" ! -type d)
[ -z "$left" ] && ok "make uninstall removes every installed file" ||
    not_ok "make uninstall removes every installed file" "left: $left"
left=$(find "$dest" -type d \( -name pidns-tutor -o -path '*/doc/pidns-tutor/*' \))
[ -z "$left" ] && ok "make uninstall removes pidns-tutor's own directories" ||
    not_ok "make uninstall removes pidns-tutor's own directories" "left: $left"
finish
