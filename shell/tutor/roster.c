/* SPDX-License-Identifier: MIT */
/* roster.c: `pidns-tutor --roster`, the progress of a class in one table.
 *
 * Each learner's progress is ~/.local/state/pidns-tutor/progress (progress.c
 * writes it). Here those files belong to other people, so they are read with
 * care: each path component below the home is opened with O_NOFOLLOW (a
 * learner's symlink to /etc/shadow, or to another learner's file, is reported,
 * never read), only regular files are read (O_NONBLOCK: a FIFO cannot hang the
 * roster), at most ROSTER_MAX_BYTES, and whatever a file holds is printed with
 * its control characters replaced, so no file can drive the terminal (the
 * printing: roster_print.c).
 */
#include "tutor/roster.h"
#include "lesson/lesson.h"
#include "tutor/shell.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROSTER_STATE_REL ".local/state/pidns-tutor/progress"

static void set_state(struct roster_row *row, enum roster_state state, const char *fmt, ...)
{
    va_list ap;

    row->state = state;
    va_start(ap, fmt);
    vsnprintf(row->detail, sizeof row->detail, fmt, ap);
    va_end(ap);
}

/* Opens one component below dir: a directory (more follows) or the file. */
static int open_component(int dir, const char *name, int last, struct roster_row *row)
{
    struct stat st;

    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
        set_state(row, errno == ENOENT ? ROSTER_NONE : ROSTER_UNREADABLE, "%s: %s", name,
                  strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        set_state(row, ROSTER_SYMLINK, "%s is a symlink", name);
        return -1;
    }
    if (last ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)) {
        set_state(row, ROSTER_NOT_REGULAR, "%s is not a %s", name, last ? "file" : "directory");
        return -1;
    }
    int flags = last ? O_RDONLY | O_NONBLOCK : O_PATH | O_DIRECTORY;
    int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1) /* ELOOP: it became a symlink since fstatat */
        set_state(row, errno == ELOOP ? ROSTER_SYMLINK : ROSTER_UNREADABLE, "%s: %s", name,
                  strerror(errno));
    return fd;
}

/* Opens base/rel, refusing a symlink anywhere below base. */
static int open_below(const char *base, const char *rel, struct roster_row *row)
{
    char copy[sizeof row->path], *save = NULL;
    int dir = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (dir == -1) {
        set_state(row, errno == ENOENT ? ROSTER_NONE : ROSTER_UNREADABLE, "%s: %s", base,
                  strerror(errno));
        return -1;
    }
    snprintf(copy, sizeof copy, "%s", rel);
    char *name = strtok_r(copy, "/", &save);
    while (name != NULL) {
        char *next = strtok_r(NULL, "/", &save);
        int fd = open_component(dir, name, next == NULL, row);
        close(dir);
        if (fd == -1 || next == NULL)
            return fd;
        dir = fd;
        name = next;
    }
    close(dir);
    set_state(row, ROSTER_NONE, "no file named");
    return -1;
}

/* Reads at most ROSTER_MAX_BYTES + 1 bytes: one more says "too large". */
static char *read_bounded(int fd, size_t *len)
{
    char *text = malloc(ROSTER_MAX_BYTES + 2);
    ssize_t n = 0;

    *len = 0;
    while (text != NULL && *len <= ROSTER_MAX_BYTES &&
           (n = read(fd, text + *len, ROSTER_MAX_BYTES + 1 - *len)) > 0)
        *len += (size_t)n;
    if (text != NULL && n == -1) {
        free(text);
        return NULL;
    }
    if (text != NULL)
        text[*len] = '\0';
    return text;
}

/* The steps of lesson id holding an exercise, or -1 if the lesson is not
 * known (a format 1 entry of it then stays as it reads). */
