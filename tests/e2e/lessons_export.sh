#!/bin/sh
# SPDX-License-Identifier: MIT
# Exported lessons on the real machine: every lesson in lessons/ is exported
# and run as its header says (sh FILE), as root and as nobody, from a staged
# copy nobody can read, while decoys of the lessons' process names (a sleep,
# a pidns_init_sleep, marked by an environment variable) run outside. The
# decoys survive, each script exits 0, and nothing is left: no process marked
# as the script's, no /procN. A script with a wrong expected output fails
# naming that step (the negative control), the exported matcher agrees with
# the tutorial's rules on sample patterns, and an interrupted script leaves
# nothing either.
. tests/e2e/lib/common
stage=$scratch/stage
mkdir -p "$stage/examples" "$stage/bin"
chmod 755 "$stage" "$stage/examples" "$stage/bin"
cp "$O"/examples/* "$stage/examples/"
abs_build=$(cd "$O" && pwd)
token=export-test-$$
decoy_token=export-decoy-$$

# Every lesson, exported by the tutorial (nothing here knows their names).
ids=
for f in lessons/[0-9]*.adoc; do
    id=${f##*/}
    ids="$ids ${id%.adoc}"
done
for id in $ids; do echo "export $id $stage/$id.sh"; done |
    "$TUTOR" --lessons lessons >"$scratch/export.out" 2>&1
