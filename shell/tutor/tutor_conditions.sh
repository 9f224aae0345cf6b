# SPDX-License-Identifier: MIT
# tutor_conditions.sh: the named conditions of a check, as sh text: the
# prelude the tutor puts before every exercise's check and every hint's
# when= condition (tutor_code_command()), and the exported scripts' runtime
# (shell/cmd/export_runtime.sh) before theirs, so that both run the same
# checks. The build turns this file into the C string TUTOR_CONDITIONS_SH
# ($(O)/gen/tutor/tutor_conditions_sh.h, by sh_to_c in the Makefile), which
# tutor/tutor_conditions.h includes; these first lines, down to the first
# empty line, are this file's own and are left out of it.
# docs/lesson-format.adoc says how a check uses them:
#
#   need SENTENCE COMMAND [ARG...]   the condition holds when COMMAND succeeds
#   same A B                         A and B are both non-empty and equal
#   not COMMAND [ARG...]             COMMAND fails
#   await SENTENCE PID COMMAND...    polls COMMAND until it succeeds, PID
#                                    ends (fails) or $TUTOR_WAIT_SECONDS
#                                    (30) pass: exit status 3, still waiting
#   program [ARG...]                 starts $TUTOR_PROGRAM in the background:
#                                    $program_pid, files out and ended
#   program_held [ARG...]            program, its input open until release
#   release                          the program's input ends (end of file)
#   failed PATTERN                   (hints) the first failing condition's
#                                    sentence, $TUTOR_FAILED, matches PATTERN
#
# Each condition appends "yes|no|wait TAB SENTENCE [TAB DETAIL]" to the file
# $TUTOR_CONDITIONS; TUTOR_VERBOSE=1 (check -v) runs the later conditions
# after a failing one. The check ends with `tutor_done $?`: the verdict is
# its exit status (0 passed, 3 still waiting, other failed).
# shellcheck shell=sh

