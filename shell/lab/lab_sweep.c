/* lab_sweep.c: making the lab fresh again (lab_cleanup) and the verdict on
 * the host at lab_close().
 *
 * Cleanup runs in a sweeper: a child of the shell, so inside the lab's PID
 * namespace, joined to the keeper's mount namespace. There kill(-1, SIGKILL)
 * reaches exactly the lab's processes (nested namespaces included) except its
 * init, the keeper; unmounting works on the keeper's own mount table; and an
 * rmdir of a directory still mounted on fails with EBUSY instead of silently
 * detaching the mount, as it would from another mount namespace.
 */
#include "lab/lab_internal.h"

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

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of text in place (text keeps its newlines). */
static char *sorted_lines(char **lines, size_t n)
{
    size_t total = 1;
    qsort(lines, n, sizeof *lines, cmp_strings);
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *out = malloc(total), *p = out;
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", lines[i]);
    *p = '\0';
    return out;
}

char *lab_dir_listing(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd != -1 ? fdopendir(fd) : NULL;
    char **names = NULL, *out = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;

    if (dir == NULL) {
        if (fd != -1)
            close(fd);
        return NULL;
    }
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            char **bigger = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (bigger == NULL)
                goto done;
            names = bigger;
        }
        if ((names[n] = strdup(e->d_name)) == NULL)
            goto done;
        n++;
    }
    out = sorted_lines(names, n);
done:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(dir);
    return out;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
    char *out = s;
    while (*s != '\0') {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 4;
        } else {
            *out++ = *s++;
        }
    }
    *out = '\0';
}

struct mount_entry {
    unsigned id;
    char mount_point[PATH_MAX];
    char fstype[64];
    char source[256];
};

static int parse_mount_line(const char *line, struct mount_entry *m)
{
    const char *dash = strstr(line, " - ");
    if (dash == NULL || sscanf(line, "%u %*u %*s %*s %4095s", &m->id, m->mount_point) != 2 ||
        sscanf(dash + 3, "%63s %255s", m->fstype, m->source) < 1)
        return -1;
    unescape(m->mount_point);
    return 0;
}

char *lab_host_mount_table(int mountinfo_fd)
{
    if (lseek(mountinfo_fd, 0, SEEK_SET) == -1)
        return NULL;
    char *text = lab_read_fd(mountinfo_fd, 1 << 22);
    if (text == NULL)
        return NULL;
    size_t n = 0, cap = 64;
    char **lines = malloc(cap * sizeof *lines), *out = NULL;
    for (char *line = strtok(text, "\n"); lines != NULL && line != NULL; line = strtok(NULL, "\n")) {
        struct mount_entry m = {0};
        if (parse_mount_line(line, &m) == -1)
            continue;
        if (n == cap) {
            char **bigger = realloc(lines, (cap *= 2) * sizeof *lines);
            if (bigger == NULL)
                goto done;
            lines = bigger;
        }
        if (asprintf(&lines[n], "%s (%s %s)", m.mount_point, m.fstype, m.source) == -1)
            goto done;
        n++;
    }
    out = lines != NULL ? sorted_lines(lines, n) : NULL;
done:
    for (size_t i = 0; lines != NULL && i < n; i++)
        free(lines[i]);
    free(lines);
    free(text);
    return out;
}

/* --- the sweeper ------------------------------------------------------ */

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* The shell's own helpers in the lab (a pager, an output relay): children of
 * the shell that are not runners. lab_cleanup() leaves them alone. */
struct spare {
    pid_t lab_pid[64];
    size_t count;
};

static int spared(const struct spare *spare, pid_t pid)
{
    for (size_t i = 0; i < spare->count; i++)
        if (spare->lab_pid[i] == pid)
            return 1;
    return 0;
}

/* Counts the live (not zombie) processes of the lab except 1, ourselves and
 * the spared; with out, reports each one that is not a runner; with kill_them,
 * sends each SIGKILL. */
