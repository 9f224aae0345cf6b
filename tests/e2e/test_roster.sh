#!/bin/sh
# SPDX-License-Identifier: MIT
# test_roster.sh: pidns-tutor --roster over a class of home directories built
# here (never the machine's real homes): a learner with progress, one never
# started, a damaged file, a progress file that is a symlink to a secret, a
# state directory that is a symlink, a FIFO, an oversized file, control
# characters meant for the instructor's terminal; state directories and
# progress files named directly; CSV; a missing PATH. Every check has its
# negative control (the same home read correctly, or the secret's text).
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
. "$(dirname "$0")/lib/tap"
tutor=$(cd "$BUILD" 2>/dev/null && pwd)/pidns-tutor
[ -x "$tutor" ] || { not_ok "$BUILD/pidns-tutor is built"; finish; }
cd "$SRC" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
c=$tmp/class
state=.local/state/pidns-tutor
lessons=$(ls lessons/[0-9]*-*.adoc | wc -l)
first=$(basename "$(ls lessons/[0-9]*-*.adoc | head -n 1)" .adoc)
second=$(basename "$(ls lessons/[0-9]*-*.adoc | sed -n 2p)" .adoc)

home() { mkdir -p "$c/$1/$state"; }
home alice
# The first lesson's exercises are its steps 4 and 5 (bits 3 and 4: 24).
printf '# pidns-tutor progress, format 1\ncurrent %s\nlesson %s step 3 done 1 checked 24\nlesson %s step 1 done 0 checked 0\n' \
    "$second" "$first" "$second" >"$c/alice/$state/progress"
mkdir -p "$c/bob" # never started
home carol
printf 'current %s\nlesson %s step 0 done 1 checked 24\nthis is not progress\nlesson x step -4 done 7 checked 0\n' \
    "$first" "$first" >"$c/carol/$state/progress"
printf 'lesson TOP-SECRET step 0 done 1 checked 0\n' >"$tmp/secret"
home dave
ln -s "$tmp/secret" "$c/dave/$state/progress"
mkdir -p "$c/erin/.local/state" "$tmp/elsewhere"
cp "$tmp/secret" "$tmp/elsewhere/progress"
ln -s "$tmp/elsewhere" "$c/erin/$state"
home fifo
mkfifo "$c/fifo/$state/progress"
home huge
head -c 100000 /dev/zero | tr '\0' '#' >"$c/huge/$state/progress"
home mallory
printf 'current evil\033]2;pwned\007\nlesson evil\033[2J step 0 done 1 checked 0\n' >"$c/mallory/$state/progress"

