/* SPDX-License-Identifier: MIT */
/* lab_internal.h: what the lab_*.c files share, and what the lab's tests
 * look at. Not for the rest of the shell: it uses lab.h.
 *
 * Processes of a lab (PIDs in the shell's namespace unless said otherwise):
 *   shell ─┬─ keeper   PID 1 of the lab namespace; own mount namespace with
 *          │           the lab's procfs at /proc; reaps orphans
 *          ├─ runner   one per command: joins the keeper's mount namespace,
 *          │   │       is a child subreaper, so everything the command starts
 *          │   │       stays below it; kills all of it when the command ends
 *          │   └─ /bin/sh -c COMMAND (and whatever it starts)
 *          ├─ sweeper  lab_cleanup(): kills, unmounts, removes, reports
 *          └─ builder  user-namespace route, during lab_open() only: builds the
 *                      read-only view and its locked copy (lab_walls.c)
 */
#ifndef PIDNS_TUTOR_LAB_INTERNAL_H
#define PIDNS_TUTOR_LAB_INTERNAL_H

#include "lab/lab.h"
#include "lab/lab_cgroup.h"
#include "util/io.h"

#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#define LAB_ERROR_MAX 1024

struct lab_job_slot {
    struct lab_job job; /* job.command points at command */
    pid_t runner;       /* the runner's PID (in the shell's namespace) */
    char *command;
};

struct lab {
    enum lab_route route;
    pid_t keeper;         /* in the shell's namespace */
    int keeper_mnt_fd;    /* the keeper's mount namespace: commands join it */
    int lab_pidns_fd;     /* the lab's PID namespace (for the verdict) */
    int own_pidns_fd;     /* ours, to return to at close when allowed */
    ino_t keeper_mnt_ino; /* the keeper's mount namespace, for the verdict */
    int lab_proc_fd;      /* the keeper's procfs of the lab namespace, opened at open:
                             right even if a command mounts something over /proc */

    /* The verdict's (lab_host.c): the keeper was reaped, so its PID
     * namespace is empty; the mount namespace's never-reused id, or 0. */
    int pidns_emptied;
    unsigned long long keeper_mnt_id;
    int host_mountinfo_fd;
    int host_root_fd;
    pid_t walls_builder; /* lab_walls.c: builds the view, until the keeper is in */
    int walls_cmd_fd, walls_status_fd;
    struct lab_cgroup cgroup;  /* the bound per lab (lab_cgroup.c), when delegated */
    char *host_mounts_at_open; /* normalised host mount table */
    char *host_root_at_open;   /* sorted names in the host's / */
    /* The keeper's mounts at open: by unique id (listmount(2)) where the
     * kernel numbers namespaces (keeper_mnt_id != 0), else by mountinfo id. */
    uint64_t *baseline_unique;
    unsigned *baseline_mounts;
    size_t baseline_mount_count; /* of whichever is set */
    char *baseline_root;         /* sorted names in the lab's / at open, one a line */
    char *cwd;                   /* where commands start */
    char *path_env;              /* "PATH=<examples_dir>:..." */
    char *examples_dir;          /* resolved, or NULL: kept visible over the lab's scratch */
    double settle_seconds;
    struct lab_job_slot *jobs;
    size_t job_count, job_capacity;
    struct lab_job *job_view; /* what lab_jobs() hands out */
    int next_job_id;
    char nsenter[128];
    char path_buf[PATH_MAX + 64];
    char error[LAB_ERROR_MAX];
};

/* The files of the lab call one way, each only those listed after it:
 *   lab.c (open, keeper, close) -> lab_sweep.c (cleanup) -> lab_run.c (the
 *   shell's side of commands and jobs) -> lab_runner.c (the runner process)
 *   -> lab_util.c (a leaf); lab.c and lab_sweep.c also use lab_host.c (the
 *   host's snapshot and the verdict), which uses lab_util.c only. */

/* lab_util.c */
#define LAB_SPARED_MAX 64

/* The shell's own helpers in the lab (a pager, an output relay): children of
 * the shell that are not runners, by lab PID. lab_cleanup() leaves them
 * alone. */
struct lab_spared {
    pid_t lab_pid[LAB_SPARED_MAX];
    size_t count;
};

