#!/bin/sh
# SPDX-License-Identifier: MIT
# guest.sh: one plan of check-kernels, in the qemu guest (its init runs it
# as root in /srv/tree, the tree and its build copied there).
#
#   sh tests/kernels/guest.sh PLAN O      PLAN: full, big, ci or smoke (check-kernels.sh)
#
# Each step runs as root or as the user `learner`, its output kept in
# .kernels/results/NAME.log; one `kernels:` line says how it went and one
# `kmatrix|` line carries its row of the matrix:
#   kmatrix|KERNEL|CPUS|ROUTE|WHAT|PASSED/OF|SKIPPED/GATED|ok or FAIL|SECONDS
# A step passes when everything in it passed and the steps it skipped are
# exactly the lessons' steps gated by [kernel=X.Y] above this kernel, each
# named with its reason. The last line is kmatrix|...|end|PLAN|.
set -u
plan=$1
O=$2
export PIDNS_TUTOR_BUILD=$O NO_COLOR=1 LANG=C.UTF-8
res=/srv/tree/.kernels/results
mkdir -p "$res"
kernel=$(uname -r)
# CPUs online/possible (possible: one range, as qemu gives it).
cpus=$(nproc)/$(awk -F- '{ print ($2 == "" ? 1 : $2 - $1 + 1) }' /sys/devices/system/cpu/possible)
say() { echo "kernels: $*"; }
# The lesson files of lesson $1 (a number, or all).
lesson_files() {
    for f in lessons/[0-9]*-*.adoc; do
        n=${f#lessons/}
        n=$(echo "${n%%-*}" | sed 's/^0*//')
        [ "$1" = all ] || [ "$n" = "$1" ] && echo "$f"
    done
}

# Is version $1 (X.Y) above this kernel's?
above() {
    awk -v want="$1" -v have="$kernel" 'BEGIN { split(want, w, "."); split(have, h, /[.-]/)
        exit !(w[1] + 0 > h[1] + 0 || (w[1] + 0 == h[1] + 0 && w[2] + 0 > h[2] + 0)) }'
}
# The steps of lessons $@ gated above this kernel: their count.
gated() {
    n=0
    for f in "$@"; do
        # A lesson whose :kernel: is newer gates every step (docs/lesson-format.adoc).
        lk=$(sed -n 's/^:kernel: *\([0-9.]*\)$/\1/p' "$f")
        if [ -n "$lk" ] && above "$lk"; then
            n=$((n + $(grep -c '^== ' "$f")))
            continue
        fi
        for v in $(sed -n 's/^\[kernel=\([0-9.]*\)\]$/\1/p' "$f"); do above "$v" && n=$((n + 1)); done
    done
    echo $n
}
row() { # ROUTE WHAT PASSED/OF SKIPPED/GATED VERDICT SECONDS
    echo "kmatrix|$kernel|$cpus|$1|$2|$3|$4|$5|$6"
    say "$1, $2: $5 ($3 passed, $4 skipped, in $6 s)"
}
# as WHO LOG CMD: runs CMD (a shell command line) as root or as learner.
as() {
    if [ "$1" = root ]; then
        sh -c "$3" >"$2" 2>&1 </dev/null
    else
        runuser -u learner -- env HOME=/home/learner sh -c "$3" >"$2" 2>&1 </dev/null
    fi
}
# The log's text with its line wrapping undone.
flat() { tr -s '\n ' '  ' <"$1"; }

doctor() { # WHO
    log=$res/doctor.$1.log
    t=$(date +%s)
    as "$1" "$log" "$O/pidns-tutor --doctor"
    rc=$?
    # Every feature newer than this kernel said missing, every older one ok.
    want=0 right=0
    for v in $(sed -n 's/.*(\([0-9]*\.[0-9]*\))$/\1/p' "$log"); do
        want=$((want + 1))
        if above "$v"; then grep -q "^ok .*($v)$" "$log" || right=$((right + 1))
        else grep -q "^ok .*($v)$" "$log" && right=$((right + 1)); fi
    done
    verdict=FAIL
    [ $rc -eq 0 ] && [ $want -gt 0 ] && [ $right -eq $want ] && verdict=ok
    row "$1" "--doctor" "$right/$want" "-" $verdict $(($(date +%s) - t))
    [ $verdict = ok ] || sed 's/^/  | /' "$log"
}

auto() { # NAME WHO LESSON OPTIONS
    log=$res/auto.$1.log
    files=$(lesson_files "$3")
    of=$(echo $files | wc -w)
    want=$(gated $files)
    t=$(date +%s)
    as "$2" "$log" "XDG_STATE_HOME=\$(mktemp -d) timeout -s KILL ${KERNELS_AUTO_TIMEOUT:-2400} $O/pidns-tutor $4 --auto $3 --lessons lessons"
    rc=$?
    # A lesson for a newer kernel is skipped whole: it counts with those that passed.
    passed=$(flat "$log" | grep -o 'lesson [0-9]* ([0-9a-z-]*): \(passed\|skipped, kernel: every step\)' | wc -l)
    skipped=$(flat "$log" | grep -o 'skipped, kernel: needs Linux [0-9.]*' | wc -l)
    verdict=FAIL
    [ $rc -eq 0 ] && [ "$passed" -eq "$of" ] && [ "$skipped" -eq "$want" ] &&
        flat "$log" | grep -q -- "--auto: $of lesson(s) run, 0 failed" && verdict=ok
    row "$1" "--auto $3" "$passed/$of" "$skipped/$want" $verdict $(($(date +%s) - t))
    [ $rc -eq 137 ] && say "  $1, --auto $3: killed after ${KERNELS_AUTO_TIMEOUT:-2400} s (KERNELS_AUTO_TIMEOUT)"
    # The failed steps, named (their output is in the log).
    [ $verdict = ok ] || flat "$log" | grep -o 'lesson [0-9]*, step [0-9]* ([^)]*): FAILED' |
        sed 's/^/kernels:   /'
}

