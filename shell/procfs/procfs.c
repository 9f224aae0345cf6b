/* SPDX-License-Identifier: MIT */
/* procfs.c: parsers of /proc text (status, namespace links, mountinfo) and
 * the readers that take a proc root, so the shell can look at any PID
 * namespace's view ("/proc", or the lab's procfs). The namespace tree lives in
 * procfs_tree.c; the text the shell prints of them is render's
 * (render/render_procfs.c).
 *
 * Parsers are pure: they never touch the file system and are unit-tested on
 * the fixture files in tests/fixtures/proc/.
 */
#include "procfs/procfs.h"
#include "util/io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A status file is a few KiB; anything bigger is not one. */
#define PROCFS_STATUS_MAX 65536
/* A mount table of many thousand mounts still fits. */
#define PROCFS_MOUNTINFO_MAX (64 << 20)

/* Reads a decimal number in [min, max] at *p, advancing *p past it. Leading
 * blanks are skipped (status uses tabs, some fixtures spaces). */
static int parse_number(const char **p, long long min, long long max, long long *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!isdigit((unsigned char)*s) && !(*s == '-' && isdigit((unsigned char)s[1])))
        return -1;
    errno = 0;
    char *end;
    long long value = strtoll(s, &end, 10);
    if (errno != 0 || value < min || value > max)
        return -1;
    *p = end;
    *out = value;
    return 0;
}

/* True when only blanks remain before the end of the line. */
static int at_line_end(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\n' || *p == '\0';
}

static int parse_pid_field(const char *value, pid_t min, pid_t *out)
{
    long long n;
    if (parse_number(&value, min, INT_MAX, &n) == -1 || !at_line_end(value))
        return -1;
    *out = (pid_t)n;
    return 0;
}

/* "NSpid:\t27660\t5\t1": one PID per namespace level, outermost first. */
static int parse_nspid_field(const char *value, struct procfs_status *out)
{
    int count = 0;
    while (!at_line_end(value)) {
        long long n;
        if (count == PROCFS_MAX_LEVELS || parse_number(&value, 1, INT_MAX, &n) == -1)
            return -1;
        if (*value != ' ' && *value != '\t' && *value != '\n' && *value != '\0')
            return -1;
        out->nspid[count++] = (pid_t)n;
    }
    if (count == 0)
        return -1;
    out->nspid_count = count;
    return 0;
}

/* The name is kept as the kernel escaped it (a newline in a name shows as
 * "\n"), cut at the end of the line and to the size of the field. */
static void copy_name(const char *value, char *name, size_t size)
{
    while (*value == ' ' || *value == '\t')
        value++;
    size_t len = strcspn(value, "\n");
    if (len >= size) { /* cut, but not inside a UTF-8 character */
        len = size - 1;
        while (len > 0 && ((unsigned char)value[len] & 0xc0) == 0x80)
            len--;
    }
    memcpy(name, value, len);
    name[len] = '\0';
}

/* Handles one "Key:\tvalue" line; bit 1 Name, 2 Pid, 4 PPid, 8 NSpid, 16 State
 * are set in *seen. Lines of other keys are ignored. */
