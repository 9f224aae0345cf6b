#!/bin/sh
# SPDX-License-Identifier: MIT
# examples.sh: what an example program needs beside its source, which of it
# each example still lacks, and a new example's first files
# (docs/hacking.adoc, "A new example program").
#
#   sh tools/examples.sh [DIR]          check every examples/*.c of DIR
#                                       (default .): one line per missing
#                                       companion, exit 1 if there is one
#   sh tools/examples.sh --missing NAME [DIR]
#                                       what example NAME still lacks
#   sh tools/examples.sh --list         the companions, one a line, and where
#   sh tools/examples.sh --new NAME [DIR]
#                                       make examples/NAME.c, its man page
#                                       and its recorded session from
#                                       templates, then say what is still
#                                       missing (make new-example NAME=x)
#   sh tools/examples.sh --self-test    the negative controls: in a copy of
#                                       the tree, an example with only its
#                                       source, and an existing one with
#                                       companions taken away, must fail,
#                                       each companion named; a new one
#                                       made by --new must build
#
# The companions are looked for as the tests that use them look for them
# (tests/e2e/test_docs.sh, test_bad_input.sh): a companion found here is one
# those tests find.
set -u

# The one list: ID, a tab, where it goes (shown to whoever adds an example).
examples_companions() {
    cat <<'EOF'
source	examples/NAME.c: its comment, --help and code written (no TODO left)
man	docs/man/NAME.1.adoc: its reference page (no TODO left)
session	docs/samples/NAME.session: the commands of its recorded session
sample	docs/samples/NAME.txt: their output (make docs-samples, as root)
index	docs/index.adoc: a link:man/NAME.1.html[...] entry (no TODO left)
see-also	docs/man/pidns-tutor.1.adoc: *NAME*(1) under SEE ALSO
readme	README.md: a row of the examples table, | `NAME ...` | (no TODO left)
bad-input	docs/bad-input.adoc: a row (ex-...) for each wrong argument, input ``++NAME ...++``
lesson-format	docs/lesson-format.adoc: `NAME` in the list of programs a lesson may run
test	tests/integration/*.c: a test of what it shows, on the real kernel
valgrind	tests/hardening/valgrind.sh: a line running it under valgrind
memory	tests/bench/memory.sh: a case of its peak memory
lesson	lessons/NN-*.adoc: a lesson that runs it
EOF
}

# Companions an example may lack, with the reason: NAME, a tab, ID, a tab,
# why. Each is a known gap, to be closed rather than added to.
examples_allowed() {
    cat <<'EOF'
pidns_init_signals	valgrind	valgrind handles every signal, so an init under it is not protected (valgrind.sh); make check-asan runs it
pidns_kill_probe	valgrind	as pidns_init_signals: its probes wait for answers that never come under valgrind (valgrind.sh)
pidns_parents	lesson	no lesson runs it yet
pidns_parents	valgrind	not yet run under valgrind (make check-valgrind)
pidns_probe	lesson	no lesson runs it yet
EOF
}

# Does example $2 of tree $1 have companion $3? Exit status 0 if it does.
examples_has() { # $1 = top, $2 = NAME, $3 = ID
    t=$1 n=$2
    case $3 in
    source) ! grep -q TODO "$t/examples/$n.c" ;;
    man) [ -f "$t/docs/man/$n.1.adoc" ] && ! grep -q TODO "$t/docs/man/$n.1.adoc" ;;
    session) [ -f "$t/docs/samples/$n.session" ] ;;
    sample) [ -f "$t/docs/samples/$n.txt" ] ;;
    index) grep -F "man/$n.1.html" "$t/docs/index.adoc" | grep -qv TODO ;;
    see-also) grep -qF "*$n*(1)" "$t/docs/man/pidns-tutor.1.adoc" ;;
    readme) grep "^| \`${n}[\` ]" "$t/README.md" | grep -qv TODO ;;
    bad-input) grep -q "^| ex-[a-z0-9-]* | \`\`++${n}[ +]" "$t/docs/bad-input.adoc" ;;
    lesson-format) grep -q "\`${n}[\` ]" "$t/docs/lesson-format.adoc" ;;
    test) grep -qw "$n" "$t"/tests/integration/*.c ;;
    valgrind) grep -v '^[[:blank:]]*#' "$t/tests/hardening/valgrind.sh" | grep -qw "$n" ;;
    memory) grep -Eq "^(cases=')?(TERM )?$n( |'|\$)" "$t/tests/bench/memory.sh" ;;
    lesson) grep -qw "$n" "$t"/lessons/[0-9]*.adoc ;;
    *) return 1 ;;
    esac
}

examples_allowed_reason() { # $1 = NAME, $2 = ID
    examples_allowed | awk -F '\t' -v n="$1" -v id="$2" '$1 == n && $2 == id { print $3 }'
}

# Prints "examples: NAME: missing ID: WHERE" for each companion NAME lacks;
# exit status 1 if there is one.
examples_missing() { # $1 = top, $2 = NAME
    miss=0
    tab=$(printf '\t')
    while IFS=$tab read -r id where; do
        examples_has "$1" "$2" "$id" && continue
        [ -n "$(examples_allowed_reason "$2" "$id")" ] && continue
        echo "examples: $2: missing $id: $(echo "$where" | sed "s/NAME/$2/g")"
        miss=1
    done <<EOF
$(examples_companions)
EOF
    return $miss
}

examples_check() { # $1 = top
    bad=0 count=0
    for f in "$1"/examples/*.c; do
        [ -f "$f" ] || continue
        count=$((count + 1))
        examples_missing "$1" "$(basename "$f" .c)" || bad=1
    done
    # An allowance for a companion that is there is stale: say so.
    tab=$(printf '\t')
    while IFS=$tab read -r n id _; do
        [ -n "$n" ] || continue
        if [ ! -f "$1/examples/$n.c" ] || examples_has "$1" "$n" "$id"; then
            echo "examples: $n: the allowance for $id in tools/examples.sh is stale: remove it"
            bad=1
        fi
    done <<EOF
$(examples_allowed)
EOF
    [ "$bad" = 0 ] && echo "examples: each of the $count examples has its $(examples_companions | wc -l) companions (or an allowance)"
    return $bad
}

# shellcheck source=tools/examples_new.sh
. "$(dirname "$0")/examples_new.sh"

case ${1:-} in
--list)
    examples_companions | sed 's/^[^	]*	/  /'
    ;;
--missing)
    [ $# -ge 2 ] || { echo "usage: sh tools/examples.sh --missing NAME [DIR]" >&2; exit 2; }
    [ -f "${3:-.}/examples/$2.c" ] || { echo "examples: no examples/$2.c" >&2; exit 2; }
    examples_missing "${3:-.}" "$2" && echo "examples: $2 has every companion"
    ;;
--new)
    [ $# -ge 2 ] || { echo "usage: make new-example NAME=name_of_program" >&2; exit 2; }
    examples_new "${3:-.}" "$2"
    ;;
--self-test)
    examples_self_test
    ;;
-*)
    echo "examples: unknown option '$1' (see the top of tools/examples.sh)" >&2
    exit 2
    ;;
*)
    examples_check "${1:-.}"
    ;;
esac
