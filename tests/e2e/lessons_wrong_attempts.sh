#!/bin/sh
# lessons_wrong_attempts.sh: the checks of the real lessons tell a wrong
# attempt from the work. For each exercise below, a copy of its lesson has
# the worked solution replaced by a plausible wrong attempt; --auto must then
# report "check: FAILED" for it (the check observes the kernel state the
# exercise asks for, not just any end state). --auto itself already proves,
# on every lesson, that each check fails before the work and passes after
# the solution.
set -u
O=${PIDNS_TUTOR_BUILD:-build}
TUTOR=$O/pidns-tutor
if [ ! -x "$TUTOR" ]; then
    echo "FAIL $TUTOR is not built (make first)"
    exit 1
fi
scratch=$(mktemp -d /tmp/pidns-tutor-wrong.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/state" NO_COLOR=1
fails=0

# wrong LESSON DESCRIPTION ATTEMPT: the lesson with ATTEMPT as its last
# exercise's solution must fail that check. Each case runs in the
# background in a directory of its own (most of a case is --auto waiting a
# few seconds for a check that never passes); verdict reads the results.
n=0
wrong() {
    n=$((n + 1))
    dir=$scratch/case$n
    mkdir "$dir" "$dir/lessons"
    ln -s "$(pwd)/examples" "$dir/examples"
    printf '%s: %s\n' "$1" "$2" >"$dir/name"
    awk -v attempt="$3" '
        { lines[NR] = $0 }
        $0 == "[.solution]" { last = NR }
        END {
            for (i = 1; i <= NR; i++) {
                print lines[i]
                if (i == last + 1) { # the opening ---- of the last solution
                    print attempt
                    while (lines[i + 1] != "----") i++
                }
            }
        }' "lessons/$1.adoc" >"$dir/lessons/01-wrong.adoc"
    XDG_STATE_HOME="$dir/state" timeout -s KILL 120 "$TUTOR" --auto 1 --lessons "$dir/lessons" \
        </dev/null >"$dir/out" 2>&1 &
}

wrong 01-new-namespace "a second namespace made by another program" "pidns_proc_mount sleep 600"
wrong 01-new-namespace "a sleep in the lab's own namespace" "sh -c 'exec sleep 601'"
wrong 07-who-sees-whom "the PID the namespace gives (1)" "echo 1 > /answer"
wrong 07-who-sees-whom "the parent program's PID" "pidof pidns_init_sleep > /answer"
wrong 09-init-and-signals "SIGKILL instead of a trap" "kill -KILL \$(pgrep -f '^sh -c while')"
wrong 09-init-and-signals "a trap in a shell that is not PID 1" \
    "sh -c 'trap \"echo \$\$ > /got-term; exit\" TERM; kill -TERM \$\$; sleep 1'"
wrong 10-orphans "the orphan's own PID" "pgrep -fx 'sleep 301' > /adopter"
wrong 12-nspid-and-lsns "a glob for an answer" "echo '*' > /answer"
wrong 13-the-namespace-tree "the sleep's own namespace instead of its parent" \
    "pidns_unshare --launch pidns_unshare --launch sleep 900 &
until p=\$(pgrep -fx 'sleep 900'); do sleep 0.05; done
readlink /proc/\$p/ns/pid | tr -dc 0-9 > /answer"
wrong 16-containers-in-practice "the main program as PID 1, no init in front" \
    "unshare --pid --fork --mount-proc sleep 1020"
wrong 16-containers-in-practice "a shell init without a trap" \
    "unshare --pid --fork --mount-proc sh -c 'sleep 1020 & wait'"
wrong 16-containers-in-practice "a trap in a shell of the lab's namespace" \
    "sh -c 'trap \"exit 0\" TERM; sleep 1020 & wait'"
wrong 17-unshare-pitfalls "--fork but no --mount-proc" "unshare --pid --fork sleep 1120"
wrong 17-unshare-pitfalls "--mount-proc but no --fork" "unshare --pid --mount-proc sleep 1120"
wrong 17-unshare-pitfalls "a mount namespace without a procfs of its own" \
    "unshare --pid --fork --mount sleep 1120"

wait
for dir in "$scratch"/case*; do
    if grep -qx "check: FAILED" "$dir/out" && grep -q "host unchanged" "$dir/out"; then
        echo "ok   $(cat "$dir/name") fails the check"
    else
        echo "FAIL $(cat "$dir/name") was not caught by the check"
        tail -n 15 "$dir/out" | sed 's/^/     /'
        fails=$((fails + 1))
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL no case ran"; fails=1; }
[ "$fails" -eq 0 ] && echo "all passed" && exit 0
echo "$fails failed"
exit 1
