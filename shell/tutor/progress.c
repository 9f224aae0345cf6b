/* SPDX-License-Identifier: MIT */
/* progress.c: the learner's progress file. See progress.h.
 *
 * The format is line-based text a person can read and edit:
 *     # pidns-tutor progress, format 2
 *     current 02-proc
 *     lesson 01-new-namespace step 0 finished 1 checked 8 skipped 0
 *     lesson 02-proc step 3 finished 0 checked 0 skipped 4
 * step: the step reached, from 0; finished: the last step was left;
 * checked and skipped: bit N for the exercise of step N, passed or left
 * with `next` before it passed. Format 1 lines ("... step 4 done 1 checked
 * 8", before skips were recorded) are still read: progress_settle().
 */
#include "tutor/progress.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A progress file is a line per lesson: a megabyte is not one. */
#define PROGRESS_FILE_MAX (1 << 20)

/* Under sudo (root, with SUDO_UID set) the files belong to the invoking
 * user, and live in their home rather than root's. */
static int sudo_owner(uid_t *uid, gid_t *gid)
{
    const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
    char *end;

    if (geteuid() != 0 || u == NULL || g == NULL)
        return 0;
    errno = 0;
    unsigned long uv = strtoul(u, &end, 10);
    if (errno != 0 || *end != '\0' || end == u || uv == 0)
        return 0;
    unsigned long gv = strtoul(g, &end, 10);
    if (errno != 0 || *end != '\0' || end == g)
        return 0;
    *uid = (uid_t)uv;
    *gid = (gid_t)gv;
    return 1;
}

int progress_home(char *buf, size_t len)
{
    const char *home = getenv("HOME");
    uid_t uid;
    gid_t gid;

    if (sudo_owner(&uid, &gid)) {
        struct passwd *pw = getpwuid(uid);
        if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/')
            home = pw->pw_dir;
    }
    if (home == NULL || home[0] != '/') {
        struct passwd *pw = getpwuid(getuid());
        home = pw != NULL ? pw->pw_dir : NULL;
    }
    if (home == NULL || home[0] != '/')
        return -1;
    return snprintf(buf, len, "%s", home) < (int)len ? 0 : -1;
}

int progress_state_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    char home[PATH_MAX];

    if (xdg != NULL && xdg[0] == '/')
        return snprintf(buf, len, "%s/pidns-tutor", xdg) < (int)len ? 0 : -1;
    if (progress_home(home, sizeof home) == -1)
        return -1;
    return snprintf(buf, len, "%s/.local/state/pidns-tutor", home) < (int)len ? 0 : -1;
}

void progress_own(const struct progress *p, const char *path)
{
    if (p->change_owner && chown(path, p->owner_uid, p->owner_gid) == -1) {
        /* Not fatal: the file stays usable, only its owner is wrong. */
    }
}

/* mkdir -p, giving each directory it creates to the invoking user. */
static int make_dirs(const struct progress *p, const char *dir)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = path + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char saved = *s;
        *s = '\0';
        if (mkdir(path, 0700) == 0)
            progress_own(p, path);
        else if (errno != EEXIST)
            return -1;
        *s = saved;
        if (saved == '\0')
            break;
    }
    return access(dir, W_OK | X_OK);
}

void progress_open(struct progress *p, const char *dir, FILE *warn)
{
    memset(p, 0, sizeof *p);
    p->change_owner = sudo_owner(&p->owner_uid, &p->owner_gid);
    if (dir != NULL)
        snprintf(p->dir, sizeof p->dir, "%s", dir);
    else if (progress_state_dir(p->dir, sizeof p->dir) == -1) {
        if (warn != NULL)
            fprintf(warn, "pidns-tutor: warning: no home directory known (set HOME): "
                          "progress and history are kept for this session only\n");
        return;
    }
    int too_long = snprintf(p->path, sizeof p->path, "%s/progress", p->dir) >= (int)sizeof p->path;
    if (too_long)
        errno = ENAMETOOLONG;
    if (too_long || make_dirs(p, p->dir) == -1) {
        if (warn != NULL)
            fprintf(warn,
                    "pidns-tutor: warning: cannot write %s: %s: progress and history "
                    "are kept for this session only\n",
                    p->dir, strerror(errno));
        p->dir[0] = '\0';
        return;
    }
    p->writable = 1;
    char *text = io_read_file(AT_FDCWD, p->path, PROGRESS_FILE_MAX);
    if (text != NULL) {
        int skipped = progress_parse(p, text);
        if (skipped > 0 && warn != NULL)
            fprintf(warn, "pidns-tutor: warning: %s: %d malformed line(s) ignored\n", p->path,
                    skipped);
        free(text);
    }
}

struct progress_entry *progress_get(const struct progress *p, const char *id)
{
    for (size_t i = 0; i < p->count; i++)
        if (strcmp(p->entries[i].id, id) == 0)
            return &p->entries[i];
    return NULL;
}

