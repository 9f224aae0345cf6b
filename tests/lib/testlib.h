/* testlib.h: helpers shared by the integration tests (real kernel, no mocks).
 *
 * The integration tests never touch the host's root: each one runs its
 * privileged part in a forked child that first enters a sandbox (a private
 * mount namespace whose root is a scratch tmpfs, see shell/lab/sandbox.h).
 */
#ifndef PIDNS_TUTOR_TESTLIB_H
#define PIDNS_TUTOR_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/types.h>

/* Directory holding the build (env PIDNS_TUTOR_BUILD, default "build"). */
const char *tl_build_dir(void);
/* Path of a built example: <build>/examples/<name> (static buffer). */
const char *tl_example(const char *name);

/* Runs fn(arg) in a forked child that has entered the sandbox. The child's
 * exit status is fn's return value (0 = pass). Output of the child goes to our
 * stdout. Returns the child's wait status. Messages explain a failure. */
int tl_in_sandbox(int (*fn)(void *arg), void *arg);

/* Runs `sh -c cmd` with LC_ALL=C, captures stdout+stderr into a malloc'd
 * string (*out, may be NULL) and returns the exit status (-1 on error). */
int tl_sh(const char *cmd, char **out);
/* printf-style convenience around tl_sh(); returns exit status, output in *out. */
int tl_shf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips the current test with a printed reason unless the effective uid is 0. */
#define TL_REQUIRE_ROOT()                                                      \
    do {                                                                       \
        if (geteuid() != 0) {                                                  \
            print_message("SKIP: %s needs root (run make check as root)\n",   \
                          __func__);                                           \
            skip();                                                            \
        }                                                                      \
    } while (0)

/* A snapshot of what the host shows: mount points under / named /procN, the
 * entries of /, and processes in PID namespaces other than ours. */
struct tl_host_snapshot {
    char *mounts;    /* lines of mountinfo whose mount point is /proc<digits> */
    char *root_list; /* sorted names in / */
    int foreign_pidns_processes;
};
void tl_host_snapshot(struct tl_host_snapshot *snap);
/* Asserts (cmocka) that the host looks as it did in *before. */
void tl_assert_host_unchanged(const struct tl_host_snapshot *before);
void tl_host_snapshot_free(struct tl_host_snapshot *snap);

#endif
