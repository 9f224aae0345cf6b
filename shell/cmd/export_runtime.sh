# SPDX-License-Identifier: MIT
# export_runtime.sh: the part of every exported lesson script that is the
# same for all lessons: how it starts itself again in namespaces of its own,
# builds a root of its own, compares outputs with the lesson's patterns
# (the rules of lesson_output_matches, in awk), waits for programs left
# running, and the named conditions of the checks (the line "#@
# TUTOR_CONDITIONS_SH" below stands for shell/tutor/tutor_conditions.sh, the
# same text as the tutor's). cmd_export.c writes it after the lesson's
# variables (lab_name, lab_lesson, lab_examples, lab_libexecdir,
# lab_programs, lab_kernel...) and before its steps. The build turns this
# file into the C string EXPORT_RUNTIME_SH ($(O)/gen/cmd/export_runtime_sh.h, by
# sh_to_c in the Makefile); these first lines, down to the first empty line,
# are this file's own and are left out of it. SC2154 (a variable used but
# never set) is off for this file alone: the lesson's variables are set by
# the lines cmd_export.c writes before it, and the exported scripts, read
# whole, are checked with it on (make check-sh).
# shellcheck shell=sh disable=SC2154

# ---------------------------------------------------------------------------
# How the script runs. First it starts itself again in namespaces of its own:
# a PID namespace with a procfs for it (so pgrep, pidof, ps and kill meet only
# what the script started) and a mount namespace with private propagation,
# plus a user namespace, mapping you to root inside, when you are not root.
if [ $$ -ne 1 ] || { [ "${PIDNS_LESSON_STAGE:-}" != lab ] && [ "${PIDNS_LESSON_STAGE:-}" != runner ]; }; then
    case $0 in
    */*) lab_self=$(cd "${0%/*}" 2>/dev/null && pwd)/${0##*/} ;;
    *) lab_self=$(pwd)/$0 ;;
    esac
    if [ ! -f "$lab_self" ] || [ ! -r "$lab_self" ]; then
        echo "$lab_name: cannot read $0: run this file with: sh FILE" >&2
        exit 2
    fi
    # The example programs: $PIDNS_TUTOR_EXAMPLES, else beside the
    # pidns-tutor found on PATH (a build tree or an installation), else
    # where the tutor that wrote this script found them (its examples are
    # those of this lesson text), else the installation directory, else PATH.
    if [ -z "${PIDNS_TUTOR_EXAMPLES:-}" ]; then
        lab_bin=$(command -v pidns-tutor 2>/dev/null) && lab_bin=${lab_bin%/*} || lab_bin=/nonexistent
        for lab_d in "$lab_bin/examples" "$lab_bin/../libexec/pidns-tutor" "${lab_examples:-}" "$lab_libexecdir"; do
            [ -d "$lab_d" ] && PIDNS_TUTOR_EXAMPLES=$lab_d && break
        done
    fi
    if [ -n "${PIDNS_TUTOR_EXAMPLES:-}" ]; then
        PIDNS_TUTOR_EXAMPLES=$(cd "$PIDNS_TUTOR_EXAMPLES" 2>/dev/null && pwd) || {
            echo "$lab_name: PIDNS_TUTOR_EXAMPLES: no directory $PIDNS_TUTOR_EXAMPLES" >&2
            exit 2
        }
    fi
    for lab_p in $lab_programs; do
        if ! PATH=${PIDNS_TUTOR_EXAMPLES:-}:$PATH command -v "$lab_p" >/dev/null; then
            echo "$lab_name: cannot find the example program $lab_p: set PIDNS_TUTOR_EXAMPLES to the directory of the built examples" >&2
            exit 2
        fi
    done
    lab_user=
    [ "$(id -u)" -eq 0 ] || lab_user="--user --map-root-user"
    PATH=$PATH:/usr/sbin:/sbin
    # A quick try first, so that a machine that allows no namespaces gets
    # one clear line.
    # $lab_user is no word, or two options: split on purpose.
    # shellcheck disable=SC2086
    if ! unshare $lab_user --mount --pid --fork true 2>/dev/null; then
        echo "$lab_name: cannot create the namespaces the lesson runs in: run it as root, or allow unprivileged user namespaces (pidns-tutor --doctor says how)" >&2
        exit 2
    fi
    # --kill-child: if unshare dies, the script's first process dies, and
    # with it, by the kernel's hand, everything in its PID namespace.
    # shellcheck disable=SC2086
    PIDNS_LESSON_STAGE=lab PIDNS_TUTOR_EXAMPLES=${PIDNS_TUTOR_EXAMPLES:-} exec unshare \
        $lab_user --mount --propagation private --pid --fork --kill-child --mount-proc \
        sh "$lab_self" "$@"
fi
# From here on the script is PID 1 of its own PID namespace. When it exits,
# however it exits (the end, a failed step, Ctrl-C, kill -9 of unshare), the
# kernel kills every other process of the namespace, and the mount namespace,
# with every procfs the lesson mounted, goes away with the last of them.
trap 'echo "$lab_name: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# A root of its own: a tmpfs holding bind mounts of the machine's top-level
# directories, so that what the lesson makes at / (/proc2, /answer...) exists
# only in this mount namespace, while files under the bound directories are
# the real ones. The tmpfs is mounted over /tmp to be filled, so the real /tmp
# is bound in last, from the old root, once the tmpfs has left it.
lab_root() {
    mount -t tmpfs -o mode=0755 pidns-lesson /tmp || return 1
    for lab_e in /* /.[!.]*; do
        lab_n=${lab_e#/}
        if [ "$lab_n" = tmp ] || { [ ! -e "$lab_e" ] && [ ! -L "$lab_e" ]; }; then
            continue
        elif [ -L "$lab_e" ]; then
            ln -s "$(readlink "$lab_e")" "/tmp/$lab_n"
        elif [ -d "$lab_e" ]; then
            mkdir "/tmp/$lab_n" && mount --rbind "$lab_e" "/tmp/$lab_n"
        else
            : >"/tmp/$lab_n" && mount --bind "$lab_e" "/tmp/$lab_n"
        fi || return 1
    done
    # The outputs the script compares live in a directory of its own.
    mkdir /tmp/.lesson /tmp/.old /tmp/tmp && cd /tmp && pivot_root . .old && cd / &&
        mount --rbind /.old/tmp /tmp && umount -l /.old && rmdir /.old
}
lab_dir=/.lesson
if [ "$PIDNS_LESSON_STAGE" = lab ]; then
    lab_root || { echo "$lab_name: cannot set up a root of its own (see the lines above)" >&2; exit 2; }
    # The script waits with a copy of sleep under another name, so that the
    # lesson's pgrep -x sleep never meets the script's own timers.
    cp "$(command -v sleep)" "$lab_dir/lab_wait" || exit 2
    # It runs on as lab-runner, the name of the process that runs each
    # command line in the tutorial (orphans of a command line outside a
    # nested namespace come to it, as lesson output may show), still PID 1.
    ln -s "$(command -v sh)" "$lab_dir/lab-runner" || exit 2
    PIDNS_LESSON_STAGE=runner exec "$lab_dir/lab-runner" "$0" "$@"
fi
PATH=${PIDNS_TUTOR_EXAMPLES:+$PIDNS_TUTOR_EXAMPLES:}$PATH
export PATH LC_ALL=C
# The jobs (programs left running) and how they ended, for the checks, as
# the tutorial gives them: ID PID STATE DETAIL COMMAND, one a line.
TUTOR_JOBS=$lab_dir/tutor-jobs
export TUTOR_JOBS
: >"$TUTOR_JOBS"
: >"$lab_dir/jobs"
unset PIDNS_LESSON_STAGE
lab_where="the start"
lab_last=

lab_fail() { # WHAT: says which step does not hold, and ends everything
    echo "FAILED: lesson $lab_lesson, $lab_where: $*" >&2
    exit 1
}

lab_kernel() { # X.Y: is the running kernel at least X.Y? Says so when not.
    lab_rel=$(uname -r)
    lab_have=$(printf '%s\n' "$lab_rel" | awk -F'[.-]' -v want="$1" '
        { split(want, w, "."); print ($1 > w[1] || ($1 == w[1] && $2 >= w[2])) ? 1 : 0 }')
    [ "$lab_have" = 1 ] && return 0
    echo "This step needs Linux $1 or later; this kernel is $lab_rel, so it is skipped."
    lab_skipped=$((${lab_skipped:-0} + 1))
    return 1
}

lab_step() { # NUMBER TITLE
    lab_where="step $1 ($2)"
    printf '\n== Step %s: %s\n' "$1" "$2"
}

# Compares output with what the lesson expects, as the tutorial does: whole
# lines, blanks at both ends ignored and runs of blanks folded, trailing
# empty lines ignored; in the pattern {N} is a number, {*} any text within a
# line, and a line "..." any number of lines. Unordered: each pattern line
# takes a different output line, in any order, and (without "...") none is
# left over.
lab_match() { # ordered|unordered PATTERN-FILE OUTPUT-FILE
    awk -v mode="$1" -v pfile="$2" '
    function norm(s) { gsub(/[ \t\r]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
    function line_ok(p, s,    n, i, j, k, c, t, R, X) {
        if (index(p, "{") == 0) return p == s
        n = length(s)
        for (j = 0; j <= n; j++) R[j] = 0
        R[0] = 1; i = 1
        while (i <= length(p)) {
            t = substr(p, i, 3)
            if (t == "{N}" || t == "{*}") i += 3
            else { c = substr(p, i, 1); t = "lit"; i++ }
            for (j = 0; j <= n; j++) X[j] = 0
            for (j = 0; j <= n; j++) {
                if (!R[j]) continue
                if (t == "lit") { if (j < n && substr(s, j + 1, 1) == c) X[j + 1] = 1 }
                else if (t == "{*}") { for (k = j; k <= n; k++) X[k] = 1; break }
                else for (k = j; k < n && substr(s, k + 1, 1) ~ /[0-9]/; k++) X[k + 1] = 1
            }
            for (j = 0; j <= n; j++) R[j] = X[j]
        }
        return R[n]
    }
    function take(i,    j) { # Kuhn: can pattern line i have an output line?
        for (j = 1; j <= no; j++)
            if (!seen[j] && line_ok(pat[i], out[j])) {
                seen[j] = 1
                if (!(j in owner) || take(owner[j])) { owner[j] = i; return 1 }
            }
        return 0
    }
    BEGIN {
        np = 0; no = 0
        while ((getline l < pfile) > 0) pat[++np] = norm(l)
        while (np > 0 && pat[np] == "") np--
    }
    { out[++no] = norm($0) }
    END {
        while (no > 0 && out[no] == "") no--
        if (mode == "unordered") {
            want = 0; extra = 0
            for (i = 1; i <= np; i++) {
                if (pat[i] == "...") { extra = 1; continue }
                want++
                split("", seen)
                if (!take(i)) exit 1
            }
            exit !(extra || want == no)
        }
        for (j = 0; j <= no; j++) R[j] = (j == 0)
        for (i = 1; i <= np; i++) {
            for (j = 0; j <= no; j++) X[j] = 0
            for (j = 0; j <= no; j++) {
                if (!R[j]) continue
                if (pat[i] == "...") { for (k = j; k <= no; k++) X[k] = 1; break }
                if (j < no && line_ok(pat[i], out[j + 1])) X[j + 1] = 1
            }
            for (j = 0; j <= no; j++) R[j] = X[j]
        }
        exit !R[no]
    }' "$3"
}

lab_expect() { # ordered|unordered, with the pattern on stdin
    cat >"$lab_dir/expected"
    lab_compare "$1"
}

lab_compare() { # ordered|unordered: the last output with $lab_dir/expected
    lab_match "$1" "$lab_dir/expected" "$lab_last" && return
    echo "This output is not what the lesson expects, which is:"
    cat "$lab_dir/expected"
    lab_fail "the output is not what the lesson expects"
}

lab_ran() { # STATUS N [expect]: after a command that ran to its end
    lab_last=$lab_dir/$2
    cat "$lab_last"
    [ "$1" -eq 0 ] || [ "${3:-}" = expect ] || lab_fail "the command failed (exit status $1)"
}

# The processes of the script's namespace (but itself and its timer), with
# their state, and the size of the output: when this stops changing for a
# while, a program left running has done what it does at start.
lab_snapshot() { # OUTPUT-FILE
    lab_s=
    for lab_p in /proc/[0-9]*; do
        [ "${lab_p#/proc/}" = 1 ] || [ "${lab_p#/proc/}" = "$lab_timer" ] && continue
        { read -r lab_stat <"$lab_p/stat"; } 2>/dev/null || continue
        lab_c=${lab_stat#* (}
        lab_st=${lab_c##*) }
        lab_c=${lab_c%"$lab_st"}
        lab_s="$lab_s ${lab_c%) }:${lab_st%% *}"
    done
    echo "$lab_s $(wc -c <"$1")"
}

lab_ended() { # PID: has this child of ours ended (perhaps not yet reaped)?
    { read -r lab_stat <"/proc/$1/stat"; } 2>/dev/null || return 0
    case ${lab_stat##*) } in Z*) return 0 ;; esac
    return 1
}

# After a program was started in the background (its PID is $!): waits until
# it ends, or until its output is what the lesson expects and the namespace
# has stopped changing (polled, for at most 20 seconds).
lab_started() { # PID N none|solution|ordered|unordered, with any pattern on stdin
    lab_last=$lab_dir/$2
    case $3 in ordered | unordered) cat >"$lab_dir/expected" ;; esac
    lab_same=0 lab_before='' lab_polls=0
    while [ $lab_polls -lt 400 ]; do
        "$lab_dir/lab_wait" 0.05 &
        lab_timer=$!
        if lab_ended "$1"; then
            wait "$1"
            lab_status=$?
            wait "$lab_timer"
            cat "$lab_last"
            case $3 in
            none) [ $lab_status -eq 0 ] || lab_fail "the command failed (exit status $lab_status)" ;;
            solution) [ $lab_status -eq 0 ] || lab_fail "the worked solution failed (exit status $lab_status)" ;;
            *) lab_compare "$3" ;;
            esac
            return
        fi
        lab_now=$(lab_snapshot "$lab_last")
        if [ "$lab_now" = "$lab_before" ]; then lab_same=$((lab_same + 1)); else lab_same=0; fi
        lab_before=$lab_now
        wait "$lab_timer"
        lab_polls=$((lab_polls + 1))
        [ $lab_same -ge 6 ] || continue
        case $3 in ordered | unordered) lab_match "$3" "$lab_dir/expected" "$lab_last" || continue ;; esac
        break
    done
    cat "$lab_last"
    echo "$1 $2" >>"$lab_dir/jobs"
    echo "(it keeps running in the background as PID $1)"
    case $3 in ordered | unordered) lab_compare "$3" ;; esac
}

# An exercise's check (the function lab_check), polled for at most 10 seconds
# after the worked solution, since a solution left running may still be
# building what the check looks at.

#@ TUTOR_CONDITIONS_SH

lab_write_jobs() { # writes $TUTOR_JOBS (in this shell: only it can wait for its jobs)
    lab_id=0
    while read -r lab_p lab_n; do
        lab_id=$((lab_id + 1))
        if [ ! -e "$lab_dir/status.$lab_p" ] && lab_ended "$lab_p"; then
            wait "$lab_p"
            echo $? >"$lab_dir/status.$lab_p"
        fi
        if [ -e "$lab_dir/status.$lab_p" ]; then
            read -r lab_st <"$lab_dir/status.$lab_p"
            if [ "$lab_st" -gt 128 ] && lab_sig=$(kill -l $((lab_st - 128)) 2>/dev/null); then
                lab_state="killed SIG$lab_sig"
            else
                lab_state="exited $lab_st"
            fi
        else
            lab_state="running -"
        fi
        echo "$lab_id $lab_p $lab_state $(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$lab_dir/cmd.$lab_n")"
    done <"$lab_dir/jobs" >"$TUTOR_JOBS"
}

lab_checked() {
    lab_polls=0
    until lab_write_jobs; (lab_check) >/dev/null 2>&1; do
        [ $? -ne 3 ] || lab_fail "the exercise's check is still waiting (30 s) for what it looks at"
        lab_polls=$((lab_polls + 1))
        [ $lab_polls -lt 100 ] || lab_fail "the exercise's check does not pass"
        "$lab_dir/lab_wait" 0.1
    done
    echo "(the exercise's check passes)"
}
# ---------------------------------------------------------------------------
