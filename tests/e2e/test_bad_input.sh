#!/bin/sh
# SPDX-License-Identifier: MIT
# test_bad_input.sh: every row of the bad-input table (docs/bad-input.adoc)
# is run, and gives the message the table shows, with the exit status it
# shows, and leaves nothing behind (no /procN on the host, no process the row
# started still running).
#
# The table drives the test, so the two cannot drift apart. How a row runs
# depends on its id:
#   ex-ID      the input is an example's command line, run in the sandbox
#              (tests/helpers/in_sandbox: a private mount namespace)
#   sh-ID      the input is one line piped into pidns-tutor
#   lesson-ID  the input is a fixture under tests/fixtures/lessons/, loaded as
#              the only lesson of a --lessons directory
#   cli-ID, env-ID  the input is a command line naming pidns-tutor, run by sh
#              with the build on PATH and `quit` on standard input
# A row that needs more has a function named after it (row_ID, dashes as
# underscores) that runs it into $out and sets $rc. A row with no way to run,
# an example, a malformed-lesson fixture or a command taking arguments with no
# row, and a row_ function with no row: each fails the test.
#
#   sh tests/e2e/test_bad_input.sh [--show] [ID-PATTERN]
# --show prints what each row really printed (to write a new row's message).
set -u
BUILD=${PIDNS_TUTOR_BUILD:-build}
SRC=${PIDNS_TUTOR_SRC:-$(pwd)}
show=0
[ "${1:-}" = --show ] && show=1 && shift
only=${1:-}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "$(dirname "$self")/lib/tap"
cd "$SRC" || bail_out "cannot enter $SRC"
TABLE=docs/bad-input.adoc
abs_build=$(cd "$BUILD" 2>/dev/null && pwd) || bail_out "$BUILD is not built"
TUTOR=$abs_build/pidns-tutor
SANDBOX=$abs_build/tests/helpers/in_sandbox
LEFTOVERS=$abs_build/tests/helpers/leftovers
DRIVE=$abs_build/tests/helpers/pty_drive
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pidns-bad-input.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export XDG_STATE_HOME="$tmp/state" NO_COLOR=1 TERM=xterm
unset SUDO_UID SUDO_GID PAGER
. "$(dirname "$0")/lib/stage"
for f in "$TUTOR" "$SANDBOX" "$DRIVE" "$LEFTOVERS"; do
    [ -x "$f" ] || { not_ok "$f is built (make all)"; finish; }
done
[ -f "$TABLE" ] || { not_ok "$TABLE exists"; finish; }

# The rows of the table's body: ID TAB INPUT TAB MESSAGE TAB ON TAB EXIT TAB
# LEFT, one a line, cells with \| unescaped.
rows() {
    awk '/^\|===/ { body = !body; next }
        body && /^\| / {
            line = substr($0, 3); gsub(/\\\|/, "\001", line)
            n = split(line, f, "|")
            if (n != 6) { print "?" line "\t\t\t\t\t"; next }
            for (i = 1; i <= 6; i++) {
                gsub(/\001/, "|", f[i]); sub(/^[ \t]+/, "", f[i]); sub(/[ \t]+$/, "", f[i])
            }
            if (f[1] != "Row") print f[1] "\t" f[2] "\t" f[3] "\t" f[4] "\t" f[5] "\t" f[6]
        }' "$TABLE"
}

# The literal spans (``++text++``: monospace, shown as typed) of a cell, one a line.
literals() {
    printf '%s\n' "$1" | awk '{
        s = $0
        while ((i = index(s, "``++")) > 0) {
            s = substr(s, i + 4); j = index(s, "++``")
            if (j == 0) break
            print substr(s, 1, j - 1); s = substr(s, j + 4)
        }
    }'
}

# Whether text $2 is exactly $1, where "..." in $1 stands for any text (on
# one line) and nothing else is a wildcard.
is_exactly() {
    awk -v want="$1" -v text="$2" 'BEGIN {
        gsub(/(^|\n)[ \t]+/, "&\001", want); gsub(/[ \t]+\001/, "", want); sub(/^\001/, "", want)
        gsub(/(^|\n)[ \t]+/, "&\001", text); gsub(/[ \t]+\001/, "", text); sub(/^\001/, "", text)
        n = split(want, piece, /\.\.\./)
        if (n == 1) exit text != want
        if (substr(text, 1, length(piece[1])) != piece[1]) exit 1
        text = substr(text, length(piece[1]) + 1)
        for (i = 2; i < n; i++) {
            k = index(text, piece[i])
            if (k == 0 || index(substr(text, 1, k - 1), "\n")) exit 1
            text = substr(text, k + length(piece[i]))
        }
        tail = piece[n]
        if (length(text) < length(tail) || substr(text, length(text) - length(tail) + 1) != tail) exit 1
        exit index(substr(text, 1, length(text) - length(tail)), "\n") != 0
    }'
}

