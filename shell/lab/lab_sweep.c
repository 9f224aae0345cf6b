/* SPDX-License-Identifier: MIT */
/* lab_sweep.c: making the lab fresh again (lab_cleanup). The verdict on the
 * host at lab_close() is in lab_host.c.
 *
 * Cleanup runs in a sweeper: a child of the shell, so inside the lab's PID
 * namespace, joined to the keeper's mount namespace. There kill(-1, SIGKILL)
 * reaches exactly the lab's processes (nested namespaces included) except its
 * init, the keeper; unmounting works on the keeper's own mount table; and an
 * rmdir of a directory still mounted on fails with EBUSY instead of silently
 * detaching the mount, as it would from another mount namespace.
 */
#include "lab/lab_internal.h"
#include "procfs/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SWEEP_PATIENCE_MS 2000
#define LAB_MOUNTINFO_MAX (1 << 22)

/* --- the sweeper ------------------------------------------------------ */

struct process_scan {
    const struct lab_spared *spared;
    pid_t self;
    FILE *out;
    int kill_them;
    int live;
};

static int scan_one(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct process_scan *s = arg;
    struct procfs_status st;
    if (pid <= 1 || pid == s->self || lab_is_spared(s->spared, pid) ||
        lab_read_status(proc_fd, name, &st) == -1 || st.state == 'Z' || st.state == 'X')
        return 0;
    s->live++;
    if (s->out != NULL && strcmp(st.name, "lab-runner") != 0)
        fprintf(s->out, "stopped process %d (%s)\n", (int)pid, st.name);
    if (s->kill_them)
        kill(pid, SIGKILL); /* an init of a nested namespace takes all of it along */
    return 0;
}

/* Counts the live (not zombie) processes of the lab except 1, ourselves and
 * the spared; with out, reports each one that is not a runner; with kill_them,
 * sends each SIGKILL. */
static int scan_processes(int proc_fd, const struct lab_spared *spared, FILE *out, int kill_them)
{
    struct process_scan s = {spared, getpid(), out, kill_them, 0};
    return procfs_walk_pids(proc_fd, ".", scan_one, &s) == -1 ? -1 : s.live;
}

static void stop_processes(int proc_fd, const struct lab_spared *spare, FILE *out)
{
    scan_processes(proc_fd, spare, out, 0);
    for (int waited = 0;; waited += 2) {
        /* One by one rather than kill(-1): the shell's helpers are spared. */
        int live = scan_processes(proc_fd, spare, NULL, 1);
        if (live <= 0)
            return;
        if (waited >= SWEEP_PATIENCE_MS) {
            fprintf(out, "warning: %d processes of the lab did not stop\n", live);
            return;
        }
        lab_sleep_ms(2);
    }
}

static int in_ids(const unsigned *ids, size_t n, unsigned id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* The mountinfo ids of the baseline's mounts (malloc'd). Kept by unique id,
 * the baseline's mounts still there are asked for theirs: a mountinfo id
 * an unmounted one had may be a new mount's by now. NULL without memory. */
static unsigned *baseline_old_ids(const struct lab *lab, size_t *n)
{
    unsigned *ids = malloc((lab->baseline_mount_count + 1) * sizeof *ids);
    *n = 0;
    for (size_t i = 0; ids != NULL && i < lab->baseline_mount_count; i++) {
        if (lab->baseline_unique == NULL)
            ids[(*n)++] = lab->baseline_mounts[i];
        else if (lab_mount_old_id(lab->keeper_mnt_id, lab->baseline_unique[i], &ids[*n]) == 0)
            (*n)++;
    }
    return ids;
}

int lab_mount_is_new(const struct lab *lab, unsigned mount_id)
{
    size_t n;
    unsigned *ids = baseline_old_ids(lab, &n);
    int is_new = ids != NULL && !in_ids(ids, n, mount_id);
    free(ids);
    return is_new;
}

/* Unmounts, newest first, every mount the keeper's namespace did not have at
 * open (a mount made on top of another is listed after it). */
static void unmount_new(const struct lab *lab, FILE *out)
{
    struct procfs_mount_table table;
    /* through the lab's procfs: /proc itself may be covered by now */
    if (procfs_parse_mounts(io_read_file(lab->lab_proc_fd, "self/mountinfo", LAB_MOUNTINFO_MAX),
                            &table) == -1) {
        fprintf(out, "warning: reading the lab's mount table: %s\n", strerror(errno));
        return;
    }
    size_t n;
    unsigned *baseline = baseline_old_ids(lab, &n);
    for (size_t i = table.count; baseline != NULL && i-- > 0;) {
        const struct procfs_mount *m = &table.mounts[i];
        if (in_ids(baseline, n, m->mount_id))
            continue;
        if (umount2(m->mount_point, 0) == -1 && umount2(m->mount_point, MNT_DETACH) == -1)
            fprintf(out, "warning: could not unmount %s (%s): %s\n", m->mount_point, m->fstype,
                    strerror(errno));
        else
            fprintf(out, "unmounted %s (%s)\n", m->mount_point, m->fstype);
    }
    if (baseline == NULL)
        fprintf(out, "warning: reading the lab's mount table: %s\n", strerror(ENOMEM));
    free(baseline);
    procfs_mounts_free(&table);
}

