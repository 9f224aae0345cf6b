/* SPDX-License-Identifier: MIT */
/* lab_holder.h: what the test_lab*.c programs share.
 *
 * lab_open() changes the calling process for good (it enters the sandbox and
 * a new PID namespace), so every lab lives in a forked child, the "holder",
 * optionally running as the ordinary user nobody. Its checks are EXPECT()s
 * (testlib.h); the cmocka test asserts that the holder returned 0.
 *
 * The examples are copied to a scratch directory that nobody can read (the
 * build directory may live under /root), removed at the end.
 */
#ifndef PIDNS_TUTOR_LAB_HOLDER_H
#define PIDNS_TUTOR_LAB_HOLDER_H

#include "testlib.h"
#include "lab/lab.h"

#include <stddef.h>
#include <sys/types.h>

/* The scratch copy of build/examples, readable by all (lt_setup). */
extern char lt_examples[256];

/* cmocka group setup and teardown: make the test program a child subreaper
 * and copy the built examples where nobody can run them; remove the copy. */
int lt_setup(void **state);
int lt_teardown(void **state);

int lt_have_example(const char *name);
#define LT_REQUIRE_EXAMPLE(name)                                                                   \
    do {                                                                                           \
        if (!lt_have_example(name)) {                                                              \
            print_message("SKIP: %s needs the example %s (make examples)\n", __func__, name);      \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Opens a lab in the holder; NULL with the reason printed. */
struct lab *lt_open(int force_user_namespace);
/* The same with a settle time of its own: a test that must tell "before it
 * settled" from "when it settled" by the order of events, not by a clock,
 * opens a lab that settles only at max(2 s, 10 x settle_seconds). */
struct lab *lt_open_settle(int force_user_namespace, double settle_seconds);
/* Forks a holder running fn(arg), as nobody if asked; returns its wait
 * status, killing it after timeout seconds. */
int lt_run_holder(int (*fn)(void *), void *arg, int as_nobody, double timeout);
void lt_assert_holder_passed(int status);

/* Runs a command line in the lab and returns its output (static copy freed
 * at the next call), or "" on error. */
const char *lt_capture(struct lab *lab, const char *command, int *code);
/* Numeric entries of a /proc as the shell sees it, excluding `except`. */
int lt_count_pids(const char *proc, pid_t except);
/* A command that starts a PID namespace whose init mounts a procfs for it at
 * /procN and sleeps: a stand-in for the examples, from util-linux alone. */
void lt_nested_command(char *buf, size_t len, int n, int sleep_seconds);

/* Writes to a pipe the holder uses to report to the test: one line. */
void lt_tell(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads one line from fd within timeout seconds into buf. Returns 0 or -1. */
int lt_read_line(int fd, char *buf, size_t len, double timeout);

#endif
