/* SPDX-License-Identifier: MIT */
/* tutor_code.c: coding exercises: the learner's copy, the editor, the
 * build, the program put into the lab, and --auto's verification. See
 * tutor_code.h.
 *
 * The editor and the compiler are children of the shell, so they run in the
 * shell's mount namespace, where the learner's home is their real one and
 * writable (the lab sees the host read-only); only the program built runs in
 * the lab, copied there through the keeper's root (lab_path()).
 */
#include "tutor/tutor_code.h"
#include "tutor/tutor.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The examples' flags (the Makefile's rule for examples/%). */
static const char *const compile_flags[] = {"-std=gnu11", "-Wall", "-Wextra",
                                            "-Werror",    "-O2",   "-g"};
#define COMPILE_FLAG_COUNT (sizeof compile_flags / sizeof compile_flags[0])
/* An exercise's file is a page of C. */
#define CODE_FILE_MAX (256 * 1024)
/* A program built from it, a few dozen KiB. */
#define PROGRAM_MAX (64 * 1024 * 1024)
/* How often `watch` looks at the file. */
#define WATCH_POLL_MS 200
/* How long --auto gives the solution to bring about what its check sees. */
#define VERIFY_WAIT_MS 5000

int tutor_code_file(const struct lesson_block *ex, char *buf, size_t len)
{
    char home[PATH_MAX], dir[NAME_MAX + 1], name[NAME_MAX + 1];

    if (ex->program == NULL || progress_home(home, sizeof home) == -1)
        return -1;
    tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
    return snprintf(buf, len, "%s/%s/%s/%s.c", home, TUTOR_CODE_HOME_DIR, dir, name) < (int)len
               ? 0
               : -1;
}

/* Copies src to dest (created with mode, replaced if there). */
static int copy_file(const char *src, const char *dest, mode_t mode)
{
    size_t len;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in == -1)
        return -1;
    char *data = io_read_fd_len(in, PROGRAM_MAX, &len);
    close(in);
    if (data == NULL)
        return -1;
    int out = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    int rc = out == -1 || io_write_all(out, data, len) == -1 ? -1 : 0;
    if (out != -1 && (fchmod(out, mode) == -1 || close(out) == -1))
        rc = -1;
    free(data);
    return rc;
}

/* mkdir -p of the directories above path (those made get mode), given to the
 * learner under sudo. */