# Whether the lines of $1 each match a whole line of file $2, in order
# (a terminal's transcript, where prompts and echoed input come between).
has_lines() {
    printf '%s\n' "$1" >"$tmp/want.lines"
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        found=0
        while IFS= read -r have <&3; do
            if is_exactly "$line" "$have"; then found=1; break; fi
        done
        [ $found -eq 1 ] || return 1
    done <"$tmp/want.lines" 3<"$2"
}

# What a row may leave behind: /procN on the host, a process it started.
# Every process a row starts inherits PIDNS_TUTOR_TEST_ROW, set to a value of
# that row alone: tests/helpers/leftovers finds them by it, so a process this
# test did not start (a learner's pidns-tutor from the same build, say) is
# never counted, let alone killed.
leftovers() {
    grep -E ' /proc[0-9]+ ' /proc/self/mountinfo | awk '{ print "mounted: " $5 }'
    ls -d /proc[0-9]* 2>/dev/null | sed 's/^/directory: /'
    "$LEFTOVERS" "PIDNS_TUTOR_TEST_ROW=$row_mark"
}

nothing_left() {
    tries=0
    while :; do
        left=$(leftovers)
        [ -z "$left" ] && return 0
        tries=$((tries + 1))
        [ $tries -ge 20 ] && break
        sleep 0.1
    done
    # Report it, then end what the row started so nothing stays.
    "$LEFTOVERS" -k "PIDNS_TUTOR_TEST_ROW=$row_mark" >/dev/null
    return 1
}

# The fact that the Left behind cell states, beyond "nothing" (which
# nothing_left checks for every row), as text that must be the same before
# and after the row; "unknown" if no check is known for the cell.
left_behind_fact() {
    case $1 in
    nothing | "nothing: the command and its children are ended" | "nothing: no process, no mount" | \
        "nothing: no lab was built") ;;
    "nothing; the session works, without saved progress") # the same before the row and after
        if [ ! -f "$out.1" ] || grep -qx "no process, mount or /procN left by the lab" "$out.1"; then echo works; fi ;;
    "nothing; the progress is kept") cksum <"$tmp/kept/pidns-tutor/progress" ;;
    "nothing; an existing file is never overwritten") cksum </proc/version ;;
    "nothing; the next line runs") # the row's next line is `where`
        if [ ! -f "$out.1" ] || grep -q "^No lesson started" "$out.1"; then echo ran; fi ;;
    *) echo unknown ;;
    esac
}

# pty ID WANT [ARGS...]: runs pidns-tutor in a terminal with the pty_drive
# script on stdin (ending with `exit WANT`); the transcript goes to $out.
pty() {
    name=$1 want=$2
    shift 2
    { cat; echo "exit $want"; } >"$tmp/$name.script"
    if "$DRIVE" -t 20 -w "${width:-100}" -o "$out.raw" "$tmp/$name.script" -- "$TUTOR" "$@" \
        >"$tmp/$name.drive" 2>&1; then
        rc=$want
    else
        rc=255
        cat "$tmp/$name.drive" >>"$out.raw"
    fi
    sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$out.raw" | tr -d '\r' >"$out"
}

# ---- Rows that need more than their input ----------------------------------

