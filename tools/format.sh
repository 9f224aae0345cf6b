#!/bin/sh
# SPDX-License-Identifier: MIT
# format.sh: every C file git knows of is laid out as the tree's .clang-format
# says (clang-format, Debian's package of the same name).
#
#   sh tools/format.sh              check: list each file that differs, exit 1
#                                   if one does
#   sh tools/format.sh --fix        rewrite the files that differ, then check
#   sh tools/format.sh --self-test  the negative control: a planted file laid
#                                   out by hand must be caught, and the same
#                                   file formatted must pass
#
# The tree was formatted with clang-format 14 (Debian 12). Another major
# version may lay out a few lines differently: the check then says so and
# skips, rather than fail a tree it never saw (FORMAT_VERSION overrides).
set -u

FORMAT_VERSION=${FORMAT_VERSION:-14}

format_files() {
    git ls-files --cached --others --exclude-standard -- '*.c' '*.h' 2>/dev/null ||
        find . -name '*.[ch]' ! -path './build*' ! -path './.git/*' | sed 's|^\./||'
}

format_differs() { # $1 = file; true when clang-format would change it
    clang-format --style=file "$1" | cmp -s - "$1" && return 1
    return 0
}

format_version_ok() {
    major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
    if [ "$major" != "$FORMAT_VERSION" ]; then
        echo "check-format: SKIP: clang-format $major here; the tree is laid out by $FORMAT_VERSION" \
            "(set FORMAT_VERSION=$major to check against it)"
        return 1
    fi
}

format_check() {
    n=0 bad=0
    for f in $(format_files); do
        n=$((n + 1))
        if format_differs "$f"; then
            echo "check-format: $f differs from .clang-format (sh tools/format.sh --fix)"
            bad=$((bad + 1))
        fi
    done
    [ "$n" -gt 0 ] || { echo "check-format: FAIL: no C file found"; return 1; }
    [ "$bad" -eq 0 ] || { echo "check-format: $bad of $n C files differ"; return 1; }
    echo "check-format: $n C files laid out as .clang-format says"
}

format_self_test() {
    dir=$(mktemp -d) || return 1
    trap 'rm -rf "$dir"' EXIT
    cp .clang-format "$dir/"
    printf 'int main(void) { int a=1;   return a-1; }\n' >"$dir/planted.c"
    if (cd "$dir" && format_differs planted.c); then
        echo "check-format: control: a planted file laid out by hand is caught"
    else
        echo "check-format: FAIL: a planted file laid out by hand passes"
        return 1
    fi
    clang-format --style=file -i "$dir/planted.c" 2>/dev/null ||
        (cd "$dir" && clang-format --style=file -i planted.c)
    if (cd "$dir" && format_differs planted.c); then
        echo "check-format: FAIL: the planted file, formatted, still differs"
        return 1
    fi
}

command -v clang-format >/dev/null 2>&1 || {
    echo "check-format: FAIL: clang-format is missing (apt-get install clang-format)"
    exit 1
}
case "${1:-}" in
--self-test) format_version_ok || exit 0; format_self_test ;;
--fix)
    for f in $(format_files); do
        format_differs "$f" && clang-format --style=file -i "$f"
    done
    format_check
    ;;
'') format_version_ok || exit 0; format_check ;;
*) echo "usage: sh tools/format.sh [--fix | --self-test]" >&2; exit 2 ;;
esac