run() { timeout 20 "$tutor" --lessons lessons --roster "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
row() { grep "^$c/$1 " "$tmp/out"; }

run "$c"/alice "$c"/bob "$c"/carol "$c"/dave "$c"/erin "$c"/fifo "$c"/huge "$c"/mallory
if [ "$(cat "$tmp/rc")" -ne 0 ]; then
    not_ok "--roster reads a class of homes" "exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
    finish
fi
head -n 1 "$tmp/out" | grep -q '^ACCOUNT  *DONE  *SKIPPED  *NOW  *LAST ACTIVE  *NOTE' &&
    [ "$(wc -l <"$tmp/out")" -eq 9 ] && ok "--roster prints a header and one row per home (8)" ||
    not_ok "--roster prints a header and one row per home (8)" "$(cat "$tmp/out")"

today=$(date +%Y-%m-%d)
row alice | grep -qE " 1/$lessons  +-  +$second, step 2 of [0-9]+  +$today [0-9:]{5} *$" &&
    ok "a learner's row: lessons done, where they are now (lesson, step), when last active" ||
    not_ok "a learner's row: lessons done, where they are now, when last active" "$(row alice)"
row bob | grep -q " 0/$lessons  *-  *-  *-  *not started$" && ok "a home without progress: not started" ||
    not_ok "a home without progress: not started" "$(row bob)"
row carol | grep -q "1/$lessons .*damaged: 2 lines that are not progress" &&
    ok "a damaged file is reported as such, and what it holds of progress is shown" ||
    not_ok "a damaged file is reported as such" "$(row carol)"

bad=""
row dave | grep -q 'symlink, not followed: progress is a symlink' || bad="$bad dave:$(row dave)"
row erin | grep -q 'symlink, not followed: pidns-tutor is a symlink' || bad="$bad erin:$(row erin)"
grep -q 'TOP-SECRET' "$tmp/out" && bad="$bad the-secret-was-read"
# Negative control: the same file, named itself, is read (so the row above
# is about the symlink, not about an unreadable file).
run "$tmp/secret"
grep -q " 1/$lessons " "$tmp/out" || bad="$bad control:$(cat "$tmp/out")"
check_msg="a symlinked progress file or state directory is reported, never followed"
[ -z "$bad" ] && ok "$check_msg" || not_ok "$check_msg" "$bad"

run "$c"/fifo "$c"/huge "$c"/mallory
bad=""
[ "$(cat "$tmp/rc")" -eq 0 ] || bad="$bad exit-$(cat "$tmp/rc")"
row fifo | grep -q 'not a regular file' || bad="$bad fifo:$(row fifo)"
row huge | grep -q 'too large: more than 65536 bytes' || bad="$bad huge:$(row huge)"
check_msg="a FIFO does not hang the roster, an oversized file is not read"
[ -z "$bad" ] && ok "$check_msg" || not_ok "$check_msg" "$bad"
if grep -q "$(printf '\033')" "$tmp/out"; then
    not_ok "control characters in a progress file never reach the terminal" "$(od -c "$tmp/out" | head)"
elif row mallory | grep -q 'evil?\]2;pwned?'; then
    ok "control characters in a progress file never reach the terminal (shown as ?)"
else
    not_ok "control characters in a progress file never reach the terminal" "$(row mallory)"
fi

# State directories and progress files named directly; CSV.
run "$c/alice/$state" "$c/alice/$state/progress" --csv
bad=""
[ "$(cat "$tmp/rc")" -eq 1 ] && grep -q "pidns-tutor: --roster: --csv: No such file or directory" "$tmp/err" ||
    bad="options after the paths are paths: $(cat "$tmp/err")"
"$tutor" --lessons lessons --roster --csv "$c/alice/$state" "$c/alice/$state/progress" "$c/bob" >"$tmp/csv" 2>"$tmp/err" ||
    bad="$bad exit $?: $(cat "$tmp/err")"
[ "$(head -n 1 "$tmp/csv")" = "account,done,total,lesson,step,last_active,state,detail,steps,lesson_state,skipped,skipped_at" ] || bad="$bad header:$(head -n 1 "$tmp/csv")"
[ "$(grep -c ",1,$lessons,$second,2,$today" "$tmp/csv")" -eq 2 ] || bad="$bad alice:$(cat "$tmp/csv")"
grep -q "^$c/bob,0,$lessons,,,,not started,,,,0,$" "$tmp/csv" || bad="$bad bob:$(grep bob "$tmp/csv")"
[ -z "$bad" ] && ok "--csv: a header, then the same rows for a state directory and a progress file named directly" ||
    not_ok "--csv: a header and the rows of a state directory and a progress file" "$bad"

run "$c/alice" /no-such-dir
[ "$(cat "$tmp/rc")" -eq 1 ] && grep -qx "pidns-tutor: --roster: /no-such-dir: No such file or directory" "$tmp/err" &&
    row alice >/dev/null && ok "a missing PATH is named on stderr (exit 1); the others are still shown" ||
    not_ok "a missing PATH is named on stderr (exit 1)" "exit $(cat "$tmp/rc"): $(cat "$tmp/err") / $(cat "$tmp/out")"

# Skipped exercises (commit e67a26e): a lesson left with an exercise not passed is
# not done. frank's file is of format 1, which did not record skips: his first
# lesson was finished with its step 5 exercise never passed (checked 8, not
# 24). grace's is of format 2: step 5 skipped, then lesson 2 at its step 3.
# heidi finished the first lesson, every exercise passed, and it is current.
# Negative control: the same rows read before skips counted (main's build)
# say frank and grace are done with the first lesson.
home frank
printf '# pidns-tutor progress, format 1\ncurrent %s\nlesson %s step 0 done 1 checked 8\n' \
    "$first" "$first" >"$c/frank/$state/progress"
home grace
printf '# pidns-tutor progress, format 2\ncurrent %s\nlesson %s step 0 finished 1 checked 8 skipped 16\nlesson %s step 2 finished 0 checked 0 skipped 0\n' \
    "$second" "$first" "$second" >"$c/grace/$state/progress"
home heidi
printf '# pidns-tutor progress, format 2\ncurrent %s\nlesson %s step 0 finished 1 checked 24 skipped 0\n' \
    "$first" "$first" >"$c/heidi/$state/progress"
run "$c/frank" "$c/grace" "$c/heidi"
row frank | grep -qE " 0/$lessons  +1 \($first step 5\)  +$first, finished, 1 skipped  " &&
    ok "a format 1 file's exercise never passed shows as skipped; the lesson is not done" ||
    not_ok "a format 1 file's exercise never passed shows as skipped" "$(row frank)"
row grace | grep -qE " 0/$lessons  +1 \($first step 5\)  +$second, step 3 of [0-9]+  " &&
    ok "a format 2 file's skipped exercise is shown; the step reads as a position (step 3 of N)" ||
    not_ok "a format 2 file's skipped exercise is shown" "$(row grace)"
row heidi | grep -qE " 1/$lessons  +-  +$first, done  " &&
    ok "a finished lesson, every exercise passed: done, not 'step 1' of it" ||
    not_ok "a finished lesson, every exercise passed: done" "$(row heidi)"
"$tutor" --lessons lessons --roster --csv "$c/frank" "$c/grace" "$c/heidi" >"$tmp/csv" 2>"$tmp/err"
bad=""
grep -q "^$c/frank,0,$lessons,$first,,.*,ok,,[0-9]*,finished,1,$first:5$" "$tmp/csv" || bad="$bad frank:$(grep frank "$tmp/csv")"
grep -q "^$c/grace,0,$lessons,$second,3,.*,ok,,[0-9]*,in progress,1,$first:5$" "$tmp/csv" || bad="$bad grace:$(grep grace "$tmp/csv")"
grep -q "^$c/heidi,1,$lessons,$first,,.*,ok,,[0-9]*,done,0,$" "$tmp/csv" || bad="$bad heidi:$(grep heidi "$tmp/csv")"
[ -z "$bad" ] && ok "--csv: the lesson's state, the skipped count and where (ID:STEP)" ||
    not_ok "--csv: the lesson's state, the skipped count and where" "$bad"

# A screenshot of a class's roster, for a person to look at.
. "$(dirname "$0")/lib/screenshot"
{
    echo '$ pidns-tutor --roster alice bob carol dave'
    (cd "$c" && "$tutor" --lessons "$SRC/lessons" --roster alice bob carol dave 2>&1)
} >"$tmp/shot.txt"
if screenshot_text "$tmp/shot.txt" "$BUILD/screenshots/roster.png"; then
    ok "a screenshot of a roster in $BUILD/screenshots/roster.png"
else
    skip_test "a screenshot of a roster" "no chromium (make deps-check)"
fi

# A directory of homes (commit 62aaf3d): one row per home in it, "not started"
# included, in text and CSV; its dot-directories and files are not homes.
# Negative control: main's build before this read $c as one home, a single
# "not started" row.
mkdir -p "$c/zoe/Documents" "$c/.cache"
: >"$c/README"
homes=$(cd "$c" && ls -d */ | wc -l)
run "$c"
bad=""
[ "$(cat "$tmp/rc")" -eq 0 ] || bad="exit $(cat "$tmp/rc"): $(cat "$tmp/err")"
[ "$(($(wc -l <"$tmp/out") - 1))" -eq "$homes" ] || bad="$bad rows:$(wc -l <"$tmp/out") for $homes homes"
row bob | grep -q ' not started$' || bad="$bad bob:$(row bob)"
row zoe | grep -q ' not started$' || bad="$bad zoe:$(row zoe)"
row alice | grep -q " 1/$lessons " || bad="$bad alice:$(row alice)"
grep -q "^$c/\.cache \|README" "$tmp/out" && bad="$bad dot-directory-or-file-listed"
[ -z "$bad" ] && ok "a directory of homes: one row per home ($homes), never-started learners included" ||
    not_ok "a directory of homes: one row per home, never-started learners included" "$bad" "$(cat "$tmp/out")"
"$tutor" --lessons lessons --roster --csv "$c/" >"$tmp/csv" 2>"$tmp/err"
[ "$(($(wc -l <"$tmp/csv") - 1))" -eq "$homes" ] && grep -q "^$c/zoe,0,$lessons,,,,not started,,,,0,$" "$tmp/csv" &&
    ok "a directory of homes in CSV: the same rows, not started included" ||
    not_ok "a directory of homes in CSV: the same rows, not started included" "$(cat "$tmp/csv")"

# Every account: as root all homes. Here the machine's own accounts: every
# one whose home is under /home (or /var/home...) has its row, even never
# started; the others only with progress. As root, one throwaway account
# of our own (its home named, never made: nothing is written in /home),
# removed at the end, so that a machine with none (a fresh debootstrap
# root) still has one to list.
throwaway=""
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null; then
    throwaway=pidnsroster$$
    # (another test may hold the password file's lock for a moment: retry)
    tries=0
    until useradd -M -d "/home/$throwaway" -s /usr/sbin/nologin "$throwaway" 2>"$tmp/err"; do
        tries=$((tries + 1))
        [ $tries -lt 10 ] || { throwaway=""; break; }
        sleep 0.5
    done
    [ -n "$throwaway" ] && trap 'userdel "$throwaway" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
fi
"$tutor" --lessons lessons --roster >"$tmp/all" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && head -n 1 "$tmp/all" | grep -q '^ACCOUNT' && ok "--roster with no PATH reads the accounts of the password database" ||
    not_ok "--roster with no PATH reads the accounts of the password database" "exit $rc: $(cat "$tmp/err")"
learners=$(getent passwd | awk -F: '$6 ~ "^/(var/|export/|usr/)?home/[^/]" { print $1 }' | sort -u)
if [ -z "$learners" ]; then
    skip_test "--roster lists accounts under /home never started" "no account has a home under /home here"
elif [ "$(id -u)" -ne 0 ]; then
    skip_test "--roster lists accounts under /home never started" "needs root to read every home"
else
    bad=""
    for a in $learners; do grep -q "^$a " "$tmp/all" || bad="$bad $a"; done
    [ -z "$bad" ] && ok "--roster lists every account under /home, never started included: $(echo $learners)" ||
        not_ok "--roster lists every account under /home, never started included" "missing:$bad" "$(cat "$tmp/all")"
fi
if [ -n "$throwaway" ]; then
    userdel "$throwaway" && ! getent passwd "$throwaway" >/dev/null && [ ! -e "/home/$throwaway" ] &&
        ok "the throwaway account is gone, and no home was made for it" ||
        not_ok "the throwaway account is gone, and no home was made for it" "$(getent passwd "$throwaway")"
fi
finish