struct progress_entry *progress_entry(struct progress *p, const char *id)
{
    struct progress_entry *e = progress_get(p, id);
    if (e != NULL)
        return e;
    struct progress_entry *more = realloc(p->entries, (p->count + 1) * sizeof *more);
    if (more == NULL)
        return NULL;
    p->entries = more;
    e = &p->entries[p->count++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    return e;
}

int progress_entry_done(const struct progress_entry *e)
{
    return e != NULL && e->finished && e->skipped == 0;
}

int progress_skipped(const struct progress_entry *e, int *first)
{
    int count = 0;
    if (first != NULL)
        *first = -1;
    for (int i = 0; e != NULL && i < PROGRESS_STEPS_MAX; i++) {
        if (!(e->skipped & (1ul << i)))
            continue;
        if (count++ == 0 && first != NULL)
            *first = i;
    }
    return count;
}

void progress_mark_passed(struct progress_entry *e, int step)
{
    if (e == NULL || step < 0 || step >= PROGRESS_STEPS_MAX)
        return;
    e->checked |= 1ul << step;
    e->skipped &= ~(1ul << step);
}

void progress_mark_skipped(struct progress_entry *e, int step)
{
    if (e == NULL || step < 0 || step >= PROGRESS_STEPS_MAX || (e->checked & (1ul << step)))
        return;
    e->skipped |= 1ul << step;
}

void progress_settle(struct progress_entry *e, unsigned long exercise_steps)
{
    if (e == NULL || !e->legacy)
        return;
    unsigned long before = e->step >= PROGRESS_STEPS_MAX ? ~0ul : (1ul << e->step) - 1;
    e->skipped = exercise_steps & ~e->checked & (e->finished ? ~0ul : before);
    e->legacy = 0;
}

void progress_reset(struct progress *p)
{
    free(p->entries);
    p->entries = NULL;
    p->count = 0;
    p->current[0] = '\0';
}

/* A lesson id is a file name without .adoc: no blanks, no slashes. */
static int valid_id(const char *id)
{
    if (id[0] == '\0' || strlen(id) >= PROGRESS_ID_MAX)
        return 0;
    return strpbrk(id, " \t/") == NULL;
}

/* "lesson ID step N finished F checked C skipped S" (format 2), or format
 * 1's "lesson ID step N done F checked C" (legacy: skips unknown). */
static int parse_lesson(const char *line, char *id, int *step, int *finished,
                        unsigned long *checked, unsigned long *skipped, int *legacy)
{
    int n = 0;
    *legacy = 0;
    if (sscanf(line, "lesson %128s step %d finished %d checked %lu skipped %lu %n", id, step,
               finished, checked, skipped, &n) == 5 &&
        line[n] == '\0')
        return 0;
    n = 0;
    *skipped = 0;
    *legacy = 1;
    if (sscanf(line, "lesson %128s step %d done %d checked %lu %n", id, step, finished, checked,
               &n) == 4 &&
        line[n] == '\0')
        return 0;
    return -1;
}

static int parse_line(struct progress *p, char *line)
{
    char id[PROGRESS_ID_MAX + 1];
    int step, done, legacy, n = 0;
    unsigned long checked = 0, skipped = 0;

    if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
        return 0;
    if (sscanf(line, "current %128s %n", id, &n) == 1 && line[n] == '\0' && valid_id(id)) {
        snprintf(p->current, sizeof p->current, "%s", id);
        return 0;
    }
    if (parse_lesson(line, id, &step, &done, &checked, &skipped, &legacy) == -1 || !valid_id(id) ||
        step < 0 || step > 10000 || (done != 0 && done != 1))
        return -1;
    struct progress_entry *e = progress_entry(p, id);
    if (e == NULL)
        return -1;
    e->step = step;
    e->finished = done;
    e->checked = checked;
    e->skipped = skipped & ~checked; /* a passed exercise is not skipped */
    e->legacy = legacy;
    return 0;
}

int progress_parse(struct progress *p, const char *text)
{
    int skipped = 0;
    char *copy = strdup(text), *save = NULL;

    if (copy == NULL)
        return 0;
    for (char *line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        if (parse_line(p, line) == -1)
            skipped++;
    free(copy);
    return skipped;
}

static int write_progress(int fd, const struct progress *p)
{
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        return -1;
    }
    fprintf(f, "# pidns-tutor progress, format 2\n"
               "# step: the step reached (from 0); finished: the last step was left; checked,\n"
               "# skipped: bit N for step N's exercise, passed or left before it passed\n");
    if (p->current[0] != '\0')
        fprintf(f, "current %s\n", p->current);
    for (size_t i = 0; i < p->count; i++) {
        const struct progress_entry *e = &p->entries[i];
        if (e->legacy) /* never settled (a lesson no longer there): skips unknown */
            fprintf(f, "lesson %s step %d done %d checked %lu\n", e->id, e->step, e->finished,
                    e->checked);
        else
            fprintf(f, "lesson %s step %d finished %d checked %lu skipped %lu\n", e->id, e->step,
                    e->finished, e->checked, e->skipped);
    }
    int failed = fflush(f) != 0 || fsync(fd) != 0;
    return (fclose(f) != 0 || failed) ? -1 : 0;
}

int progress_save(struct progress *p, FILE *warn)
{
    char tmp[PATH_MAX];

    if (!p->writable)
        return -1;
    int fd = -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p->path, (long)getpid()) >= (int)sizeof tmp)
        errno = ENAMETOOLONG;
    else
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd == -1 || write_progress(fd, p) == -1 || rename(tmp, p->path) == -1) {
        int saved = errno;
        if (fd != -1)
            unlink(tmp);
        if (warn != NULL)
            fprintf(warn,
                    "pidns-tutor: warning: cannot save progress to %s: %s: it is kept "
                    "for this session only\n",
                    p->path, strerror(saved));
        p->writable = 0;
        return -1;
    }
    progress_own(p, p->path);
    return 0;
}

void progress_close(struct progress *p)
{
    free(p->entries);
    p->entries = NULL;
    p->count = 0;
}
