/* SPDX-License-Identifier: MIT */
/* tutor.h: the guided flow of a lesson step, and --auto.
 *
 * A step is shown block by block: the explanation, code from the examples,
 * "predict, then run" questions, each command as the learner would type it
 * with its live output from the lab, the values in it highlighted and
 * related by a short note, what the output should have been when it
 * differs, exercises (`check`, `hint`) and quiz questions.
 */
#ifndef PIDNS_TUTOR_TUTOR_H
#define PIDNS_TUTOR_TUTOR_H

#include <stddef.h>

#include "tutor/shell.h"

struct lesson;
struct lesson_block;
struct lesson_step;

/* Shows the current step (tutor_cursor.h) and records it
 * in the progress file. Returns SHELL_OK, or SHELL_ERROR when a command
 * failed, an output differed from the lesson, or Ctrl-C stopped the step. */
int tutor_show_step(struct shell *sh);
/* Shows what follows the current step's exercise (it talks about the
 * result), once its check passed. SHELL_OK when none, or all went well. */
int tutor_show_debrief(struct shell *sh);

/* The first lesson not done (progress_entry_done), from index from on,
 * wrapping round; -1 when every lesson is done. */
int tutor_next_unfinished(struct shell *sh, int from);

/* Whether this kernel can show step (its [kernel=X.Y], if any); the
 * kernel's release is copied to release. */
int tutor_step_runs_here(const struct lesson_step *step, char *release, size_t len);

/* The exercise of the current step, or NULL (also for a step this kernel
 * cannot show). */
const struct lesson_block *tutor_current_exercise(const struct shell *sh);

/* Runs a [.check] or a hint's when= condition in the lab (lab_capture,
 * LC_ALL=C), with the facts of the lab's jobs in the file $TUTOR_JOBS
 * (TUTOR_JOBS_FILE in the lab), written just before: one line per job,
 * "ID PID STATE DETAIL COMMAND", STATE running (DETAIL -), exited (DETAIL
 * the exit status) or killed (DETAIL the signal, e.g. SIGKILL), PID the
 * job's PID in the lab, COMMAND its command line (newlines as "; ").
 * Returns the exit status, -1 on error. */
int tutor_capture_condition(struct shell *sh, const char *command, char **output);
#define TUTOR_JOBS_FILE "/tmp/.pidns-tutor-jobs"

/* Runs an exercise's check in the lab. Returns 1 passed, 0 not yet (failed
 * or still waiting), -1 error. */
int tutor_check(struct shell *sh, const struct lesson_block *exercise);

/* CLOCK_MONOTONIC in milliseconds: bounds that count the time checks take. */
long tutor_clock_ms(void);

/* What a check found: its verdict and its named conditions
 * (tutor_conditions.h), read from TUTOR_CONDITIONS_FILE in the lab. */
#define TUTOR_CONDITIONS_FILE "/tmp/.pidns-tutor-conditions"
enum { TUTOR_FAILED = 0, TUTOR_PASSED = 1, TUTOR_WAITING = 2, TUTOR_NO_CHECK = -1 };
struct tutor_verdict {
    int result;       /* TUTOR_PASSED, TUTOR_FAILED, TUTOR_WAITING or TUTOR_NO_CHECK */
    char *output;     /* what the check printed (malloc'd, or NULL) */
    char *conditions; /* its records, "yes|no|wait TAB SENTENCE [TAB DETAIL]" lines */
};
/* Runs the check; verbose (check -v) runs every condition, also after a
 * failing one. Free with tutor_verdict_free(). */
int tutor_check_verdict(struct shell *sh, const struct lesson_block *exercise, int verbose,
                        struct tutor_verdict *v);
/* tutor_check_verdict (quiet), except that a coding exercise's last
 * verdict is reused while its program in the lab is the one it judged. */
int tutor_check_verdict_again(struct shell *sh, const struct lesson_block *exercise,
                              struct tutor_verdict *v);
void tutor_verdict_free(struct tutor_verdict *v);
/* The sentence of the first condition that did not hold (no or wait) into
 * buf; NULL when none did. */
const char *tutor_verdict_failed(const struct tutor_verdict *v, char *buf, size_t len);
/* Shows a verdict to the learner: for a check that did not pass, for a
 * coding exercise what the program printed (its last lines) and how it
 * ended, then the conditions up to the first that did not hold (verbose:
 * all of them, with what they saw; also after a pass). */
void tutor_verdict_show(struct shell *sh, const struct lesson_block *exercise,
                        const struct tutor_verdict *v, int verbose);

/* Shows the worked solution of an exercise. */
void tutor_show_solution(struct shell *sh, const struct lesson_block *exercise);

/* How tutor_run_command() runs a command: one of the first three, plus
 * TUTOR_RUN_TYPED for a line the learner typed at the prompt. */
enum {
    TUTOR_RUN_FOREGROUND = 0, /* until it ends (lab_run) */
    TUTOR_RUN_MAY_STAY = 1,   /* a program that keeps running becomes a job (lab_start):
                                 `run`, a [.run.background] step */
    TUTOR_RUN_BACKGROUND = 2, /* the learner's `CMD &`: a job, out of Ctrl-C's reach
                                 (lab_start_background); shown as "# CMD &" */
    TUTOR_RUN_TYPED = 4,      /* an interactive session says once, after 3 s in the
                                 foreground, how to stop it or run it in the background */
};