# The roster reads homes made here, never the machine's.
row_cli_roster_symlink() {
    mkdir -p "$tmp/roster-symlink/.local/state/pidns-tutor"
    ln -sf /etc/shadow "$tmp/roster-symlink/.local/state/pidns-tutor/progress"
    "$TUTOR" --roster "$tmp/roster-symlink" >"$out" 2>&1
    rc=$?
}
row_cli_roster_damaged() {
    s=.local/state/pidns-tutor
    mkdir -p "$tmp/roster-damaged/$s" "$tmp/roster-fifo/$s" "$tmp/roster-huge/$s"
    printf 'current x\nnot progress\nlesson x step -1 done 0 checked 0\n' >"$tmp/roster-damaged/$s/progress"
    mkfifo "$tmp/roster-fifo/$s/progress"
    head -c 70000 /dev/zero >"$tmp/roster-huge/$s/progress"
    timeout 20 "$TUTOR" --roster "$tmp/roster-damaged" "$tmp/roster-fifo" "$tmp/roster-huge" >"$out" 2>&1
    rc=$?
}
row_sh_line_100k() {
    { head -c 102400 /dev/zero | tr '\0' a; printf '\nwhere\n'; } | "$TUTOR" >"$out.1" 2>"$out.2"
    rc=$?
}
row_sh_binary() {
    # In lines of 64 bytes: a line of random bytes is never valid text.
    head -c 8192 /dev/urandom | tr -d '\n' | fold -b -w 64 | "$TUTOR" >"$out.1" 2>"$out.2"
    rc=$?
}
row_sh_nul() {
    printf 'help\000quit\nwhere\n' | "$TUTOR" >"$out.1" 2>"$out.2"
    rc=$?
}
row_sh_reset_declined() {
    XDG_STATE_HOME=$tmp/kept pty reset 0 <<'X'
expect pidns-tutor> 
send reset\r
expect [y/N] 
send n\r
expect pidns-tutor> 
send quit\r
X
}
row_sh_ctrl_c_prompt() {
    pty ctrl_c_prompt 0 <<'X'
expect pidns-tutor> 
send half a line\x03
expect pidns-tutor> 
send quit\r
X
}
row_sh_ctrl_c_command() {
    pty ctrl_c_command 0 <<'X'
expect pidns-tutor> 
send sh sleep 4261\r
expect # sleep 4261
sleep 300
send \x03
expect pidns-tutor> 
send quit\r
X
}
row_sh_ctrl_c_step() {
    pty ctrl_c_step 0 --lessons tests/fixtures/shell/slow <<'X'
expect pidns-tutor> 
send lesson 1\r
expect # sleep 4243
sleep 300
send \x03
expect (1:1/2)> 
send quit\r
X
}
row_sh_quiz_no_answer() {
    pty quiz_no_answer 0 --lessons tests/fixtures/shell/questions <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send zzz\r
expect your answer (number)> 
send quit\r
X
}
row_sh_quiz_command_line() {
    pty quiz_command_line 0 --lessons tests/fixtures/shell/questions <<'X'
expect pidns-tutor> 
send lesson 1\r
expect your answer (number)> 
send ls /proc\r
expect your answer (number)> 
send quit\r
X
}
row_sh_ctrl_d() {
    pty ctrl_d 0 <<'X'
expect pidns-tutor> 
send run pidns_init_sleep /proc5\r
expect Mounting procfs at /proc5
expect pidns-tutor> 
send \x04
X
}
row_lesson_same_number() {
    mkdir -p "$tmp/same"
    cp -r tests/fixtures/shell/examples "$tmp/"
    cp tests/fixtures/shell/lessons/01-tiny.adoc "$tmp/same/01-a.adoc"
    cp tests/fixtures/shell/lessons/01-tiny.adoc "$tmp/same/01-b.adoc"
    echo quit | "$TUTOR" --lessons "$tmp/same" >"$out.1" 2>"$out.2"
    rc=$?
}
row_env_nobody_no_userns() {
    if [ "$(id -u)" -ne 0 ]; then
        rc=skip why="needs root to become nobody"
        return
    fi
    # A copy nobody can reach wherever the checkout is (lib/stage).
    [ -d "$tmp/tree" ] || stage_tree "$tmp/tree" || { rc="staging failed"; return; }
    mkdir -m 777 "$tmp/nobody-state"
    su nobody -s /bin/sh -c "cd /tmp && echo quit | unshare -U env HOME=/nonexistent \
        XDG_STATE_HOME='$tmp/nobody-state' '$tmp/tree/build/pidns-tutor'" >"$out.1" 2>"$out.2"
    rc=$?
}
# The limits (lab_limits.c): RLIMIT_NPROC as an ordinary user of a uid of
# its own (root ignores it, and nobody's count depends on whoever else runs as
# nobody); the namespace sysctls inside a user namespace made for the row,
# never the host's. COLUMNS keeps the note on one line.
limits_uid=$((47000 + $$ % 1000))
as_learner() { # as_learner NPROC COMMAND...: the command as $limits_uid under ulimit -u NPROC
    n=$1
    shift
    mkdir -p -m 777 "$tmp/limits-state"
    # $TUTOR from a copy the uid can reach wherever the checkout is (a
    # clone under /root or a mktemp -d: mode 700), as for nobody above.
    if [ "$1" = "$TUTOR" ]; then
        [ -d "$tmp/tree" ] || stage_tree "$tmp/tree" || return 1
        shift
        set -- "$tmp/tree/build/pidns-tutor" "$@"
    fi
    setpriv --reuid=$limits_uid --regid=$limits_uid --clear-groups \
        prlimit --nproc="$n" env HOME=/nonexistent XDG_STATE_HOME="$tmp/limits-state" \
        COLUMNS=400 "$@"
}
limits_need_root() {
    [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && return 0
    rc=skip why="needs root and setpriv to run as a uid of its own"
    return 1
}
row_env_nproc_open() {
    limits_need_root || return
    (cd /tmp && echo quit | as_learner 3 "$TUTOR") >"$out.1" 2>"$out.2"
    rc=$?
}
row_env_nproc_command() {
    limits_need_root || return
    (cd /tmp && printf '%s\n' 'sh for i in $(seq 40); do sleep 2 & done; wait' quit |
        as_learner 20 "$TUTOR") >"$out.1" 2>"$out.2"
    rc=$?
}
# The fewest processes that open the lab: then the command has none left.
row_env_nproc_could_not_run() {
    limits_need_root || return
    for n in 3 4 5 6 7 8; do
        (cd /tmp && printf 'sh echo hi\nquit\n' | as_learner $n "$TUTOR") >"$out.1" 2>"$out.2"
        rc=$?
        grep -q '^# echo hi' "$out.1" && return
    done
}
row_env_nproc_doctor() {
    limits_need_root || return
    (cd /tmp && as_learner 3 "$TUTOR" --doctor | grep -A1 '^NO') >"$out.1" 2>"$out.2"
    rc=$?
}
# Where no cgroup v2 is delegated (root's, here): the administrator's settings.
row_env_no_bound_doctor() {
    if "$TUTOR" --doctor | grep -q '^ok    a bound per lab'; then
        rc=skip why="this session has a delegated cgroup v2: the lab bounds itself"
        return
    fi
    (cd "$tmp/work" && "$TUTOR" --doctor | grep -A1 'bound per lab') >"$out.1" 2>"$out.2"
    rc=$?
}
# An older tutor's modes, in a home of the row's own.
row_env_answers_readable() {
    h=$tmp/readable-home
    mkdir -p "$h/pidns-exercises/01-two-pids" && echo 'int x;' >"$h/pidns-exercises/01-two-pids/two_pids.c" &&
        chmod -R go+rX "$h/pidns-exercises" || return
    (cd "$tmp/work" && echo quit | env COLUMNS=400 HOME="$h" XDG_STATE_HOME="$tmp/readable-state" "$TUTOR") \
        >"$out.1" 2>"$out.2"
    rc=$?
    [ "$(stat -c %a "$h/pidns-exercises" "$h/pidns-exercises/01-two-pids/two_pids.c" | tr '\n' ' ')" = "700 600 " ] ||
        echo "modes not made private: $(stat -c %a "$h/pidns-exercises" "$h/pidns-exercises/01-two-pids/two_pids.c")" >>"$out.2"
}
row_env_pidns_sysctl_command() {
    printf 'sh unshare -p -f true\nquit\n' | (cd "$tmp/work" && env COLUMNS=400 PATH="$abs_build:$PATH" \
        unshare -U -r sh -c 'echo 1 >/proc/sys/user/max_pid_namespaces && exec pidns-tutor') \
        >"$out.1" 2>"$out.2"
    rc=$?
}
row_env_narrow() {
    width=30 pty narrow 0 --lessons tests/fixtures/shell/lessons <<'X'
expect pidns-tutor> 
send help\r
expect Commands
expect pidns-tutor> 
send lesson 1\r
expect your prediction> 
send \x03
expect (1:1/2)> 
send quit\r
X
    longest=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$out")
    [ "$longest" -le 30 ] || extra="a line of $longest columns in a 30-column terminal"
}
row_env_hangup() {
    pty hangup 129 <<'X'
expect pidns-tutor> 
send sh sleep 4262\r
expect # sleep 4262
sleep 300
hangup
X
}
row_env_no_color() {
    pty no_color 0 <<'X'
expect pidns-tutor> 
send help\r
expect Commands
expect pidns-tutor> 
send quit\r
X
    ! grep -q "$(printf '\033')\[[0-9;]*[0-9]m" "$out.raw" || extra="a colour escape sequence in the output"
}

# ---- Running one row ----------------------------------------------------

run_row() { # ID INPUT: runs it into $out, sets $rc (or rc=skip and $why)
    id=$1 input=$2
    fn=row_$(printf '%s' "$id" | tr '-' '_')
    if command -v "$fn" >/dev/null 2>&1; then
        "$fn"
        return
    fi
    [ -n "$input" ] || { rc=none; return; }
    case $id in
    ex-*)
        (cd "$tmp/work" && timeout 20 "$SANDBOX" env PATH="$abs_build/examples:$PATH" \
            sh -c "$input") </dev/null >"$out.1" 2>"$out.2"
        rc=$? ;;
    sh-*)
        printf '%s\n' "$input" | timeout 20 "$TUTOR" >"$out.1" 2>"$out.2"
        rc=$? ;;
    lesson-*)
        d=$tmp/$id
        mkdir -p "$d/lessons"
        cp -r tests/fixtures/lessons/examples tests/fixtures/lessons/exercises "$d/"
        cp "tests/fixtures/lessons/$input" "$d/lessons/01-$(basename "$input")"
        echo quit | timeout 20 "$TUTOR" --lessons "$d/lessons" >"$out.1" 2>"$out.2"
        rc=$? ;;
    cli-* | env-*)
        echo quit | (cd "$tmp/work" && timeout 20 env PATH="$abs_build:$PATH" sh -c "$input") \
            >"$out.1" 2>"$out.2"
        rc=$? ;;
    *) rc=none ;;
    esac
}

