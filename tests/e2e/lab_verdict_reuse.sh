#!/bin/sh
# SPDX-License-Identifier: MIT
# The lab's verdict at quit judges only the lab's own processes, even when a
# classmate makes a namespace at that very moment. The kernel numbers
# namespaces (the N of mnt:[N]) from a pool and gives a freed number to the
# next namespace anyone makes: had the tutor let the lab's mount namespace
# go before it looked for survivors, the first process of someone else's
# new namespace would carry the lab's number and "survive the lab".
#
# Made deterministic under gdb: the tutor stops where the search for
# survivors begins (lab_find_survivors), and the test, as the classmate,
# makes mount namespaces one after the other, each held by a sleep, until
# one gets the lab's number (or 60 have not). There the number must still
# be the lab's (not one of ours), and the verdict "no process, mount or /procN left by the
# lab". The control stops the tutor once that search is over
# (lab_host_differences): there the number is free and the classmate gets
# it, which shows the grab works, and the verdict still holds.
. tests/e2e/lib/common

if [ "$(id -u)" -ne 0 ]; then
    skip_all "needs root (the classmate makes mount namespaces with unshare -m)"
fi
if ! command -v gdb >/dev/null 2>&1; then
    skip_all "needs gdb (make deps-check installs it)"
fi
plan 3

# grab DIR: run by gdb while the tutor stands still; the lab's number is in
# DIR/out (the tutor printed it). Writes DIR/grabbed: yes or no.
cat >"$scratch/grab" <<'EOF'
#!/bin/sh
dir=$1
want=$(grep -o 'mnt:\[[0-9]*\]' "$dir/out" | head -n 1)
[ -n "$want" ] || { echo "grab: the tutor did not print its mount namespace" >"$dir/grabbed"; exit 0; }
i=0
result=no
while [ $i -lt 60 ]; do
    i=$((i + 1))
    unshare -m sh -c "readlink /proc/self/ns/mnt >'$dir/g.$i.tmp'; mv '$dir/g.$i.tmp' '$dir/g.$i'; exec sleep 30" &
    echo $! >>"$dir/held"
    t=0
    until [ -s "$dir/g.$i" ] || [ $t -ge 200 ]; do sleep 0.01; t=$((t + 1)); done
    if [ "$(cat "$dir/g.$i" 2>/dev/null)" = "$want" ]; then result=yes; break; fi
done
echo "$result ($i namespaces made, the lab's was $want)" >"$dir/grabbed"
EOF

# play NAME FUNCTION: the tutor under gdb, stopped at FUNCTION for the grab.
play() {
    dir=$scratch/$1
    mkdir -p "$dir"
    printf 'sh readlink /proc/self/ns/mnt\nquit\n' >"$dir/in"
    : >"$dir/held"
    gdb -nx -batch -q -ex 'set pagination off' -ex 'set confirm off' \
        -ex "break $2" -ex "run --lessons lessons <'$dir/in' >'$dir/out' 2>&1" \
        -ex "shell sh '$scratch/grab' '$dir'" -ex 'continue' \
        --args "$TUTOR" >"$dir/gdb" 2>&1 </dev/null
    # The classmate's sleeps end here: they are this test's own.
    xargs -r kill -KILL <"$dir/held" 2>/dev/null
    wait 2>/dev/null
}
grabbed() { cut -d' ' -f1 "$scratch/$1/grabbed" 2>/dev/null; }
said() { grep -qx "$2" "$scratch/$1/out"; }
show() {
    diag "  grab: $(cat "$scratch/$1/grabbed" 2>/dev/null)"
    tail -n 4 "$scratch/$1/out" | sed 's/^/#   | /'
    grep -E 'Breakpoint|exited|signal' "$scratch/$1/gdb" | head -n 4 | sed 's/^/#   gdb: /'
}

play during lab_find_survivors
if [ "$(grabbed during)" = no ] && said during "no process, mount or /procN left by the lab"; then
    ok "while the tutor looks for survivors the lab's mount namespace keeps its number, and the verdict is the lab's"
else
    bad "the lab's number went to a classmate's namespace during the search, or the verdict failed"
    show during
fi

play after lab_host_differences
if [ "$(grabbed after)" = yes ] && said after "no process, mount or /procN left by the lab"; then
    ok "control: once the search is over the number is free, a classmate's namespace gets it, and the verdict holds"
else
    bad "control: the classmate did not get the lab's freed number after the search, or the verdict failed"
    show after
fi

check "nothing of the sessions left" nothing_left "pidns|lab-|sleep"
finish
