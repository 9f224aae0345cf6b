/* SPDX-License-Identifier: MIT */
/* tee.h: the output of a command the shell runs in the lab, shown live with
 * its interesting values highlighted, and kept so the step runner can
 * compare it with what the lesson expects and annotate it.
 *
 * The command writes into a pipe read by a small relay process: the shell
 * itself cannot read while the lab runs the command, nor start a thread
 * (after unshare(CLONE_NEWPID) the kernel refuses CLONE_THREAD). The relay
 * copies each line to the terminal through render_highlight() and keeps a
 * copy; it hands the copy back when asked. For a job that goes on in the
 * background, the relay goes on showing what it prints until it ends.
 */
#ifndef PIDNS_TUTOR_TEE_H
#define PIDNS_TUTOR_TEE_H

#include <stddef.h>

#include "render/render.h"

struct tee;

/* With PIDNS_TUTOR_MARK_JOBS set (the handbook's reference capture), what a
 * background job prints after the shell stopped waiting for it starts each
 * line with this, so a transcript tells it from the output of the command
 * run at that moment (docs/handbook/capture-reference.sh). */
#define TEE_LATER_MARK "[job] "

/* Starts the relay (a child of the shell, so in the lab's PID namespace,
 * named "tutor-output", killed if the shell dies). NULL on failure. */
struct tee *tee_start(const struct render *r);
/* tee_start(), and a note (e.g. how to stop the command) that the relay
 * shows once, styled as a note, if the shell still waits for the command
 * (has not called tee_finish()) after_ms after the start, and its output has
 * not ended. It goes on a line of its own: when a line is half shown, after
 * that line ends. It is never part of the captured output. */
struct tee *tee_start_with_note(const struct render *r, const char *note, int after_ms);
/* The pipe's write end, to give to the command. */
int tee_fd(const struct tee *t);
/* Takes the output shown so far (malloc'd, NUL-terminated, at most 1 MiB
 * kept) and frees t. The relay ends when the command's output does (a
 * background job's at its end); with ended 1 (the command has ended) it is
 * waited for a moment, so no finished relay lingers in the lab. */
char *tee_finish(struct tee *t, int ended);
/* Reaps relays that have ended; with wait_ms > 0, waits that long for the
 * others to end first. Returns how many are still running. */
int tee_reap(int wait_ms);
/* Ends every relay still running (SIGKILL) and reaps them all. Must run
 * before lab_close(): the lab's init cannot end while a process of its
 * namespace, such as a relay, is not yet reaped by its parent, the shell. */
void tee_stop_all(void);

#endif