static int scan_processes(int proc_fd, const struct spare *spare, FILE *out, int kill_them)
{
    DIR *dir = fdopendir(openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    pid_t self = getpid();
    int live = 0;
    struct dirent *e;

    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        char path[300], buf[512], comm[64] = "?", state = '?';
        int pid = atoi(e->d_name);
        if (pid <= 1 || pid == self || spared(spare, pid))
            continue;
        snprintf(path, sizeof path, "%d/stat", pid);
        int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd != -1 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd != -1)
            close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        char *open = strchr(buf, '('), *close_paren = strrchr(buf, ')');
        if (open != NULL && close_paren != NULL && close_paren > open) {
            snprintf(comm, sizeof comm, "%.*s", (int)(close_paren - open - 1), open + 1);
            state = close_paren[2];
        }
        if (state == 'Z' || state == 'X')
            continue;
        live++;
        if (out != NULL && strcmp(comm, "lab-runner") != 0)
            fprintf(out, "stopped process %d (%s)\n", pid, comm);
        if (kill_them)
            kill(pid, SIGKILL); /* an init of a nested namespace takes all of it along */
    }
    closedir(dir);
    return live;
}

static void stop_processes(int proc_fd, const struct spare *spare, FILE *out)
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
        sleep_ms(2);
    }
}

static int in_baseline(const struct lab *lab, unsigned id)
{
    for (size_t i = 0; i < lab->baseline_mount_count; i++)
        if (lab->baseline_mounts[i] == id)
            return 1;
    return 0;
}

/* Unmounts, newest first, every mount the keeper's namespace did not have at
 * open (a mount made on top of another is listed after it). */
static void unmount_new(const struct lab *lab, FILE *out)
{
    /* through the lab's procfs: /proc itself may be covered by now */
    char *text = lab_read_file(lab->lab_proc_fd, "self/mountinfo", 1 << 22);
    if (text == NULL) {
        fprintf(out, "warning: reading the lab's mount table: %s\n", strerror(errno));
        return;
    }
    size_t n = 0;
    for (char *p = text; *p != '\0'; p++)
        n += *p == '\n';
    struct mount_entry *mounts = calloc(n + 1, sizeof *mounts);
    size_t count = 0;
    for (char *line = strtok(text, "\n"); mounts != NULL && line != NULL; line = strtok(NULL, "\n"))
        if (parse_mount_line(line, &mounts[count]) == 0 && !in_baseline(lab, mounts[count].id))
            count++;
    for (size_t i = count; i-- > 0;) {
        const struct mount_entry *m = &mounts[i];
        if (umount2(m->mount_point, 0) == -1 && umount2(m->mount_point, MNT_DETACH) == -1)
            fprintf(out, "warning: could not unmount %s (%s): %s\n", m->mount_point, m->fstype,
                    strerror(errno));
        else
            fprintf(out, "unmounted %s (%s)\n", m->mount_point, m->fstype);
    }
    free(mounts);
    free(text);
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

static void sweeper_main(const struct lab *lab, const struct spare *spare, int out_fd)
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

/* Runs the sweeper; its report lines go to *lines (malloc'd). */
/* Does the lab's own /proc list its keeper (lab PID 1) and nothing else?
 * It lists the lab's processes only: a few entries, not the host's. */
static int lab_runs_keeper_alone(const struct lab *lab)
{
    DIR *dir = lab_open_proc_dir(lab);
    struct dirent *e;
    int alone = dir != NULL;
    while (alone && (e = readdir(dir)) != NULL)
        alone = !(e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, "1") != 0);
    if (dir != NULL)
        closedir(dir);
    return alone;
}

