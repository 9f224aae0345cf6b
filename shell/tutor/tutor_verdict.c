/* SPDX-License-Identifier: MIT */
/* tutor_verdict.c: what a check found, and how the learner reads it. A
 * check (or a hint's when= condition) runs as a script: the named
 * conditions' prelude (tutor_conditions.h), the settings of the run, the
 * check, `tutor_done $?`. Its conditions are recorded in
 * TUTOR_CONDITIONS_FILE in the lab; `check` shows them up to the first that
 * does not hold (check -v: all), and for a coding exercise, first what the
 * program printed and how it ended. See tutor.h and tutor_code.h.
 */
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"
#include "tutor/tutor_conditions.h"
#include "lab/lab.h"
#include "lab/lab_limits.h"
#include "lesson/lesson.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How many of the program's last lines a failing check shows. */
#define VERDICT_OUT_LINES 8
/* The most of a file of the program's read. */
#define VERDICT_FILE_MAX (256 * 1024)

long tutor_clock_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* "01-two-pids" and "two_pids" of ex->program "../exercises/01-two-pids/two_pids.c". */
void tutor_code_names(const struct lesson_block *ex, char *dir, size_t dlen, char *name,
                      size_t nlen)
{
    const char *slash = strrchr(ex->program, '/');
    const char *file = slash + 1, *start = slash;
    while (start > ex->program && start[-1] != '/')
        start--;
    snprintf(dir, dlen, "%.*s", (int)(slash - start), start);
    snprintf(name, nlen, "%.*s", (int)(strlen(file) - 2), file);
}

/* Puts text as one single-quoted sh word. */
static void put_quoted(FILE *f, const char *text)
{
    fputc('\'', f);
    for (const char *c = text; *c != '\0'; c++)
        if (*c == '\'')
            fputs("'\\''", f);
        else
            fputc(*c, f);
    fputs("'\n", f);
}

/* The settings of how the script runs, after the prelude. */
static void put_settings(FILE *f, const struct tutor_script *how)
{
    const char *wait = getenv("TUTOR_WAIT_SECONDS");

    fprintf(f, "TUTOR_CONDITIONS=%s\n",
            how != NULL && how->conditions != NULL ? how->conditions : "/dev/null");
    if (how != NULL && how->verbose)
        fputs("TUTOR_VERBOSE=1\n", f);
    if (how != NULL && how->failed != NULL) {
        fputs("TUTOR_FAILED=", f);
        put_quoted(f, how->failed);
    }
    if (wait != NULL && wait[0] != '\0' && strspn(wait, "0123456789") == strlen(wait))
        fprintf(f, "TUTOR_WAIT_SECONDS=%s\n", wait);
}

