/* SPDX-License-Identifier: MIT */
/* testlib.h: helpers shared by the integration tests (real kernel, no mocks).
 *
 * The integration tests never touch the host's root: each one runs its
 * privileged part in a forked child that first enters a sandbox (a private
 * mount namespace whose root is a scratch tmpfs, see shell/lab/sandbox.h).
 */
#ifndef PIDNS_TUTOR_TESTLIB_H
#define PIDNS_TUTOR_TESTLIB_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/types.h>

/* Directory holding the build (env PIDNS_TUTOR_BUILD, default "build"). */
const char *tl_build_dir(void);
/* Where scratch files go: $TMPDIR (tests/run-tests.sh gives each test
 * program its own, and checks it is empty afterwards), or /tmp. */
const char *tl_tmpdir(void);
/* Path of a built example: <build>/examples/<name> (static buffer). */
const char *tl_example(const char *name);

/* The ordinary user the tests become to take the unprivileged route. */
#define TL_NOBODY 65534

/* In a forked child of root: becomes nobody for good (groups, gid, uid), and
 * stays dumpable as after a login, so /proc/self stays ours and nsenter
 * works. Exits with status 90 if it cannot. */
void tl_become_nobody(void);

/* Runs fn(arg) in a forked child that has entered the sandbox, as nobody if
 * asked (then the sandbox adds a user namespace). The child's exit status is
 * fn's return value (0 = pass); 90 and 91 mean it could not become nobody or
 * enter the sandbox (the reason printed). Output of the child goes to our
 * stdout. Returns the child's wait status. */
int tl_in_sandbox(int (*fn)(void *arg), void *arg, bool as_nobody);

/* A whole sandboxed case (needs root; skips otherwise): makes us a child
 * subreaper, snapshots the host, runs fn(NULL) through tl_in_sandbox() (as
 * nobody if asked), and asserts (cmocka) that it returned 0 and that the host
 * is as before with nothing left running. */
void tl_run_sandboxed(int (*fn)(void *arg), bool as_nobody);

/* Runs fn() in a forked runner that is root: really, or (when we are not)
 * root of a user namespace of its own, the route an ordinary user takes.
 * Asserts (cmocka) that fn returned 0; skips when the kernel refuses user
 * namespaces. */
void tl_run_as_root(int (*fn)(void));

/* In a forked runner and its descendants: when cond is false, report where
 * and why (the message, then errno) and leave with status 1. */
#define TL_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

/* The checks of a forked child, where cmocka's asserts cannot be used (a
 * failure would jump back into a copy of the runner): in a function
 * returning int with `int failed = 0;` and an `out:` label that cleans up
 * and returns failed, an EXPECT that does not hold prints what failed and
 * where, and goes to out. The cmocka side asserts the child returned 0. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failed = 1;                                                                            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Asserts (an EXPECT) that a line, a printf format with its arguments,
 * appears in out; a failure prints the line and the whole output. */
#define EXPECT_LINE(out, ...)                                                                      \
    do {                                                                                           \
        char line_[256];                                                                           \
        snprintf(line_, sizeof line_, __VA_ARGS__);                                                \
        EXPECT(strstr(out, line_) != NULL, "missing line '%s' in:\n%s", line_, out);               \
    } while (0)

/* The number written after the first occurrence of key in out, -1 if absent. */
long tl_number_after(const char *out, const char *key);

/* Seconds on the monotonic clock. */
double tl_now(void);

/* Runs `sh -c cmd` with LC_ALL=C, captures stdout+stderr into a malloc'd
 * string (*out, may be NULL) and returns the exit status (-1 on error). */
int tl_sh(const char *cmd, char **out);
/* printf-style convenience around tl_sh(); returns exit status, output in *out. */
int tl_shf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips the current test with a printed reason unless the effective uid is 0. */
#define TL_REQUIRE_ROOT()                                                                          \
    do {                                                                                           \
        if (geteuid() != 0) {                                                                      \
            print_message("SKIP: %s needs root (run make check as root)\n", __func__);             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Is the running kernel at least major.minor? */
int tl_kernel_at_least(int major, int minor);
/* Skips the current test, the reason starting "kernel:" (this kernel cannot
 * do it, whoever runs the suite), unless the kernel is at least major.minor;
 * what names the feature ("SO_PEERPIDFD"). */
#define TL_REQUIRE_KERNEL(major, minor, what)                                                      \
    do {                                                                                           \
        if (!tl_kernel_at_least(major, minor)) {                                                   \
            print_message("SKIP: kernel: %s needs Linux %d.%d (%s)\n", __func__, major, minor,     \
                          what);                                                                   \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Mount points named /proc<digits> in our mount namespace, sorted, one a
 * line (malloc'd; NULL on error). */
char *tl_procn_mounts(void);

/* A snapshot of what the host shows: mount points under / named /procN and
 * the entries of /. Processes are not counted by number (other users' tutors
 * and containers start and end them): tl_assert_host_unchanged() counts our
 * descendants, which include everything a test left running, in whatever
 * namespace, when the test program is a child subreaper (lt_setup and
 * ex_run_test make it one; tests/run-tests.sh finds the rest by its mark). */
struct tl_host_snapshot {
    char *mounts;    /* tl_procn_mounts() */
    char *root_list; /* sorted names in / */
};
void tl_host_snapshot(struct tl_host_snapshot *snap);
/* Asserts (cmocka) that the host looks as it did in *before and that no
 * process below us is left (each one named on stderr). */
void tl_assert_host_unchanged(const struct tl_host_snapshot *before);
void tl_host_snapshot_free(struct tl_host_snapshot *snap);

/* Live processes below us (children, theirs, ...), zombies not counted;
 * each is named on report if it is not NULL. */
int tl_descendants(FILE *report);

#endif