/* The shell's children in the lab that are not runners, by lab PID. */
static void find_spared(const struct lab *lab, struct spare *spare)
{
    struct stat lab_ns, st;
    spare->count = 0;
    if (lab_runs_keeper_alone(lab))
        return; /* nothing to spare: skip the look at every host process */
    DIR *dir = opendir("/proc");
    struct dirent *e;
    if (dir == NULL || fstat(lab->lab_pidns_fd, &lab_ns) == -1) {
        if (dir != NULL)
            closedir(dir);
        return;
    }
    while ((e = readdir(dir)) != NULL && spare->count < 64) {
        char path[300];
        pid_t ppid, lab_pid;
        snprintf(path, sizeof path, "/proc/%s/ns/pid", e->d_name);
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || stat(path, &st) == -1 ||
            st.st_ino != lab_ns.st_ino)
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        char *text = lab_read_file(AT_FDCWD, path, 1 << 16);
        if (text != NULL && lab_parse_ppid_nspid(text, &ppid, &lab_pid) == 0 &&
            ppid == getpid() && lab_pid > 1 && strstr(text, "Name:\tlab-runner\n") == NULL)
            spare->lab_pid[spare->count++] = lab_pid;
        free(text);
    }
    closedir(dir);
}

static int run_sweeper(struct lab *lab, const struct spare *spare, char **lines)
{
    int pipefd[2];
    *lines = NULL;
    if (pipe2(pipefd, O_CLOEXEC) == -1)
        return lab_set_error(lab, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int keep[] = {pipefd[1], lab->keeper_mnt_fd, lab->lab_proc_fd, 2};
        lab_close_fds_except(keep, 4);
        sweeper_main(lab, spare, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid == -1) {
        close(pipefd[0]);
        return lab_set_error(lab, "starting the lab's cleanup (fork): %s", strerror(errno));
    }
    *lines = lab_read_fd(pipefd[0], 1 << 20);
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
static void wait_for_keeper_alone(struct lab *lab, const struct spare *spare)
{
    for (int waited = 0; waited < 1000; waited += 2) {
        DIR *dir = lab_open_proc_dir(lab);
        struct dirent *e;
        int others = 0;
        if (dir == NULL)
            return;
        while ((e = readdir(dir)) != NULL)
            others += e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, "1") != 0 &&
                      !spared(spare, atoi(e->d_name));
        closedir(dir);
        if (others == 0)
            return;
        lab_reap_dead_children(lab);
        sleep_ms(2);
    }
}

/* Is the lab as it was at open? Only the keeper runs, its mount ids are the
 * baseline's, its / lists the same names. Then there is nothing to sweep. */
static int lab_is_fresh(struct lab *lab, const struct spare *spare)
{
    char path[64];
    int fresh = 1;
    for (size_t i = 0; i < lab->job_count && fresh; i++)
        fresh = !lab->jobs[i].job.running;
    DIR *dir = fresh ? lab_open_proc_dir(lab) : NULL;
    struct dirent *e;
    if (dir == NULL)
        return 0;
    while (fresh && (e = readdir(dir)) != NULL)
        fresh = !(e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, "1") != 0 &&
                  !spared(spare, atoi(e->d_name)));
    closedir(dir);
    snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)lab->keeper);
    char *mounts = fresh ? lab_read_file(AT_FDCWD, path, 1 << 22) : NULL;
    size_t count = 0;
    for (char *line = mounts; line != NULL && *line != '\0' && fresh; count++) {
        fresh = in_baseline(lab, (unsigned)strtoul(line, NULL, 10));
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    fresh = fresh && mounts != NULL && count == lab->baseline_mount_count;
    free(mounts);
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

    struct spare spare;
    if (lab->keeper <= 0)
        return lab_set_error(lab, "the lab is closed");
    find_spared(lab, &spare);
    if (!lab_is_fresh(lab, &spare))
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

/* --- the verdict ------------------------------------------------------ */

static int same_namespace(int fd, const struct stat *target)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_ino == target->st_ino && st.st_dev == target->st_dev;
}

/* Is the PID namespace open on fd the lab's, or below it? */
static int below_lab(int fd, const struct stat *lab_ns)
{
    int depth = 0;
    while (fd != -1 && depth++ < 40) {
        if (same_namespace(fd, lab_ns)) {
            close(fd);
            return 1;
        }
        int parent = ioctl(fd, NS_GET_PARENT);
        close(fd);
        fd = parent;
    }
    if (fd != -1)
        close(fd);
    return 0;
}

