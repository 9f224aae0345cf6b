#!/bin/sh
# SPDX-License-Identifier: MIT
# The tutor's layers: a file of shell/ includes only headers of its own folder
# or of a lower layer, so the calls run one way, along the data path:
#
#   main.c -> session -> cmd -> tutor -> lesson, lab -> render -> procfs -> util
#
# (lesson and lab are side by side: neither includes the other; render sits
# below them so that both may show things, and reads /proc through procfs.)
# Includes of the tutor's own headers name their folder ("lab/lab.h").
#
#   sh tools/layering.sh [DIR]     check DIR (default shell); exit 1 on a breach
#   sh tools/layering.sh --self-test
#                                  the negative control: a copy of shell/ with
#                                  one upward include planted must fail
set -u

rank() { # $1 = folder of shell/; prints its layer (higher calls lower)
    case "$1" in
    .) echo 9 ;; # main.c
    session) echo 8 ;;
    cmd) echo 7 ;;
    tutor) echo 6 ;;
    lesson | lab) echo 5 ;;
    render) echo 4 ;;
    procfs) echo 3 ;;
    util) echo 2 ;;
    *) echo 0 ;;
    esac
}

check() { # $1 = the tree to check
    root=$1 bad=0
    for f in $(cd "$root" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
        case "$f" in */*) from=${f%%/*} ;; *) from=. ;; esac
        from_rank=$(rank "$from")
        if [ "$from_rank" -eq 0 ]; then
            echo "layering: $root/$f: folder '$from' has no layer (add it to tools/layering.sh)"
            bad=1
            continue
        fi
        # Each quoted include as LINE HEADER.
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$root/$f" |
            sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' >"$tmp_list"
        while read -r line header; do
            case "$header" in
            */*) to=${header%%/*} ;;
            *)
                echo "layering: $root/$f:$line: \"$header\" does not name its folder"
                bad=1
                continue
                ;;
            esac
            [ "$to" = "$from" ] && continue
            to_rank=$(rank "$to")
            if [ "$to_rank" -eq 0 ] || [ "$to_rank" -ge "$from_rank" ]; then
                echo "layering: $root/$f:$line: $from includes \"$header\" of a layer not below it"
                bad=1
            fi
        done <"$tmp_list"
    done
    return $bad
}

tmp_list=$(mktemp)
trap 'rm -f "$tmp_list"' EXIT

if [ "${1:-}" = --self-test ]; then
    scratch=$(mktemp -d)
    trap 'rm -f "$tmp_list"; rm -rf "$scratch"' EXIT
    cp -r shell "$scratch/shell"
    printf '#include "session/session.h"\n' >>"$scratch/shell/procfs/procfs.c"
    if out=$(check "$scratch/shell"); then
        echo "layering: FAIL: an upward include (procfs -> session) was not found"
        exit 1
    fi
    case "$out" in
    *"procfs/procfs.c:"*"procfs includes \"session/session.h\""*) ;;
    *)
        echo "layering: FAIL: the planted include was not the breach named:"
        echo "$out"
        exit 1
        ;;
    esac
    echo "layering: ok: a planted upward include (procfs -> session) is caught"
    exit 0
fi

root=${1:-shell}
if check "$root"; then
    echo "layering: ok: every include in $root/ points to its own folder or a lower layer"
else
    exit 1
fi