chmod 644 "$stage"/*.sh
exported=0
for id in $ids; do [ -f "$stage/$id.sh" ] && exported=$((exported + 1)); done
check "every lesson exported ($exported of $(echo $ids | wc -w))" [ "$exported" -eq "$(echo $ids | wc -w)" ]
# The tree appears only as the recorded examples directory (lab_examples).
check "no script names the tree it was exported from, but in lab_examples" \
    sh -c "! grep -h -v '^lab_examples=' '$stage'/*.sh | grep -q '$(pwd)'"

# Processes carrying a marker in their environment (root reads them all).
marked() {
    grep -l -z -x "PIDNS_EXPORT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | wc -l
}
no_procn() {
    ! grep -qE ' /proc[0-9]+ ' /proc/self/mountinfo && ! ls -d /proc[0-9]* >/dev/null 2>&1
}

# The decoys: what a lesson's pgrep -x sleep or pidof pidns_init_sleep would
# find if the script ran among the machine's processes.
PIDNS_EXPORT_MARK=$decoy_token sleep 3600 &
decoy_sleep=$!
if [ "$(id -u)" -eq 0 ]; then
    PIDNS_EXPORT_MARK=$decoy_token "$stage/examples/pidns_init_sleep" >/dev/null 2>&1 &
else
    PIDNS_EXPORT_MARK=$decoy_token unshare -Ur "$stage/examples/pidns_init_sleep" >/dev/null 2>&1 &
fi
decoy_init=$!
trap 'kill -KILL $decoy_sleep $decoy_init 2>/dev/null; rm -rf "$scratch"' EXIT
tries=0
until [ "$(marked "$decoy_token")" -ge 3 ] || [ $tries -ge 100 ]; do
    tries=$((tries + 1))
    sleep 0.05
done
decoys=$(marked "$decoy_token")
check "the decoys run: sleep, pidns_init_sleep and its sleep ($decoys)" [ "$decoys" -ge 3 ]

# run_as WHO ID: runs one script; its output in $scratch/ID.WHO.out.
run_as() {
    if [ "$1" = root ]; then
        # Found through the pidns-tutor on PATH, as after an installation.
        (cd "$stage" && PATH=$abs_build:$PATH PIDNS_EXPORT_MARK=$token \
            timeout -k 5 300 sh "./$2.sh") >"$scratch/$2.$1.out" 2>&1
    else
        su "$1" -s /bin/sh -c "cd '$stage' && PIDNS_EXPORT_MARK=$token \
            PIDNS_TUTOR_EXAMPLES='$stage/examples' timeout -k 5 300 sh './$2.sh'" \
            >"$scratch/$2.$1.out" 2>&1
    fi
}

# each WHO: every lesson, one after the other.
each() {
    for id in $ids; do
        run_as "$1" "$id"
        echo "$id $?" >>"$scratch/status.$1"
    done
}

users=
if [ "$(id -u)" -eq 0 ]; then
    users=root
    if su nobody -s /bin/sh -c "cd '$stage' && unshare -Urpf --mount-proc true" 2>/dev/null; then
        users="$users nobody"
    else
        skip "every lesson's script as nobody" "kernel: nobody cannot create user namespaces here (a sysctl forbids it)"
    fi
else
    users=$(id -un)
fi
streams=
wait_start=$(date +%s)
for who in $users; do
    : >"$scratch/status.$who"
    each "$who" &
    streams="$streams $!"
done
wait $streams
echo "(every lesson as $users: $(($(date +%s) - wait_start)) s)"

for who in $users; do
    for id in $ids; do
        rc=$(sed -n "s/^$id //p" "$scratch/status.$who")
        if [ "$rc" = 0 ] && grep -q "^Lesson [0-9]* holds on this machine" "$scratch/$id.$who.out"; then
            ok "$id as $who: exit 0, the lesson holds"
        else
            # The script's own verdict (which step, why) goes into the FAIL
            # line, which the summary of failures repeats whole.
            bad "$id as $who: exit status $rc: $(grep '^FAILED: ' "$scratch/$id.$who.out" || tail -n 2 "$scratch/$id.$who.out" | tr '\n' '|')"
            sed 's/^/     | /' "$scratch/$id.$who.out" | tail -n 15
        fi
    done
done
check "nothing of the scripts left: no marked process ($(marked "$token"))" [ "$(marked "$token")" -eq 0 ]
check "no /procN on the host" no_procn
check "the decoys survived: $(marked "$decoy_token") of $decoys marked processes" \
    [ "$(marked "$decoy_token")" -eq "$decoys" ]
check "the decoy sleep is the same process" grep -qx "sleep" "/proc/$decoy_sleep/comm"

# Negative control: the first expected output that is not empty, made wrong.
# The script must fail, naming the step that holds it.
first=
for id in $ids; do
    if awk 'w && $0 != "EXPECTED" { found = 1 } { w = /<<.EXPECTED.$/ } END { exit !found }' \
        "$stage/$id.sh"; then
        first=$id
        break
    fi
done
awk -v out="$scratch/wrong.step" '
    /^lab_step / { step = $0 }
    w && !done && $0 != "EXPECTED" {
        $0 = "a line this lesson never prints"
        done = 1
        sub(/^lab_step /, "", step)
        print step >out
    }
    { w = /<<.EXPECTED.$/; print }' "$stage/$first.sh" >"$stage/wrong.sh"
step=$(cat "$scratch/wrong.step")
number=${step%% *}
title=${step#* \'}
title=${title%\'}
(cd "$stage" && PIDNS_EXPORT_MARK=$token PIDNS_TUTOR_EXAMPLES="$stage/examples" \
    timeout -k 5 300 sh ./wrong.sh) >"$scratch/wrong.out" 2>&1
rc=$?
check "a wrong expected output ($first, step $number): exit status 1 (was $rc)" [ $rc -eq 1 ]
check "a wrong expected output: the failing step is named" \
    grep -qF "FAILED: lesson $(sed -n 's/^lab_lesson=//p' "$stage/$first.sh"), step $number ($title): the output is not what the lesson expects" \
    "$scratch/wrong.out"
check "a wrong expected output: the lesson's real expectation is shown" \
    grep -qx "a line this lesson never prints" "$scratch/wrong.out"

# The exported matcher against the tutorial's rules (lesson_output_matches and
# the unordered form), through the function every script carries.
sed -n '/^lab_match() {/,/^}/p' "$stage/$first.sh" >"$scratch/match.sh"
matches() { # MODE PATTERN OUTPUT: printf-style \n in both
    printf "$2" >"$scratch/p"
    printf "$3" >"$scratch/o"
    sh -c '. "$1"; lab_match "$2" "$3" "$4"' sh "$scratch/match.sh" "$1" "$scratch/p" "$scratch/o"
}
differs() { ! matches "$@"; }
check "match: blanks folded and trimmed" matches ordered ' a  b \n' 'a b\n\n'
check "match: {N} is a number, {*} any text" matches ordered 'pid {N} of {*}\n' 'pid 12 of sleep 600\n'
check "match: {N} needs a digit" differs ordered 'pid {N}\n' 'pid \n'
check "match: ... any number of lines" matches ordered 'a\n...\nz\n' 'a\nb\nc\nz\n'
check "match: an empty pattern only an empty output" differs ordered '' 'x\n'
check "match: empty matches empty" matches ordered '' ''
check "match: order counts" differs ordered 'b\na\n' 'a\nb\n'
check "match: unordered takes any order" matches unordered 'b\na\n' 'a\nb\n'
check "match: unordered leaves no line over" differs unordered 'a\n' 'a\nb\n'
check "match: unordered with ... leaves lines over" matches unordered 'a\n...\n' 'b\na\n'
check "match: unordered gives each line one pattern" matches unordered '{*}\na\n' 'a\nb\n'
check "match: a line that is not there" differs ordered 'a\nb\n' 'a\nc\n'

# Interrupted: Ctrl-C (SIGINT to its process group, which a background job
# of this test would ignore without env --default-signal) in the middle of a
# lesson that leaves a program running, and kill -9 of its unshare: nothing
# left.
busy=
for id in $ids; do
    grep -q '^lab_started \$! [0-9]* [ou]' "$stage/$id.sh" && busy=$id && break
done
for how in INT KILL; do
    (cd "$stage" && PIDNS_EXPORT_MARK=$token PIDNS_TUTOR_EXAMPLES="$stage/examples" \
        exec env --default-signal=INT setsid sh "./$busy.sh") >"$scratch/interrupted.out" 2>&1 &
    leader=$!
    tries=0
    until grep -q "keeps running in the background" "$scratch/interrupted.out" || [ $tries -ge 400 ]; do
        tries=$((tries + 1))
        sleep 0.05
    done
    if [ $how = INT ]; then kill -INT "-$leader"; else kill -KILL "$leader"; fi
    wait "$leader" 2>/dev/null
    rc=$?
    if [ $how = INT ]; then want=130; else want=137; fi
    check "interrupted by SIG$how in $busy: it stopped there (exit status $rc)" [ $rc -eq $want ]
    tries=0
    until [ "$(marked "$token")" -eq 0 ] || [ $tries -ge 100 ]; do
        tries=$((tries + 1))
        sleep 0.05
    done
    check "interrupted by SIG$how in $busy: no marked process left" [ "$(marked "$token")" -eq 0 ]
    check "interrupted by SIG$how: no /procN on the host" no_procn
done
check "the decoys survived everything" [ "$(marked "$decoy_token")" -eq "$decoys" ]
finish
