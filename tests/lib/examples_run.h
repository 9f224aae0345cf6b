/* SPDX-License-Identifier: MIT */
/* examples_run.h: running the example programs in a sandbox, for the
 * test_examples*.c programs.
 *
 * Every check on the kernel's state runs in a forked child that has entered
 * the sandbox (tl_in_sandbox: a private mount namespace on a tmpfs root, see
 * shell/lab/sandbox.h), optionally as the ordinary user nobody (then in a user
 * namespace). The examples are copied into the sandbox's root first (/ex/),
 * so that nobody can run them wherever the build directory lives. The checks
 * there are EXPECT()s (testlib.h).
 */
#ifndef PIDNS_TUTOR_EXAMPLES_RUN_H
#define PIDNS_TUTOR_EXAMPLES_RUN_H

#include "testlib.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* cmocka group setup and teardown: read the built examples while we can (as
 * root), and free them. */
int ex_load(void **state);
int ex_unload(void **state);

/* The cmocka side: fn(arg) ran in a fresh sandbox (as nobody if asked) and
 * passed, no mount point or entry of / changed on the host, and no process
 * outlived the run (as a child subreaper we inherit anything the run left
 * behind, whatever namespace it is in). */
void ex_run_test(int (*fn)(void *), void *arg, bool as_nobody);

/* In the sandbox, after an example was waited for: no process of it is left
 * (any that is, is killed and reaped). */
bool ex_no_process_left(void);

/* An example running with stdout and stderr into a pipe we read. */
struct ex_run {
    pid_t pid;
    int fd;
    char out[32768];
    size_t len;
    bool eof;
};

int ex_start(struct ex_run *r, char *const argv[]);
/* Reads until 'text' has arrived (NULL: until end of output) or the timeout
 * passes. True if it arrived. */
bool ex_read_until(struct ex_run *r, const char *text, int timeout_ms);
/* Collects the rest of the output and the exit status (128+N for signal N);
 * -1 if it does not end within the timeout (it is then killed). */
int ex_finish(struct ex_run *r, int timeout_ms);
/* For the `out:` path of a failed check: no process of ours lives on. */
void ex_abandon(struct ex_run *r);

/* The pid:[...] link of a process, "" if it cannot be read. */
void ex_pidns_of(const char *proc_dir, long pid, char *link, size_t size);
/* Processes (in our /proc) whose PID namespace is 'link'. */
int ex_count_in_pidns(const char *link);
/* One field of a status file ("Name", "Pid", "NSpid"...), tabs kept. */
bool ex_status_field(const char *path, const char *field, char *value, size_t size);
/* Waits (up to 2 s) until the process whose status file is 'path' runs
 * 'name': an example prints its last line just before it execs. */
bool ex_wait_for_name(const char *path, const char *name);

/* A bad command line: non-zero exit, one line naming the problem, and the
 * sandbox's mounts and root directory exactly as before. bad_arguments()
 * runs a list of them ended by {NULL}, in the sandbox. */
struct bad_case {
    const char *command; /* shell command line */
    const char *says;    /* a phrase the one error line must contain */
};
int bad_arguments(void *arg);

#endif
