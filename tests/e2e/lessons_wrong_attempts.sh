#!/bin/sh
# SPDX-License-Identifier: MIT
# lessons_wrong_attempts.sh: the negative controls of the [.wrong] attempts.
# The lessons list, in each exercise, plausible wrong attempts that --auto
# runs from the exercise's starting state and that the check must refuse
# (lessons_auto_all.sh runs them all). This proves the mechanism can fail:
#  - every exercise of every lesson lists at least one [.wrong] attempt;
#  - a copy of a lesson whose [.wrong] attempt is in fact its solution makes
#    --auto fail, naming the attempt;
#  - lesson 11 with its check as it was before $TUTOR_JOBS (a file and no
#    process left, not how the command ended) lets its attempt "the trap's
#    file written by hand" through, and --auto says so: the facts of
#    $TUTOR_JOBS are what catch it;
#  - a check that passes anyway (`true`) fails --auto (before the work);
#  - lesson 22 with its check not reading the namespace's owner (NS_GET_USERNS,
#    through lsns) lets its attempt "the user namespace made after the PID
#    namespace" through: a sleep in a user namespace of its own is not enough.
#  - lesson 13 with its check reading the namespace of the sleep's parent
#    process instead of asking NS_GET_PARENT (lsns PNS) lets "the namespace of
#    the sleep's parent process, a shell beside it" through;
#  - lesson 16 with its check taking a blocked SIGTERM (SigBlk) as handled
#    lets "an init that blocks SIGTERM and never takes it" through;
#  - lesson 23 with its check reading no refusal (a sleep in a user namespace
#    of its own is enough) lets "a limit that leaves room for one more (2)"
#    through: only asking the kernel for one more namespace tells;
#  - lesson 24 with its check taking any sleep 2424, not one with the
#    client's old number, lets "a sleep started without choosing its number"
#    through;
#  - lesson 25 with its check not reading the holder's number in /proc25
#    lets "the lab's own procfs at /proc25" through;
#  - lesson 26 with its check not trying a fresh procfs from inside (only the
#    locked mask) lets "a second procfs, unmasked, left mounted at /proc9"
#    through: any fully visible procfs in the mount namespace allows one;
#  - lesson 28 with its check not reading the container's number (NSpid),
#    only the namespace, lets "the container's PID 1, as docker inspect
#    would give it" through;
#  - lesson 27 with its check reading only the handle's kind, not its ID,
#    lets "the lab's own namespace" through (Linux 6.18 and later: before,
#    the exercise's step is skipped and the case says so).
set -u
. tests/e2e/lib/tap
O=${PIDNS_TUTOR_BUILD:-build}
TUTOR=$O/pidns-tutor
[ -x "$TUTOR" ] || bail_out "$TUTOR is not built (make first)"
plan 15
scratch=$(mktemp -d /tmp/pidns-tutor-wrong.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/state" NO_COLOR=1

# Every exercise has a [.wrong] attempt (a coding exercise, [.program], has
# its wrong programs, wrong-*.c, beside its file instead: the parser
# requires at least one).
lacking=""
for f in lessons/[0-9]*-*.adoc; do
    missing=$(awk '
        $0 == "[.exercise]" { inside = 1; wrongs = 0; at = NR; getline; next }
        inside && ($0 == "[.wrong]" || $0 == "[.program]") { wrongs++ }
        inside && $0 == "====" { inside = 0; if (wrongs == 0) print at }' "$f")
    if [ -n "$missing" ]; then
        lacking="$lacking$f: the exercise at line $missing lists no [.wrong] attempt
"
    fi
done
if [ -z "$lacking" ]; then
    ok "every exercise of every lesson lists a [.wrong] attempt (or wrong programs)"
else
    not_ok "every exercise of every lesson lists a [.wrong] attempt (or wrong programs)" "$lacking"
fi

# case NAME LESSON AWK-PROGRAM: --auto on a copy of LESSON edited by the awk
# program, in the background, in a directory of its own.
n=0
case_() {
    n=$((n + 1))
    dir=$scratch/case$n
    mkdir "$dir" "$dir/lessons"
    ln -s "$(pwd)/examples" "$dir/examples"
    ln -s "$(pwd)/exercises" "$dir/exercises"
    printf '%s\n' "$1" >"$dir/name"
    awk "$3" "lessons/$2.adoc" >"$dir/lessons/01-copy.adoc"
    XDG_STATE_HOME="$dir/state" timeout -s KILL 120 "$TUTOR" --auto 1 --lessons "$dir/lessons" \
        </dev/null >"$dir/out" 2>&1 &
}
# The solution of the (last) exercise, added as a [.wrong] attempt.
solution_as_wrong='
    { lines[NR] = $0 }
    $0 == "[.solution]" { s = NR + 2 }
    END {
        for (i = 1; i <= NR; i++) {
            if (i == NR || (lines[i] == "====" && i > s && s && !done)) {
                if (lines[i] == "====" && !done) {
                    print ""; print ".the solution itself"; print "[.wrong]"; print "----"
                    for (j = s; lines[j] != "----"; j++) print lines[j]
                    print "----"; done = 1
                }
            }
            print lines[i]
        }
    }'
case_ "lesson 7, its solution listed as a wrong attempt" 07-who-sees-whom "$solution_as_wrong"
case_ "lesson 1, its solution listed as a wrong attempt" 01-new-namespace "$solution_as_wrong"
case_ "lesson 11, its check without \$TUTOR_JOBS" 11-a-minimal-init '
    /^need "the program ended through the trap/ { print "need \"no pidns_mini_init is left\" not pgrep -x pidns_mini_init"; next }
    { print }'
case_ "lesson 7, a check that is true" 07-who-sees-whom '
    prev == "[.check]" && $0 == "----" { print; print "true"; skip = 1; prev = ""; next }
    skip && $0 == "----" { skip = 0 }
    skip { next }
    { prev = $0; print }'
case_ "lesson 22, its check without the owner" 22-owners-and-capabilities '
    /^owned\(\) / { print "owned() { own_user; }"; next }
    { print }'
case_ "lesson 18, its solution listed as a wrong attempt" 18-pidfds-and-namespaces "$solution_as_wrong"
case_ "lesson 13, its check reading the parent process's namespace" 13-the-namespace-tree '
    { i = index($0, "lsns -n -o PNS -t pid -p $p")
      if (i) $0 = substr($0, 1, i - 1) "readlink /proc/$(sed -n s/^PPid:.//p /proc/$p/status)/ns/pid" substr($0, i + 27)
      print }'
case_ "lesson 16, its check taking a blocked SIGTERM" 16-containers-in-practice '
    { i = index($0, "0x$c & 0x4000")
      if (i) $0 = substr($0, 1, i - 1) "(0x$c | 0x$(sed -n s/^SigBlk:.//p /proc/$i/status)) & 0x4000" substr($0, i + 13)
      print }'
case_ "lesson 23, its check not asking the kernel" 23-limits '
    /^full\(\) / { print "full() { any own_user; }"; next }
    { print }'
case_ "lesson 24, its check not comparing with the client's number" 24-who-is-on-the-other-end '
    /^reused\(\) / { print "reused() { pgrep -fx \"sleep 2424\"; }"; next }
    { print }'
case_ "lesson 25, its check not asking /proc25 for its number" 25-where-else-the-kernel-keeps-a-pid '
    /numbers the holder 1|both numbers are one process/ { next }
    { print }'
case_ "lesson 26, its check without a fresh procfs" 26-proc-as-containers-restrict-it '
    /^need "its root cannot mount a fresh procfs there"/ { next }
    { print }'
case_ "lesson 28, its check not reading the container's number" 28-seen-from-the-host '
    /^need "the container calls it PID 3/ { next }
    { print }'
kernel_has_6_18=$(printf '6.18\n%s\n' "$(uname -r)" | sort -V | head -n 1)
if [ "$kernel_has_6_18" = 6.18 ]; then
    case_ "lesson 27, its check reading the kind, not the ID" 27-namespace-identity-never-reused '
        /^need "its kind and ID/ { print "need \"its kind is pid\" same \"$(h_names | cut -d\" \" -f1)\" pid"; next }
        /^need "a process inside that namespace opens it/ { next }
        { print }'