/* Runs a command line in the lab as a guided step does: shown as typed,
 * output live and highlighted, noted. mode: see above (0 or 1 from a step).
 * Sets *output (malloc'd) when not NULL. Returns the exit status (0 when it
 * became a job), 130 after Ctrl-C, -1 when it could not run. */
int tutor_run_command(struct shell *sh, const char *command, int mode, char **output);

/* The prompt: "pidns-tutor (1:2/5)> ", or "pidns-tutor> " outside a lesson. */
void tutor_prompt(const struct shell *sh, char *buf, size_t len);

/* Finds a lesson by number, id, or name (the id without its number, or a
 * unique prefix of either). Returns its index, or -1. */
int tutor_find_lesson(const struct shell *sh, const char *what);

/* Cleans the lab up (lab_cleanup) and says what it did in one line:
 * "Cleaned up: stopped 2 programs, unmounted /proc0-/proc4." With verbose,
 * each stopped process, unmount and removed directory first. Warnings are
 * always shown. Returns what lab_cleanup() returns. */
int tutor_cleanup(struct shell *sh, int verbose);

/* tutor_cleanup without its line: the summary ("stopped 2 programs,
 * unmounted /proc2", malloc'd) in *summary, NULL when nothing was there. */
int tutor_cleanup_summary(struct shell *sh, int verbose, char **summary);

/* Named jobs (job=NAME on a [.run.background]): sets NAME_pid in the
 * environment every lab command inherits to the lab PID of job job_id, as
 * $! would be. Returns that PID, or -1 when there is no such job. */
int tutor_name_job(struct shell *sh, const char *job, int job_id);
/* Unsets every NAME_pid the lessons name (their jobs were stopped). */
void tutor_forget_jobs(struct shell *sh);

/* A lesson owns its lab (tutor_lab.c). Stops and unmounts whatever runs in
 * the lab, saying so in one line with whose ("left by lesson 1"), then
 * replays the steps before the current one quietly (their commands, and
 * the worked solutions of their exercises), saying so in one line: the lab
 * of the current step is then the same as when the lesson is played
 * straight. Returns 0, or 1 when a replayed command failed. */
int tutor_rebuild_lab(struct shell *sh, const char *whose);

/* The lab the current step's exercise meets, rebuilt from scratch: stops
 * and unmounts everything (quietly), replays steps 1 to K-1 and the blocks
 * of step K before its exercise, output thrown away. --auto runs each
 * wrong attempt, and then the solution, from there. Returns 0; 1 when a
 * replayed command failed (*failed names it); -1 when the lab could not be
 * cleaned up or Ctrl-C stopped the replay. */
int tutor_rebuild_exercise_start(struct shell *sh, const char **failed);

/* Runs commands in the lab with their output thrown away, as a solution
 * runs: until they end, or become a job when they keep running (*stays is
 * then 1). Returns the exit status (0 when it became a job), 130 after
 * Ctrl-C, -1 when it could not run. */
int tutor_run_quietly(struct shell *sh, const char *commands, int *stays);

/* The longest the tutor waits for a program it left running to print what
 * a step expects or to bring about what a check looks at: 30 s, or
 * PIDNS_TUTOR_EXPECT_WAIT seconds (for tests). */
double tutor_wait_bound(void);

/* Fills *buf with the lab's wait for the output of an [.expect] block
 * (lab_start_expecting) and returns it; NULL when expect is NULL. */
struct lab_expect;
const struct lab_expect *tutor_lab_expect(const struct lesson_block *expect,
                                          struct lab_expect *buf);

/* After a worked solution: its check, looked at again every 100 ms while it
 * fails and a program the solution left running (a job from index
 * jobs_before of lab_jobs() on) still runs, for up to tutor_wait_bound().
 * One that still builds what the check looks at (31 nested namespaces on a
 * loaded machine) is waited for; a solution that ended has done all it
 * will, and is looked at once. Returns tutor_check()'s last verdict. */
int tutor_await_check(struct shell *sh, const struct lesson_block *exercise, size_t jobs_before);

/* --auto LESSON|all: every step, every exercise (its solution, then its
 * check), every quiz, unattended. Returns 0 when all passed, 1 if not. */
int tutor_auto(struct shell *sh, const char *which);

/* Runs an exercise's check (which must fail before the work), its worked
 * solution, then its check again (allowing a solution left running a few
 * seconds to settle). Returns 0 when the check passed after the work. */
int tutor_run_solution(struct shell *sh, const struct lesson_block *exercise);
/* In --auto with PIDNS_TUTOR_TREES set: the lab's namespace tree after lesson
 * LESSON's step STEP (1-based), when it has a namespace below the lab's, for
 * the handbook's pictures (tutor_picture.c). */
void tutor_print_tree_for_picture(struct shell *sh, int lesson, size_t step);

/* --present LESSON: the lesson on a projector, paced by the presenter:
 * Enter moves on, predictions and quizzes wait for the room, exercises run
 * their worked solution. Needs a terminal. Returns the exit status. */
int tutor_present(struct shell *sh, const char *which);

#endif
