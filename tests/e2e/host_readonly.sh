#!/bin/sh
# SPDX-License-Identifier: MIT
# The lab's view of the host is read-only (commit 36729da), and its verdict
# judges only what the lab could leave (lab_host.c). Through the real shell:
#  - as root, writes from the lab to /etc, /tmp, /root and $HOME are refused
#    or land in the lab's own scratch, and the host's files stay
#    byte-identical; the first refusal gets a one-line note;
#  - as nobody, the same for the user's home (made here) and the directory
#    the tutor was started in;
#  - a --lessons directory whose step deletes a host file leaves it in place;
#  - a procfs mounted and unmounted outside the lab while it runs is not
#    listed by `status` and leaves "no process, mount or /procN left", exit status 0.
# The negative controls: the checks below catch a changed copy, and writes
# at the lab's own / and /tmp work; test_lab.c shows a real leftover failing.
. tests/e2e/lib/common
if [ "$(id -u)" -ne 0 ]; then
    skip_all "needs root (files in /etc and /root, nobody, a procfs mount)"
fi
plan 18
abs_tutor=$(cd "$(dirname "$TUTOR")" && pwd)/pidns-tutor
out=$scratch/out
tag=pidns-tutor-ro-test.$$
etcf=/etc/$tag
rootf=/root/$tag
# Outside the lab's scratch places (/tmp, /var/tmp, /run) and reachable by
# nobody even when the checkout is not (a clone under /root).
home=$(mktemp -d /var/lib/pidns-tutor-ro-home.XXXXXX)
fproc=$scratch/foreign-proc
cleanup() {
    umount "$fproc" 2>/dev/null
    rm -f "$etcf" "$rootf" "/etc/$tag.new"
    rm -rf "$home" "$scratch"
}
trap cleanup EXIT
mkdir "$scratch/orig"
for f in "$etcf" "$rootf" "$home/file" "$scratch/tmpfile"; do
    printf 'the host, %s\n' "$f" >"$f"
    cp "$f" "$scratch/orig/$(echo "$f" | tr / _)"
done
same() {
    for f in "$@"; do
        cmp -s "$f" "$scratch/orig/$(echo "$f" | tr / _)" || { echo "#   changed: $f"; return 1; }
    done
}
printf 'changed\n' >"$scratch/copy"
cp "$scratch/copy" "$scratch/orig/$(echo "$scratch/copy" | tr / _)"
printf 'more\n' >>"$scratch/copy"
check "negative control: a changed file is caught" sh -c "! $(command -v cmp) -s '$scratch/copy' '$scratch/orig/$(echo "$scratch/copy" | tr / _)'"

