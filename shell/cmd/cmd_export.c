/* SPDX-License-Identifier: MIT */
/* cmd_export.c: `export LESSON [FILE]`, a lesson as a shell script that runs
 * by hand outside the tutorial and checks as it goes: the copy-paste
 * reference, and a test of the lesson on any machine.
 *
 * The script (sh FILE, as root or not) starts itself again in PID, mount and,
 * when not root, user namespaces of its own, so that the lesson's pgrep,
 * pidof and kill meet only what the script started; it runs each step's
 * commands, compares their output with the lesson's patterns, runs each
 * exercise's worked solution and check, and exits 0 when the lesson holds,
 * or 1 naming the first step that does not. The code every script shares is
 * in export_runtime.sh.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "cmd/export_runtime.h"
#include "lesson/lesson.h"
#include "tutor/tutor.h"
#include "tutor/tutor_cursor.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef PIDNS_TUTOR_LIBEXECDIR
#define PIDNS_TUTOR_LIBEXECDIR "/usr/local/libexec/pidns-tutor"
#endif

/* Text as "# " comment lines wrapped to 72 columns. */
static void put_comment(FILE *f, const char *text)
{
    char *wrapped = render_wrap(text, 70, 0);
    const char *s = wrapped != NULL ? wrapped : text;

    while (*s != '\0') {
        size_t len = strcspn(s, "\n");
        fprintf(f, len > 0 ? "# %.*s\n" : "#\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
    free(wrapped);
}

/* Text as one sh word in single quotes. */
static void put_quoted(FILE *f, const char *text)
{
    fputc('\'', f);
    for (const char *s = text; *s != '\0'; s++)
        fputs(*s == '\'' ? "'\\''" : (char[]){*s, '\0'}, f);
    fputc('\'', f);
}

/* A here-document holding text: its end marker is a line the text does not
 * hold. */
static void put_here_document_as(FILE *f, const char *text, const char *base)
{
    char marker[32];
    snprintf(marker, sizeof marker, "%s", base);
    for (int n = 1; n < 1000; n++) {
        size_t len = strlen(marker);
        const char *at = text;
        while ((at = strstr(at, marker)) != NULL &&
               !((at == text || at[-1] == '\n') && (at[len] == '\n' || at[len] == '\0')))
            at++;
        if (at == NULL)
            break;
        snprintf(marker, sizeof marker, "%s_%d", base, n);
    }
    size_t len = strlen(text);
    fprintf(f, "<<'%s'\n%s%s%s\n", marker, text, len > 0 && text[len - 1] != '\n' ? "\n" : "",
            marker);
}

static void put_here_document(FILE *f, const char *text)
{
    put_here_document_as(f, text, "EXPECTED");
}

/* A command of the lesson, in a subshell of its own (the tutorial runs each
 * with sh -c), its output kept as the numbered file for the comparison. */
static void put_command(FILE *f, const char *command, int index, int background)
{
    size_t len = strlen(command);
    if (background) { /* its command line, for $TUTOR_JOBS if it stays running */
        fprintf(f, "cat >\"$lab_dir/cmd.%d\" ", index);
        put_here_document_as(f, command, "COMMAND");
    }
    fprintf(f, "(\n%s%s) >\"$lab_dir/%d\" 2>&1%s\n", command,
            len > 0 && command[len - 1] != '\n' ? "\n" : "", index, background ? " &" : "");
}

/* A RUN, and the EXPECT after it if there is one (then *skip is set). */
static void put_run(FILE *f, const struct lesson_block *b, const struct lesson_block *next,
                    int index, int *skip)
{
    const char *mode = NULL;
    if (next != NULL && next->type == LESSON_EXPECT) {
        mode = next->unordered ? "unordered" : "ordered";
        *skip = 1;
    }
    put_command(f, b->text, index, b->background);
    if (b->background) {
        /* A named job's PID, as the tutorial keeps it (job=NAME: NAME_pid). */
        if (b->job != NULL)
            fprintf(f, "%s_pid=$!\n", b->job);
        fprintf(f, "lab_started $! %d %s ", index, mode != NULL ? mode : "none");
        if (mode != NULL)
            put_here_document(f, next->text);
        else
            fputs("</dev/null\n", f);
        return;
    }
    fprintf(f, "lab_ran $? %d%s\n", index, mode != NULL ? " expect" : "");
    if (mode != NULL) {
        fprintf(f, "lab_expect %s ", mode);
        put_here_document(f, next->text);
    }
}

static void put_exercise(FILE *f, const struct lesson_block *b, int index)
{
    fprintf(f, "# Exercise:\n");
    put_comment(f, b->text);
    if (b->program != NULL) {
        /* The learner writes the C: nothing for a script to run. */
        fprintf(f,
                "# A coding exercise: write %s (the reference is solution.c beside it),\n"
                "# build it, and run the tutorial's `check`; this script does not.\n",
                b->program);
        return;
    }
    if (b->solution != NULL) {
        fprintf(f, "# A worked solution, left running if it keeps running:\n");
        put_command(f, b->solution, index, 1);
        fprintf(f, "lab_started $! %d solution </dev/null\n", index);
    }
    if (b->check != NULL) {
        size_t len = strlen(b->check);
        fprintf(f,
                "# The check: it succeeds once the exercise is done.\nlab_check() {\n%s%s}\n"
                "lab_checked\n",
                b->check, len > 0 && b->check[len - 1] != '\n' ? "\n" : "");
    }
}

/* Writes one block; returns 1 when it also wrote the next one. */
static int put_block(FILE *f, const struct lesson_block *b, const struct lesson_block *next,
                     int *commands)
{
    int skip = 0;

    switch (b->type) {
    case LESSON_TEXT:
        put_comment(f, b->text);
        break;
    case LESSON_PREDICT:
        fprintf(f, "# Predict, before it runs:\n");
        put_comment(f, b->text);
        if (b->answer != NULL)
            fprintf(f, "# (The answer: %s.)\n", b->answer);
        break;
    case LESSON_QUIZ:
        put_comment(f, b->text);
        for (size_t i = 0; i < b->choice_count; i++)
            fprintf(f, "#   [%c] %s\n", b->choices[i].correct ? 'x' : ' ', b->choices[i].text);
        break;
    case LESSON_CODE:
        fprintf(f, "# (code: %s%s%s)\n", b->source_path != NULL ? b->source_path : "",
                b->source_tag != NULL ? ", tag " : "", b->source_tag != NULL ? b->source_tag : "");
        break;
    case LESSON_RUN:
        put_run(f, b, next, ++*commands, &skip);
        break;
    case LESSON_EXPECT: /* after something else than a RUN: the tutorial fails it too */
        fprintf(f, "lab_expect %s ", b->unordered ? "unordered" : "ordered");
        put_here_document(f, b->text);
        break;
    case LESSON_EXERCISE:
        put_exercise(f, b, ++*commands);
        break;
    }
    return skip;
}

/* Does a program's name appear as a word of the text? */
static int mentions(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *at = text; text != NULL && (at = strstr(at, name)) != NULL; at++) {
        int before = at > text && (isalnum((unsigned char)at[-1]) || strchr("_./-", at[-1]));
        int after = isalnum((unsigned char)at[len]) || at[len] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

static int lesson_uses(const struct lesson *l, const char *program)
{
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t i = 0; i < l->steps[s].block_count; i++) {
            const struct lesson_block *b = &l->steps[s].blocks[i];
            if ((b->type == LESSON_RUN && mentions(b->text, program)) ||
                (b->type == LESSON_EXERCISE &&
                 (mentions(b->solution, program) || mentions(b->check, program))))
                return 1;
        }
    return 0;
}

/* Where this tutor found its example programs, as an absolute path (empty
 * when it cannot tell): the script's fallback, so that one exported from a
 * build tree runs as the tutor says, from any directory of this machine. */
static void put_examples_dir(FILE *f, const struct shell *sh)
{
    char *dir = realpath(sh->dirs.examples, NULL);

    fputs("lab_examples=", f);
    put_quoted(f, dir != NULL ? dir : "");
    fputc('\n', f);
    free(dir);
}

/* The script's own settings: its name for messages, the lesson, the example
 * programs it needs, where an installed tutorial keeps them and where this
 * tutor found them. */
static void put_settings(FILE *f, const struct shell *sh, const struct lesson *l)
{
    char **names = shell_example_names(sh);
    const char *sep = "";

    fprintf(f, "lab_name=\"${0##*/}\"\nlab_lesson=%d\nlab_programs='", l->number);
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        if (lesson_uses(l, names[i])) {
            fprintf(f, "%s%s", sep, names[i]);
            sep = " ";
        }
        free(names[i]);
    }
    free(names);
    fprintf(f, "'\nlab_libexecdir=");
    put_quoted(f, PIDNS_TUTOR_LIBEXECDIR);
    fputc('\n', f);
    put_examples_dir(f, sh);
}

static void put_script(FILE *f, const struct shell *sh, const struct lesson *l)
{
    int commands = 0;

    /* The script is made of the lesson's text: it carries the lesson's licence. */
    fprintf(f, "#!/bin/sh\n# SPDX-License-Identifier: MIT\n# Lesson %d: %s\n", l->number, l->title);
    fprintf(f, "# Exported by pidns-tutor from the lesson %s.\n#\n", l->id);
    put_comment(f, "Run it with: sh THIS_FILE (as root, or as yourself where unprivileged user "
                   "namespaces are allowed). It runs the lesson's commands in namespaces of its "
                   "own, which the kernel removes when it ends: a PID namespace, so pgrep, pidof, "
                   "ps and kill see only what it started, and a mount namespace whose root is a "
                   "tmpfs with the machine's directories bound in, so /procN and the files it "
                   "makes at / exist only for it. Where the lesson speaks of the lab, that is "
                   "these namespaces, and its lab-runner is the script's own first process, "
                   "which runs each command line; what it says the tutorial's commands do "
                   "(check, cleanup) the script does itself. After each command it compares the "
                   "output with the "
                   "lesson's, runs each exercise's worked solution and check, and exits 0 when "
                   "the lesson holds on this machine, or 1 naming the first step that does not. "
                   "It finds the example programs in $PIDNS_TUTOR_EXAMPLES, else beside the "
                   "pidns-tutor on your PATH, else where the tutor that wrote it found them "
                   "(lab_examples below), else where the tutorial is installed.");
    fputc('\n', f);
    put_settings(f, sh, l);
    fputs(export_runtime, f);
    for (size_t s = 0; s < l->step_count; s++) {
        const struct lesson_step *step = &l->steps[s];
        fprintf(f, "\n# --- Step %zu: %s\nlab_step %zu ", s + 1, step->title, s + 1);
        put_quoted(f, step->title != NULL ? step->title : "");
        fputc('\n', f);
        if (step->kernel != NULL)
            fprintf(f, "if lab_kernel %s; then\n:\n", step->kernel); /* a step may run nothing */
        for (size_t b = 0; b < step->block_count; b++) {
            const struct lesson_block *next =
                b + 1 < step->block_count ? &step->blocks[b + 1] : NULL;
            b += (size_t)put_block(f, &step->blocks[b], next, &commands);
        }
        if (step->kernel != NULL)
            fputs("fi\n", f);
    }
    fprintf(
        f,
        "\necho\ncase ${lab_skipped:-0} in\n"
        "0) echo \"Lesson %d holds on this machine: every step as the lesson says.\" ;;\n"
        "%zu) echo \"Lesson %d: every step needs a newer kernel than $(uname -r); none ran.\" ;;\n"
        "*) echo \"Lesson %d holds on this machine: every step this kernel has, as the lesson "
        "says ($lab_skipped skipped: the kernel is too old for them).\" ;;\n"
        "esac\nexit 0\n",
        l->number, l->step_count, l->number, l->number);
}

int cmd_export(struct shell *sh, int argc, char **argv)
{
    int index = tutor_find_lesson(sh, argv[1]);
    if (index < 0) {
        shell_error(sh, "no lesson '%s': type `lessons` for the list", argv[1]);
        return SHELL_ERROR;
    }
    if (tutor_read_lesson(sh, index) == -1)
        return SHELL_ERROR;
    if (argc == 2) {
        fflush(sh->render.out);
        put_script(sh->render.out, sh, &sh->lessons[index]);
        return SHELL_OK;
    }
    FILE *f = fopen(argv[2], "wx");
    if (f == NULL) {
        shell_error(sh, "export: cannot create %s: %s%s", argv[2], strerror(errno),
                    errno == EEXIST ? " (choose another name)" : "");
        return SHELL_ERROR;
    }
    put_script(f, sh, &sh->lessons[index]);
    if (fclose(f) != 0) {
        shell_error(sh, "export: writing %s: %s", argv[2], strerror(errno));
        return SHELL_ERROR;
    }
    progress_own(&sh->progress, argv[2]);
    render_textf(&sh->render, RENDER_GOOD,
                 "Wrote lesson %d to %s (run it with: sh %s; as root, or as yourself where "
                 "user namespaces are allowed).",
                 sh->lessons[index].number, argv[2], argv[2]);
    return SHELL_OK;
}
