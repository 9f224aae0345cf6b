/* SPDX-License-Identifier: MIT */
/* tutor_auto.c: --auto LESSON|all, the unattended run of lessons for
 * classroom projectors and CI: every step, every check, every quiz.
 * Each exercise's check runs before the solution, when it must fail; after
 * each of its [.wrong] attempts, each run from the exercise's own starting
 * state, when it must fail too; in an emptied lab (the emptied-lab control
 * below), when it must fail; and after the solution, when it must pass.
 */
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"
#include "tutor/tutor_code.h"
#include "tutor/tutor_unconverted.h"
#include "lab/lab.h"
#include "lesson/lesson.h"
#include "render/tee.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A wrong attempt is checked once it has settled (ended, or become a job),
 * then, when it stays running, once more this much later: what it left
 * running had a moment to act, without polling for seconds on every
 * attempt. */
#define AUTO_WRONG_RECHECK_MS 300

/* The check on the state before the work must fail: a check that passes
 * already proves nothing about the learner's work. Returns 1 when it
 * passes (a failed lesson). */
static int check_passes_before(struct shell *sh, const struct lesson_block *exercise)
{
    if (exercise->program != NULL)
        return tutor_code_verify(sh, exercise);
    if (tutor_check(sh, exercise) == 1) {
        render_text(&sh->render, RENDER_BAD,
                    "check: FAILED: it passes before the exercise is done, so it cannot tell a "
                    "wrong attempt from the work");
        return 1;
    }
    render_text(&sh->render, RENDER_NOTE, "(the check fails before the work, as it should)");
    return 0;
}

/* Rebuilds the lab the exercise meets. Returns 1 when it could not. */
static int rebuild(struct shell *sh)
{
    const char *failed = NULL;
    int rc = tutor_rebuild_exercise_start(sh, &failed);

    if (rc == 0)
        return 0;
    if (failed != NULL)
        render_textf(&sh->render, RENDER_BAD,
                     "could not rebuild the lab of this exercise: `%.*s` failed",
                     (int)strcspn(failed, "\n"), failed);
    else
        render_text(&sh->render, RENDER_BAD, "could not rebuild the lab of this exercise");
    return 1;
}

/* How many /procN directories of the lab's root the emptied lab keeps, as
 * empty tmpfs mounts. */
#define AUTO_PROC_DIRS_MAX 64
/* Checks that passed in an emptied lab, in this run (said at the end). */
static int emptied_passes;

/* Is name "procN"? */
static int is_proc_dir(const char *name)
{
    return strncmp(name, "proc", 4) == 0 && name[4] != '\0' &&
           strspn(name + 4, "0123456789") == strlen(name + 4);
}

/* Appends to script "mkdir and mount a tmpfs" for each /procN at the lab's
 * root; returns how many, -1 when the root cannot be read. */
static int list_proc_dirs(struct shell *sh, FILE *script)
{
    DIR *root = opendir(lab_path(sh->lab, "/"));
    int n = 0;
    if (root == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(root)) != NULL && n < AUTO_PROC_DIRS_MAX;)
        if (is_proc_dir(e->d_name)) {
            fprintf(script, "mkdir -p /%s && mount -t tmpfs emptied /%s || exit 1\n", e->d_name,
                    e->d_name);
            n++;
        }
    closedir(root);
    return n;
}

/* Removes the answer files at the lab's root: the regular files of its own
 * root file system (the machine's files are bind mounts there, of another
 * device, and are left alone). Returns how many. */
