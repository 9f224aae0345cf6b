/* SPDX-License-Identifier: MIT */
/* tutor_conditions.h: the named conditions of a check, as sh text: the
 * prelude the tutor puts before every exercise's check and every hint's
 * when= condition (tutor_code_command()), and the exported scripts' runtime
 * (export_runtime.c) before theirs, so that both run the same checks.
 * docs/lesson-format.adoc says how a check uses them:
 *
 *   need SENTENCE COMMAND [ARG...]   the condition holds when COMMAND succeeds
 *   same A B                         A and B are both non-empty and equal
 *   not COMMAND [ARG...]             COMMAND fails
 *   await SENTENCE PID COMMAND...    polls COMMAND until it succeeds, PID
 *                                    ends (fails) or $TUTOR_WAIT_SECONDS
 *                                    (30) pass: exit status 3, still waiting
 *   program [ARG...]                 starts $TUTOR_PROGRAM in the background:
 *                                    $program_pid, files out and ended
 *   failed PATTERN                   (hints) the first failing condition's
 *                                    sentence, $TUTOR_FAILED, matches PATTERN
 *
 * Each condition appends "yes|no|wait TAB SENTENCE [TAB DETAIL]" to the file
 * $TUTOR_CONDITIONS; TUTOR_VERBOSE=1 (check -v) runs the later conditions
 * after a failing one. The check ends with `tutor_done $?`: the verdict is
 * its exit status (0 passed, 3 still waiting, other failed).
 */
#ifndef TUTOR_CONDITIONS_H
#define TUTOR_CONDITIONS_H