# Every lesson (or lesson $2) exported once, then run as WHO ($1).
exported() { # WHO LESSON
    stage=/tmp/kernels-export
    if [ ! -d $stage ]; then
        mkdir -p $stage/examples && cp "$O"/examples/* $stage/examples/ &&
            for f in lessons/[0-9]*-*.adoc; do id=${f##*/}; echo "export ${id%.adoc} $stage/${id%.adoc}.sh"; done |
            "$O/pidns-tutor" --lessons lessons >$res/export.log 2>&1
        chmod -R a+rX $stage
    fi
    ids=$(for f in $(lesson_files "$2"); do f=${f#lessons/}; echo "${f%.adoc}.sh"; done)
    of=$(echo "$ids" | wc -w) passed=0 skipped=0 want=0 failed=""
    t=$(date +%s)
    for s in $ids; do
        want=$((want + $(gated "lessons/${s%.sh}.adoc")))
        log=$res/export.${s%.sh}.$1.log
        as "$1" "$log" "cd $stage && PATH=/srv/tree/$O:\$PATH PIDNS_TUTOR_EXAMPLES=$stage/examples timeout -k 5 300 sh ./$s"
        if [ $? -eq 0 ] && grep -q "^Lesson [0-9]*\( holds on this machine\|: every step needs a newer kernel\)" "$log"; then
            passed=$((passed + 1))
        else
            failed="$failed ${s%.sh}"
            say "  exported ${s%.sh} as $1: $(grep '^FAILED: ' "$log" || tail -n 3 "$log" | tr '\n' '|')"
        fi
        skipped=$((skipped + $(flat "$log" | grep -o 'so it is skipped' | wc -l)))
    done
    verdict=FAIL
    [ $passed -eq "$of" ] && [ $skipped -eq $want ] && verdict=ok
    row "$1" "exported $2" "$passed/$of" "$skipped/$want" $verdict $(($(date +%s) - t))
}

tests() { # WHO PATTERN...
    who=$1
    shift
    log=$res/tests.$who.log
    t=$(date +%s)
    # Two runners at a time, as before run-tests.sh's default became three:
    # the guest's CPUs are emulated (TCG), several times slower than the host's.
    as "$who" "$log" "O=$O TEST_JOBS=2 sh tests/run-tests.sh $*"
    rc=$?
    line=$(grep '^tests: ' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.* \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    s=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
    verdict=FAIL
    [ $rc -eq 0 ] && [ "${f:-1}" = 0 ] && verdict=ok
    row "$who" "tests $*" "${p:-?}/$((${p:-0} + ${f:-0}))" "${s:-?}" $verdict $(($(date +%s) - t))
    [ $verdict = ok ] || grep -E '^FAIL|^not ok|\[  FAILED  \]' "$log" | head -n 30
    grep -E '^skip|SKIP: ' "$log" | sort | uniq -c | head -n 20 | sed 's/^/  skip /'
}

# The numbers behind lesson 23's pid_max: possible CPUs, the default, and
# whether 1000 is taken (its minimum is max(301, 8 x possible CPUs)).
pid_max() {
    old=$(cat /proc/sys/kernel/pid_max)
    if echo 1000 >/proc/sys/kernel/pid_max 2>/dev/null; then took=taken; else took="refused"; fi
    echo "$old" >/proc/sys/kernel/pid_max
    say "possible CPUs $(cat /sys/devices/system/cpu/possible), pid_max $old, pid_max=1000 $took"
}

say "plan $plan on Linux $kernel, CPUs $cpus, $(grep MemTotal /proc/meminfo | tr -s ' ')"
sysctl kernel.unprivileged_userns_clone user.max_user_namespaces 2>/dev/null | sed 's/^/kernels: /'
start=$(date +%s)
case $plan in
full)
    pid_max
    doctor root
    doctor learner
    auto root root all ""
    auto user-namespace root all --user-namespace
    auto learner learner all ""
    exported root all
    exported learner all
    tests root integration
    tests learner integration
    ;;
big)
    pid_max
    doctor root
    auto root root 23 ""
    auto user-namespace root 23 --user-namespace
    auto learner learner 23 ""
    exported root 23
    exported learner 23
    tests root ${KERNELS_BIG_TESTS:-test_examples test_pidns_reboot}
    ;;
pick)
    for l in ${KERNELS_LESSONS:-1}; do
        auto "root-$l" root "$l" ""
        auto "user-namespace-$l" root "$l" --user-namespace
        auto "learner-$l" learner "$l" ""
        exported root "$l"
        exported learner "$l"
    done
    [ -z "${KERNELS_TESTS:-}" ] || tests root $KERNELS_TESTS
    ;;
smoke)
    doctor root
    doctor learner
    auto learner learner 1 ""
    exported learner 18
    ;;
ci)
    auto root root all ""
    auto user-namespace root all --user-namespace
    ;;
esac
echo "kmatrix|$kernel|$cpus|end|$plan|$(($(date +%s) - start))"