static int remove_answer_files(struct shell *sh)
{
    int removed = 0;
    char root_path[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
    struct stat root_st, st;

    snprintf(root_path, sizeof root_path, "%s", lab_path(sh->lab, "/"));
    DIR *root = opendir(root_path);
    if (root == NULL || stat(root_path, &root_st) == -1) {
        if (root != NULL)
            closedir(root);
        return 0;
    }
    for (struct dirent *e; (e = readdir(root)) != NULL;) {
        snprintf(path, sizeof path, "%s/%s", root_path, e->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == root_st.st_dev &&
            unlink(path) == 0)
            removed++;
    }
    closedir(root);
    return removed;
}

/* Empties the lab the exercise meets: every process of it stopped (the
 * step's programs and jobs), every /procN an empty tmpfs, the answer files
 * at the root removed. Returns 1, or 0 when there was nothing to empty, or
 * -1 when it could not. */
static int empty_lab(struct shell *sh)
{
    char *script = NULL, *summary = NULL, *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&script, &len);

    if (f == NULL)
        return -1;
    int n = list_proc_dirs(sh, f);
    if (fclose(f) != 0 || n == -1) {
        free(script);
        return -1;
    }
    tutor_cleanup_summary(sh, 0, &summary);
    int emptied = summary != NULL || n > 0;
    free(summary);
    emptied |= remove_answer_files(sh) > 0;
    int status = n > 0 ? lab_capture(sh->lab, script, &out) : 0;
    free(script);
    free(out);
    return status != 0 ? -1 : emptied;
}

/* Is lesson number in TUTOR_UNCONVERTED_LESSONS (and not overruled)? */
static int lesson_unconverted(int number)
{
    char key[16];
    const char *strict = getenv("PIDNS_TUTOR_STRICT_CHECKS");
    if (strict != NULL && strcmp(strict, "1") == 0)
        return 0;
    snprintf(key, sizeof key, " %d ", number);
    return strstr(TUTOR_UNCONVERTED_LESSONS, key) != NULL;
}

/* The solution, run quietly, and a wait while what it left running still
 * builds what the check looks at (tutor_await_check). Returns -1 when it
 * could not run. */
static int solution_quietly(struct shell *sh, const struct lesson_block *exercise)
{
    int stays = 0;
    const struct lab_job *jobs;
    if (exercise->solution == NULL)
        return 0;
    size_t jobs_before = lab_jobs(sh->lab, &jobs);
    int status = tutor_run_quietly(sh, exercise->solution, &stays);
    if (status == -1 || status == 130)
        return -1;
    tutor_await_check(sh, exercise, jobs_before);
    return 0;
}

/* The emptied-lab control: in the lab the exercise meets, once the
 * solution has done its work there, emptied (so that the /procN it made
 * are there, empty, and its answer files are gone; before the solution when
 * it leaves nothing to empty), the check must fail: a
 * check that passes there passes on absent evidence (two empty values
 * compared, a mount point of any kind). The lab is rebuilt after it.
 * Returns 1 when it failed the lesson. A coding exercise's control is its
 * file as given (tutor_code_verify). */
static int emptied_lab_passes(struct shell *sh, const struct lesson_block *exercise)
{
    if (exercise->program != NULL)
        return 0;
    int emptied = solution_quietly(sh, exercise) == -1 ? -1 : empty_lab(sh);
    if (emptied == 0) {
        /* The solution left nothing to empty (a task of taking things down,
         * lesson 6): the solved lab is itself an emptied lab and says
         * nothing of the check. So empty the lab the exercise meets, with
         * what its steps left there, and the check must fail on that. */
        render_text(&sh->render, RENDER_NOTE,
                    "(the solution leaves nothing to empty: the lab the exercise meets is "
                    "emptied instead)");
        emptied = rebuild(sh) ? -1 : empty_lab(sh);
    }
    if (emptied == -1) {
        render_text(&sh->render, RENDER_BAD, "check: FAILED: the lab could not be emptied");
        return 1;
    }
    int passed = tutor_check(sh, exercise);
    int unconverted = lesson_unconverted(sh->lessons[tutor_lesson(sh)].number);
    if (passed == 1) {
        emptied_passes++;
        render_textf(&sh->render, unconverted ? RENDER_NOTE : RENDER_BAD,
                     "%s: it passes in an emptied lab (the step's processes stopped, every "
                     "/procN an empty tmpfs, the answer files removed), on absent evidence%s",
                     unconverted ? "(emptied lab: the check is too weak" : "check: FAILED",
                     unconverted ? "; not counted until this lesson's checks are converted)" : "");
    } else
        render_text(&sh->render, RENDER_NOTE, "(the check fails in an emptied lab, as it should)");
    if (rebuild(sh))
        return 1;
    return passed == 1 && !unconverted;
}

