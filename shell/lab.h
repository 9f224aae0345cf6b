/* lab.h: where the tutorial runs commands, with nothing left on the host.
 *
 * Shape (see docs/design.adoc):
 *  - lab_open() puts the calling shell process in a sandbox (sandbox.h: own
 *    mount namespace with a tmpfs root; a user namespace when not root), then
 *    unshare(CLONE_NEWPID): the shell's later children all land in one "lab"
 *    PID namespace. The first child is the lab's keeper (its PID 1): it takes
 *    PR_SET_PDEATHSIG(SIGKILL), makes its own mount namespace, mounts a procfs
 *    for the lab namespace at /proc there, and reaps orphans.
 *  - Every command the lab runs is a child of the shell inside the lab PID
 *    namespace, joined to the keeper's mount namespace (setns), with
 *    PR_SET_PDEATHSIG(SIGKILL). If the shell dies in any way, the keeper
 *    dies, the kernel kills everything in the lab namespace (nested ones too),
 *    and the mount namespaces, with every /procK, are freed.
 *  - Inside the lab, /proc and ps show the lab namespace: the parent
 *    namespace of every example, as in the article. Examples mount at /proc2,
 *    /proc0..; those directories live in the tmpfs root.
 *
 * The shell process itself keeps the host's /proc. It sees the lab's files
 * through lab_path() ("/proc/<keeper>/root/...").
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
};

/* Which way the lab gets its privileges, and what is missing if none works. */
enum lab_route { LAB_ROUTE_NONE, LAB_ROUTE_ROOT, LAB_ROUTE_USER_NAMESPACE };
struct lab_diagnosis {
    enum lab_route route;
    char problem[256]; /* empty when route != LAB_ROUTE_NONE */
    char fix[256];     /* the one command that fixes it */
};
/* Probes (in a throw-away child) whether a lab can be opened and how. */
void lab_diagnose(const struct lab_config *config, struct lab_diagnosis *out);

/* Opens the lab. Must be called while single-threaded, before any other child
 * is started. NULL on failure, with what failed and what to do in err. */
struct lab *lab_open(const struct lab_config *config, char *err, size_t errlen);

/* Runs `/bin/sh -c command_line` in the lab in the foreground, with its output
 * live on out_fd/err_fd, stdin from the terminal when there is one. SIGINT
 * (Ctrl-C) during the run stops the command (and any namespace it made) and
 * returns 130. Returns the exit status (128+N for a signal), -1 on error. */
int lab_run(struct lab *lab, const char *command_line, int out_fd, int err_fd);

/* Runs a command line with LC_ALL=C, capturing stdout+stderr into *output
 * (malloc'd, NUL-terminated). Returns the exit status, -1 on error. */
int lab_capture(struct lab *lab, const char *command_line, char **output);

/* Starts a command line whose output goes live to out_fd. If it exits within
 * the settle window, returns 0 with the exit status in *status. If it keeps
 * running (an example that ends in sleep), it becomes a background job:
 * returns 1 with its job id in *job_id. -1 on error. */
int lab_start(struct lab *lab, const char *command_line, int out_fd, int *status, int *job_id);

struct lab_job {
    int id;
    pid_t pid;     /* in the shell's (the host's) PID namespace */
    pid_t lab_pid; /* in the lab's PID namespace, as ps in the lab shows it */
    const char *command;
    int running;
};
/* The jobs started by lab_start(), finished ones included until cleanup. */
size_t lab_jobs(struct lab *lab, const struct lab_job **jobs);

/* Stops every job (namespace inits get SIGKILL, children are reaped),
 * unmounts every mount made in the lab since it opened, removes the /procK
 * (and other) directories made in its root, and writes one line per thing
 * removed to report (may be NULL). The lab is then as fresh as at open.
 * Returns the number of things removed, -1 on error. */
int lab_cleanup(struct lab *lab, FILE *report);

/* Cleans up, ends the lab, and compares the host's mount table and process
 * list with what they were at lab_open(): writes "host unchanged" or each
 * difference to report. Returns 0 if unchanged, 1 if not, -1 on error. */
int lab_close(struct lab *lab, FILE *report);

/* The one command an outside terminal runs to enter the lab (nsenter ...). */
const char *lab_nsenter_command(const struct lab *lab);

/* A path inside the lab as the shell process can open it, e.g.
 * lab_path(lab, "/proc") -> "/proc/4242/root/proc". Static buffer. */
const char *lab_path(const struct lab *lab, const char *path_in_lab);

/* What the last failed call (returning -1) of this lab went wrong on. */
const char *lab_error(const struct lab *lab);

/* The keeper's PID in the shell's namespace, and the route taken. */
pid_t lab_keeper_pid(const struct lab *lab);
enum lab_route lab_route(const struct lab *lab);

#endif