static int parse_status_line(const char *line, struct procfs_status *out, int *seen)
{
    const char *colon = strchr(line, ':');
    const char *eol = strchr(line, '\n');
    if (colon == NULL || (eol != NULL && colon > eol))
        return 0; /* not a field: ignored, as the kernel may add anything */
    size_t keylen = (size_t)(colon - line);
    const char *value = colon + 1;
#define KEY(k) (keylen == sizeof(k) - 1 && memcmp(line, k, keylen) == 0)
    if (KEY("Name") && !(*seen & 1)) {
        copy_name(value, out->name, sizeof out->name);
        *seen |= 1;
    } else if (KEY("State") && !(*seen & 16)) {
        while (*value == ' ' || *value == '\t')
            value++;
        if (isalpha((unsigned char)*value)) /* R S D Z T t X I ...; else stays '?' */
            out->state = *value;
        *seen |= 16;
    } else if (KEY("Pid") && !(*seen & 2)) {
        if (parse_pid_field(value, 1, &out->pid) == -1)
            return -1;
        *seen |= 2;
    } else if (KEY("PPid") && !(*seen & 4)) {
        if (parse_pid_field(value, 0, &out->ppid) == -1)
            return -1;
        *seen |= 4;
    } else if (KEY("SigPnd") || KEY("ShdPnd")) {
        out->sig_pending |= strtoull(value, NULL, 16);
    } else if (KEY("SigBlk")) {
        out->sig_blocked = strtoull(value, NULL, 16);
    } else if (KEY("NSpid") && !(*seen & 8)) {
        if (parse_nspid_field(value, out) == -1)
            return -1;
        *seen |= 8;
    }
#undef KEY
    return 0;
}

int procfs_parse_status(const char *text, struct procfs_status *out)
{
    int seen = 0;
    memset(out, 0, sizeof *out);
    out->state = '?';
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (parse_status_line(line, out, &seen) == -1)
            return -1;
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    if ((seen & 7) != 7 || out->name[0] == '\0')
        return -1;
    if (!(seen & 8)) { /* kernel before 4.1: only the proc root's view */
        out->nspid_count = 1;
        out->nspid[0] = out->pid;
    }
    /* NSpid starts in the proc root's namespace, where the PID is Pid. */
    return out->nspid[0] == out->pid ? 0 : -1;
}

/* The kernel keeps only 15 bytes of a program's name (comm): a name of that
 * length may be cut, "pidns_init_slee". The program's own name is then the
 * last part of argv[0] in cmdline, when that begins with the cut name (a
 * program that renamed itself, or was started under another argv[0], keeps
 * its comm). Zombies and kernel threads have no cmdline: comm stays. */
static void full_name(int pid_dirfd, struct procfs_status *out)
{
    enum { COMM_MAX = 15 };
    if (strlen(out->name) != COMM_MAX)
        return;
    char *cmdline = io_read_file(pid_dirfd, "cmdline", 4096);
    if (cmdline == NULL)
        return;
    const char *base = strrchr(cmdline, '/');
    base = base != NULL ? base + 1 : cmdline;
    size_t len = strlen(base);
    if (len > COMM_MAX && len < sizeof out->name && strncmp(base, out->name, COMM_MAX) == 0 &&
        strcspn(base, "\n\t") == len)
        memcpy(out->name, base, len + 1);
    free(cmdline);
}

int procfs_read_status_at(int pid_dirfd, struct procfs_status *out)
{
    char *text = io_read_file(pid_dirfd, "status", PROCFS_STATUS_MAX);
    if (text == NULL)
        return -1;
    int rc = procfs_parse_status(text, out);
    free(text);
    if (rc == 0)
        full_name(pid_dirfd, out);
    if (rc == -1) {
        /* A process being released shows zeros in NSpid (its PIDs are
         * detached while the directory is still open): if the directory no
         * longer resolves, the process is gone rather than the file bad. */
        int fd = openat(pid_dirfd, "status", O_RDONLY | O_CLOEXEC);
        errno = fd == -1 && (errno == ENOENT || errno == ESRCH) ? ESRCH : EINVAL;
        if (fd != -1)
            close(fd);
    }
    return rc;
}

int procfs_read_status(const char *proc_root, pid_t pid, struct procfs_status *out)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%d", proc_root, (int)pid) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd == -1)
        return -1;
    int rc = procfs_read_status_at(dirfd, out);
    int saved = errno;
    close(dirfd);
    errno = saved;
    return rc;
}