/* Each [.wrong] attempt, from the exercise's own starting state: the check
 * must refuse it. The lab is rebuilt after each one, so the solution runs
 * where a learner starts too. Returns the number that failed. */
static int wrong_attempts(struct shell *sh, const struct lesson_block *exercise)
{
    int failed = 0;

    for (size_t i = 0; i < exercise->wrong_count && !shell_interrupted; i++) {
        const struct lesson_wrong *w = &exercise->wrongs[i];
        int stays = 0;
        int status = tutor_run_quietly(sh, w->commands, &stays);
        int passed = status == -1 || status == 130 ? -1 : tutor_check(sh, exercise);
        /* An attempt that ended took what it started with it (the lab ends
         * what a command leaves running): only one that stays can still
         * change the lab. */
        if (passed == 0 && stays) {
            nanosleep(&(struct timespec){AUTO_WRONG_RECHECK_MS / 1000,
                                         AUTO_WRONG_RECHECK_MS % 1000 * 1000 * 1000},
                      NULL);
            passed = tutor_check(sh, exercise);
        }
        if (passed == 0)
            render_textf(&sh->render, RENDER_NOTE,
                         "(wrong attempt '%s': the check refuses it, as it should)", w->title);
        else if (passed == 1)
            render_textf(&sh->render, RENDER_BAD,
                         "check: FAILED: the wrong attempt '%s' passes it (line %d)", w->title,
                         w->line);
        else
            render_textf(&sh->render, RENDER_BAD,
                         "the wrong attempt '%s' (line %d) could not run, or was stopped", w->title,
                         w->line);
        failed += passed != 0;
        if (rebuild(sh))
            return failed + 1;
    }
    return failed;
}

/* Why a check refuses the solution: its conditions, each with what it saw. */
static void show_why(struct shell *sh, const struct lesson_block *exercise)
{
    struct tutor_verdict v;
    if (tutor_check_verdict(sh, exercise, 1, &v) != TUTOR_NO_CHECK)
        tutor_verdict_show(sh, exercise, &v, 1);
    tutor_verdict_free(&v);
}

/* check_passes_before, then the solution and the check (see tutor.h). */
static int run_solution(struct shell *sh, const struct lesson_block *exercise, int check_first)
{
    if (check_first && check_passes_before(sh, exercise))
        return 1;
    const struct lab_job *jobs;
    size_t jobs_before = lab_jobs(sh->lab, &jobs);
    if (exercise->solution != NULL) {
        render_text(&sh->render, RENDER_NOTE, "(running the worked solution)");
        int status = tutor_run_command(sh, exercise->solution, 1, NULL);
        if (status != 0) {
            render_textf(&sh->render, RENDER_BAD, "the solution failed: exit status %d", status);
            return 1;
        }
    }
    /* A solution left running may still be building what the check looks
     * at (31 nested namespaces take a while on a slow, loaded or sanitized
     * build): look again while it runs, up to 30 s, before calling it
     * failed. */
    int passed = tutor_await_check(sh, exercise, jobs_before);
    render_text(&sh->render, passed == 1 ? RENDER_GOOD : RENDER_BAD,
                passed == 1 ? "check: passed" : "check: FAILED");
    if (passed != 1)
        show_why(sh, exercise);
    return passed == 1 ? 0 : 1;
}

int tutor_run_solution(struct shell *sh, const struct lesson_block *exercise)
{
    return run_solution(sh, exercise, 1);
}

/* An exercise in --auto: the check fails before the work, refuses each
 * wrong attempt, and passes after the solution, each from the exercise's
 * starting state. */
static int auto_exercise(struct shell *sh, const struct lesson_block *exercise)
{
    if (check_passes_before(sh, exercise))
        return 1;
    if (emptied_lab_passes(sh, exercise))
        return 1;
    if (wrong_attempts(sh, exercise) != 0)
        return 1;
    return run_solution(sh, exercise, exercise->wrong_count > 0);
}

