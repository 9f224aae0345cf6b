# SPDX-License-Identifier: MIT
# examples_new.sh: a new example's first files, and the negative controls of
# tools/examples.sh (sourced by it, not run).

# The three files a new example starts from: its source (MIT-0, one file,
# its --help and its one-line error for a bad argument already there), its
# reference page, and its recorded session.
examples_template_c() { # $1 = NAME
    sed "s/@NAME@/$1/g" <<'EOF'
/* SPDX-License-Identifier: MIT-0 */
/* @NAME@.c: TODO: what it shows, in one line.
 *
 * TODO: what the kernel does here, and how the program makes it visible.
 *
 * Build:  cc -o @NAME@ @NAME@.c
 * Run:    sudo ./@NAME@                 (or: unshare -Urpf ./@NAME@)
 * Exit status 0, or 1 with one line "@NAME@: what failed: why".
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: %s\nTODO: what it shows.\n", argv[0]);
        return EXIT_SUCCESS;
    }
    if (argc > 1)
        errx(EXIT_FAILURE, "%s '%s' (try '@NAME@ --help')",
             argv[1][0] == '-' ? "unknown option" : "unexpected argument", argv[1]);
    printf("PID %ld\n", (long)getpid());
    return EXIT_SUCCESS;
}
EOF
}

examples_template_man() { # $1 = NAME
    sed "s/@NAME@/$1/g" <<'EOF'
// SPDX-License-Identifier: MIT
= @NAME@(1)
:doctype: manpage
:manmanual: pidns-tutor manual
:mansource: pidns-tutor {pidns-tutor-version}

== NAME

@NAME@ - TODO: what it shows, in one line

== SYNOPSIS

*@NAME@*

*@NAME@* *-h*|*--help*

== DESCRIPTION

TODO: what the kernel does, in our own words, and what the program prints.

== OPTIONS

*-h*, *--help*::
Print a short usage text and exit.

== EXIT STATUS

*0* done; *1* on a bad argument or when a system call fails.

== EXAMPLES

Run as root, recorded inside a private mount namespace and a PID namespace of
its own (as in the *pidns-tutor* lab):

....
include::../samples/@NAME@.txt[]
....

== FILES

_{libexecdir}/@NAME@_::
The installed program.

_{datadir}/examples/@NAME@.c_::
Its source: one self-contained file, *cc -o @NAME@ @NAME@.c*.

== COPYRIGHT

Copyright 2026 the pidns-tutor authors. This program's source is under the MIT
No Attribution licence (MIT-0): copy it, change it, paste its functions into
your own code, with no notice to keep.

== SEE ALSO

*pidns-tutor*(1), *pid_namespaces*(7)

ifdef::backend-html5[]
== SOURCE

[source,c]
----
include::../../examples/@NAME@.c[]
----
endif::[]
EOF
}

# examples_insert FILE PATTERN TEXT: TEXT as a new line after the last line
# of FILE matching the awk PATTERN; returns 1 (FILE unchanged) if none does.
examples_insert() {
    awk -v text="$3" "$2"' { last = NR } { line[NR] = $0 }
        END { if (!last) exit 1; for (i = 1; i <= NR; i++) { print line[i]; if (i == last) print text } }' \
        "$1" >"$1.new" && cat "$1.new" >"$1"
    rc=$?
    rm -f "$1.new"
    return $rc
}

# The rows of the shared lists, each with its TODO where a sentence of ours
# is needed (the check counts a row with a TODO as missing). The bad-input
# row is the template's own message, so it holds as it is. An anchor not
# found leaves its row to be written by hand (the check names it).
examples_new_rows() { # $1 = top, $2 = NAME
    t=$1 n=$2
    id=$(echo "$n" | tr _ -)
    examples_insert "$t/docs/index.adoc" '/^link:man\//' \
        "link:man/$n.1.html[$n(1)]:: TODO: what it shows, in one line"
    examples_insert "$t/README.md" '/^\| `(pidns_|multi_pidns)/' "| \`$n\` | TODO: what it shows |"
    examples_insert "$t/docs/bad-input.adoc" '/^\| ex-/' \
        "| ex-$id-arg | \`\`++$n x++\`\` | \`\`++$n: unexpected argument 'x' (try '$n --help')++\`\` | stderr | 1 | nothing"
    # SEE ALSO: the list of example programs ends "*LAST*(1)."
    awk -v n="$n" '/^The example programs:/ { inlist = 1 }
        inlist && /\(1\)\.$/ { sub(/\.$/, ", *" n "*(1)."); inlist = 0 } { print }' \
        "$t/docs/man/pidns-tutor.1.adoc" >"$t/see-also.new" && cat "$t/see-also.new" >"$t/docs/man/pidns-tutor.1.adoc"
    rm -f "$t/see-also.new"
    # shellcheck disable=SC2016 # $logs is text to match, not to expand
    examples_insert "$t/tests/hardening/valgrind.sh" '/^cat >"\$logs\/examples.in" <</' "$n"
    examples_insert "$t/tests/bench/memory.sh" "/^cases='/" "$n"
}

# Makes the three files in tree $1 and its rows in the shared lists, then
# says what is still missing. A bad name, or one already taken, is refused
# with one line, and nothing made.
examples_new() { # $1 = top, $2 = NAME
    case $2 in
    "" | *[!a-z0-9_]* | [!a-z]*)
        echo "examples: '$2' is not a name for an example: lower-case letters, digits and _, a letter first (make new-example NAME=pidns_thing)" >&2
        return 2
        ;;
    esac
    for f in "examples/$2.c" "docs/man/$2.1.adoc" "docs/samples/$2.session"; do
        if [ -e "$1/$f" ]; then
            echo "examples: $f already exists: nothing made" >&2
            return 2
        fi
    done
    examples_template_c "$2" >"$1/examples/$2.c"
    examples_template_man "$2" >"$1/docs/man/$2.1.adoc"
    echo "$2" >"$1/docs/samples/$2.session"
    examples_new_rows "$1" "$2"
    echo "examples: made examples/$2.c, docs/man/$2.1.adoc and docs/samples/$2.session, and"
    echo "examples: rows in docs/index.adoc, README.md, docs/bad-input.adoc, pidns-tutor(1)'s SEE ALSO,"
    echo "examples: tests/hardening/valgrind.sh and tests/bench/memory.sh (git diff shows them)"
    echo "examples: still to do, each checked by make check (tools/examples.sh):"
    examples_missing "$1" "$2" | sed 's/^examples: [^:]*: missing /  /'
    return 0
}

# The negative controls, in a copy of what the checks read.
examples_self_test() {
    top=$(cd "$(dirname "$0")/.." && pwd)
    st=$(mktemp -d)
    trap 'rm -rf "$st"' EXIT
    failed=0
    (cd "$top" && tar cf - examples docs/man docs/samples docs/index.adoc docs/bad-input.adoc \
        docs/lesson-format.adoc README.md tests/integration tests/hardening/valgrind.sh \
        tests/bench/memory.sh lessons) | (cd "$st" && tar xf -)
    if ! examples_check "$st" >"$st/out" 2>&1; then
        echo "examples: self-test: the copy of the tree fails before anything is planted:"
        cat "$st/out"
        return 1
    fi
    # An example with its source only: every other companion must be named.
    printf '/* SPDX-License-Identifier: MIT-0 */\nint main(void) { return 0; }\n' >"$st/examples/pidns_planted.c"
    examples_check "$st" >"$st/out" 2>&1 && failed=1
    want=$(($(examples_companions | wc -l) - 1))
    got=$(grep -c '^examples: pidns_planted: missing ' "$st/out")
    [ "$got" = "$want" ] || {
        echo "examples: self-test: a planted example with its source only: $got of $want companions named"
        failed=1
    }
    rm "$st/examples/pidns_planted.c"
    # An existing example loses its man page, its README row and its memory case.
    rm "$st/docs/man/pidns_orphan.1.adoc"
    sed -i '/^| `pidns_orphan/d' "$st/README.md"
    sed -i '/^pidns_orphan$/d' "$st/tests/bench/memory.sh"
    examples_check "$st" >"$st/out" 2>&1 && failed=1
    for id in man readme memory; do
        grep -q "^examples: pidns_orphan: missing $id:" "$st/out" || {
            echo "examples: self-test: pidns_orphan without its $id: not named"
            failed=1
        }
    done
    # --new makes files that build with the project's warnings, and lists the rest.
    examples_new "$st" pidns_fresh >"$st/new.out" 2>&1 &&
        ${CC:-cc} -Wall -Wextra -Werror -o "$st/pidns_fresh" "$st/examples/pidns_fresh.c" &&
        "$st/pidns_fresh" x 2>"$st/err" >/dev/null
    # Its rows are made (see-also, bad-input...); those with a TODO are not done.
    if [ $? != 1 ] || ! grep -qx "pidns_fresh: unexpected argument 'x' (try 'pidns_fresh --help')" "$st/err" ||
        [ "$(sed -n 's/^  \([a-z-]*\): .*/\1/p' "$st/new.out" | tr '\n' ' ')" != \
            "source man sample index readme lesson-format test lesson " ]; then
        echo "examples: self-test: make new-example did not make a building example, or its list is wrong:"
        cat "$st/new.out" "$st/err" 2>/dev/null
        failed=1
    fi
    examples_new "$st" pidns_fresh >/dev/null 2>&1 && {
        echo "examples: self-test: make new-example over an existing example was not refused"
        failed=1
    }
    examples_new "$st" 'Bad-Name' >/dev/null 2>&1 && {
        echo "examples: self-test: a bad name was not refused"
        failed=1
    }
    [ "$failed" = 0 ] && echo "examples: self-test: planted gaps are found, each companion named; make new-example builds"
    return $failed
}