static int lesson_exercises(const struct roster_lessons *lessons, const char *id,
                            unsigned long *mask)
{
    for (size_t i = 0; lessons != NULL && lessons->exercises != NULL && i < lessons->count; i++)
        if (strcmp(lessons->ids[i], id) == 0) {
            *mask = lessons->exercises[i];
            return 0;
        }
    return -1;
}

unsigned long roster_exercise_steps(const struct lesson *l)
{
    unsigned long mask = 0;
    for (size_t s = 0; s < l->step_count && s < (size_t)PROGRESS_STEPS_MAX; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++)
            if (l->steps[s].blocks[b].type == LESSON_EXERCISE)
                mask |= 1ul << s;
    return mask;
}

/* What the entries say: lessons done, exercises skipped, where now. */
static void summarize(struct progress *p, const struct roster_lessons *lessons,
                      struct roster_row *row)
{
    size_t at = 0;
    unsigned long mask;

    for (size_t i = 0; i < p->count; i++) {
        struct progress_entry *e = &p->entries[i];
        if (lesson_exercises(lessons, e->id, &mask) == 0)
            progress_settle(e, mask);
        row->done += progress_entry_done(e) != 0;
        for (int s = 0; s < PROGRESS_STEPS_MAX; s++) {
            if (!(e->skipped & (1ul << s)))
                continue;
            row->skipped++;
            int n = snprintf(row->skipped_at + at, sizeof row->skipped_at - at, "%s%s:%d",
                             at > 0 ? " " : "", e->id, s + 1);
            at = n > 0 && at + (size_t)n < sizeof row->skipped_at ? at + (size_t)n : at;
        }
    }
    snprintf(row->current, sizeof row->current, "%s", p->current);
    struct progress_entry *e = p->current[0] != '\0' ? progress_get(p, p->current) : NULL;
    row->step = e != NULL ? e->step : 0;
    row->current_finished = e == NULL || !e->finished ? 0 : progress_entry_done(e) ? 2 : 1;
    row->current_skipped = progress_skipped(e, NULL);
}

static void read_progress(int fd, const struct roster_lessons *lessons, struct roster_row *row)
{
    struct stat st;
    struct progress p;
    size_t len;

    if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
        set_state(row, ROSTER_NOT_REGULAR, "not a regular file");
        return;
    }
    row->last_active = st.st_mtime;
    char *text = st.st_size > ROSTER_MAX_BYTES ? NULL : read_bounded(fd, &len);
    if (st.st_size > ROSTER_MAX_BYTES || (text != NULL && len > ROSTER_MAX_BYTES)) {
        set_state(row, ROSTER_TOO_LARGE, "more than %d bytes: not read", ROSTER_MAX_BYTES);
        free(text);
        return;
    }
    if (text == NULL) {
        set_state(row, ROSTER_UNREADABLE, "%s", strerror(errno));
        return;
    }
    memset(&p, 0, sizeof p);
    int bad = memchr(text, '\0', len) != NULL ? -1 : progress_parse(&p, text);
    summarize(&p, lessons, row);
    if (bad == -1)
        set_state(row, ROSTER_DAMAGED, "binary data, not a progress file");
    else if (bad > 0)
        set_state(row, ROSTER_DAMAGED, "%d line%s that %s not progress", bad, bad == 1 ? "" : "s",
                  bad == 1 ? "is" : "are");
    progress_close(&p);
    free(text);
}

void roster_read(const char *base, const char *rel, const struct roster_lessons *lessons,
                 struct roster_row *row)
{
    snprintf(row->path, sizeof row->path, "%s%s%s", base,
             base[0] != '\0' && base[strlen(base) - 1] == '/' ? "" : "/", rel);
    row->state = ROSTER_OK;
    row->detail[0] = '\0';
    int fd = open_below(base, rel, row);
    if (fd == -1)
        return;
    read_progress(fd, lessons, row);
    close(fd);
}

static int add_row(struct roster_row **rows, size_t *count, const struct roster_row *row)
{
    struct roster_row *more = realloc(*rows, (*count + 1) * sizeof *more);

    if (more == NULL)
        return -1;
    *rows = more;
    (*rows)[(*count)++] = *row;
    return 0;
}