/* One lesson, start to end; the lab is cleaned up after it. Returns the
 * number of failed steps. */
static int auto_lesson(struct shell *sh, int index, int *skipped)
{
    const struct lesson *l = &sh->lessons[index];
    int failed = 0;

    for (size_t s = 0; s < l->step_count && !shell_interrupted; s++) {
        char release[128];
        if (tutor_enter(sh, index, (int)s) == -1)
            return failed + 1;
        int bad = tutor_show_step(sh) != SHELL_OK;
        if (!tutor_step_runs_here(&l->steps[s], release, sizeof release)) {
            render_textf(&sh->render, RENDER_NOTE,
                         "lesson %d, step %zu (%s): skipped, kernel: needs Linux %s, this is %s",
                         l->number, s + 1, l->steps[s].title, l->steps[s].kernel, release);
            (*skipped)++;
            continue;
        }
        const struct lesson_block *exercise = tutor_current_exercise(sh);
        if (!bad && exercise == NULL)
            tutor_print_tree_for_picture(sh, l->number, s + 1);
        if (!bad && exercise != NULL) {
            bad = auto_exercise(sh, exercise);
            if (!bad)
                tutor_print_tree_for_picture(sh, l->number, s + 1);
            bad = bad || tutor_show_debrief(sh) != SHELL_OK;
        }
        if (bad) {
            render_textf(&sh->render, RENDER_BAD, "lesson %d, step %zu (%s): FAILED", l->number,
                         s + 1, l->steps[s].title);
            failed++;
        }
    }
    if (shell_interrupted)
        failed++;
    if (sh->lab != NULL)
        tutor_cleanup(sh, 0);
    tee_reap(200);
    return failed;
}

int tutor_auto(struct shell *sh, const char *which)
{
    int all = strcmp(which, "all") == 0;
    int index = all ? 0 : tutor_find_lesson(sh, which);
    int failed_lessons = 0;

    if (index < 0 || sh->lesson_count == 0) {
        shell_error(sh, "--auto: no lesson '%s' in %s (try --auto all)", which, sh->dirs.lessons);
        return 1;
    }
    sh->auto_mode = 1;
    size_t end = all ? sh->lesson_count : (size_t)index + 1;
    for (size_t i = (size_t)index; i < end && !shell_interrupted; i++) {
        int skipped = 0;
        int failed = auto_lesson(sh, (int)i, &skipped);
        const struct lesson *l = &sh->lessons[i];
        struct utsname u;
        if (!failed && skipped > 0 && (size_t)skipped == l->step_count && uname(&u) == 0) {
            /* Nothing ran: not a pass, and not a failure either. */
            render_textf(&sh->render, RENDER_NOTE,
                         "lesson %d (%s): skipped, kernel: every step needs Linux %s or later, "
                         "this is %s",
                         l->number, l->id, l->kernel != NULL ? l->kernel : "newer", u.release);
            continue;
        }
        render_textf(&sh->render, failed ? RENDER_BAD : RENDER_GOOD, "lesson %d (%s): %s%s",
                     sh->lessons[i].number, sh->lessons[i].id, failed ? "FAILED" : "passed",
                     !skipped       ? ""
                     : skipped == 1 ? " (1 step skipped: this kernel is too old for it)"
                                    : " (steps skipped: this kernel is too old for them)");
        failed_lessons += failed != 0;
    }
    tutor_leave(sh);
    if (shell_interrupted) {
        render_text(&sh->render, RENDER_BAD, "--auto: stopped by Ctrl-C");
        return 1;
    }
    if (emptied_passes > 0)
        render_textf(&sh->render, RENDER_NOTE,
                     "--auto: the emptied-lab control: %d check(s) pass in an emptied lab",
                     emptied_passes);
    render_textf(&sh->render, failed_lessons ? RENDER_BAD : RENDER_GOOD,
                 "--auto: %zu lesson(s) run, %d failed", end - (size_t)index, failed_lessons);
    return failed_lessons != 0;
}
