/* SPDX-License-Identifier: MIT */
/* lab.h: where the tutorial runs commands, with nothing left on the host.
 *
 * Shape (see docs/design.adoc; the code is in lab.c, lab_run.c, lab_sweep.c,
 * lab_diagnose.c):
 *  - lab_open() puts the calling shell process in a sandbox (sandbox.h: own
 *    mount namespace with a tmpfs root; a user namespace when not root, or
 *    as root without CAP_SYS_ADMIN), then unshare(CLONE_NEWPID): the shell's
 *    later children all land in one "lab" PID namespace. The first child is
 *    the lab's keeper (its PID 1, named lab-init): it takes
 *    PR_SET_PDEATHSIG(SIGKILL), makes its own mount namespace, mounts a
 *    procfs for the lab namespace at /proc there, and reaps orphans.
 *  - Every command gets a runner (named lab-runner): a child of the shell,
 *    inside the lab PID namespace, joined to the keeper's mount namespace
 *    (setns), with PR_SET_PDEATHSIG(SIGKILL), a child subreaper so that all
 *    the command starts stays below it. It runs `/bin/sh -c COMMAND` (as
 *    `exec COMMAND` when the line is a plain program call, so that the
 *    example itself is the job). If the shell dies in any way, the keeper
 *    dies, the kernel kills everything in the lab namespace (nested ones
 *    too), and the mount namespaces, with every /procK, are freed.
 *  - Inside the lab, /proc and ps show the lab namespace: the parent
 *    namespace of every example, as in the article. Examples mount at /proc2,
 *    /proc0..; those directories live in the tmpfs root.
 *
 * The shell process itself keeps the host's /proc. It sees the lab's files
 * through lab_path() ("/proc/<keeper>/root/...").
 *
 * What this asks of the shell:
 *  - Call lab_open() once, early, single-threaded; call the lab from the
 *    thread that opened it (PR_SET_PDEATHSIG follows the parent thread).
 *  - Every process the shell forks after lab_open() is in the lab's PID
 *    namespace (a pager, an output relay too). lab_cleanup() leaves the
 *    shell's own children alone (all but runners); lab_close() ends them with
 *    the namespace and reaps them if they died. Keep SIGCHLD at its default:
 *    the lab waits for its own children.
 *  - After lab_close() the root route can fork again; the user-namespace
 *    route cannot (its PID namespace for children is gone for good): close
 *    the lab last, just before exiting. Open one lab per process.
 */
#ifndef PIDNS_TUTOR_LAB_H
#define PIDNS_TUTOR_LAB_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct lab;

struct lab_config {
    const char *examples_dir; /* built examples; put first on PATH in the lab */
    int force_user_namespace; /* use the unprivileged route even as root */
    double settle_seconds;    /* lab_start(): idle output time that means "keeps running"
                                 (0 = default, 0.3 s) */
    /* The caller's own work, done by lab_open() while the keeper builds the
     * lab's mounts (on another CPU, where there is one): called once the
     * keeper is forked, before lab_open() waits for it, so also when the lab
     * then fails to open. May be NULL. It must not fork or print. */
    void (*meanwhile)(void *arg);
    void *meanwhile_arg;
};

/* Which way the lab gets its privileges, and what is missing if none works. */
enum lab_route { LAB_ROUTE_NONE, LAB_ROUTE_ROOT, LAB_ROUTE_USER_NAMESPACE };
struct lab_diagnosis {
    enum lab_route route;
    char problem[512]; /* empty when route != LAB_ROUTE_NONE */
    char fix[512];     /* the one command that fixes it */
};
/* Probes (in throw-away children) whether a lab can be opened and how: the
 * route, or one sentence on what is missing and the one command that fixes
 * it (a sysctl, a container option, sudo). About 5 ms. */
void lab_diagnose(const struct lab_config *config, struct lab_diagnosis *out);

/* Opens the lab. Must be called while single-threaded, before any other child
 * is started. NULL on failure, with what failed and what to do in err
 * ("cannot open the lab: PROBLEM (fix: COMMAND)"); when the failure comes
 * before any namespace was entered (the usual case), the process is as it
 * was. */
struct lab *lab_open(const struct lab_config *config, char *err, size_t errlen);

/* Runs `/bin/sh -c command_line` in the lab in the foreground, with its output
 * live on out_fd/err_fd, stdin from the terminal when there is one (and the
 * shell is in the terminal's foreground), /dev/null otherwise. The command's
 * process group gets the terminal, so Ctrl-C reaches it and not the shell;
 * without a terminal, a SIGINT the shell receives is passed on. Either way
 * the command has 0.2 s to end by itself, then everything it started (nested
 * namespaces included) gets SIGKILL, and the call returns 130. A foreground
 * command owns what it starts: when it ends, whatever it left running is
 * killed too (lab_start() is for programs that keep running). Mounts it made
 * stay until lab_cleanup(), as in the article. Ctrl-Z does not stop a lab
 * command (it is continued at once). Returns the exit status (128+N for a
 * signal), -1 on error (lab_error() says what). */
int lab_run(struct lab *lab, const char *command_line, int out_fd, int err_fd);

/* Runs a command line with LC_ALL=C, capturing stdout+stderr into *output
 * (malloc'd, NUL-terminated). Returns the exit status, -1 on error. */
int lab_capture(struct lab *lab, const char *command_line, char **output);

/* Starts a command line whose output (stdout and stderr) goes live to out_fd,
 * stdin /dev/null. If it exits before it settles, returns 0 with the exit
 * status in *status. It settles when it has printed nothing for
 * settle_seconds, or has run max(2 s, 10 x settle_seconds): then it becomes a
 * background job, its output still copied to out_fd by its runner: returns 1
 * with its job id in *job_id. Ctrl-C before it settles is as in lab_run().
 * -1 on error. */
