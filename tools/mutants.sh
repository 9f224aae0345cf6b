#!/bin/sh
# SPDX-License-Identifier: MIT
# mutants.sh: the checks themselves are checked (make check-mutants, run by
# make check). Each mutant is a deliberate fault planted in a scratch copy of
# the tree; the tests that should notice it are run against that copy, and
# must fail. A mutant they let through fails this run: some check has
# stopped checking. A mutant whose fault no longer applies (the code it
# edits was rewritten) fails too, asking for the mutant to be updated.
#
#   O=build sh tools/mutants.sh [NAME]
#
# The copy reuses the built objects (timestamps kept), so only what a mutant
# touches is rebuilt. The control and the mutants run side by side, each in
# its own copy, MUTANT_JOBS (2) at a time; each one's lines are printed
# whole, in order, once all have ended.
set -u
O=${O:-build}
only=${1:-}
src=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-mutants.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
[ -x "$O/pidns-tutor" ] || { echo "check-mutants: $O is not built (make all)"; exit 1; }
failed=0 caught=0
jobs=${MUTANT_JOBS:-2}
started=""

# spawn NAME FUNCTION ARGS...: runs FUNCTION in the background (at most
# $jobs at a time), its output in $work/NAME.out, its status in NAME.status.
spawn() {
    while [ "$(for j in $started; do [ -f "$work/$j.status" ] || echo "$j"; done | wc -l)" -ge "$jobs" ]; do
        sleep 0.1
    done
    name=$1
    shift
    ("$@" >"$work/$name.out" 2>&1; echo $? >"$work/$name.status.new"; mv "$work/$name.status.new" "$work/$name.status") &
    started="$started $name"
}

# The tree's files: those git tracks, or out of a git checkout (a release
# tarball) every file but .git/, the build directories and build products.
tree_files() {
    if [ -z "$(git rev-parse --show-prefix 2>/dev/null)" ] &&
        git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z
    else
        find . -type d \( -name .git -o -name 'build*' -o -path "./${O#./}" \) -prune -o ! -type d \
            ! -name '*.o' ! -name '*.a' ! -name '*.d' ! -name core ! -name 'vgcore.*' -print0 |
            sed -z 's|^\./||'
    fi
}

copy_tree() { # into $1: the tree's files as they are now, and the build
    mkdir -p "$1/build"
    tree_files | xargs -0 cp -P --parents -p -t "$1"
    (cd "$O" && cp -pr examples gen obj libtutor.a pidns-tutor tests "$1/build/" &&
        cp -p ./*.stamp "$1/build/" 2>/dev/null)
}

# The negative control: with no fault planted, every test a mutant uses
# passes in a copy (else a mutant would be "caught" by a broken copy).
control() {
    copy=$work/control
    copy_tree "$copy"
    for t in "build/tests/integration/test_examples" "build/tests/integration/test_lab" \
        "sh tests/e2e/test_bad_input.sh ex-multi-zero" "build/pidns-tutor --auto $checked --lessons lessons"; do
        # shellcheck disable=SC2086
        if ! (cd "$copy" && PIDNS_TUTOR_BUILD=build PIDNS_TUTOR_SRC="$copy" O=build $t) >"$work/control.log" 2>&1; then
            tail -20 "$work/control.log"
            echo "check-mutants: FAIL: '$t' fails in an unchanged copy of the tree"
            return 1
        fi
    done
    echo "check-mutants: control: the tests pass in an unchanged copy"
    rm -rf "$copy"
}

# mutant NAME FILE PERL-SUBSTITUTION -- TEST COMMAND...: plants the fault
# (the substitution must change FILE) in a fresh copy and runs the test
# command there; the test must fail.
mutant() {
    case $1 in *"$only"*) ;; *) return ;; esac
    spawn "$1" plant "$@"
}
# The mutant's work (in the background): exits 0 if it was caught.
plant() {
    name=$1 file=$2 edit=$3
    shift 4
    copy=$work/$name
    copy_tree "$copy"
    cp "$copy/$file" "$copy/$file.orig"
    perl -0pi -e "$edit" "$copy/$file"
    if cmp -s "$copy/$file" "$copy/$file.orig"; then
        echo "check-mutants: FAIL: $name: the fault no longer applies to $file (update tools/mutants.sh)"
        return 1
    fi
    rm "$copy/$file.orig"
    if ! make -C "$copy" O=build all >"$copy/make.log" 2>&1; then
        tail -5 "$copy/make.log"
        echo "check-mutants: FAIL: $name: the mutant does not build"
        return 1
    fi
    start=$(date +%s)
    if (cd "$copy" && PIDNS_TUTOR_BUILD=build PIDNS_TUTOR_SRC="$copy" O=build "$@") >"$copy/test.log" 2>&1; then
        echo "check-mutants: FAIL: $name survived: '$*' passed with the fault planted in $file"
        rm -rf "$copy"
        return 1
    fi
    echo "check-mutants: $name caught by '$*' ($(($(date +%s) - start)) s): $(grep -a -m1 -E 'FAIL|not ok|expected|ERROR' "$copy/test.log" | cut -c 1-120)"
    rm -rf "$copy"
}

# The first lesson with an exercise, and its number.
checked_lesson=$(grep -l '^\[\.check\]' lessons/[0-9]*-*.adoc | head -n 1)
checked=$(basename "$checked_lesson" | sed 's/^0*\([0-9]*\)-.*/\1/')
spawn control control

# A lesson's check replaced by `true`: it passes before the work, which
# --auto must notice (it runs each check before the solution too).
mutant check-is-true "$checked_lesson" \
    's/(\[\.check\]\n----\n)[^\n]+/${1}true/' -- build/pidns-tutor --auto "$checked" --lessons lessons

# An example forgets to unmount: its /procN stays mounted after it ends.
mutant forgets-to-unmount examples/pidns_init_sleep.c \
    's/\bumount2?\(mountPoint(, *0)?\)/0/g' -- build/tests/integration/test_examples

# An example's error message loses its last words.
mutant message-shortened examples/multi_pidns.c \
    's/(N must be at least 1), got %s", text\)/$1%.0s", text)/' -- sh tests/e2e/test_bad_input.sh ex-multi-zero

# The lab's cleanup leaves one kind of process (sleep) running. (Found by
# its comment, wherever the shell's folders put it.)
sweep=$(grep -rlF 'an init of a nested namespace takes all of it along' shell | head -n 1)
mutant cleanup-leaves-a-process "${sweep:-shell/lab/lab_sweep.c}" \
    's/if \(s->kill_them\)(\s*kill\(pid, SIGKILL\);)/if (s->kill_them && strcmp(st.name, "sleep") != 0)$1/' \
    -- build/tests/integration/test_lab

# The table's expected message loses its last words: the bad-input test
# compares messages exactly, so it must notice.
mutant table-message-shortened docs/bad-input.adoc \
    's/(\| ex-multi-zero \|.*?N must be at least 1), got 0\+\+/$1++/' -- sh tests/e2e/test_bad_input.sh ex-multi-zero

# All ended: the control first (a mutant counts only beside a passing
# control), then each mutant, in order.
wait
control_ok=1
for j in $started; do
    cat "$work/$j.out"
    st=$(cat "$work/$j.status" 2>/dev/null || echo 1)
    if [ "$j" = control ]; then
        [ "$st" -eq 0 ] || control_ok=0
    elif [ "$st" -eq 0 ]; then
        caught=$((caught + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "check-mutants: $caught caught, $failed not"
[ $control_ok -eq 1 ] && [ $failed -eq 0 ] && [ $caught -gt 0 ]
