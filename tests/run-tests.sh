#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every test program: cmocka unit tests, cmocka integration tests on the
# real kernel, then the end-to-end scripts. Prints each runner's own summary,
# then one total line, and exits non-zero if anything failed.
#
#   O=build sh tests/run-tests.sh [PATTERN...] (PATTERN filters by file name;
#                                               several: a runner that matches any)
#   TEST_JOBS=N                                 runners at a time (see below)
#   TEST_RUNNER_TIMEOUT=S                       a runner still going after S s
#                                               (default 1200) is stopped and fails
#   O=build sh tests/run-tests.sh --self-test   planted scripts counted right
#
# What the suite starts is marked: every runner runs with
# PIDNS_TUTOR_TEST_RUN=<this run>.<runner> in its environment, which every
# process it starts inherits (in any namespace, as any user). After each
# runner, tests/helpers/leftovers lists the processes that still carry its
# mark: any is a failure of that runner, named, and is killed. Processes that
# do not carry it (a learner's pidns-tutor, another user's containers) are
# never counted or touched. Each runner also gets its own TMPDIR, which must
# be empty after it, and must leave the host's /procN mounts and / as they
# were.
#
# Runners in parallel (TEST_JOBS, default 3 as root where `unshare -m` works,
# else 1: most runners wait on the lessons' sleeps more than they compute):
# each runner's output is kept in its own log and printed whole when it ends
# (the order is that of their ends), with its time. So that a /procN
# mount is blamed on the runner that made it, each runner then runs in a
# private mount namespace of its own (a copy of the host's), whose /procN
# mounts are compared before and after it, inside it; the host's own are
# compared after every runner too, and once more after all. An entry new in
# / is blamed on a runner if it appeared during that runner's time and is
# still there when it ends; the runners that ran beside it then are named
# with it (one of them may have made it). The runners in SERIAL below run
# alone, after the others. With TEST_JOBS=1 every runner runs alone, in the
# host's mount namespace, in file order.
#
# A cmocka runner's results are its own totals ("[  PASSED  ] 3 test(s).");
# an end-to-end script's are its TAP lines (tests/e2e/lib/tap: "1..N", then
# "ok N - ...", "not ok N - ..."), counted here: a script without its plan,
# or with fewer or more results than it, fails (see tap_count).
#
# Skips are counted apart and each reason printed. A skip's reason is the
# text after "SKIP: " (cmocka tests) or after "# SKIP " (TAP scripts).
# As root with CI=true, any skip fails the run unless its reason starts with
# "kernel:" (this kernel cannot do it, whoever runs the suite).
set -u
O=${O:-build}
pattern=${1:-}