int lab_start(struct lab *lab, const char *command_line, int out_fd, int *status, int *job_id);

/* What lab_start_expecting() waits for: the output a lesson expects. */
enum lab_output_state {
    LAB_OUTPUT_NEVER = -1, /* it cannot come any more (the output already differs) */
    LAB_OUTPUT_NOT_YET = 0,
    LAB_OUTPUT_READY = 1,
};
struct lab_expect {
    /* Judges the output so far (stdout and stderr, NUL-terminated). Called
     * in the runner, a fork of the caller, after each piece of output, until
     * it says READY or NEVER: it must only read memory and compute. */
    enum lab_output_state (*judge)(const char *output, const void *arg);
    const void *arg;
    double bound_seconds; /* the longest wait for READY (0: 30 s) */
};

/* lab_start() for a command whose output the caller will compare: while
 * the output is NOT_YET what expect wants, it does not settle, however long
 * it is quiet: it waits until it is READY (then settles as lab_start() does:
 * quiet for settle_seconds, or at once when it has run max(2 s, 10 x
 * settle_seconds)), the command ends, or bound_seconds pass. A command
 * whose output becomes NEVER settles as with lab_start(). So a program that
 * prints its first line late on a loaded machine is compared once that line
 * has come, and one that prints at once costs no more than with
 * lab_start(). expect NULL: lab_start(). */
int lab_start_expecting(struct lab *lab, const char *command_line, int out_fd,
                        const struct lab_expect *expect, int *status, int *job_id);

/* lab_start() for a command the learner put in the background (`sh CMD &`):
 * the same, except that Ctrl-C while it settles does not reach it (it never
 * has the terminal): the wait ends, and it is a job at once. */
int lab_start_background(struct lab *lab, const char *command_line, int out_fd, int *status,
                         int *job_id);

struct lab_job {
    int id;
    pid_t pid;     /* in the shell's (the host's) PID namespace */
    pid_t lab_pid; /* in the lab's PID namespace, as ps in the lab shows it */
    const char *command;
    int running;
    /* Once it has ended: its exit status as a shell's $? gives it (128+N
     * when a signal N ended it); -1 while it runs, or when unknown. */
    int status;
};
/* The jobs started by lab_start() and lab_start_background(), finished ones
 * included until cleanup. */
size_t lab_jobs(struct lab *lab, const struct lab_job **jobs);

/* Stops every job and every other process of the lab but its keeper and the
 * shell's own children (namespace inits get SIGKILL, children are reaped), unmounts every mount
 * made in the lab since it opened (newest first), removes the /procK (and
 * other) entries made in its root, and writes one line per thing removed to
 * report (may be NULL): "stopped job [1] CMD (pid P, lab pid L)", "stopped
 * process L (comm)", "unmounted /proc2 (proc)", "removed directory /proc2";
 * lines starting "warning:" say what could not be undone. The lab is then
 * as fresh as at open; job ids start again at 1. Returns the number of
 * things removed, -1 on error. */
int lab_cleanup(struct lab *lab, FILE *report);

/* Cleans up, ends the lab, and judges what the lab could have left: any
 * process still in the lab's PID namespace or one below it, or in the
 * keeper's mount namespace, one "process P (comm) survived the lab: ..."
 * line each. The lab's mounts live in its own mount namespace and its view
 * of the host's files is read-only, so it cannot change the host's mount
 * table or /: those are still compared with lab_open()'s snapshot (read
 * through fds opened before the sandbox), and a difference is told as made
 * elsewhere on the machine, without counting. Writes "no process, mount or
 * /procN left by the lab" when nothing was left: what was checked, and no
 * more (files written through a wall are not looked for). Frees the lab. Returns 0 if nothing was
 * left, 1 if something was (or the host could not be read), -1 on error. */
int lab_close(struct lab *lab, FILE *report);

/* The one command an outside terminal runs to enter the lab: "nsenter -t
 * KEEPER -m -p" as root; "nsenter -t KEEPER -U --preserve-credentials -m -p"
 * on the user-namespace route (run by the same user). It starts $SHELL in
 * the lab's root, with the lab's /proc and /procK. */
const char *lab_nsenter_command(const struct lab *lab);

/* A path inside the lab as the shell process can open it, e.g.
 * lab_path(lab, "/proc") -> "/proc/4242/root/proc". The buffer belongs to
 * the lab and is overwritten by the next call. */
const char *lab_path(const struct lab *lab, const char *path_in_lab);

/* What the last failed call (returning -1) of this lab went wrong on. */
const char *lab_error(const struct lab *lab);

/* Is word a program the lab's shell would find: a path to an executable, or
 * a name found on the lab's PATH (the examples first)? */
int lab_on_path(const struct lab *lab, const char *word);

/* The level of the lab's PID namespace as the kernel counts, taking the
 * namespace the tutor runs in as level 0 (the initial namespace, on a
 * machine that is not itself a container): 1. */
int lab_level(const struct lab *lab);

/* Waits until every signal sent in the lab has been taken by its process
 * (procfs_signals_undelivered(): kill() returns before a SIGSTOP stops the
 * target, which on a loaded machine may wait for a CPU), at most
 * bound_seconds. Returns 0 when none is left, 1 at the bound. A check calls
 * it first, so that it judges what the learner's signal did. */
int lab_await_signals(struct lab *lab, double bound_seconds);

/* The keeper's PID in the shell's namespace, and the route taken. */
pid_t lab_keeper_pid(const struct lab *lab);
/* Was this mount (an id of the keeper's mount table) made in the lab, rather
 * than inherited from the host when the lab opened? */
int lab_mount_is_new(const struct lab *lab, unsigned mount_id);
enum lab_route lab_route(const struct lab *lab);

#endif
