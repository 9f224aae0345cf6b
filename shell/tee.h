/* tee.h: the output of a command the shell runs in the lab, shown live with
 * its interesting values highlighted, and kept so the step runner can
 * compare it with what the lesson expects and annotate it.
 *
 * A foreground command writes into a pipe; a thread copies each line to the
 * terminal through render_highlight() and into a buffer. When the command
 * goes on in the background, its pipe is handed to the shell's prompt loop,
 * which relays what it prints later (tee_relay_*).
 */
#ifndef PIDNS_TUTOR_TEE_H
#define PIDNS_TUTOR_TEE_H

#include <stddef.h>

#include "render.h"

struct tee;

/* Starts the copying thread. NULL on failure (errno set). */
struct tee *tee_start(const struct render *r);
/* The pipe's write end, to give to the command. */
int tee_fd(const struct tee *t);
/* Stops copying once the command's output is drained (or has been idle for
 * a moment: a background program may keep the pipe open), and frees t.
 * Returns the output (malloc'd, NUL-terminated; at most 1 MiB kept). If
 * keep_fd is not NULL, the read end stays open and is returned there for
 * tee_relay_add(); otherwise it is closed. */
char *tee_finish(struct tee *t, int *keep_fd);

/* Background output: fds the prompt loop watches. */
struct tee_relay;
/* Adds fd (taking ownership). Returns 0 or -1. */
int tee_relay_add(struct tee_relay **relay, int fd);
/* The fds to watch; returns their number (at most max). */
size_t tee_relay_fds(const struct tee_relay *relay, int *fds, size_t max);
/* Copies what fd has to the terminal, highlighted; closes and forgets fd
 * at end of file. Returns the bytes copied, 0 at end of file. */
long tee_relay_pump(struct tee_relay **relay, const struct render *r, int fd);
/* Copies what is left in every fd (waiting at most wait_ms for more), then
 * closes them all. */
void tee_relay_close(struct tee_relay **relay, const struct render *r, int wait_ms);

#endif