int procfs_parse_ns_link(const char *link, char *type, size_t typelen, unsigned long long *inode)
{
    size_t len = 0;
    while (islower((unsigned char)link[len]) || link[len] == '_')
        len++;
    if (len == 0 || len >= typelen || link[len] != ':' || link[len + 1] != '[')
        return -1;
    const char *digits = link + len + 2;
    if (!isdigit((unsigned char)*digits))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(digits, &end, 10);
    if (errno != 0 || value == 0 || strcmp(end, "]") != 0)
        return -1;
    memcpy(type, link, len);
    type[len] = '\0';
    *inode = value;
    return 0;
}

int procfs_read_ns_link(const char *proc_root, pid_t pid, const char *name, char *buf, size_t len)
{
    char path[PATH_MAX];
    if (len == 0 ||
        snprintf(path, sizeof path, "%s/%d/ns/%s", proc_root, (int)pid, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    ssize_t n = readlink(path, buf, len);
    if (n == -1)
        return -1;
    if ((size_t)n == len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    buf[n] = '\0';
    return 0;
}

static int compare_pids(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* A directory name that is a PID: digits only, no leading zero, in range. */
static int pid_from_name(const char *name, pid_t *pid)
{
    const char *p = name;
    long long n;
    if (name[0] == '0' || parse_number(&p, 1, INT_MAX, &n) == -1 || *p != '\0')
        return -1;
    *pid = (pid_t)n;
    return 0;
}

int procfs_walk_pids(int at_fd, const char *proc_root, procfs_pid_visitor visit, void *arg)
{
    int fd = openat(at_fd, proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd != -1 ? fdopendir(fd) : NULL;
    if (dir == NULL) {
        int saved = errno;
        if (fd != -1)
            close(fd);
        errno = saved;
        return -1;
    }
    int rc = 0, saved = 0;
    while (rc == 0) {
        pid_t pid;
        errno = 0;
        struct dirent *entry = readdir(dir);
        if (entry == NULL) {
            saved = errno; /* 0 at the end of the directory */
            break;
        }
        if (pid_from_name(entry->d_name, &pid) == 0)
            rc = visit(dirfd(dir), pid, entry->d_name, arg);
    }
    closedir(dir);
    if (rc == 0 && saved != 0) {
        errno = saved;
        return -1;
    }
    return rc;
}

struct pid_list {
    pid_t *pids;
    size_t count, cap;
};

static int add_pid(int proc_fd, pid_t pid, const char *name, void *arg)
{
    struct pid_list *list = arg;
    (void)proc_fd;
    (void)name;
    if (list->count == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        pid_t *bigger = realloc(list->pids, cap * sizeof *bigger);
        if (bigger == NULL) {
            errno = ENOMEM;
            return -1;
        }
        list->pids = bigger;
        list->cap = cap;
    }
    list->pids[list->count++] = pid;
    return 0;
}

int procfs_list_pids(const char *proc_root, pid_t **pids, size_t *count)
{
    struct pid_list list = {NULL, 0, 0};
    if (procfs_walk_pids(AT_FDCWD, proc_root, add_pid, &list) != 0) {
        int saved = errno;
        free(list.pids);
        errno = saved;
        return -1;
    }
    if (list.pids == NULL && (list.pids = malloc(sizeof *list.pids)) == NULL)
        return -1;
    qsort(list.pids, list.count, sizeof *list.pids, compare_pids);
    *pids = list.pids;
    *count = list.count;
    return 0;
}

/* Undoes the kernel's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash) in place. Anything else after a backslash is kept as is. */
static void unescape_octal(char *s)
{
    char *out = s;
    for (char *in = s; *in != '\0'; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* Splits off the next space-separated field of *cursor, NUL-terminating it. */
static char *next_field(char **cursor)
{
    char *s = *cursor;
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return NULL;
    char *end = strchr(s, ' ');
    if (end != NULL) {
        *end = '\0';
        *cursor = end + 1;
    } else {
        *cursor = s + strlen(s);
    }
    return s;
}

static int parse_mount_id(const char *field, unsigned *out)
{
    const char *p = field;
    long long n;
    if (field == NULL || parse_number(&p, 0, UINT_MAX, &n) == -1 || *p != '\0')
        return -1;
    *out = (unsigned)n;
    return 0;
}

/* Fields: ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
int procfs_parse_mountinfo_line(char *line, struct procfs_mount *out)
{
    line[strcspn(line, "\n")] = '\0';
    char *cursor = line;
    char *id = next_field(&cursor), *parent = next_field(&cursor);
    if (parse_mount_id(id, &out->mount_id) == -1 || parse_mount_id(parent, &out->parent_id) == -1)
        return -1;
    char *devno = next_field(&cursor), *root = next_field(&cursor);
    char *point = next_field(&cursor), *options = next_field(&cursor);
    if (devno == NULL || strchr(devno, ':') == NULL || root == NULL || point == NULL ||
        options == NULL)
        return -1;
    char *field;
    while ((field = next_field(&cursor)) != NULL && strcmp(field, "-") != 0)
        ; /* optional fields such as shared:1 master:2 */
    if (field == NULL)
        return -1;
    char *fstype = next_field(&cursor), *source = next_field(&cursor);
    if (fstype == NULL || source == NULL || point[0] != '/')
        return -1;
    unescape_octal(point);
    unescape_octal(fstype);
    unescape_octal(source);
    out->mount_point = point;
    out->fstype = fstype;
    out->source = source;
    return 0;
}

int procfs_parse_mounts(char *text, struct procfs_mount_table *table)
{
    size_t cap = 0;
    memset(table, 0, sizeof *table);
    table->text = text;
    if (text == NULL)
        return -1;
    for (char *line = table->text, *next; *line != '\0'; line = next) {
        next = line + strcspn(line, "\n");
        if (*next == '\n')
            *next++ = '\0';
        if (table->count == cap) {
            cap = cap ? 2 * cap : 32;
            struct procfs_mount *bigger = realloc(table->mounts, cap * sizeof *bigger);
            if (bigger == NULL) {
                procfs_mounts_free(table);
                errno = ENOMEM;
                return -1;
            }
            table->mounts = bigger;
        }
        if (procfs_parse_mountinfo_line(line, &table->mounts[table->count]) == 0)
            table->count++;
    }
    return 0;
}

int procfs_read_mounts(const char *proc_root, pid_t pid, struct procfs_mount_table *table)
{
    char path[PATH_MAX];
    if (pid > 0)
        snprintf(path, sizeof path, "%s/%d/mountinfo", proc_root, (int)pid);
    else
        snprintf(path, sizeof path, "%s/self/mountinfo", proc_root);
    return procfs_parse_mounts(io_read_file(AT_FDCWD, path, PROCFS_MOUNTINFO_MAX), table);
}

void procfs_mounts_free(struct procfs_mount_table *table)
{
    free(table->mounts);
    free(table->text);
    memset(table, 0, sizeof *table);
}

static int compare_ns_entries(const void *a, const void *b)
{
    return strcmp(((const struct procfs_ns_entry *)a)->name,
                  ((const struct procfs_ns_entry *)b)->name);
}

int procfs_read_ns_links(const char *proc_root, pid_t pid, struct procfs_ns_entry *entries,
                         size_t max, size_t *count)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%d/ns", proc_root, (int)pid) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    DIR *dir = opendir(path);
    if (dir == NULL)
        return -1;
    size_t n = 0;
    struct dirent *d;
    while (n < max && (d = readdir(dir)) != NULL) {
        struct procfs_ns_entry *e = &entries[n];
        if (d->d_name[0] == '.' || strlen(d->d_name) >= sizeof e->name)
            continue;
        strcpy(e->name, d->d_name);
        ssize_t len = readlinkat(dirfd(dir), d->d_name, e->link, sizeof e->link - 1);
        e->error = len == -1 ? errno : 0;
        e->link[len == -1 ? 0 : len] = '\0';
        n++;
    }
    closedir(dir);
    qsort(entries, n, sizeof *entries, compare_ns_entries);
    *count = n;
    return 0;
}