char *tutor_code_command(const struct lesson_block *ex, const char *command,
                         const struct tutor_script *how)
{
    char dir[NAME_MAX + 1], name[NAME_MAX + 1], *out = NULL;
    size_t len = 0, n = strlen(command);
    FILE *f = open_memstream(&out, &len);

    if (f == NULL)
        return NULL;
    fputs(TUTOR_CONDITIONS_SH, f);
    put_settings(f, how);
    if (ex->program != NULL) {
        tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
        /* A program not built yet fails the check, as the file as given would. */
        fprintf(f,
                "TUTOR_PROGRAM=./%s\ncd %s/%s 2>/dev/null || {\n"
                "    tutor_record no 'your program is built' 'it is not in the lab yet: `build` "
                "puts it there'\n    exit 1\n}\n",
                name, TUTOR_CODE_LAB_DIR, dir);
    }
    fprintf(f, "%s%stutor_done $?\n", command, n > 0 && command[n - 1] != '\n' ? "\n" : "");
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* A coding exercise's last verdict, and the program it judged: `hint`
 * reuses it while that program is still the one in the lab (running again
 * a program that hangs would make each hint wait as long as the check). */
static struct {
    const struct lesson_block *ex;
    struct stat program;
    int result;
    char *conditions;
} last_code;

/* The program of ex in the lab, as stat() sees it; -1 when there is none. */
static int program_stat(struct shell *sh, const struct lesson_block *ex, struct stat *st)
{
    char dir[NAME_MAX + 1], name[NAME_MAX + 1], inside[PATH_MAX];

    tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
    snprintf(inside, sizeof inside, "%s/%s/%s", TUTOR_CODE_LAB_DIR, dir, name);
    return stat(lab_path(sh->lab, inside), st);
}

static void remember_code_verdict(struct shell *sh, const struct lesson_block *ex,
                                  const struct tutor_verdict *v)
{
    free(last_code.conditions);
    last_code.ex = NULL;
    last_code.conditions = NULL;
    if (program_stat(sh, ex, &last_code.program) == -1 || v->result == TUTOR_NO_CHECK)
        return;
    last_code.ex = ex;
    last_code.result = v->result;
    last_code.conditions = v->conditions != NULL ? strdup(v->conditions) : NULL;
}

int tutor_check_verdict_again(struct shell *sh, const struct lesson_block *exercise,
                              struct tutor_verdict *v)
{
    struct stat st;
    if (exercise->program != NULL && last_code.ex == exercise &&
        program_stat(sh, exercise, &st) == 0 && st.st_ino == last_code.program.st_ino &&
        st.st_mtim.tv_sec == last_code.program.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == last_code.program.st_mtim.tv_nsec) {
        *v = (struct tutor_verdict){last_code.result, NULL,
                                    last_code.conditions != NULL ? strdup(last_code.conditions)
                                                                 : NULL};
        return v->result;
    }
    return tutor_check_verdict(sh, exercise, 0, v);
}

int tutor_check_verdict(struct shell *sh, const struct lesson_block *exercise, int verbose,
                        struct tutor_verdict *v)
{
    struct tutor_script how = {TUTOR_CONDITIONS_FILE, verbose, NULL};

    *v = (struct tutor_verdict){TUTOR_NO_CHECK, NULL, NULL};
    if (sh->lab == NULL || exercise->check == NULL)
        return TUTOR_NO_CHECK;
    char records[PATH_MAX];
    snprintf(records, sizeof records, "%s", lab_path(sh->lab, TUTOR_CONDITIONS_FILE));
    int fd = open(records, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd != -1)
        close(fd);
    char *command = tutor_code_command(exercise, exercise->check, &how);
    if (command == NULL)
        return TUTOR_NO_CHECK;
    /* What the learner's last kill sent has arrived (a stop takes effect
     * when the target runs): at most 5 s, then the check judges as it is. */
    lab_await_signals(sh->lab, 5.0);
    int status = tutor_capture_condition(sh, command, &v->output);
    free(command);
    v->conditions = io_read_file(AT_FDCWD, records, VERDICT_FILE_MAX);
    v->result = status == 0   ? TUTOR_PASSED
                : status == 3 ? TUTOR_WAITING
                : status > 0  ? TUTOR_FAILED
                              : TUTOR_NO_CHECK;
    if (exercise->program != NULL)
        remember_code_verdict(sh, exercise, v);
    return v->result;
}

void tutor_verdict_free(struct tutor_verdict *v)
{
    free(v->output);
    free(v->conditions);
    v->output = v->conditions = NULL;
}

const char *tutor_verdict_failed(const struct tutor_verdict *v, char *buf, size_t len)
{
    for (const char *line = v->conditions; line != NULL && *line != '\0';) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "no\t", 3) == 0 || strncmp(line, "wait\t", 5) == 0) {
            const char *s = strchr(line, '\t') + 1;
            snprintf(buf, len, "%.*s", (int)strcspn(s, "\t\n"), s);
            return buf;
        }
        line += n + (line[n] == '\n');
    }
    return NULL;
}

int tutor_check(struct shell *sh, const struct lesson_block *exercise)
{
    struct tutor_verdict v;
    int result = tutor_check_verdict(sh, exercise, 0, &v);
    tutor_verdict_free(&v);
    return result == TUTOR_WAITING ? 0 : result;
}

/* A file the check's program left in its directory in the lab (malloc'd),
 * or NULL. */
static char *program_file(struct shell *sh, const struct lesson_block *ex, const char *file)
{
    char dir[NAME_MAX + 1], name[NAME_MAX + 1], inside[PATH_MAX];

    tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
    snprintf(inside, sizeof inside, "%s/%s/%s", TUTOR_CODE_LAB_DIR, dir, file);
    return io_read_file(AT_FDCWD, lab_path(sh->lab, inside), VERDICT_FILE_MAX);
}

