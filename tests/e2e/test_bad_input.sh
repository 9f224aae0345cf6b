#!/bin/sh
# test_bad_input.sh: every row of the bad-input table (docs/bad-input.adoc)
# is run, and gives the message the table shows, with the exit status it
# shows, and leaves nothing behind (no /procN on the host, no process of this
# build, no process of the row still running).
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
cd "$SRC" || exit 1
TABLE=docs/bad-input.adoc
abs_build=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "not ok - $BUILD is not built"; exit 1; }
TUTOR=$abs_build/pidns-tutor
SANDBOX=$abs_build/tests/helpers/in_sandbox
DRIVE=$abs_build/tests/helpers/pty_drive
tmp=$(mktemp -d /tmp/pidns-bad-input.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export XDG_STATE_HOME="$tmp/state" NO_COLOR=1 TERM=xterm
unset SUDO_UID SUDO_GID PAGER
. "$(dirname "$0")/lib/tap"
. "$(dirname "$0")/lib/stage"
for f in "$TUTOR" "$SANDBOX" "$DRIVE"; do
    [ -x "$f" ] || { not_ok "$f is built (make all)"; finish; }
done
[ -f "$TABLE" ] || { not_ok "$TABLE exists"; finish; }

# The rows of the table's body: ID TAB INPUT TAB MESSAGE TAB EXIT, one a
# line, cells with \| unescaped.
rows() {
    awk '/^\|===/ { body = !body; next }
        body && /^\| / {
            line = substr($0, 3); gsub(/\\\|/, "\001", line)
            n = split(line, f, "|")
            if (n < 5) { print "?" line "\t\t\t"; next }
            for (i = 1; i <= 4; i++) {
                gsub(/\001/, "|", f[i]); sub(/^[ \t]+/, "", f[i]); sub(/[ \t]+$/, "", f[i])
            }
            if (f[1] != "Row") print f[1] "\t" f[2] "\t" f[3] "\t" f[4]
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

# Whether file $2 holds text $1, where "..." in $1 stands for any text.
holds() {
    awk -v want="$1" 'BEGIN { RS = "\001" } {
        text = $0; gsub(/\r/, "", text); gsub(/\033\[[0-9;?]*[a-zA-Z]/, "", text)
        n = split(want, piece, /\.\.\./)
        for (i = 1; i <= n; i++) {
            if (piece[i] == "") continue
            k = index(text, piece[i]); if (k == 0) exit 1
            text = substr(text, k + length(piece[i]))
        }
        found = 1
    } END { exit !found }' "$2"
}

# What a row may leave behind: /procN on the host, a process of this build,
# a process whose command line holds the row's marker.
leftovers() {
    grep -E ' /proc[0-9]+ ' /proc/self/mountinfo | awk '{ print "mounted: " $5 }'
    ls -d /proc[0-9]* 2>/dev/null | sed 's/^/directory: /'
    find /proc -maxdepth 2 -path '/proc/[0-9]*/exe' -lname "$abs_build/*" 2>/dev/null |
        sed 's|^/proc/\([0-9]*\)/exe$|process \1: a program of this build|'
    [ -z "$marker" ] || pgrep -f -- "$marker" | while read -r p; do echo "process $p: $(tr "\0" " " <"/proc/$p/cmdline" 2>/dev/null)"; done
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
    # Report it, then end what this test started (by PID) so nothing stays.
    for p in $(printf '%s\n' "$left" | sed -n 's/^process[^0-9]*\([0-9][0-9]*\).*/\1/p'); do
        kill -9 "$p" 2>/dev/null
    done
    return 1
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

row_sh_line_100k() {
    { head -c 102400 /dev/zero | tr '\0' a; printf '\nwhere\n'; } | "$TUTOR" >"$out" 2>&1
    rc=$?
}
row_sh_binary() {
    head -c 8192 /dev/urandom | "$TUTOR" >"$out" 2>&1
    rc=$?
}
row_sh_nul() {
    printf 'help\000quit\nwhere\n' | "$TUTOR" >"$out" 2>&1
    rc=$?
}
row_sh_reset_declined() {
    pty reset 0 <<'X'
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
    marker="sleep 4261"
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
    marker="sleep 4243"
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
row_sh_ctrl_d() {
    marker="pidns_init_sleep /proc5"
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
    echo quit | "$TUTOR" --lessons "$tmp/same" >"$out" 2>&1
    rc=$?
}
row_env_nobody_no_userns() {
    if [ "$(id -u)" -ne 0 ]; then
        rc=skip why="needs root to become nobody"
        return
    fi
    # A copy nobody can reach wherever the checkout is (lib/stage).
    [ -d "$tmp/tree" ] || stage_tree "$tmp/tree" || { rc="staging failed"; return; }
    su nobody -s /bin/sh -c "cd /tmp && echo quit | unshare -U env HOME=/nonexistent \
        XDG_STATE_HOME=/nonexistent '$tmp/tree/build/pidns-tutor'" >"$out" 2>&1
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
    marker="sleep 4262"
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
            sh -c "$input") </dev/null >"$out" 2>&1
        rc=$? ;;
    sh-*)
        printf '%s\n' "$input" | timeout 20 "$TUTOR" >"$out" 2>&1
        rc=$? ;;
    lesson-*)
        d=$tmp/$id
        mkdir -p "$d/lessons"
        cp -r tests/fixtures/lessons/examples "$d/"
        cp "tests/fixtures/lessons/$input" "$d/lessons/01-$(basename "$input")"
        echo quit | timeout 20 "$TUTOR" --lessons "$d/lessons" >"$out" 2>&1
        rc=$? ;;
    cli-* | env-*)
        echo quit | (cd "$tmp/work" && timeout 20 env PATH="$abs_build:$PATH" sh -c "$input") \
            >"$out" 2>&1
        rc=$? ;;
    *) rc=none ;;
    esac
}

mkdir -p "$tmp/work"
rows >"$tmp/rows"
tab=$(printf '\t')
count=0
while IFS="$tab" read -r id input_cell message_cell exit_cell; do
    case $id in \?*) not_ok "a row of $TABLE has fewer than 5 cells" "$id"; continue ;; esac
    count=$((count + 1))
    case $id in *"$only"*) ;; *) continue ;; esac
    input=$(literals "$input_cell" | head -n 1)
    shown=${input:-$(printf '%s' "$input_cell" | cut -c 1-60)}
    out=$tmp/out marker="" extra="" why="" width=""
    : >"$out"
    run_row "$id" "$input" </dev/null
    if [ "$rc" = skip ]; then
        skip_test "$id" "$why"
        continue
    fi
    if [ $show -eq 1 ]; then
        printf '=== %s (exit %s): %s\n' "$id" "$rc" "$input"
        cat "$out"
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
    while IFS= read -r want; do
        [ -z "$want" ] || holds "$want" "$out" || problems="$problems${problems:+; }did not say: $want"
    done <"$tmp/wants"
    [ -z "$extra" ] || problems="$problems${problems:+; }$extra"
    case $exit_cell in
    [0-9]*) [ "$rc" = "$exit_cell" ] || problems="$problems${problems:+; }exit status $rc, the table says $exit_cell" ;;
    *) problems="$problems${problems:+; }the exit cell is not a number: '$exit_cell'" ;;
    esac
    nothing_left || problems="$problems${problems:+; }left behind: $(echo $left)"
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