# The named conditions of a check (docs/lesson-format.adoc): need, same,
# not, await, program, program_held, release, failed. Each condition appends
# a line to the file $TUTOR_CONDITIONS: yes|no|wait TAB SENTENCE [TAB DETAIL].
# Nothing from the environment: the tutor's settings follow this text.
tutor_verdict=0 TUTOR_CONDITIONS=/dev/null TUTOR_VERBOSE='' TUTOR_FAILED=''
tutor_now() { # the time in hundredths of a second, from the kernel's uptime
    read -r tutor_up _ </proc/uptime
    tutor_up=${tutor_up%.*}${tutor_up#*.}
    echo "${tutor_up#0}"
}
tutor_line() { # TEXT: as one line of at most 200 characters
    printf '%s\n' "$1" | awk 'BEGIN { ORS = "" } NF { gsub(/\t/, " "); if (n++) printf "; "; printf "%s", $0 }' |
        cut -c1-200
}
tutor_record() { # yes|no|wait SENTENCE [DETAIL]
    if [ $# -ge 3 ]; then
        printf '%s\t%s\t%s\n' "$1" "$2" "$(tutor_line "$3")"
    else
        printf '%s\t%s\n' "$1" "$2"
    fi >>"${TUTOR_CONDITIONS:-/dev/null}"
}
tutor_held() { # SENTENCE OUTPUT: (check -v) with what it showed
    if [ -n "${TUTOR_VERBOSE:-}" ] && [ -n "$2" ]; then
        tutor_record yes "$1" "$2"
    else
        tutor_record yes "$1"
    fi
}
tutor_fail() { # STATUS: ends the check, or (check -v) goes on; the first one is the verdict
    [ "$tutor_verdict" -ne 0 ] || tutor_verdict=$1
    [ -n "${TUTOR_VERBOSE:-}" ] && return 0
    exit "$1"
}
tutor_done() { # STATUS of the check's last command: the verdict
    [ "$tutor_verdict" -ne 0 ] && exit "$tutor_verdict"
    exit "$1"
}
need() { # SENTENCE COMMAND [ARG...]
    tutor_s=$1
    shift
    if tutor_o=$("$@" 2>&1); then
        tutor_held "$tutor_s" "$tutor_o"
        return 0
    fi
    tutor_record no "$tutor_s" "$tutor_o"
    tutor_fail 1
}
same() { # A B: both not empty, and equal
    if [ -z "$1" ]; then
        echo "nothing to compare: the first value is empty"
    elif [ -z "$2" ]; then
        echo "nothing to compare: the second value is empty"
    elif [ "$1" = "$2" ]; then
        return 0
    else
        printf "'%s' is not '%s'\n" "$1" "$2"
    fi
    return 1
}
not() { # COMMAND [ARG...]: it fails
    if "$@"; then
        return 1
    fi
    return 0
}
tutor_gone() { # PID: has it ended (or never been)?
    case $1 in '' | *[!0-9]*) return 0 ;; esac
    { read -r tutor_stat <"/proc/$1/stat"; } 2>/dev/null || return 0
    case ${tutor_stat##*) } in Z* | X*) return 0 ;; esac
    return 1
}
await() { # SENTENCE PID COMMAND [ARG...]
    tutor_s=$1 tutor_pid=$2
    shift 2
    tutor_until=$(($(tutor_now) + ${TUTOR_WAIT_SECONDS:-30} * 100))
    while :; do
        if tutor_o=$("$@" 2>&1); then
            tutor_held "$tutor_s" "$tutor_o"
            return 0
        fi
        if tutor_gone "$tutor_pid"; then
            # One more look: it may have done it just before it ended.
            if tutor_o=$("$@" 2>&1); then
                tutor_held "$tutor_s" "$tutor_o"
                return 0
            fi
            tutor_record no "$tutor_s" "the program ended first${tutor_o:+; $tutor_o}"
            tutor_fail 1
            return 0
        fi
        if [ "$(tutor_now)" -ge "$tutor_until" ]; then
            tutor_record wait "$tutor_s"
            tutor_fail 3
            return 0
        fi
        sleep 0.1
    done
}
program() { # [ARG...]: starts $TUTOR_PROGRAM; $program_pid, files out and ended
    rm -f out ended ended.new program.pid program.pid.new
    tutor_in=/dev/null
    if [ -n "${tutor_hold:-}" ]; then
        # Its input: a FIFO whose only writer is this shell's fd 7, so the
        # program reads end of file at `release` (or when the check ends).
        rm -f in && mkfifo in && exec 7<>in && tutor_in=in
        tutor_hold=''
    fi
    (
        exec 7>&-
        "$TUTOR_PROGRAM" "$@" >out 2>&1 <"$tutor_in" &
        echo $! >program.pid.new && mv program.pid.new program.pid
        wait $!
        tutor_st=$?
        if [ $tutor_st -gt 128 ] && tutor_sig=$(kill -l $((tutor_st - 128)) 2>/dev/null); then
            echo "signal SIG$tutor_sig"
        else
            echo "exit $tutor_st"
        fi >ended.new && mv ended.new ended
    ) &
    # Its PID comes from the subshell once it has forked: wait for the file,
    # at most 10 s (a fork refused by a limit would leave none).
    program_pid=''
    tutor_until=$(($(tutor_now) + 1000))
    while [ -z "$program_pid" ]; do
        read -r program_pid 2>/dev/null <program.pid || program_pid=''
        [ -n "$program_pid" ] && break
        if [ "$(tutor_now)" -ge "$tutor_until" ]; then
            tutor_record no "the program started" "no PID after 10 s: could the check fork?"
            tutor_fail 1
            return 0
        fi
        sleep 0.01
    done
}
program_held() { # [ARG...]: program, its input held open until release
    tutor_hold=1
    program "$@"
}
release() { # ends the input of the program started by program_held
    exec 7>&-
}
failed() { # PATTERN: the check's first failing condition (for hints)
    [ -n "${TUTOR_FAILED:-}" ] || return 1
    # PATTERN is a glob (docs/lesson-format.adoc): unquoted on purpose.
    # shellcheck disable=SC2254
    case $TUTOR_FAILED in
    $1) return 0 ;;
    esac
    return 1
}