static dev_t root_device;

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (st->st_dev != root_device)
        return 0; /* never reach into another file system */
    if (type == FTW_DP ? rmdir(path) : unlink(path))
        return -1;
    return 0;
}

/* Removes what was made in the lab's root (its tmpfs) since open: /proc2 and
 * friends. Lives only in the lab, so removing it touches nothing real. */
static void remove_new_entries(const struct lab *lab, FILE *out)
{
    char *now_listing = lab_dir_listing(AT_FDCWD);
    struct stat root;
    if (now_listing == NULL || stat("/", &root) == -1) {
        fprintf(out, "warning: listing the lab's /: %s\n", strerror(errno));
        free(now_listing);
        return;
    }
    root_device = root.st_dev;
    for (char *name = strtok(now_listing, "\n"); name != NULL; name = strtok(NULL, "\n")) {
        char key[NAME_MAX + 3], path[NAME_MAX + 2];
        struct stat st;
        snprintf(key, sizeof key, "\n%s\n", name);
        if (strncmp(lab->baseline_root, key + 1, strlen(key + 1)) == 0 ||
            strstr(lab->baseline_root, key) != NULL)
            continue;
        snprintf(path, sizeof path, "/%s", name);
        if (lstat(path, &st) == -1)
            continue;
        int rc = S_ISDIR(st.st_mode) ? nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT)
                                     : unlink(path);
        if (rc == 0 && lstat(path, &st) == 0) { /* nftw skipped what is on another mount */
            rc = -1;
            errno = EBUSY;
        }
        if (rc != 0)
            fprintf(out, "warning: could not remove %s: %s\n", path, strerror(errno));
        else
            fprintf(out, "removed %s%s\n", S_ISDIR(st.st_mode) ? "directory " : "", path);
    }
    free(now_listing);
}

static void sweeper_main(const struct lab *lab, const struct lab_spared *spare, int out_fd)
{
    FILE *out = fdopen(out_fd, "w");
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (out == NULL || getppid() != 0)
        _exit(1);
    prctl(PR_SET_NAME, "lab-sweeper");
    if (setns(lab->keeper_mnt_fd, CLONE_NEWNS) == -1 || chdir("/") == -1) {
        fprintf(out, "warning: joining the lab's mount namespace: %s\n", strerror(errno));
        _exit(1);
    }
    stop_processes(lab->lab_proc_fd, spare, out);
    unmount_new(lab, out);
    remove_new_entries(lab, out);
    fclose(out);
    _exit(0);
}

struct spared_search {
    ino_t lab_ns;
    struct lab_spared *spared;
};

static int note_spared(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct spared_search *s = arg;
    struct procfs_status st;
    (void)pid;
    if (lab_in_pid_namespace(proc_fd, name, s->lab_ns) &&
        lab_read_status(proc_fd, name, &st) == 0 && st.ppid == getpid() &&
        st.nspid[st.nspid_count - 1] > 1 && strcmp(st.name, "lab-runner") != 0)
        s->spared->lab_pid[s->spared->count++] = st.nspid[st.nspid_count - 1];
    return s->spared->count == LAB_SPARED_MAX;
}

/* The shell's children in the lab that are not runners, by lab PID.
 * Returns 1 when the keeper runs alone (nothing to spare), else 0. */
static int find_spared(const struct lab *lab, struct lab_spared *spared)
{
    struct stat lab_ns;
    spared->count = 0;
    if (lab_runs_keeper_alone(lab, NULL))
        return 1; /* nothing to spare: skip the look at every host process */
    if (fstat(lab->lab_pidns_fd, &lab_ns) == -1)
        return 0;
    struct spared_search s = {lab_ns.st_ino, spared};
    procfs_walk_pids(AT_FDCWD, "/proc", note_spared, &s);
    return 0;
}