static int make_parents(struct shell *sh, const char *path, mode_t mode)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *s = strchr(dir + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(dir, mode) == 0 && chmod(dir, mode) == 0) /* chmod: past the umask */
            progress_own(&sh->progress, dir);
        else if (errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

int tutor_code_prepare(struct shell *sh, const struct lesson_block *ex)
{
    char file[PATH_MAX];

    if (tutor_code_file(ex, file, sizeof file) == -1) {
        shell_error(sh, "no home directory known for your exercise files: set HOME");
        return -1;
    }
    if (access(file, F_OK) == 0)
        return 0;
    /* The learner's answers, theirs alone: classmates on the machine cannot
     * read them (a directory 0700, files 0600). */
    if (make_parents(sh, file, 0700) == -1 || copy_file(ex->program_path, file, 0600) == -1) {
        shell_error(sh, "cannot create %s: %s", file, strerror(errno));
        return -1;
    }
    progress_own(&sh->progress, file);
    render_textf(&sh->render, RENDER_NOTE, "(copied the exercise to %s: it is yours to edit)",
                 file);
    return 0;
}

/* Runs argv (a child of the shell, outside the lab) with its output on the
 * shell's stderr, or on out_fd when not -1; returns its exit status, 128+N
 * for a signal, -1 when it could not start. */
static int run_program(struct shell *sh, char *const argv[], int out_fd)
{
    fflush(sh->render.out);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == -1)
        return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        if (out_fd != -1 && (dup2(out_fd, 1) == -1 || dup2(out_fd, 2) == -1))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", sh->program, argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) == -1)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Is name an executable on PATH? */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0';) {
        size_t n = strcspn(p, ":");
        if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

int tutor_code_edit(struct shell *sh, const struct lesson_block *ex)
{
    static const char *const fallbacks[] = {"editor", "nano", "vi"};
    char file[PATH_MAX];
    const char *editor = getenv("VISUAL");

    if (tutor_code_prepare(sh, ex) == -1 || tutor_code_file(ex, file, sizeof file) == -1)
        return SHELL_ERROR;
    if (editor == NULL || editor[0] == '\0')
        editor = getenv("EDITOR");
    for (size_t i = 0; (editor == NULL || editor[0] == '\0') && i < 3; i++)
        if (on_path(fallbacks[i]))
            editor = fallbacks[i];
    if (editor == NULL || editor[0] == '\0') {
        shell_error(sh, "no editor found: set EDITOR (export EDITOR=nano), or edit %s yourself",
                    file);
        return SHELL_ERROR;
    }
    /* As git does: the variable may hold options ("emacs -nw"). */
    char *script = NULL;
    if (asprintf(&script, "%s \"$1\"", editor) == -1)
        return SHELL_ERROR;
    char *argv[] = {"/bin/sh", "-c", script, "sh", file, NULL};
    int status = run_program(sh, argv, -1);
    free(script);
    progress_own(&sh->progress, file);
    if (status != 0) {
        shell_error(sh, "the editor (%s) failed: exit status %d", editor, status);
        return SHELL_ERROR;
    }
    render_text(&sh->render, RENDER_NOTE, "(`build` compiles it; `check` builds it and checks it)");
    return SHELL_OK;
}

/* Compiles src into program; 0 built, 1 refused (the compiler said why),
 * -1 could not run. */
static int compile(struct shell *sh, const char *src, const char *program, int out_fd)
{
    const char *cc = getenv("CC");
    char *argv[COMPILE_FLAG_COUNT + 6];
    size_t n = 0;

    argv[n++] = (char *)(cc != NULL && cc[0] != '\0' && strchr(cc, ' ') == NULL ? cc : "cc");
    for (size_t i = 0; i < COMPILE_FLAG_COUNT; i++)
        argv[n++] = (char *)compile_flags[i];
    argv[n++] = "-o";
    argv[n++] = (char *)program;
    argv[n++] = (char *)src;
    argv[n] = NULL;
    int status = run_program(sh, argv, out_fd);
    return status == 0 ? 0 : status == 127 || status < 0 ? -1 : 1;
}

/* Copies the program built into the lab's directory of the exercise. */
static int put_in_lab(struct shell *sh, const struct lesson_block *ex, const char *program)
{
    char dir[NAME_MAX + 1], name[NAME_MAX + 1], inside[PATH_MAX], dest[PATH_MAX];

    if (sh->lab == NULL) {
        shell_error(sh, "the lab is not open: the program cannot run");
        return -1;
    }
    tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
    snprintf(inside, sizeof inside, "%s/%s/%s", TUTOR_CODE_LAB_DIR, dir, name);
    snprintf(dest, sizeof dest, "%s", lab_path(sh->lab, inside));
    /* Replaced, not rewritten: a run of the old one may still hold it. */
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.new", dest);
    if (make_parents(sh, dest, 0755) == -1 || copy_file(program, tmp, 0755) == -1 ||
        rename(tmp, dest) == -1) {
        shell_error(sh, "cannot put the program into the lab at %s: %s", inside, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int tutor_code_build(struct shell *sh, const struct lesson_block *ex)
{
    char file[PATH_MAX], program[PATH_MAX];

    if (tutor_code_prepare(sh, ex) == -1 || tutor_code_file(ex, file, sizeof file) == -1)
        return -1;
    snprintf(program, sizeof program, "%.*s", (int)strlen(file) - 2, file);
    render_command(&sh->render, "#", "cc -std=gnu11 -Wall -Wextra -Werror -O2 -g ...");
    int rc = compile(sh, file, program, -1);
    if (rc == -1) {
        shell_error(sh, "cannot run the compiler (cc): install gcc, or set CC");
        return -1;
    }
    if (rc == 1) {
        render_textf(&sh->render, RENDER_BAD,
                     "The compiler refused %s: see its messages above (file:line: what).", file);
        return 1;
    }
    progress_own(&sh->progress, program);
    if (put_in_lab(sh, ex, program) == -1)
        return -1;
    render_textf(&sh->render, RENDER_GOOD, "Built %s.", program);
    return 0;
}

int tutor_code_reset(struct shell *sh, const struct lesson_block *ex)
{
    char file[PATH_MAX], backup[PATH_MAX + 4];

    if (tutor_code_file(ex, file, sizeof file) == -1) {
        shell_error(sh, "no home directory known for your exercise files: set HOME");
        return SHELL_ERROR;
    }
    snprintf(backup, sizeof backup, "%s.bak", file);
    if (access(file, F_OK) == 0 && rename(file, backup) == -1) {
        shell_error(sh, "cannot keep your version as %s: %s", backup, strerror(errno));
        return SHELL_ERROR;
    }
    if (tutor_code_prepare(sh, ex) == -1)
        return SHELL_ERROR;
    if (access(backup, F_OK) == 0)
        render_textf(&sh->render, RENDER_NOTE, "(your version is kept as %s)", backup);
    return SHELL_OK;
}

static void show_file(struct shell *sh, const char *title, const char *path)
{
    char *text = io_read_file(AT_FDCWD, path, CODE_FILE_MAX);
    render_textf(&sh->render, RENDER_NOTE, "%s (%s):", title, path);
    if (text != NULL)
        render_code(&sh->render, text, 1);
    else
        render_textf(&sh->render, RENDER_BAD, "(cannot read it: %s)", strerror(errno));
    free(text);
}

void tutor_code_show_solution(struct shell *sh, const struct lesson_block *ex)
{
    char file[PATH_MAX], solution[PATH_MAX];
    const char *slash = strrchr(ex->program_path, '/');

    snprintf(solution, sizeof solution, "%.*s/solution.c", (int)(slash - ex->program_path),
             ex->program_path);
    if (!sh->auto_mode && tutor_code_file(ex, file, sizeof file) == 0 && access(file, R_OK) == 0)
        show_file(sh, "Your version", file);
    show_file(sh, "The reference solution", solution);
}

/* A file's time and size, to see it saved. */
static int file_stamp(const char *path, struct timespec *when, off_t *size)
{
    struct stat st;
    if (stat(path, &st) == -1)
        return -1;
    *when = st.st_mtim;
    *size = st.st_size;
    return 0;
}

/* A line typed while watching, into line (at most len - 1 bytes of it);
 * 1 when one came, 0 when none has (within WATCH_POLL_MS), -1 at the end
 * of the input. What stdio already holds counts (a script's lines). */
static int typed_line(char *line, size_t len)
{
    struct pollfd in = {STDIN_FILENO, POLLIN, 0};
#ifdef __GLIBC__
    int buffered = stdin->_IO_read_ptr < stdin->_IO_read_end;
#else
    int buffered = 0;
#endif
    if (!buffered && poll(&in, 1, WATCH_POLL_MS) <= 0)
        return 0;
    size_t n = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n')
        if (n + 1 < len)
            line[n++] = (char)c;
    line[n] = '\0';
    return c == EOF && n == 0 ? -1 : 1;
}

/* A new build of the learner's file, checked and the verdict shown.
 * Returns 1 when the check passed. */
static int watch_build(struct shell *sh, const struct lesson_block *ex)
{
    struct tutor_verdict v;
    int passed = TUTOR_FAILED;

    if (tutor_code_build(sh, ex) == 0) {
        passed = tutor_check_verdict(sh, ex, 0, &v);
        if (passed == TUTOR_NO_CHECK)
            render_text(&sh->render, RENDER_BAD, "The check could not run in the lab.");
        else if (passed != TUTOR_PASSED) {
            tutor_verdict_show(sh, ex, &v, 0);
            render_text(&sh->render, RENDER_NOTE,
                        "(still watching: `hint` here looks at it; Ctrl-C stops watching)");
        }
        tutor_verdict_free(&v);
    }
    fflush(sh->render.out);
    return passed == TUTOR_PASSED;
}

int tutor_code_watch(struct shell *sh, const struct lesson_block *ex, struct tutor_watch *w,
                     char *line, size_t len)
{
    char file[PATH_MAX];
    struct timespec now;
    off_t size;

    if (tutor_code_prepare(sh, ex) == -1 || tutor_code_file(ex, file, sizeof file) == -1)
        return -1;
    /* Once: a Ctrl-C while a typed `hint` ran must still stop watching. */
    if (!w->started) {
        render_textf(&sh->render, RENDER_NOTE,
                     "(watching %s: each time you save it, it is built and checked; `hint` "
                     "works here; Ctrl-C stops)",
                     file);
        shell_interrupted = 0;
    }
    w->started = 1;
    fflush(sh->render.out);
    while (!shell_interrupted) {
        if (file_stamp(file, &now, &size) == 0 &&
            (now.tv_sec != w->seen.tv_sec || now.tv_nsec != w->seen.tv_nsec ||
             size != w->seen_size || !w->checked)) {
            w->seen = now;
            w->seen_size = size;
            w->checked = 1;
            if (watch_build(sh, ex))
                return 1;
        }
        int typed = typed_line(line, len);
        if (typed == 1)
            return 2;
        if (typed == -1)
            break;
    }
    render_text(&sh->render, RENDER_NOTE, "(stopped watching)");
    return 0;
}

/* --auto: builds one source of the exercise's folder into a scratch
 * directory, puts it into the lab and checks it (waiting a little when it
 * should pass). Returns the check's result (1 passed, 0 not), -1 when the
 * source did not build. */
static int verify_one(struct shell *sh, const struct lesson_block *ex, const char *src,
                      int should_pass)
{
    char scratch[] = "/tmp/pidns-tutor-build.XXXXXX", program[PATH_MAX];
    const char *tmpdir = getenv("TMPDIR");
    char dirbuf[PATH_MAX];
    char *dir;

    if (tmpdir != NULL && tmpdir[0] == '/' &&
        snprintf(dirbuf, sizeof dirbuf, "%s/pidns-tutor-build.XXXXXX", tmpdir) < (int)sizeof dirbuf)
        dir = mkdtemp(dirbuf);
    else
        dir = mkdtemp(scratch);
    if (dir == NULL) {
        shell_error(sh, "cannot make a scratch directory to build in: %s", strerror(errno));
        return -1;
    }
    snprintf(program, sizeof program, "%s/program", dir);
    int rc = compile(sh, src, program, -1) == 0 && put_in_lab(sh, ex, program) == 0 ? 0 : -1;
    unlink(program);
    rmdir(dir);
    if (rc == -1)
        return -1;
    /* The bound counts the time each check takes, not only the pauses: a
     * check that waits itself (await) under load took minutes to give up. */
    long until = tutor_clock_ms() + VERIFY_WAIT_MS;
    int passed = tutor_check(sh, ex);
    while (should_pass && passed == 0 && tutor_clock_ms() < until && !shell_interrupted) {
        nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        passed = tutor_check(sh, ex);
    }
    return passed;
}

int tutor_code_verify(struct shell *sh, const struct lesson_block *ex)
{
    const char *slash = strrchr(ex->program_path, '/');
    int dlen = (int)(slash - ex->program_path), failed = 0;
    char path[PATH_MAX];

    int rc = verify_one(sh, ex, ex->program_path, 0);
    render_textf(&sh->render, rc == 0 ? RENDER_NOTE : RENDER_BAD, "%s: %s", ex->program,
                 rc == 0    ? "builds, and the check refuses it as given, as it should"
                 : rc == -1 ? "FAILED: the file as given does not build"
                            : "FAILED: the check passes on the file as given");
    failed |= rc != 0;
    for (size_t i = 0; i < ex->wrong_program_count && !shell_interrupted; i++) {
        snprintf(path, sizeof path, "%.*s/%s", dlen, ex->program_path, ex->wrong_programs[i]);
        rc = verify_one(sh, ex, path, 0);
        render_textf(&sh->render, rc == 0 ? RENDER_NOTE : RENDER_BAD, "%s: %s",
                     ex->wrong_programs[i],
                     rc == 0    ? "the check refuses this wrong program, as it should"
                     : rc == -1 ? "FAILED: this wrong program does not build"
                                : "FAILED: the check passes this wrong program");
        failed |= rc != 0;
    }
    snprintf(path, sizeof path, "%.*s/solution.c", dlen, ex->program_path);
    render_text(&sh->render, RENDER_NOTE, "(building and checking the reference solution)");
    rc = verify_one(sh, ex, path, 1);
    render_text(&sh->render, rc == 1 ? RENDER_GOOD : RENDER_BAD,
                rc == 1    ? "check: passed"
                : rc == -1 ? "check: FAILED: solution.c does not build"
                           : "check: FAILED");
    if (rc == 0) { /* why: the program's output, how it ended, each condition */
        struct tutor_verdict v;
        if (tutor_check_verdict(sh, ex, 1, &v) != TUTOR_NO_CHECK)
            tutor_verdict_show(sh, ex, &v, 1);
        tutor_verdict_free(&v);
    }
    return failed || rc != 1;
}