# The wrapper of a parallel runner, in its private mount namespace: runs it,
# and writes the namespace's /procN mounts before and after it to $2.before
# and $2.after (waiting up to 2 s for a mount being taken down).
if [ "$pattern" = --in-mount-namespace ]; then
    views=$2
    shift 2
    mounts() { awk '$5 ~ /^\/proc[0-9]+$/ { print "mount " $5 }' /proc/self/mountinfo; }
    roots() { ls -a / | sed 's/^/root /'; }
    mounts >"$views.before"
    roots >"$views.roots-before"
    "$@"
    rc=$?
    tries=0
    while [ "$(mounts)" != "$(cat "$views.before")" ] && [ $tries -lt 20 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    mounts >"$views.after"
    roots >"$views.roots-after"
    exit $rc
fi

# --self-test: planted end-to-end scripts, each on tests/e2e/lib/tap, must
# be counted right: a failing check, an exit before the plan, a plan with
# fewer results, a skip and a whole-script skip (each with its reason), next
# to one that passes.
if [ "$pattern" = --self-test ]; then
    st=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-tap-self-test.XXXXXX") || exit 1
    trap 'rm -rf "$st"' EXIT
    lib=". tests/e2e/lib/tap"
    printf '%s\nplan 2\nok one\ncheck two true\nfinish\n' "$lib" >"$st/tapself_pass.sh"
    printf '%s\nok one\ncheck "planted failure" false\nok three\nfinish\n' "$lib" >"$st/tapself_fail.sh"
    printf '%s\nok one\nexit 0\nfinish\n' "$lib" >"$st/tapself_early.sh"
    printf '%s\nplan 3\nok one\nexit 0\n' "$lib" >"$st/tapself_short.sh"
    printf '%s\nok one\nskip two "kernel: planted skip"\nfinish\n' "$lib" >"$st/tapself_skip.sh"
    printf '%s\nskip_all "kernel: planted skip_all"\nok never\nfinish\n' "$lib" >"$st/tapself_skipall.sh"
    PIDNS_TUTOR_EXTRA_TESTS=$(echo "$st"/*.sh) TEST_JOBS=1 CI= sh "$0" tapself_ >"$st/log" 2>&1
    rc=$?
    st_fails=0
    st_want() { # $1: what; the rest: a grep -E the log must match
        st_what=$1
        shift
        if grep -qE "$@" "$st/log"; then echo "run-tests self-test: $st_what"; else
            echo "run-tests self-test: FAIL $st_what"
            st_fails=$((st_fails + 1))
        fi
    }
    [ $rc -ne 0 ] || { echo "run-tests self-test: FAIL the planted run passed"; st_fails=1; }
    st_want "7 passed, 4 failed (1 check, 1 no plan, 2 short of the plan), 2 skipped" \
        '^tests: 7 passed, 4 failed, 2 skipped$'
    st_want "no plan: failed, named" '^FAIL no plan .*after 1 result'
    st_want "fewer results than the plan: failed, named" '^FAIL planned 3 results, ran 1$'
    st_want "the failing runners named, the others not" \
        '^failing runners: sh [^ ]*/tapself_(early|fail|short)\.sh sh [^ ]*/tapself_(early|fail|short)\.sh sh [^ ]*/tapself_(early|fail|short)\.sh$'
    st_want "a skip's reason printed" '^  tapself_skip: kernel: planted skip$'
    st_want "a whole script's skip: its reason printed" '^  tapself_skipall: kernel: planted skip_all$'
    [ $st_fails -eq 0 ] || { sed 's/^/  | /' "$st/log"; exit 1; }
    exit 0
fi

patterns="$*"
export PIDNS_TUTOR_BUILD="$O"
export PIDNS_TUTOR_SRC="$(pwd)"
LEFTOVERS=$O/tests/helpers/leftovers
# Runners that share state run one at a time: each word of SHARED is a
# group, its runners joined by "+" (a runner belongs to a group if its name
# holds one of them); no two of a group run side by side. test_docs and
# test_handbook build $O/docs (make docs: a no-op once make check has built
# them, not when the suite is run on its own), which test_install copies.
SHARED=${TEST_SHARED-test_docs.sh+test_handbook.sh+test_install.sh}
# Runners that run alone (after the others), and why (each failed once
# with four runners beside it on a loaded machine, in make check-quick):
# lab_verdict_reuse, whose control needs the kernel to hand a freed
# namespace number back to the test, which a runner beside it making
# namespaces takes first; learner_code, whose watch case saves a file while
# the shell builds and checks (its saver read a transcript written only at
# exit until pty_drive flushed it: commit 'tests: pty_drive writes its
# transcript as it goes').
SERIAL=${TEST_SERIAL-lab_verdict_reuse learner_code}
# The longest a runner may take (s): lessons_auto_all takes about 190 on
# two idle cores; a runner still going after this hangs.
runner_limit=${TEST_RUNNER_TIMEOUT:-1200}
passed=0 failed=0 skipped=0 broken="" reasons="" runners=0
run=$(date +%s).$$
work=$(mktemp -d "${TMPDIR:-/tmp}/pidns-tutor-tests.XXXXXX") || exit 1
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
[ -x "$LEFTOVERS" ] || { echo "tests: $LEFTOVERS is not built (make tests)"; exit 1; }
ci_root=0
[ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ] && ci_root=1
jobs=${TEST_JOBS:-}
if [ -z "$jobs" ]; then
    jobs=1
    [ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null && jobs=3
fi
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "tests: TEST_JOBS must be a number, 1 or more"; exit 2; }

count() { # $1 in log $2: cmocka's "[  PASSED  ] 3 test(s)." style lines
    sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) test.*/\1/p" "$2" | head -n 1
}

# What a runner must leave as it found it on the host: the /procN mounts of
# our mount namespace and the entries of /.
host_view() {
    awk '$5 ~ /^\/proc[0-9]+$/ { print "mount " $5 }' /proc/self/mountinfo
    ls -a / | sed 's/^/root /'
}

# Prints the lines of file $2 that are not in file $1, each after $3.
new_lines() { grep -vxF -f "$1" "$2" | sed "s|^|$3|"; }

# After runner $1 (number $2, marked $3, temp dir $4): nothing of it left.
# Prints what is left and returns 1 if anything is, after ending its
# processes.
left_by() {
    tries=0
    d=$work/r.$2
    while :; do
        procs=$("$LEFTOVERS" "PIDNS_TUTOR_TEST_RUN=$3")
        view=$(host_view)
        files=$(ls -A "$4")
        [ -z "$procs" ] && [ "$view" = "$host_before" ] && [ -z "$files" ] && break
        tries=$((tries + 1))
        [ $tries -ge 20 ] && break
        sleep 0.1
    done
    ns_mounts="" roots=""
    if [ -f "$d/views.after" ]; then # in a mount namespace of its own
        ns_mounts=$(new_lines "$d/views.before" "$d/views.after" '  new on the host: ' |
            sed 's/$/ (in its mount namespace)/'
            new_lines "$d/views.after" "$d/views.before" '  gone from the host: ' |
            sed 's/$/ (in its mount namespace)/')
        # Entries of / it saw appear, and that are still there (a runner
        # beside it may have made them: named too).
        printf '%s\n' "$view" >"$work/now"
        roots=$(new_lines "$d/views.roots-before" "$d/views.roots-after" '' | grep -xF -f - "$work/now" |
            grep -vxF "$(printf '%s\n' "$host_start" | grep '^root ')" |
            sed "s|^|  new on the host: |; s|\$|$(beside "$2")|")
    fi
    [ -z "$procs" ] && [ "$view" = "$host_before" ] && [ -z "$files" ] && [ -z "$ns_mounts$roots" ] &&
        return 0
    echo "LEFT BEHIND by $1:"
    [ -z "$procs" ] || printf '%s\n' "$procs" | sed 's/^/  /'
    "$LEFTOVERS" -k "PIDNS_TUTOR_TEST_RUN=$3" >/dev/null
    [ -z "$ns_mounts" ] || printf '%s\n' "$ns_mounts"
    [ -z "$roots" ] || printf '%s\n' "$roots"
    if [ "$view" != "$host_before" ]; then
        printf '%s\n' "$host_before" >"$work/before"
        printf '%s\n' "$view" | diff "$work/before" - |
            sed -n 's/^< /  gone from the host: /p; s/^> /  new on the host: /p' |
            grep -vxF -e "$(printf '%s\n' "$roots" | sed 's/ (.*//')" -e '' |
            sed "s|\$|$(beside "$2")|"
        host_before=$view # blamed once, on this runner
    fi
    [ -z "$files" ] || printf '%s\n' "$files" | sed "s|^|  in its TMPDIR: |"
    return 1
}

# The runners that ran beside runner $1 (their numbers are in its beside
# file), as " (while NAME ran beside it)", or nothing.
beside() {
    [ -s "$work/r.$1/beside" ] || return 0
    printf ' (while %s ran beside it)' "$(sort -u "$work/r.$1/beside" | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
}

# Starts runner number $1 (the rest: program or script) in the background.
start_one() {
    i=$1
    shift
    d=$work/r.$i
    mkdir -p "$d"
    # Never twice: a second start would share the first one's mark and log.
    mkdir -m 1777 "$d/tmp" || { echo "tests: runner $i ($*) started twice: a fault of run-tests.sh"; exit 1; }
    printf '%s\n' "$*" >"$d/name"
    wrap=""
    [ "$jobs" -eq 1 ] || wrap="unshare -m --propagation private sh $0 --in-mount-namespace $d/views"
    for other in $running; do # each is beside the other
        cat "$work/r.$other/name" >>"$d/beside"
        printf '%s\n' "$*" >>"$work/r.$other/beside"
    done
    (
        t0=$(date +%s)
        # shellcheck disable=SC2086
        PIDNS_TUTOR_TEST_RUN=$run.$i TMPDIR=$d/tmp $wrap timeout -k 10 "$runner_limit" "$@" >"$d/log" 2>&1 </dev/null
        rc=$?
        # A runner that hangs fails, named, instead of holding the suite.
        [ $rc -ne 124 ] && [ $rc -ne 137 ] ||
            echo "FAIL timed out: still running after $runner_limit s (TEST_RUNNER_TIMEOUT), stopped" >>"$d/log"
        echo "$rc $(($(date +%s) - t0))" >"$d/rc.new"
        mv "$d/rc.new" "$d/rc"
    ) &
    running="$running $i"
}

# Ends runner number $1 (its command in $2...): checks what it left, prints
# its log and counts its results.
finish_one() {
    i=$1
    shift
    name="$*"
    d=$work/r.$i
    log=$d/log
    read -r rc secs <"$d/rc"
    running=$(for r in $running; do [ "$r" = "$i" ] || printf ' %s' "$r"; done)
    echo "$secs $name" >>"$work/times"
    printf '\n=== %s (%s s)\n' "$name" "$secs"
    cat "$log"
    left_by "$name" "$i" "$run.$i" "$d/tmp" >>"$log" 2>&1 || {
        sed -n '/^LEFT BEHIND/,$p' "$log"
        rc=1
    }
    rm -rf "$d/tmp"
    why=$(sed -n 's/^SKIP: //p; s/^ok [0-9][0-9]* .*# SKIP //p; s/^1\.\.0 # SKIP //p' "$log")
    case $name in
    "sh "*) tap_count "$log" || rc=1 ;; # an end-to-end script: its TAP lines
    *) p=$(count PASSED "$log"); f=$(count FAILED "$log"); s=$(count SKIPPED "$log") ;;
    esac
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
    if [ -n "$why" ]; then
        for last; do :; done
        reasons="$reasons$(printf '%s\n' "$why" | sed "s|^|  $(basename "$last" .sh): |")