mkdir -p "$tmp/work"
# Progress to keep: a lesson started (the rows that must keep it compare it).
# They run with XDG_STATE_HOME=$tmp/kept; the other rows start with none.
printf 'lesson 1\nquit\n' | XDG_STATE_HOME=$tmp/kept "$TUTOR" --lessons tests/fixtures/shell/lessons >/dev/null 2>&1
[ -s "$tmp/kept/pidns-tutor/progress" ] || not_ok "a progress file to keep is made"
rows >"$tmp/rows"
tab=$(printf '\t')
count=0
while IFS="$tab" read -r id input_cell message_cell on_cell exit_cell left_cell; do
    case $id in \?*) not_ok "a row of $TABLE has not 6 cells" "$id"; continue ;; esac
    count=$((count + 1))
    case $id in *"$only"*) ;; *) continue ;; esac
    input=$(literals "$input_cell" | head -n 1)
    shown=${input:-$(printf '%s' "$input_cell" | cut -c 1-60)}
    out=$tmp/out extra="" why="" width=""
    row_mark=$id.$$
    rm -f "$out" "$out.1" "$out.2"
    : >"$out"
    before_left=$(left_behind_fact "$left_cell")
    PIDNS_TUTOR_TEST_ROW=$row_mark
    export PIDNS_TUTOR_TEST_ROW
    run_row "$id" "$input" </dev/null
    unset PIDNS_TUTOR_TEST_ROW
    # Rows run with a pipe for each stream; a terminal row has one transcript.
    [ ! -f "$out.1" ] || cat "$out.1" "$out.2" >"$out"
    if [ "$rc" = skip ]; then
        skip_test "$id" "$why"
        continue
    fi
    if [ $show -eq 1 ]; then
        printf '=== %s (exit %s): %s\n' "$id" "$rc" "$input"
        if [ -f "$out.1" ]; then
            echo "--- stdout"; cat "$out.1"; echo "--- stderr"; cat "$out.2"
        else
            echo "--- terminal"; cat "$out"
        fi
    fi
    problems=""
    if [ "$rc" = none ]; then
        not_ok "$id: no way to test this row (give it an input, or a function row_$(echo "$id" | tr - _))"
        continue
    fi
    wants=$(literals "$message_cell")
    if [ -z "$wants" ] && ! command -v "row_$(echo "$id" | tr - _)" >/dev/null 2>&1; then
        problems="the message cell has no \`\`++text++\`\` to look for, and no function checks the row"
    fi
    printf '%s\n' "$wants" >"$tmp/wants"
    case $on_cell in
    stdout | stderr)
        if [ ! -f "$out.1" ]; then
            problems="$problems${problems:+; }the row has no separate $on_cell (it runs on a terminal)"
        else
            [ "$on_cell" = stdout ] && stream=$out.1 || stream=$out.2
            is_exactly "$wants" "$(cat "$stream")" ||
                problems="$problems${problems:+; }$on_cell is not exactly: $(printf '%s' "$wants" | tr '\n' '|')"
        fi ;;
    "stderr (each line)") # every line is one of the messages
        while IFS= read -r have; do
            one=0
            while IFS= read -r want; do is_exactly "$want" "$have" && one=1 && break; done <"$tmp/wants"
            [ $one -eq 1 ] || { problems="$problems${problems:+; }a line of stderr is none of the messages: $have"; break; }
        done <"$out.2" ;;
    terminal) [ -z "$wants" ] || has_lines "$wants" "$out" ||
        problems="$problems${problems:+; }the terminal does not show these lines: $(printf '%s' "$wants" | tr '\n' '|')" ;;
    *) problems="$problems${problems:+; }the On cell is not stdout, stderr or terminal: '$on_cell'" ;;
    esac
    [ -z "$extra" ] || problems="$problems${problems:+; }$extra"
    case $exit_cell in
    [0-9]*) [ "$rc" = "$exit_cell" ] || problems="$problems${problems:+; }exit status $rc, the table says $exit_cell" ;;
    *) problems="$problems${problems:+; }the exit cell is not a number: '$exit_cell'" ;;
    esac
    nothing_left || problems="$problems${problems:+; }left behind: $(echo $left)"
    after_left=$(left_behind_fact "$left_cell")
    case $after_left in
    unknown) problems="$problems${problems:+; }no check for the Left behind cell '$left_cell'" ;;
    "$before_left") ;;
    *) problems="$problems${problems:+; }not true: $left_cell" ;;
    esac
    if [ -z "$problems" ]; then
        ok "$id: $shown"
    else
        not_ok "$id: $shown" "$problems" "it printed:" "$(head -c 1500 "$out")"
    fi