fi
wait

verdict() { # N EXPECTED-LINE
    dir=$scratch/case$1
    # the output is wrapped to 80 columns: compare it joined into one line
    if tr '\n' ' ' <"$dir/out" | sed 's/  */ /g' | grep -qF -- "$2" && grep -q "lesson 1 (01-copy): FAILED" "$dir/out" &&
        grep -q "no process, mount or /procN left" "$dir/out"; then
        ok "$(cat "$dir/name"): --auto fails, saying \"$2\""
    else
        not_ok "$(cat "$dir/name"): --auto did not fail with \"$2\""
        tail -n 15 "$dir/out" | sed 's/^/     /'
    fi
}
verdict 1 "check: FAILED: the wrong attempt 'the solution itself' passes it"
verdict 2 "check: FAILED: the wrong attempt 'the solution itself' passes it"
verdict 3 "check: FAILED: the wrong attempt 'the trap's file written by hand, then the program killed' passes it"
verdict 4 "check: FAILED: it passes before the exercise is done"
verdict 5 "check: FAILED: the wrong attempt 'the user namespace made after the PID namespace' passes it"
verdict 6 "check: FAILED: the wrong attempt 'the solution itself' passes it"
verdict 7 "check: FAILED: the wrong attempt 'the namespace of the sleep's parent process, a shell beside it' passes it"
verdict 8 "check: FAILED: the wrong attempt 'an init that blocks SIGTERM and never takes it' passes it"
verdict 9 "check: FAILED: the wrong attempt 'a limit that leaves room for one more (2)' passes it"
verdict 10 "check: FAILED: the wrong attempt 'a sleep started without choosing its number' passes it"
verdict 11 "check: FAILED: the wrong attempt 'the lab's own procfs at /proc25' passes it"
verdict 12 "check: FAILED: the wrong attempt 'a second procfs, unmasked, left mounted at /proc9' passes it"
verdict 13 "check: FAILED: the wrong attempt 'the container's PID 1, as docker inspect would give it' passes it"
if [ "$kernel_has_6_18" = 6.18 ]; then
    verdict 14 "check: FAILED: the wrong attempt 'the lab's own namespace' passes it"
else
    skip "lesson 27, its check reading the kind" "kernel: needs Linux 6.18, this is $(uname -r)"
fi
finish