"
        if [ $ci_root -eq 1 ] && printf '%s\n' "$why" | grep -qv '^kernel:'; then
            echo "a skip as root in CI whose reason does not start with 'kernel:' fails the run"
            rc=1
        fi
    fi
    if [ "$rc" -ne 0 ]; then
        broken="$broken $name"
        { # what failed, again at the end, where a truncated log still shows it
            printf '%s:\n' "$name"
            grep -E '^(FAIL |not ok|Bail out!|\[  ERROR|\[   LINE|# drive|#   |LEFT BEHIND|  (gone from|new on|in its)|a skip as root)|^[a-z/_.]+\.c:[0-9]+: ' "$log" | head -n 40 | sed 's/^/  /'
        } >>"$work/failures"
        [ -z "$f" ] || [ "$f" -eq 0 ] && failed=$((failed + 1))
    fi
}

# The results of an end-to-end script (tests/e2e/lib/tap) in log $1, from
# its TAP lines: sets p, f and s. Returns 1, with a FAIL line in the log and
# on the output, when the script never printed its plan (it died or exited
# before it) or printed fewer or more results than it planned; each result
# missing from the plan counts as failed, a missing plan or a surplus as one.
tap_count() {
    s=$(grep -cE '^ok [0-9]+ .*# SKIP ' "$1")
    p=$(($(grep -cE '^ok [0-9]+( |$)' "$1") - s))
    f=$(grep -cE '^not ok [0-9]+( |$)' "$1")
    tap_plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
    tap_ran=$((p + f + s))
    tap_why=""
    if [ -z "$tap_plan" ]; then
        f=$((f + 1)) tap_why="no plan (1..N): the script ended before it, after $tap_ran result(s)"
    elif [ "$tap_plan" -eq 0 ] && grep -q '^1\.\.0 # SKIP ' "$1"; then
        s=$((s + 1)) # nothing of it could run here
    elif [ "$tap_ran" -lt "$tap_plan" ]; then
        f=$((f + tap_plan - tap_ran)) tap_why="planned $tap_plan results, ran $tap_ran"
    elif [ "$tap_ran" -gt "$tap_plan" ]; then
        f=$((f + 1)) tap_why="planned $tap_plan results, ran $tap_ran"
    fi
    [ -n "$tap_why" ] || return 0
    echo "FAIL $tap_why" | tee -a "$1"
    return 1
}

