#!/bin/sh
# SPDX-License-Identifier: MIT
# No call circles between the tutor's files: from the compiled objects (nm),
# file A calls file B when A uses a symbol B defines; the calls between files
# must form no loop (tsort finds one), so that each file can be read knowing
# only the files below it.
#
#   sh tools/call_circles.sh OBJDIR [OBJ...]
#                                       check the objects under OBJDIR (or
#                                       only those listed, so that a stale
#                                       object of a removed file is no part)
#   sh tools/call_circles.sh --self-test
#                                       the negative control: two objects
#                                       calling each other must be caught
set -u

objects() { # $1 = object dir, then the objects (all under the dir if none)
    dir=$1
    shift
    if [ $# -gt 0 ]; then printf '%s\n' "$@"; else find "$dir" -name '*.o' | sort; fi
}

edges() { # $1 = object dir, then the objects; prints "FROM TO" for each call between files
    dir=$1
    objects "$@" | while read -r o; do
        name=${o#"$dir"/}
        name=${name%.o}
        nm -g --defined-only "$o" | awk -v f="$name" 'NF == 3 { print "D " $3 " " f }'
        nm -u "$o" | awk -v f="$name" '{ print "U " $2 " " f }'
    done | awk '$1 == "D" { def[$2] = $3; next }
        { use[NR] = $2; from[NR] = $3 }
        END { for (i in use) if ((use[i] in def) && def[use[i]] != from[i]) print from[i], def[use[i]] }' |
        sort -u
}

check() { # $1 = object dir, then the objects
    if [ -z "$(objects "$@" 2>/dev/null | head -1)" ]; then
        echo "call-circles: no objects under $1 (build first)"
        return 1
    fi
    loops=$(edges "$@" | tsort 2>&1 >/dev/null)
    if [ -n "$loops" ]; then
        echo "call-circles: files of $1 call each other in a circle:"
        echo "$loops" | sed -n 's/^tsort: \([^-].*\)$/    \1/p'
        return 1
    fi
    return 0
}

if [ "${1:-}" = --self-test ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir -p "$scratch/a" "$scratch/b"
    printf 'int b(void);\nint a(void) { return b(); }\n' >"$scratch/a/a.c"
    printf 'int a(void);\nint b(void) { return a(); }\n' >"$scratch/b/b.c"
    ${CC:-cc} -c -o "$scratch/a/a.o" "$scratch/a/a.c" && ${CC:-cc} -c -o "$scratch/b/b.o" "$scratch/b/b.c" ||
        { echo "call-circles: FAIL: cannot build the self-test's objects"; exit 1; }
    out=$(check "$scratch")
    case "$out" in
    *"a/a"*"b/b"* | *"b/b"*"a/a"*) ;;
    *)
        echo "call-circles: FAIL: a planted circle (a.c <-> b.c) was not found: $out"
        exit 1
        ;;
    esac
    rm "$scratch/b/b.o"
    printf 'int b(void) { return 0; }\n' >"$scratch/b/b.c"
    ${CC:-cc} -c -o "$scratch/b/b.o" "$scratch/b/b.c"
    if ! check "$scratch" >/dev/null; then
        echo "call-circles: FAIL: one-way calls (a.c -> b.c) were taken for a circle"
        exit 1
    fi
    echo "call-circles: ok: a planted circle (a.c <-> b.c) is caught, one-way calls pass"
    exit 0
fi

dir=${1:?usage: sh tools/call_circles.sh OBJDIR [OBJ...] | --self-test}
check "$@" || exit 1
echo "call-circles: ok: the files of $dir call one way"
