/* SPDX-License-Identifier: MIT */
/* session.c: start-up, the prompt loop and the end of a session of the
 * guided shell. See session.h.
 */
#include "session/session.h"
#include "cmd/commands.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "tutor/roster.h"
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "tutor/tutor_private.h"
#include "session/lineedit.h"
#include "render/tee.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The lessons, read by lab_open() while the keeper builds the lab
 * (lab_config.meanwhile): after the keeper's fork, so the memory it copies
 * stays small; what went wrong is said once the lab is open. */
struct lesson_loading {
    struct shell *sh;
    int whole;      /* every lesson whole, or the headers only */
    int stat_errno; /* the lessons' directory is missing (its errno), or 0 */
    int rc;
    char err[1024];
};

static void load_lessons_meanwhile(void *arg)
{
    struct lesson_loading *l = arg;
    struct stat st;

    if (stat(l->sh->dirs.lessons, &st) == -1) {
        l->stat_errno = errno;
        return;
    }
    l->rc = (l->whole ? lesson_load_dir : lesson_load_headers)(
        l->sh->dirs.lessons, &l->sh->lessons, &l->sh->lesson_count, l->err, sizeof l->err);
}

/* exe_known: whether /proc/self/exe told where we are; without it the
 * lessons' path is a guess, and a warning about it would only mislead (the
 * lab then says what is really missing). */
static int report_lessons(struct shell *sh, const struct lesson_loading *l, int exe_known)
{
    if (l->stat_errno != 0) {
        if (exe_known)
            shell_warn(sh, "no lessons at %s: %s (use --lessons DIR); the lab commands still work",
                       sh->dirs.lessons, strerror(l->stat_errno));
        return 0;
    }
    if (l->rc == -1) {
        shell_error(sh, "%s", l->err);
        return -1;
    }
    return 0;
}

/* Closes a lab that was built for nothing (the start failed after it):
 * its report is shown only if the host changed, so that the reason for the
 * failure stays the one thing said. */
static void close_lab_quietly(struct shell *sh)
{
    char *report = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&report, &len);
    if (lab_close(sh->lab, f != NULL ? f : stdout) != 0 && f != NULL) {
        fflush(f);
        fputs(report, stdout);
    }
    if (f != NULL)
        fclose(f);
    free(report);
    sh->lab = NULL;
}

/* A progress file of format 1 did not record skips: an exercise this
 * kernel can show that was never passed before the step reached (every one,
 * in a finished lesson) was skipped. */
static void settle_progress(struct shell *sh)
{
    char release[128];
    for (size_t i = 0; i < sh->lesson_count; i++) {
        const struct lesson *l = &sh->lessons[i];
        struct progress_entry *e = progress_get(&sh->progress, l->id);
        if (e == NULL || !e->legacy || tutor_read_lesson(sh, (int)i) == -1)
            continue; /* nothing to settle (or the error is said) */
        unsigned long mask = roster_exercise_steps(l);
        for (size_t k = 0; k < l->step_count && k < (size_t)PROGRESS_STEPS_MAX; k++)
            if (!tutor_step_runs_here(&l->steps[k], release, sizeof release))
                mask &= ~(1ul << k);
        progress_settle(e, mask);
    }
}