# Waits until a runner ends; finishes it. (Polls: sh has no wait for any one
# of several children.)
finish_next() {
    while :; do
        for r in $running; do
            if [ -f "$work/r.$r/rc" ]; then
                # shellcheck disable=SC2046
                eval "set -- $(cat "$work/r.$r/argv")"
                finish_one "$r" "$@"
                return
            fi
        done
        sleep 0.05
    done
}

# The runners, in file order, each as its number and its quoted command line.
quote() { printf "'%s' " "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
add() {
    matched=0
    for pat in $patterns; do case "$*" in *"$pat"*) matched=1 ;; esac; done
    [ -n "$patterns" ] || matched=1
    [ $matched -eq 1 ] || return 0
    runners=$((runners + 1))
    mkdir -p "$work/r.$runners"
    for a; do quote "$a"; done >"$work/r.$runners/argv"
    alone=0
    for s in $SERIAL; do case "$*" in *"$s"*) alone=1 ;; esac; done
    echo "$runners $alone" >>"$work/list"
    for g in $SHARED; do
        for m in $(echo "$g" | tr + ' '); do
            case "$*" in *"$m"*) echo "$g" >"$work/r.$runners/group" ;; esac
        done
    done
}
# Whether runner $1 may start now: no runner of its group is running.
# (Its loop variable is its own: sh has no local variables, and the
# caller's loop variable names the runner to start.)
may_start() {
    [ -f "$work/r.$1/group" ] || return 0
    for ms_r in $running; do
        [ -f "$work/r.$ms_r/group" ] && [ "$(cat "$work/r.$ms_r/group")" = "$(cat "$work/r.$1/group")" ] && return 1
    done
    return 0
}
for t in "$O"/tests/unit/test_* "$O"/tests/integration/test_*; do
    [ -x "$t" ] && add "$t"
