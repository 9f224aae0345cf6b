#!/bin/sh
# SPDX-License-Identifier: MIT
# check-sh.sh: the shell text the tutor writes out, checked as shell (make
# check-sh): the sources the build turns into C (shell/*/*.sh: the export
# runtime, the conditions' prelude of checks), then every lesson exported by
# the tutor to a scratch directory, each with `sh -n` and `shellcheck -s sh`.
#
#   O=build sh tools/check-sh.sh               check (needs $O/pidns-tutor)
#   O=build sh tools/check-sh.sh --self-test   the negative controls: a
#                                              planted syntax error and a
#                                              planted shellcheck finding
#                                              must each fail
#
# The sources pass shellcheck with no code excluded: the few places that do
# what shellcheck warns of on purpose say why on a `# shellcheck disable=`
# line beside them. The exported scripts are checked with SH_EXPORT_EXCLUDE
# off, because their steps are the lessons' commands as a learner types them
# at a prompt, which the lessons teach as written:
#   SC2086  $pid unquoted (kill $pid), and the runtime's splitting (on
#           purpose, with its own disable line in the source)
#   SC2046  $(...) unquoted (kill $(pgrep sleep))
#   SC2016  a $ inside single quotes, for the inner sh -c to expand
#   SC2012  ls to look at /proc, not find
#   SC2002  cat FILE | ..., as the lesson shows a pipe
#   SC2196  egrep, as typed in the lesson
#   SC2317  "unreachable": the step functions are called only after the
#           script has started itself again in its namespaces (a false
#           positive of shellcheck's flow analysis)
# Every other code (a runtime bug, a quoting error in what export writes)
# fails the check.
set -u
O=${O:-build}
SH_EXPORT_EXCLUDE=SC2086,SC2046,SC2016,SC2012,SC2002,SC2196,SC2317

command -v shellcheck >/dev/null 2>&1 || {
    echo "check-sh: FAIL: shellcheck is not installed (make deps-check installs it)"
    exit 1
}

# Checks each file named ($2...) with sh -n and shellcheck, excluding the
# codes in $1 (may be empty); prints each finding, returns 1 if any.
check_files() {
    excl=$1
    shift
    bad=0
    for f; do
        sh -n "$f" || { echo "check-sh: $f: sh -n fails"; bad=1; }
    done
    shellcheck -s sh -f gcc ${excl:+-e "$excl"} "$@" || bad=1
    return $bad
}

# Every lesson of lessons/, exported by the tutor into directory $1.
export_all() {
    ids='' want=0
    for f in lessons/[0-9]*.adoc; do
        id=${f##*/}
        ids="$ids ${id%.adoc}"
        want=$((want + 1))
    done
    for id in $ids; do echo "export $id $1/$id.sh"; done |
        "$O/pidns-tutor" --lessons lessons >"$1/export.out" 2>&1
    n=0
    for id in $ids; do
        [ -f "$1/$id.sh" ] && n=$((n + 1)) && continue
        echo "check-sh: lesson $id was not exported:"
        tail -n 5 "$1/export.out" | sed 's/^/    /'
    done
    [ "$n" -eq "$want" ] || return 1
    echo "check-sh: $n lessons exported"
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-check-sh.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

if [ "${1:-}" = --self-test ]; then
    fails=0
    printf 'x() {\n    echo "unclosed\n}\n' >"$scratch/syntax.sh"
    cat >"$scratch/finding.sh" <<'EOF'
x() {
    local y=1
    echo "$y"
}
EOF
    for planted in syntax finding; do
        if check_files "" "$scratch/$planted.sh" >"$scratch/out" 2>&1; then
            echo "check-sh: FAIL: a planted $planted error passed"
            fails=1
        else
            echo "check-sh: control: a planted $planted error fails, as it must"
        fi
    done
    # The exclusions of exported scripts must not hide a finding of another code.
    if check_files "$SH_EXPORT_EXCLUDE" "$scratch/finding.sh" >"$scratch/out" 2>&1; then
        echo "check-sh: FAIL: the exported scripts' exclusions hide a planted finding"
        fails=1
    fi
    exit $fails
fi

[ -x "$O/pidns-tutor" ] || { echo "check-sh: FAIL: $O/pidns-tutor is not built"; exit 1; }
fails=0
set -- shell/*/*.sh
check_files "" "$@" || fails=1
echo "check-sh: $# sources checked: $*"
export_all "$scratch" || fails=1
check_files "$SH_EXPORT_EXCLUDE" "$scratch"/*.sh || fails=1
echo "check-sh: exported scripts checked (codes off: $SH_EXPORT_EXCLUDE)"
[ $fails -eq 0 ] && echo "check-sh: ok"
exit $fails