int session_open(struct shell *sh, const struct session_options *o)
{
    char exe[PATH_MAX], err[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    exe[n > 0 ? n : 0] = '\0';
    sh->interactive = isatty(STDIN_FILENO) && o->auto_lessons == NULL;
    render_init(&sh->render, stdout, o->no_colour || !sh->interactive);
    sh->colour_err = sh->render.colour && isatty(STDERR_FILENO);
    shell_find_dirs(&sh->dirs, exe, o->lessons_dir);
    progress_open(&sh->progress, NULL, stderr);
    char said[1024];
    if (tutor_private_tighten(&sh->progress, said, sizeof said))
        render_text(&sh->render, RENDER_NOTE, said);
    if (sh->progress.writable && snprintf(sh->history_path, sizeof sh->history_path, "%s/history",
                                          sh->progress.dir) >= (int)sizeof sh->history_path)
        sh->history_path[0] = '\0';
    if (getcwd(sh->start_dir, sizeof sh->start_dir) == NULL)
        sh->start_dir[0] = '\0';
    /* Lessons are read while the lab is built (load_lessons_meanwhile()).
     * A malformed lesson still ends the start, lab closed. A session reads
     * only the headers, and a lesson's steps when it is entered (the build's
     * tests read the shipped ones whole); a directory of one's own
     * (--lessons), --auto and --present read every lesson whole at start, so
     * that an author sees any error at once. */
    struct lesson_loading loading = {.sh = sh};
    loading.whole = o->lessons_dir != NULL || o->auto_lessons != NULL || o->present != NULL;
    struct lab_config config = {sh->dirs.examples, o->user_namespace, 0, load_lessons_meanwhile,
                                &loading};
    sh->lab = lab_open(&config, err, sizeof err);
    if (sh->lab == NULL) {
        /* The lab's message names what failed and the command that fixes it. */
        shell_error(
            sh, "%s%s",
            strncmp(err, "cannot open the lab", 19) == 0 ? "" : "cannot open the lab: ", err);
        return -1;
    }
    /* Relative paths (export FILE, completion) mean what they meant at start. */
    if (sh->start_dir[0] != '\0' && chdir(sh->start_dir) == -1)
        shell_warn(sh, "cannot return to %s: %s", sh->start_dir, strerror(errno));
    if (report_lessons(sh, &loading, n > 0 || o->lessons_dir != NULL) == -1) {
        close_lab_quietly(sh);
        return -1;
    }
    settle_progress(sh);
    shell_install_signals();
    return 0;
}

/* 1 while a session has run no line at all (only its prompt loop sets
 * it): its lab then ran nothing, and the cleanup at close, which is there to
 * say what the learner's commands left, is lab_close's sweep alone. */
static int lab_idle;

static char **complete(void *context, const char *line_before, const char *text)
{
    return command_complete(context, line_before, text);
}

static void saved(void *context, const char *path)
{
    progress_own(&((struct shell *)context)->progress, path);
}

static char *ask(struct shell *sh, const char *prompt)
{
    size_t len;
    (void)sh;
    char *line = lineedit_read(prompt, &len, 0);
    if (line != NULL && strlen(line) != len)
        line[0] = '\0'; /* a NUL inside: treat as no answer */
    return line;
}

static int run_line(struct shell *sh, const char *line)
{
    return command_execute(sh, line, strlen(line));
}

/* Runs what was typed at a question to leave its step (tutor_pending),
 * as if typed at the prompt. When the step stayed where it was (`sh ...`,
 * `check`), says how to see the rest of it. Returns the last command's
 * shell_result. */
static int run_pending(struct shell *sh, int rc)
{
    while (rc != SHELL_EXIT && tutor_pending(sh) != NULL) {
        struct tutor_place place = tutor_place(sh);
        char *line = tutor_take_pending(sh);
        rc = command_execute(sh, line, strlen(line));
        free(line);
        if (rc != SHELL_EXIT && tutor_pending(sh) == NULL && tutor_stayed(sh, place))
            render_text(&sh->render, RENDER_NOTE,
                        "(the step stopped at its question: `again` shows it from the start)");
    }
    return rc;
}

/* One suggestion: the next lesson not done (the current one, or one after
 * it), and where in it the learner takes up. */
static void welcome_back(struct shell *sh, int current)
{
    int next = tutor_next_unfinished(sh, current);
    char where[256] = "", done[160] = "";
    const char *rest = "`lessons` lists them all, `help` every command.";

    if (next < 0) {
        render_textf(&sh->render, RENDER_PLAIN,
                     "Welcome back: every lesson is done (`lesson N` replays one); %s", rest);
        return;
    }
    tutor_read_lesson(sh, next); /* its step count (an error is said) */
    const struct lesson *l = &sh->lessons[next];
    const struct progress_entry *e = progress_get(&sh->progress, l->id);
    int first;
    progress_skipped(e, &first);
    if (next != current)
        snprintf(done, sizeof done, "lesson %d is done; ", sh->lessons[current].number);
    if (e != NULL && e->finished && first >= 0)
        snprintf(where, sizeof where,
                 "returns to %s, at the exercise you skipped in step %d of %zu", l->title,
                 first + 1, l->step_count);
    else if (e != NULL && e->step > 0 && (size_t)e->step < l->step_count)
        snprintf(where, sizeof where, "resumes %s at step %d of %zu", l->title, e->step + 1,
                 l->step_count);
    else
        snprintf(where, sizeof where, "%s %s at step 1", e != NULL ? "resumes" : "starts",
                 l->title);
    render_textf(&sh->render, RENDER_PLAIN, "Welcome back: %s`lesson %d` %s; %s", done, l->number,
                 where, rest);
}

static void greet(struct shell *sh)
{
    render_textf(&sh->render, RENDER_HEADING,
                 "pidns-tutor %s: Linux PID namespaces, live on "
                 "your own kernel.",
                 PIDNS_TUTOR_VERSION);
    render_textf(&sh->render, RENDER_NOTE,
                 "The lab is open (%s); nothing you do here touches "
                 "the rest of the system.",
                 lab_route(sh->lab) == LAB_ROUTE_ROOT
                     ? "as root"
                     : "as an ordinary user, through a user namespace");
    int current = sh->progress.current[0] ? tutor_find_lesson(sh, sh->progress.current) : -1;
    if (current >= 0) {
        welcome_back(sh, current);
        return;
    }
    render_text(&sh->render, RENDER_PLAIN,
                "The lessons follow Michael Kerrisk's article \"Namespaces in operation, part 3: "
                "PID namespaces\" (LWN.net, 2013); lesson 1 gives its address.");
    render_text(&sh->render, RENDER_PLAIN,
                "Type `lessons` to see the lessons, `lesson 1` to "
                "begin, `help` for every command.");
}

static void refresh_width(struct shell *sh)
{
    struct winsize ws;
    if (sh->interactive && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        sh->render.width = ws.ws_col;
}

int session_run(struct shell *sh, const struct session_options *o)
{
    struct lineedit_config le = {sh->interactive,
                                 sh->history_path[0] ? sh->history_path : NULL,
                                 COMMAND_LINE_MAX,
                                 sh,
                                 complete,
                                 NULL,
                                 NULL,
                                 saved};
    char prompt[128];
    int failures = 0;

    if (o->auto_lessons != NULL)
        return tutor_auto(sh, o->auto_lessons);
    lineedit_open(&le);
    sh->ask = ask;
    sh->question_line = command_question_line;
    sh->run_line = run_line;
    if (o->present != NULL) {
        int status = tutor_present(sh, o->present);
        lineedit_close();
        return status;
    }
    if (sh->interactive)
        greet(sh);
    lab_idle = 1;
    for (;;) {
        size_t len = 0;
        refresh_width(sh);
        tutor_prompt(sh, prompt, sizeof prompt);
        fflush(stdout);
        char *line = lineedit_read(prompt, &len, 1);
        if (line == NULL) {
            if (sh->interactive)
                fputs("\n", stdout);
            break;
        }
        lab_idle = 0;
        int rc = run_pending(sh, command_execute(sh, line, len));
        free(line);
        failures += rc == SHELL_ERROR;
        tee_reap(0);
        if (rc == SHELL_EXIT)
            break;
    }
    lineedit_close();
    return sh->interactive ? 0 : failures != 0;
}

int session_close(struct shell *sh)
{
    int changed = 0;

    fflush(stdout);
    if (sh->lab != NULL) {
        /* Relays of background jobs end with their jobs: clean up first so
         * they can show the last output; none may be left for lab_close.
         * The cleanup says what it did in one line; lab_close then finds
         * nothing left to remove. */
        int relays = tee_reap(0) > 0;
        if (!lab_idle)
            tutor_cleanup(sh, 0);
        if (relays)
            tee_reap(300);
        tee_stop_all();
        /* lab_close cleans up (and says what it removed), then compares. */
        changed = lab_close(sh->lab, stdout) != 0;
        sh->lab = NULL;
    }
    tutor_leave(sh);
    /* Progress was saved as it changed: nothing to write here. */
    progress_close(&sh->progress);
    if (sh->lessons != NULL)
        lesson_free_all(sh->lessons, sh->lesson_count);
    sh->lessons = NULL;
    fflush(stdout);
    return changed;
}
