#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's route for an exported lesson, as a new user takes it: the
# tutor of a build tree (no make install, no pidns-tutor on PATH, no
# PIDNS_TUTOR_EXAMPLES) is asked `export 1 l1.sh` in a fresh directory, and
# the script is run as the tutor says, `sh l1.sh`, there and from another
# fresh directory; as root with the build tree itself, and as nobody with a
# staged copy of it (a checkout may be unreadable to nobody). The script
# finds the example programs in the directory the tutor recorded in it
# (lab_examples). The negative control: with that directory moved away, the
# same script exits 2 naming the program it cannot find. A tutor that
# records nothing fails the route:
#   PIDNS_TUTOR_BUILD=/path/to/an/older/build sh tests/e2e/lessons_export_route.sh
. tests/e2e/lib/common
. tests/e2e/lib/stage

lesson=1
clean_path=/usr/sbin:/usr/bin:/sbin:/bin
abs_tutor=$(cd "$O" && pwd)/pidns-tutor
if PATH=$clean_path command -v pidns-tutor >/dev/null; then
    echo "note: a pidns-tutor is on $clean_path: the scripts may find the examples beside it"
fi
[ ! -d /usr/local/libexec/pidns-tutor ] ||
    echo "note: /usr/local/libexec/pidns-tutor exists: a script that records nothing finds it"
stage_tree "$scratch/tree" || bail_out "cannot stage a copy of the tree in $scratch/tree"

# as WHO CMD: runs the sh command line CMD as WHO (root or the user running
# this test: directly), with nothing of ours on PATH.
as() {
    if [ "$1" = nobody ]; then
        su nobody -s /bin/sh -c 'exec env -u PIDNS_TUTOR_EXAMPLES PATH="$1" sh -c "$2"' sh "$clean_path" "$2"
    else
        env -u PIDNS_TUTOR_EXAMPLES PATH=$clean_path sh -c "$2"
    fi
}

# export_in WHO TUTOR DIR: makes DIR (WHO's), and in it has TUTOR write
# lesson $lesson to l$lesson.sh, as a learner types it; the tutor's output
# in DIR/tutor.out.
export_in() {
    mkdir -m 755 "$3" && { [ "$1" != nobody ] || chown nobody "$3"; } &&
        as "$1" "cd '$3' && printf 'export $lesson l$lesson.sh\nquit\n' |
            HOME='$3' XDG_STATE_HOME='$3/state' '$2' >tutor.out 2>&1" &&
        [ -f "$3/l$lesson.sh" ]
}

# route WHO TUTOR: the README's route; one result line per run of the script.
route() {
    a=$scratch/$1.a b=$scratch/$1.b
    if ! export_in "$1" "$2" "$a"; then
        bad "as $1: the tutor wrote no l$lesson.sh: $(tail -n 3 "$a/tutor.out" 2>/dev/null | tr '\n' '|')"
        return
    fi
    check "as $1: the tutor says how to run it (sh l$lesson.sh)" grep -q "sh l$lesson.sh" "$a/tutor.out"
    mkdir -m 755 "$b" && { [ "$1" != nobody ] || chown nobody "$b"; }
    for where in "$a:sh l$lesson.sh" "$b:sh $a/l$lesson.sh"; do
        as "$1" "cd '${where%%:*}' && timeout -k 5 120 ${where#*:}" >"$scratch/$1.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q "^Lesson $lesson holds on this machine" "$scratch/$1.out"; then
            ok "as $1, in ${where%%:*}: ${where#*:} exits 0, the lesson holds"
        else
            bad "as $1, in ${where%%:*}: ${where#*:}: exit status $rc: $(grep -m1 -E 'cannot|FAILED' "$scratch/$1.out" || tail -n 2 "$scratch/$1.out" | tr '\n' '|')"
        fi
    done
}

if [ "$(id -u)" -eq 0 ]; then
    route root "$abs_tutor"
    if su nobody -s /bin/sh -c "cd '$scratch/tree' && unshare -Urpf --mount-proc true" 2>/dev/null; then
        route nobody "$scratch/tree/build/pidns-tutor"
    else
        skip "the route as nobody" "kernel: nobody cannot create user namespaces here (a sysctl forbids it)"
    fi
else
    route "$(id -un)" "$abs_tutor"
fi

# The negative control, as the user running the test: a script of the
# staged tree, its recorded directory moved away.
c=$scratch/control
if export_in "$(id -un)" "$scratch/tree/build/pidns-tutor" "$c"; then
    check "the script records where the tutor found its examples" \
        grep -qx "lab_examples='$scratch/tree/build/examples'" "$c/l$lesson.sh"
    mv "$scratch/tree/build/examples" "$scratch/tree/build/examples.away"
    as "$(id -un)" "cd / && timeout -k 5 120 sh '$c/l$lesson.sh'" >"$c/out" 2>&1
    rc=$?
    mv "$scratch/tree/build/examples.away" "$scratch/tree/build/examples"
    check "control: that directory moved away, the script exits 2 (was $rc), naming the program" \
        sh -c "[ $rc -eq 2 ] && grep -q 'cannot find the example program' '$c/out'"
else
    bad "control: the staged tutor wrote no script: $(tail -n 3 "$c/tutor.out" 2>/dev/null | tr '\n' '|')"
fi
check "nothing of the scripts left" nothing_left "l$lesson\.sh|pidns_init_sleep"
finish