static int survivors_once(const struct lab *lab, FILE *report)
{
    struct stat lab_ns, own;
    DIR *dir = opendir("/proc");
    struct dirent *e;
    int count = 0;

    if (dir == NULL || fstat(lab->lab_pidns_fd, &lab_ns) == -1 || stat("/proc/self/ns/pid", &own) == -1) {
        if (dir != NULL)
            closedir(dir);
        return 0;
    }
    /* Every process of the host is looked at: paths relative to the open
     * /proc, built without printf, keep that cheap. */
    int proc_fd = dirfd(dir);
    while ((e = readdir(dir)) != NULL) {
        char path[300];
        struct stat st;
        size_t len = strlen(e->d_name);
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || len > sizeof path - 8)
            continue;
        memcpy(path, e->d_name, len);
        memcpy(path + len, "/ns/mnt", 8);
        int in_mnt = fstatat(proc_fd, path, &st, 0) == 0 && st.st_ino == lab->keeper_mnt_ino;
        memcpy(path + len, "/ns/pid", 8);
        int in_pid = 0;
        if (fstatat(proc_fd, path, &st, 0) == 0 && st.st_ino != own.st_ino)
            in_pid = below_lab(openat(proc_fd, path, O_RDONLY | O_CLOEXEC), &lab_ns);
        if (!in_mnt && !in_pid)
            continue;
        count++;
        if (report != NULL) {
            snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
            char *comm = lab_read_file(AT_FDCWD, path, 256);
            if (comm != NULL)
                comm[strcspn(comm, "\n")] = '\0';
            fprintf(report, "process %s (%s) survived the lab: it is in the lab's %s namespace\n",
                    e->d_name, comm ? comm : "?", in_pid ? "PID" : "mount");
            free(comm);
        }
    }
    closedir(dir);
    return count;
}

int lab_find_survivors(struct lab *lab, FILE *report)
{
    /* Killed processes take a moment to exit: give them up to a second.
     * The names are looked up (and reported) only for those still there. */
    int count = survivors_once(lab, NULL);
    for (int waited = 0; waited < 1000 && count > 0; waited += 10) {
        sleep_ms(10);
        count = survivors_once(lab, NULL);
    }
    return count > 0 ? survivors_once(lab, report) : 0;
}

/* Writes the lines only in a ("-") or only in b ("+"); both sorted. */
static int diff_sorted(char *a, char *b, const char *what, FILE *report)
{
    int count = 0;
    char *sa, *sb;
    char *la = a ? strtok_r(a, "\n", &sa) : NULL, *lb = b ? strtok_r(b, "\n", &sb) : NULL;
    while (la != NULL || lb != NULL) {
        int c = la == NULL ? 1 : lb == NULL ? -1 : strcmp(la, lb);
        if (c != 0 && report != NULL)
            fprintf(report, "host changed: %s %s: %s\n", c < 0 ? "gone from" : "new in", what,
                    c < 0 ? la : lb);
        count += c != 0;
        if (c <= 0)
            la = strtok_r(NULL, "\n", &sa);
        if (c >= 0)
            lb = strtok_r(NULL, "\n", &sb);
    }
    return count;
}

int lab_host_differences(struct lab *lab, FILE *report)
{
    char *mounts = lab_host_mount_table(lab->host_mountinfo_fd);
    char *root = lab_dir_listing(lab->host_root_fd);
    int count = 0;

    if (mounts == NULL || root == NULL) {
        if (report != NULL)
            fprintf(report, "host not checked: reading its mount table and /: %s\n", strerror(errno));
        count = 1;
    } else {
        count += diff_sorted(lab->host_mounts_at_open, mounts, "the mount table", report);
        count += diff_sorted(lab->host_root_at_open, root, "/", report);
    }
    free(mounts);
    free(root);
    return count;
}