#define TUTOR_CONDITIONS_SH \
    "# The named conditions of a check (docs/lesson-format.adoc): need, same,\n" \
    "# not, await, program, failed. Each condition appends a line to the file\n" \
    "# $TUTOR_CONDITIONS: yes|no|wait TAB SENTENCE [TAB DETAIL].\n" \
    "# Nothing from the environment: the tutor's settings follow this text.\n" \
    "tutor_verdict=0 TUTOR_CONDITIONS=/dev/null TUTOR_VERBOSE= TUTOR_FAILED=\n" \
    "tutor_now() { # the time in hundredths of a second, from the kernel's uptime\n" \
    "    read -r tutor_up tutor_rest </proc/uptime\n" \
    "    tutor_up=${tutor_up%.*}${tutor_up#*.}\n" \
    "    echo \"${tutor_up#0}\"\n" \
    "}\n" \
    "tutor_line() { # TEXT: as one line of at most 200 characters\n" \
    "    printf '%s\\n' \"$1\" | awk 'BEGIN { ORS = \"\" } NF { gsub(/\\t/, \" \"); if (n++) printf \"; \"; printf \"%s\", $0 }' |\n" \
    "        cut -c1-200\n" \
    "}\n" \
    "tutor_record() { # yes|no|wait SENTENCE [DETAIL]\n" \
    "    if [ $# -ge 3 ]; then\n" \
    "        printf '%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"$(tutor_line \"$3\")\"\n" \
    "    else\n" \
    "        printf '%s\\t%s\\n' \"$1\" \"$2\"\n" \
    "    fi >>\"${TUTOR_CONDITIONS:-/dev/null}\"\n" \
    "}\n" \
    "tutor_held() { # SENTENCE OUTPUT: (check -v) with what it showed\n" \
    "    if [ -n \"${TUTOR_VERBOSE:-}\" ] && [ -n \"$2\" ]; then\n" \
    "        tutor_record yes \"$1\" \"$2\"\n" \
    "    else\n" \
    "        tutor_record yes \"$1\"\n" \
    "    fi\n" \
    "}\n" \
    "tutor_fail() { # STATUS: ends the check, or (check -v) goes on; the first one is the verdict\n" \
    "    [ \"$tutor_verdict\" -ne 0 ] || tutor_verdict=$1\n" \
    "    [ -n \"${TUTOR_VERBOSE:-}\" ] && return 0\n" \
    "    exit \"$1\"\n" \
    "}\n" \
    "tutor_done() { # STATUS of the check's last command: the verdict\n" \
    "    [ \"$tutor_verdict\" -ne 0 ] && exit \"$tutor_verdict\"\n" \
    "    exit \"$1\"\n" \
    "}\n" \
    "need() { # SENTENCE COMMAND [ARG...]\n" \
    "    tutor_s=$1\n" \
    "    shift\n" \
    "    if tutor_o=$(\"$@\" 2>&1); then\n" \
    "        tutor_held \"$tutor_s\" \"$tutor_o\"\n" \
    "        return 0\n" \
    "    fi\n" \
    "    tutor_record no \"$tutor_s\" \"$tutor_o\"\n" \
    "    tutor_fail 1\n" \
    "}\n" \
    "same() { # A B: both not empty, and equal\n" \
    "    if [ -z \"$1\" ]; then\n" \
    "        echo \"nothing to compare: the first value is empty\"\n" \
    "    elif [ -z \"$2\" ]; then\n" \
    "        echo \"nothing to compare: the second value is empty\"\n" \
    "    elif [ \"$1\" = \"$2\" ]; then\n" \
    "        return 0\n" \
    "    else\n" \
    "        printf \"'%s' is not '%s'\\n\" \"$1\" \"$2\"\n" \
    "    fi\n" \
    "    return 1\n" \
    "}\n" \
    "not() { # COMMAND [ARG...]: it fails\n" \
    "    if \"$@\"; then\n" \
    "        return 1\n" \
    "    fi\n" \
    "    return 0\n" \
    "}\n" \
    "tutor_gone() { # PID: has it ended (or never been)?\n" \
    "    case $1 in '' | *[!0-9]*) return 0 ;; esac\n" \
    "    { read -r tutor_stat <\"/proc/$1/stat\"; } 2>/dev/null || return 0\n" \
    "    case ${tutor_stat##*) } in Z* | X*) return 0 ;; esac\n" \
    "    return 1\n" \
    "}\n" \
    "await() { # SENTENCE PID COMMAND [ARG...]\n" \
    "    tutor_s=$1 tutor_pid=$2\n" \
    "    shift 2\n" \
    "    tutor_until=$(($(tutor_now) + ${TUTOR_WAIT_SECONDS:-30} * 100))\n" \
    "    while :; do\n" \
    "        if tutor_o=$(\"$@\" 2>&1); then\n" \
    "            tutor_held \"$tutor_s\" \"$tutor_o\"\n" \
    "            return 0\n" \
    "        fi\n" \
    "        if tutor_gone \"$tutor_pid\"; then\n" \
    "            # One more look: it may have done it just before it ended.\n" \
    "            if tutor_o=$(\"$@\" 2>&1); then\n" \
    "                tutor_held \"$tutor_s\" \"$tutor_o\"\n" \
    "                return 0\n" \
    "            fi\n" \
    "            tutor_record no \"$tutor_s\" \"the program ended first${tutor_o:+; $tutor_o}\"\n" \
    "            tutor_fail 1\n" \
    "            return 0\n" \
    "        fi\n" \
    "        if [ \"$(tutor_now)\" -ge \"$tutor_until\" ]; then\n" \
    "            tutor_record wait \"$tutor_s\"\n" \
    "            tutor_fail 3\n" \
    "            return 0\n" \
    "        fi\n" \
    "        sleep 0.1\n" \
    "    done\n" \
    "}\n" \
    "program() { # [ARG...]: starts $TUTOR_PROGRAM; $program_pid, files out and ended\n" \
    "    rm -f out ended ended.new program.pid\n" \
    "    (\n" \
    "        \"$TUTOR_PROGRAM\" \"$@\" >out 2>&1 </dev/null &\n" \
    "        echo $! >program.pid\n" \
    "        wait $!\n" \
    "        tutor_st=$?\n" \
    "        if [ $tutor_st -gt 128 ] && tutor_sig=$(kill -l $((tutor_st - 128)) 2>/dev/null); then\n" \
    "            echo \"signal SIG$tutor_sig\"\n" \
    "        else\n" \
    "            echo \"exit $tutor_st\"\n" \
    "        fi >ended.new && mv ended.new ended\n" \
    "    ) &\n" \
    "    program_pid=\n" \
    "    while [ -z \"$program_pid\" ]; do\n" \
    "        read -r program_pid 2>/dev/null <program.pid || program_pid=\n" \
    "    done\n" \
    "}\n" \
    "failed() { # PATTERN: the check's first failing condition (for hints)\n" \
    "    [ -n \"${TUTOR_FAILED:-}\" ] || return 1\n" \
    "    case $TUTOR_FAILED in\n" \
    "    $1) return 0 ;;\n" \
    "    esac\n" \
    "    return 1\n" \
    "}\n" \
    ""

#endif