done <"$tmp/rows"
[ $count -gt 0 ] || not_ok "$TABLE has rows"

# ---- Every kind of input has its rows --------------------------------------

[ -n "$only" ] && finish
ids=$(cut -f 1 "$tmp/rows")
# The input of every row, after its id.
while IFS="$tab" read -r id input_cell rest; do
    printf '%s %s\n' "$id" "$(literals "$input_cell" | head -n 1)"
done <"$tmp/rows" >"$tmp/inputs"
inputs() { # the inputs of the rows whose id starts with $1
    sed -n "s/^$1[^ ]* //p" "$tmp/inputs"
}
bad=""
for f in examples/*.c; do
    n=$(basename "$f" .c)
    inputs ex- | grep -q "^$n\( \|$\)" || bad="$bad $n"
done
[ -z "$bad" ] && ok "every example has rows" || not_ok "every example has rows" "none for:$bad"

bad=""
for f in tests/fixtures/lessons/malformed/*.adoc; do
    inputs lesson- | grep -qxF "malformed/$(basename "$f")" || bad="$bad $(basename "$f")"
done
[ -z "$bad" ] && ok "every malformed-lesson fixture has a row" || not_ok "every malformed-lesson fixture has a row" "none for:$bad"

bad=""
for c in $("$TUTOR" --commands-adoc | sed -n 's/^`\([a-z][a-z]*\) [^`]*`: .*/\1/p'); do
    inputs sh- | grep -q "^$c " || bad="$bad $c"
done
[ -z "$bad" ] && ok "every command that takes arguments has a row with bad ones" ||
    not_ok "every command that takes arguments has a row with bad ones" "none for:$bad"

bad=""
for fn in $(sed -n 's/^row_\([a-z0-9_]*\)() {$/\1/p' "$self"); do
    printf '%s\n' "$ids" | tr - _ | grep -qx "$fn" || bad="$bad row_$fn"
done
[ -z "$bad" ] && ok "every row_ function has its row" || not_ok "every row_ function has its row" "no row for:$bad"
finish