/* Runs the sweeper; its report lines go to *lines (malloc'd). */
static int run_sweeper(struct lab *lab, const struct lab_spared *spare, char **lines)
{
    int pipefd[2];
    *lines = NULL;
    if (pipe2(pipefd, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {pipefd[1], lab->keeper_mnt_fd, lab->lab_proc_fd, 2};
        io_close_fds_except(keep, 4);
        sweeper_main(lab, spare, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid == -1) {
        close(pipefd[0]);
        return lab_set_error(lab, "starting the lab's cleanup (fork): %s", strerror(errno));
    }
    *lines = io_read_fd(pipefd[0], 1 << 20);
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) == -1)
        if (errno != EINTR)
            return lab_set_error(lab, "waitpid: %s", strerror(errno));
    if (*lines == NULL || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return lab_set_error(lab, "the lab's cleanup failed: %s", *lines ? *lines : "no report");
    return 0;
}

/* Waits (up to a second) until the lab's /proc lists the keeper alone: the
 * keeper reaps the orphans the sweeper killed a moment after they die. */
static void wait_for_keeper_alone(struct lab *lab, const struct lab_spared *spare)
{
    for (int waited = 0; waited < 1000; waited += 2) {
        if (lab_runs_keeper_alone(lab, spare))
            return;
        lab_reap_dead_children(lab);
        lab_sleep_ms(2);
    }
}

/* Has the keeper's namespace the baseline's mounts and no other? */
static int same_mounts(const struct lab *lab)
{
    if (lab->baseline_unique != NULL) {
        uint64_t *ids;
        ssize_t n = lab_list_mounts(lab->keeper_mnt_id, &ids);
        int same = n >= 0 && (size_t)n == lab->baseline_mount_count &&
                   memcmp(ids, lab->baseline_unique, (size_t)n * sizeof *ids) == 0;
        free(ids);
        return same;
    }
    struct procfs_mount_table mounts;
    if (procfs_read_mounts("/proc", lab->keeper, &mounts) == -1)
        return 0;
    int same = mounts.count == lab->baseline_mount_count;
    for (size_t i = 0; i < mounts.count && same; i++)
        same = in_ids(lab->baseline_mounts, lab->baseline_mount_count, mounts.mounts[i].mount_id);
    procfs_mounts_free(&mounts);
    return same;
}

/* Is the lab as it was at open? Only the keeper runs (alone: find_spared()
 * has just seen it so), its mount ids are the baseline's, its / lists the
 * same names. Then there is nothing to sweep. */
static int lab_is_fresh(struct lab *lab, const struct lab_spared *spare, int alone)
{
    int fresh = 1;
    for (size_t i = 0; i < lab->job_count && fresh; i++)
        fresh = !lab->jobs[i].job.running;
    if (!fresh || !(alone || lab_runs_keeper_alone(lab, spare)))
        return 0;
    if (!same_mounts(lab))
        return 0;
    int root_fd = fresh ? open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    char *root = root_fd != -1 ? lab_dir_listing(root_fd) : NULL;
    if (root_fd != -1)
        close(root_fd);
    fresh = fresh && root != NULL && strcmp(root, lab->baseline_root) == 0;
    free(root);
    return fresh;
}

int lab_cleanup(struct lab *lab, FILE *report)
{
    char *lines = NULL;
    int count = 0, rc = 0;

    struct lab_spared spare;
    if (lab->keeper <= 0)
        return lab_set_error(lab, "the lab is closed");
    /* A job that ended meanwhile (the learner killed it) is not one this
     * cleanup stops: note its end before the sweep kills the rest. */
    for (size_t i = 0; i < lab->job_count; i++)
        lab_job_reap(lab, &lab->jobs[i], 0);
    int alone = find_spared(lab, &spare);
    int fresh = lab_is_fresh(lab, &spare, alone);
    if (!fresh)
        rc = run_sweeper(lab, &spare, &lines);
    for (size_t i = 0; i < lab->job_count; i++) {
        struct lab_job_slot *slot = &lab->jobs[i];
        int was_running = slot->job.running;
        lab_job_reap(lab, slot, 1);
        if (was_running && report != NULL)
            fprintf(report, "stopped job [%d] %s (pid %d, lab pid %d)\n", slot->job.id,
                    slot->command, (int)slot->job.pid, (int)slot->job.lab_pid);
        count += was_running;
        free(slot->command);
    }
    lab->job_count = 0;
    lab->next_job_id = 1;
    if (!fresh) /* fresh: the keeper was alone, and nothing was stopped since */
        wait_for_keeper_alone(lab, &spare);
    for (char *line = lines ? strtok(lines, "\n") : NULL; line != NULL; line = strtok(NULL, "\n")) {
        if (report != NULL)
            fprintf(report, "%s\n", line);
        count += strncmp(line, "warning:", 8) != 0;
    }
    if (report != NULL)
        fflush(report);
    free(lines);
    return rc == -1 ? -1 : count;
}