/* Homes under the usual roots are learners': listed before they start too. */
static int under_usual_root(const char *home)
{
    static const char *const roots[] = {"/home/", "/var/home/", "/export/home/", "/usr/home/"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (strncmp(home, roots[i], strlen(roots[i])) == 0 && home[strlen(roots[i])] != '\0')
            return 1;
    return 0;
}

/* Every account of the password database whose home is under the usual roots
 * ("not started" when it holds no progress), and every other account whose
 * home holds progress. An account this user may not read is left out (root
 * reads them all); homes shared by several accounts (/, /nonexistent) are
 * read once. */
static int collect_accounts(const struct roster_lessons *lessons, struct roster_row **rows,
                            size_t *count)
{
    char **seen = NULL;
    size_t seen_count = 0;
    int rc = 0;
    struct passwd *pw;

    setpwent();
    while (rc == 0 && (pw = getpwent()) != NULL) {
        struct roster_row row = {0};
        int dup = 0;
        if (pw->pw_dir == NULL || pw->pw_dir[0] != '/')
            continue;
        for (size_t i = 0; i < seen_count && !dup; i++)
            dup = strcmp(seen[i], pw->pw_dir) == 0;
        char **more = dup ? seen : realloc(seen, (seen_count + 1) * sizeof *more);
        if (more == NULL || (!dup && (more[seen_count] = strdup(pw->pw_dir)) == NULL)) {
            seen = more != NULL ? more : seen;
            rc = -1;
            break;
        }
        seen = more;
        if (dup)
            continue;
        seen_count++;
        roster_read(pw->pw_dir, ROSTER_STATE_REL, lessons, &row);
        if ((row.state == ROSTER_NONE && !under_usual_root(pw->pw_dir)) ||
            (row.state == ROSTER_UNREADABLE && geteuid() != 0))
            continue;
        snprintf(row.account, sizeof row.account, "%s", pw->pw_name);
        rc = add_row(rows, count, &row);
    }
    endpwent();
    for (size_t i = 0; i < seen_count; i++)
        free(seen[i]);
    free(seen);
    return rc;
}

/* A named PATH: a progress file, a state directory holding one, or a home.
 * The row is named by the PATH as given (the instructor chose it). */
static int collect_path(const char *path, const struct roster_lessons *lessons,
                        struct roster_row *row, FILE *err)
{
    struct stat st, progress_st;
    char dir[sizeof row->path];

    if (stat(path, &st) == -1) {
        fprintf(err, "pidns-tutor: --roster: %s: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(row->account, sizeof row->account, "%s", path);
    if (!S_ISDIR(st.st_mode)) { /* the progress file itself */
        const char *slash = strrchr(path, '/');
        if (slash == NULL) {
            roster_read(".", path, lessons, row);
        } else {
            snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
            roster_read(dir, slash + 1, lessons, row);
        }
        return 0;
    }
    snprintf(dir, sizeof dir, "%s/progress", path);
    roster_read(path, lstat(dir, &progress_st) == 0 ? "progress" : ROSTER_STATE_REL, lessons, row);
    return 0;
}

/* Whether a named directory holds homes (/home, a class's directory) rather
 * than being one: no progress of its own, nobody's home, and subdirectories. */
static int is_home_root(const char *path)
{
    char sub[PATH_MAX];
    struct stat st;
    struct passwd *pw;
    int home = 0;

    if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode))
        return 0;
    snprintf(sub, sizeof sub, "%s/progress", path);
    if (lstat(sub, &st) == 0)
        return 0;
    snprintf(sub, sizeof sub, "%s/.local", path);
    if (lstat(sub, &st) == 0)
        return 0;
    setpwent();
    while (!home && (pw = getpwent()) != NULL)
        home = pw->pw_dir != NULL && strcmp(pw->pw_dir, path) == 0;
    endpwent();
    DIR *d = home ? NULL : opendir(path);
    struct dirent *e;
    int found = 0;
    while (d != NULL && !found && (e = readdir(d)) != NULL)
        found = e->d_name[0] != '.' && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN);
    if (d != NULL)
        closedir(d);
    return found;
}