done
for t in tests/e2e/*.sh ${PIDNS_TUTOR_EXTRA_TESTS:-}; do
    [ -f "$t" ] && add sh "$t"
done
touch "$work/list"

# In parallel, the slowest first (by the times of the last run, kept in
# $O/tests/runner-times; in a fresh build, by tests/runner-times.seed), so
# that no long runner starts last.
order() {
    times=$O/tests/runner-times
    [ -f "$times" ] || times=tests/runner-times.seed
    if [ "$jobs" -eq 1 ] || [ ! -f "$times" ]; then
        awk -v a="$1" '$2 == a { print $1 }' "$work/list"
        return
    fi
    want=$1
    while read -r i a; do
        [ "$a" = "$want" ] || continue
        eval "set -- $(cat "$work/r.$i/argv")"
        secs=$(awk -v n="$*" '{ t = $1; sub(/^[0-9]+ /, ""); if ($0 == n) s = t } END { print s + 0 }' \
            "$times")
        echo "$secs $i"
    done <"$work/list" | sort -k1,1rn -k2,2n | awk '{ print $2 }'
}

host_before=$(host_view)
host_start=$host_before
running=""
pending=$(order 0)
while [ -n "$(echo $pending)" ]; do
    while [ "$(echo $running | wc -w)" -ge "$jobs" ]; do finish_next; done
    next=""
    for cand in $pending; do may_start "$cand" && { next=$cand; break; }; done
    if [ -z "$next" ]; then # each waits for one of its group
        finish_next
        continue
    fi
    pending=$(for r in $pending; do [ "$r" = "$next" ] || printf ' %s' "$r"; done)
    eval "set -- $(cat "$work/r.$next/argv")"
    start_one "$next" "$@"
    [ "$jobs" -gt 1 ] || finish_next
done
while [ -n "$(echo $running)" ]; do finish_next; done
for next in $(order 1); do
    eval "set -- $(cat "$work/r.$next/argv")"
    start_one "$next" "$@"
    finish_next
done
# Once more, after all: the host as it was before the suite.
if [ "$(host_view)" != "$host_before" ]; then
    echo "LEFT BEHIND by the suite (after every runner had ended):"
    printf '%s\n' "$host_before" >"$work/before"
    host_view | diff "$work/before" - | sed -n 's/^< /  gone from the host: /p; s/^> /  new on the host: /p'
    broken="$broken (the suite)"
    echo "the suite: the host changed after every runner had ended" >>"$work/failures"
fi
# The times kept for the next run's order: this run's, and the others' of before.
if [ -f "$work/times" ] && [ -d "$O/tests" ] && [ -z "${PIDNS_TUTOR_EXTRA_TESTS:-}" ]; then
    { [ ! -f "$O/tests/runner-times" ] ||
        awk 'NR == FNR { sub(/^[0-9]+ /, ""); ran[$0] = 1; next }
             { n = $0; sub(/^[0-9]+ /, "", n); if (!(n in ran)) print }' "$work/times" "$O/tests/runner-times"
      cat "$work/times"; } >"$work/times.all" && mv "$work/times.all" "$O/tests/runner-times"
fi

ran=$((passed + failed))
printf '\n'
if [ -f "$work/times" ] && [ "$runners" -gt 1 ]; then
    echo "time per runner (s), $jobs at a time, the slowest first:"
    sort -rn "$work/times" | head -n 12 | sed 's/^/  /'
fi
if [ -n "$reasons" ]; then
    echo "not tested ($skipped skipped), and why:"
    printf '%s' "$reasons"
fi
if [ -n "$broken" ]; then
    echo "what failed:"
    cat "$work/failures"
    echo "failing runners:$broken"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$ran" -eq 0 ]; then echo "tests: no test ran (nothing built?)"; exit 1; fi
[ "$failed" -eq 0 ] && [ -z "$broken" ]