/* What the learner's program printed (its last lines) and how it ended. */
static void show_program(struct shell *sh, const struct lesson_block *ex)
{
    char *out = program_file(sh, ex, "out"), *ended = program_file(sh, ex, "ended");
    char *started = program_file(sh, ex, "program.pid");

    if (out != NULL) {
        size_t len = strlen(out);
        while (len > 0 && out[len - 1] == '\n')
            out[--len] = '\0';
        const char *from = out + len;
        int lines = 0;
        while (from > out && !(from[-1] == '\n' && ++lines == VERDICT_OUT_LINES))
            from--;
        if (len == 0)
            render_text(&sh->render, RENDER_NOTE, "Your program printed nothing.");
        else
            render_textf(&sh->render, RENDER_NOTE,
                         "Your program printed%s:", from > out ? " (its last lines)" : "");
        for (char *line = (char *)from; len > 0 && line != NULL;) {
            char *nl = strchr(line, '\n');
            if (nl != NULL)
                *nl = '\0';
            render_textf(&sh->render, RENDER_OUTPUT, "  | %s", line);
            line = nl != NULL ? nl + 1 : NULL;
        }
    }
    if (ended != NULL) {
        ended[strcspn(ended, "\n")] = '\0';
        render_textf(&sh->render, RENDER_NOTE, "It ended: %s%s.",
                     strncmp(ended, "exit ", 5) == 0 ? "exit status " : "killed by ",
                     strncmp(ended, "exit ", 5) == 0 ? ended + 5 : ended + 7);
    } else if (started != NULL)
        render_text(&sh->render, RENDER_NOTE,
                    "It was still running when the check ended (the check stopped it).");
    free(out);
    free(ended);
    free(started);
}

/* One record "KIND TAB SENTENCE [TAB DETAIL]" as the learner reads it;
 * returns 1 when it is a condition that did not hold. */
static int show_record(struct shell *sh, char *line)
{
    char *sentence = strchr(line, '\t'), *detail = NULL;
    if (sentence == NULL)
        return 0;
    *sentence++ = '\0';
    if ((detail = strchr(sentence, '\t')) != NULL)
        *detail++ = '\0';
    int yes = strcmp(line, "yes") == 0, wait = strcmp(line, "wait") == 0;
    const char *how = yes ? "yes" : wait ? "still waiting for it" : "no";
    if (detail != NULL && detail[0] != '\0')
        render_textf(&sh->render, yes ? RENDER_PLAIN : RENDER_BAD, "  %s: %s (%s)", sentence, how,
                     detail);
    else
        render_textf(&sh->render, yes ? RENDER_PLAIN : RENDER_BAD, "  %s: %s", sentence, how);
    return !yes;
}

/* The conditions, up to the first that did not hold (verbose: all). Returns
 * how many were shown. */
static int show_conditions(struct shell *sh, const struct tutor_verdict *v, int verbose)
{
    char *copy = v->conditions != NULL ? strdup(v->conditions) : NULL;
    int shown = 0;

    for (char *line = copy, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        shown++;
        if (show_record(sh, line) && !verbose)
            break;
    }
    free(copy);
    return shown;
}

void tutor_verdict_show(struct shell *sh, const struct lesson_block *ex,
                        const struct tutor_verdict *v, int verbose)
{
    char sentence[512];
    const char *failed = tutor_verdict_failed(v, sentence, sizeof sentence);

    if (v->result == TUTOR_PASSED) {
        if (verbose && show_conditions(sh, v, 1) == 0)
            render_text(&sh->render, RENDER_NOTE, "(this check names no conditions)");
        return;
    }
    if (ex->program != NULL)
        show_program(sh, ex);
    if (v->result == TUTOR_WAITING) {
        show_conditions(sh, v, verbose);
        render_textf(&sh->render, RENDER_NOTE,
                     "Still waiting: %s. Nothing has failed, but it has not happened in %s s; the "
                     "program is still running. `check` again looks again.",
                     failed != NULL ? failed : "the check's condition",
                     getenv("TUTOR_WAIT_SECONDS") != NULL ? getenv("TUTOR_WAIT_SECONDS") : "30");
        return;
    }
    render_text(&sh->render, RENDER_BAD, "Not yet. What the check looked at, in order:");
    if (show_conditions(sh, v, verbose) == 0)
        render_text(&sh->render, RENDER_BAD,
                    "  (this check names no conditions: it refuses what the lab shows now)");
    /* A fork refused inside a command substitution leaves no words to see:
     * a limit on tasks with little room left (or one the kernel counted)
     * is named, none otherwise. */
    char note[1024];
    if (lab_limits_note(NULL, EAGAIN, note, sizeof note) == 0)
        render_text(&sh->render, RENDER_NOTE, note);
}