# As root.
cat >"$scratch/in" <<EOF
sh echo lab >>$etcf
sh rm -f $etcf
sh touch /etc/$tag.new
sh echo lab >$rootf
sh rm -f $scratch/tmpfile
sh echo lab >$home/file
sh echo scratch >/tmp/w && cat /tmp/w
sh mkdir /proc9 && echo made /proc9
quit
EOF
HOME=$home "$TUTOR" <"$scratch/in" >"$out" 2>&1
check "as root: writes to /etc and /root refused" grep -q "Read-only file system" "$out"
check "as root: one note on the first refusal" [ "$(grep -c "the host's files are read-only" "$out")" -eq 1 ]
check "as root: /etc, /root, /tmp and \$HOME files byte-identical" same "$etcf" "$rootf" "$scratch/tmpfile" "$home/file"
check "as root: no new file in /etc" [ ! -e "/etc/$tag.new" ]
check "as root: the lab's /tmp and / are writable" sh -c "grep -qx scratch '$out' && grep -qx 'made /proc9' '$out'"
check "as root: no process, mount or /procN left" grep -q "no process, mount or /procN left" "$out"

# As nobody, with a home of their own.
chown -R nobody "$home" && chmod 755 "$home"
chmod 777 "$scratch"
printf 'the host, nobody\n' >"$scratch/cwdfile" && chmod 666 "$scratch/cwdfile"
cp "$scratch/cwdfile" "$scratch/orig/$(echo "$scratch/cwdfile" | tr / _)"
cp "$home/file" "$scratch/orig/$(echo "$home/file" | tr / _)"
# nobody cannot enter a checkout under /root (mode 700): run a staged copy.
abs_lessons=$(pwd)/lessons
if ! su nobody -s /bin/sh -c "test -x '$abs_tutor'"; then
    . tests/e2e/lib/stage
    stage_tree "$scratch/tree" || bad "staging a copy of the tree for nobody"
    abs_tutor=$scratch/tree/build/pidns-tutor abs_lessons=$scratch/tree/lessons
fi
if su nobody -s /bin/sh -c "test -x '$abs_tutor' && test -w '$home/file'"; then
    su nobody -s /bin/sh -c "cd '$scratch' && printf 'sh echo lab >$home/file\nsh rm -f $home/file\nsh echo lab >>./cwdfile\nsh rm -f ./cwdfile\nsh echo lab >$etcf\nquit\n' | env HOME='$home' XDG_STATE_HOME='$scratch/nstate' NO_COLOR=1 '$abs_tutor'" >"$out" 2>&1
    check "as nobody: writes to the start directory refused" grep -q "Read-only file system" "$out"
    check "as nobody: home, start directory and /etc files byte-identical" same "$home/file" "$scratch/cwdfile" "$etcf"
    check "as nobody: no process, mount or /procN left" grep -q "no process, mount or /procN left" "$out"
    # Every lesson still passes in the read-only lab as an ordinary user
    # (lessons_auto_all.sh takes both routes as root).
    su nobody -s /bin/sh -c "cd '$scratch' && env HOME='$home' XDG_STATE_HOME='$scratch/nstate' NO_COLOR=1 timeout -s KILL 300 '$abs_tutor' --auto all --lessons '$abs_lessons' </dev/null" >"$out" 2>&1
    rc=$?
    check "as nobody: --auto all passes in the read-only lab (status $rc)" sh -c "[ $rc -eq 0 ] && grep -q ', 0 failed' '$out' && grep -q 'no process, mount or /procN left' '$out'"
else
    for what in "writes to the start directory refused" "home, start directory and /etc files byte-identical" \
        "no process, mount or /procN left" "--auto all passes in the read-only lab"; do
        skip "as nobody: $what" "nobody cannot reach $abs_tutor"
    done
fi

# A lesson directory whose step deletes a host file.
mkdir "$scratch/rogue"
cp "$etcf" "$scratch/victim"
cp "$scratch/victim" "$scratch/orig/$(echo "$scratch/victim" | tr / _)"
cat >"$scratch/rogue/01-rogue.adoc" <<EOF
// A lesson from someone else that tries to delete host files.
= A rogue lesson
:summary: rm in a step
:minutes: 1

== Tidying up

[.run]
----
rm -f $etcf $scratch/victim $home/file; echo tried
----
EOF
"$TUTOR" --auto all --lessons "$scratch/rogue" >"$out" 2>&1
check "a --lessons step that deletes host files: they stay" same "$etcf" "$scratch/victim"
check "a --lessons step: it did run" grep -q "tried" "$out"

# A procfs mounted outside the lab before it opens and unmounted while it
# runs; another mounted meanwhile.
mkdir "$fproc" "$scratch/foreign-proc2"
mount -t proc proc "$fproc"
mkfifo "$scratch/fifo"
"$TUTOR" <"$scratch/fifo" >"$out" 2>&1 &
pid=$!
exec 3>"$scratch/fifo"
printf 'status\nsh mkdir /proc7 && mount -t proc proc /proc7\nstatus\n' >&3
for _ in $(seq 50); do grep -q "procfs mounted at /proc7" "$out" && break; sleep 0.1; done
umount "$fproc"
mount -t proc proc "$scratch/foreign-proc2"
printf 'quit\n' >&3
exec 3>&-
wait $pid
rc=$?
umount "$scratch/foreign-proc2"
check "status: an inherited procfs of the host is not the lab's" sh -c "! grep -q 'mounted at $fproc' '$out' && grep -q 'No procfs is mounted in the lab besides /proc' '$out'"
check "status: the lab's own procfs is listed (negative control)" grep -q "procfs mounted at /proc7" "$out"
check "a foreign procfs mount and unmount: no process, mount or /procN left" grep -q "no process, mount or /procN left" "$out"
check "a foreign procfs mount and unmount: told neutrally" grep -q "not by the lab" "$out"
check "a foreign procfs mount and unmount: exit status 0 (got $rc)" [ "$rc" -eq 0 ]
finish