static int compare_rows(const void *a, const void *b)
{
    return strcmp(((const struct roster_row *)a)->account, ((const struct roster_row *)b)->account);
}

/* Every home in a directory of homes, by name: "not started" included. */
static int collect_home_root(const char *root, const struct roster_lessons *lessons,
                             struct roster_row **rows, size_t *count, FILE *err)
{
    struct dirent **names = NULL;
    char sub[PATH_MAX];
    int n = scandir(root, &names, NULL, alphasort), status = 0;

    for (int i = 0; i < n; i++) {
        struct roster_row row = {0};
        struct stat st;
        snprintf(sub, sizeof sub, "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/",
                 names[i]->d_name);
        if (names[i]->d_name[0] != '.' && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) &&
            status == 0 && collect_path(sub, lessons, &row, err) == 0 &&
            add_row(rows, count, &row) == -1) {
            fprintf(err, "pidns-tutor: --roster: out of memory\n");
            status = -1;
        }
        free(names[i]);
    }
    free(names);
    if (n == -1)
        fprintf(err, "pidns-tutor: --roster: %s: %s\n", root, strerror(errno));
    return n == -1 ? -1 : status;
}

int roster_run(FILE *out, FILE *err, char **paths, int path_count,
               const struct roster_lessons *lessons, int csv)
{
    struct roster_row *rows = NULL;
    size_t count = 0;
    int status = 0;

    if (path_count == 0 && collect_accounts(lessons, &rows, &count) == -1) {
        fprintf(err, "pidns-tutor: --roster: out of memory\n");
        status = 1;
    }
    for (int i = 0; i < path_count; i++) {
        struct roster_row row = {0};
        if (is_home_root(paths[i])) {
            if (collect_home_root(paths[i], lessons, &rows, &count, err) == -1)
                status = 1;
            continue;
        }
        if (collect_path(paths[i], lessons, &row, err) == -1)
            status = 1;
        else if (add_row(&rows, &count, &row) == -1) {
            fprintf(err, "pidns-tutor: --roster: out of memory\n");
            status = 1;
            break;
        }
    }
    if (path_count == 0)
        qsort(rows, count, sizeof *rows, compare_rows);
    roster_print(out, rows, count, lessons, csv);
    free(rows);
    return status;
}

int roster_main(char **paths, int path_count, const char *lessons_dir, int csv)
{
    char exe[PATH_MAX], err[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    struct shell_dirs dirs;
    struct lesson *lessons = NULL;
    size_t count = 0;

    exe[n > 0 ? n : 0] = '\0';
    shell_find_dirs(&dirs, exe, lessons_dir);
    if (lesson_load_dir(dirs.lessons, &lessons, &count, err, sizeof err) == -1)
        fprintf(stderr, "pidns-tutor: warning: %s: the roster shows no totals\n", err);
    const char **ids = calloc(count + 1, sizeof *ids);
    size_t *steps = calloc(count + 1, sizeof *steps);
    unsigned long *exercises = calloc(count + 1, sizeof *exercises);
    int have = ids != NULL && steps != NULL && exercises != NULL;
    struct roster_lessons known = {ids, steps, have ? count : 0, exercises};
    for (size_t i = 0; i < known.count; i++) {
        ids[i] = lessons[i].id;
        steps[i] = lessons[i].step_count;
        exercises[i] = roster_exercise_steps(&lessons[i]);
    }
    int status = roster_run(stdout, stderr, paths, path_count, &known, csv);
    free(ids);
    free(steps);
    free(exercises);
    lesson_free_all(lessons, count);
    return status;
}
