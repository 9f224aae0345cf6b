/* SPDX-License-Identifier: MIT */
/* no_leak_check.c: linked into pidns_unshare, pidns_setns, pidns_ancestry,
 * pidns_mini_init and pidns_nsid in the sanitizer build only (mk/hardening.mk); the
 * examples' own sources are untouched, so a reader's `cc -o x x.c` is the
 * same as ever.
 *
 * LeakSanitizer checks for leaks when a process exits by stopping it with a
 * tracer task that it clone()s. A new task goes into the caller's
 * pid_for_children namespace, and these examples exit with theirs moved
 * (unshare(CLONE_NEWPID), setns(CLONE_NEWPID)): the tracer is then born in
 * a namespace whose init has died (clone fails, "LeakSanitizer has
 * encountered a fatal error") or as a fresh namespace's PID 1 that cannot
 * see its parent (it gives up, and the exiting process spins forever).
 * pidns_mini_init's child, when its command cannot be run, exits through
 * err() as PID 2 of a new namespace: its tracer looks for its parent in
 * /proc, which is the procfs of the namespace above, where PID 2 is some
 * other process or none (in a container or make check-fresh's namespace:
 * "Can't open /proc/2/task", a fatal error). pidns_nsid, run inside a
 * namespace to open a handle (test_beyond's nsid case), is PID 2 there and
 * meets the same; whether it fails depends on whether the namespace above
 * has a PID 2, so it failed one make check in two.
 * So leak checking is off for these programs only; ASan and UBSan stay
 * on, and valgrind (make check-valgrind) checks them for leaks instead.
 * ASAN_OPTIONS set in the environment still override this default.
 */
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