int lab_set_error(struct lab *lab, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lab_reset_signals(void);
void lab_sleep_ms(int ms);
/* The number in a small file (a sysctl, a cgroup limit): missing when it
 * cannot be read or holds no number, unlimited for "max". */
long lab_read_number(const char *path, long missing, long unlimited);
struct procfs_status;
/* The status of process `name` of the proc root open at proc_fd; 0 or -1. */
int lab_read_status(int proc_fd, const char *name, struct procfs_status *st);
/* Is process `name` of the proc root open at proc_fd in the PID namespace
 * with inode ns_ino? */
int lab_in_pid_namespace(int proc_fd, const char *name, ino_t ns_ino);
/* Host PID of the child of `parent` (host PID) whose PID in the lab is
 * lab_pid; 0 when not found. */
pid_t lab_host_pid_of(pid_t parent, pid_t lab_pid);
/* Reaps the shell's children that died in the lab (zombies block the
 * keeper's exit and linger in the lab's /proc). */
void lab_reap_dead_children(const struct lab *lab);
/* Does the lab's own /proc list its keeper (lab PID 1) and nothing else but
 * the spared (may be NULL)? It lists the lab's processes only. */
int lab_runs_keeper_alone(const struct lab *lab, const struct lab_spared *spared);
int lab_is_spared(const struct lab_spared *spared, pid_t lab_pid);

/* lab_host.c */
/* Processes on the host that are still in the lab's PID namespace (or one
 * below it) or in the keeper's mount namespace: writes one line each to
 * report (may be NULL) and returns the count. */
int lab_find_survivors(struct lab *lab, FILE *report);
/* The id of the mount namespace open on fd, when the kernel can later say
 * whether that namespace still exists (Linux 6.11: NS_GET_MNTNS_ID and a
 * listmount() of another namespace); 0 when it cannot. */
unsigned long long lab_mount_namespace_id(int fd);
/* Reads the host's mount table and / now (malloc'd; NULL where they could
 * not be read): returns 0, or the errno of the first that failed. */
int lab_host_read(const struct lab *lab, char **mounts, char **root);
/* The unique ids (listmount(2), Linux 6.8; of another namespace by its
 * id, 6.11) of every mount of the mount namespace ns_id, sorted (*ids
 * malloc'd): their count, or -1 with errno. */
ssize_t lab_list_mounts(unsigned long long ns_id, uint64_t **ids);
/* The id mountinfo shows for the mount with unique id mount_id of that
 * namespace (statmount(2)); 0, or -1 with errno (ENOENT: not mounted). */
int lab_mount_old_id(unsigned long long ns_id, uint64_t mount_id, unsigned *old_id);
/* Compares the host's mount table and / read by lab_host_read() with the
 * snapshot taken at open and tells each difference as made elsewhere (the
 * lab cannot make them): returns their count, or -1 when the host could not
 * be read (read_error says why). Frees mounts and root. */
int lab_host_differences(struct lab *lab, char *mounts, char *root, int read_error, FILE *report);
/* The mount table read from a mountinfo fd, one sorted line per mount. */
char *lab_host_mount_table(int mountinfo_fd);
/* The names in a directory, sorted, one a line. */
char *lab_dir_listing(int dirfd);

/* lab_walls.c (used by lab.c; uses sandbox.c and lab_util.c) */
/* Forks the builder, which builds the read-only view in a mount namespace of
 * the sandbox's user namespace, then moves the shell into a further user
 * namespace (its root the same user): call before unshare(CLONE_NEWPID). */
int lab_walls_start(struct lab *lab);
/* Once the keeper is forked (and waits): the builder mounts the lab's procfs
 * in the view and makes the locked copy the keeper is to join. */
int lab_walls_lock(struct lab *lab, pid_t keeper);
/* In the keeper: waits for a byte on go_fd, then joins the locked copy. */
int lab_walls_keeper_join(pid_t builder, int go_fd);
/* Ends the builder (the keeper holds the copy by then); closes its pipes. */
void lab_walls_end(struct lab *lab);

/* lab_run.c */
struct lab_runner_spec {
    const char *command_line;
    int use_tty;                     /* stdin is our terminal: give it to the command */
    int out_fd, err_fd;              /* the command's stdout/stderr (if pump_to_fd < 0) */
    int pump_to_fd;                  /* >= 0: the runner copies the output here and says
                                        when the command has settled (lab_start) */
    int c_locale;                    /* LC_ALL=C */
    const struct lab_expect *expect; /* lab_start_expecting(); NULL otherwise */
};
int lab_job_reap(struct lab *lab, struct lab_job_slot *slot, int block);

/* lab_runner.c */
/* What a runner tells the shell on its status pipe. */
struct lab_runner_message {
    char kind; /* 'P' command started (value: its PID in the lab), 'S' settled,
                  'E' the runner could not start it (value: errno) */
    int value;
};

/* The runner's life, in the child the shell forked: never returns. */
void lab_runner_main(const struct lab *lab, const struct lab_runner_spec *spec, int status_fd,
                     int go_fd) __attribute__((noreturn));

#endif
