/* SPDX-License-Identifier: MIT */
/* lesson.h: the lesson model, and the parser of lesson files.
 *
 * A lesson is one AsciiDoc file in lessons/ written in the small subset that
 * docs/lesson-format.adoc documents: the shell renders it in the terminal and
 * asciidoctor renders the same file into the HTML handbook. This module is
 * pure: it knows nothing of the terminal or the lab.
 */
#ifndef PIDNS_TUTOR_LESSON_H
#define PIDNS_TUTOR_LESSON_H

#include <stddef.h>

enum lesson_block_type {
    LESSON_TEXT,     /* a paragraph (or list) of explanation */
    LESSON_CODE,     /* source code, resolved from an include:: of an example */
    LESSON_RUN,      /* a command line the step runs in the lab, output live */
    LESSON_EXPECT,   /* what the preceding RUN must print (a pattern, see below) */
    LESSON_PREDICT,  /* "predict, then run": a question before the next RUN */
    LESSON_EXERCISE, /* a task the learner does alone; `check` verifies it */
    LESSON_QUIZ,     /* a question with choices */
};

struct lesson_choice {
    char *text;
    int correct;
    char *explanation; /* why this choice is right or wrong */
};

struct lesson_hint {
    char *when; /* shell condition run in the lab (exit 0 = applies); NULL = always */
    char *text;
};

/* A wrong attempt at an exercise: a mistake a learner plausibly makes,
 * which the check must refuse (--auto runs it and proves it does). */
struct lesson_wrong {
    char *title;    /* what the mistake is, e.g. "the parent program's PID" */
    char *commands; /* the attempt, as the learner would type it */
    int line;       /* where its [.wrong] starts, for messages */
};

struct lesson_block {
    enum lesson_block_type type;
    int line; /* where it starts in the file, for messages */
    /* TEXT: the paragraph. CODE: the code. RUN: the command line. EXPECT: the
     * pattern. PREDICT: the question. EXERCISE: the task. QUIZ: the question. */
    char *text;
    /* CODE: "examples/pidns_init_sleep.c" and the tag; first_line is the
     * line number of the code's first line in that file. */
    char *source_path;
    char *source_tag;
    int first_line;
    /* RUN: 1 when the command keeps running (an example ending in sleep) and
     * is expected to go to the background. */
    int background;
    /* RUN (background only): the job's name, job=NAME: while the lesson
     * goes on, the variable NAME_pid holds its PID in the lab, as $! would.
     * NULL when unnamed. */
    char *job;
    /* EXPECT: 1 when the pattern's lines may appear in any order (written
     * [.expect.unordered]: for programs whose processes print concurrently). */
    int unordered;
    /* PREDICT: the answer the learner should give (compared normalized). */
    char *answer;
    /* EXERCISE: the check (a shell command run in the lab with LC_ALL=C;
     * exit 0 = done), the worked solution shown once it passes, and hints. */
    char *check;
    char *solution;
    struct lesson_hint *hints;
    size_t hint_count;
    /* EXERCISE with a [.program] listing: a coding exercise. program: the
     * learner's file as the lesson names it ("../exercises/01-two-pids/
     * two_pids.c"); program_path: the same, openable (resolved against the
     * lesson's directory). Beside it lie solution.c (the reference, which
     * stands in for the [.solution] listing) and the wrong programs
     * wrong-*.c, named in wrong_programs (sorted), each a plausible mistake the check
     * must refuse. */
    char *program;
    char *program_path;
    char **wrong_programs;
    size_t wrong_program_count;
    /* EXERCISE: wrong attempts ([.wrong] listings), each of which the
     * check must refuse, from the step's starting state. */
    struct lesson_wrong *wrongs;
    size_t wrong_count;
    /* QUIZ */
    struct lesson_choice *choices;
    size_t choice_count;
};

struct lesson_step {
    char *title;
    int line;
    char *kernel; /* [kernel=X.Y] before its title: the kernel it needs; NULL = the lesson's */
    struct lesson_block *blocks;
    size_t block_count;
};

struct lesson {
    char *path; /* the file it came from */
    char *id;   /* file name without .adoc, e.g. "01-new-namespace" */
    int number; /* the leading number of the file name */
    char *title;
    char *summary; /* one line, for the lesson list */
    char *kernel;  /* the kernel version it needs, e.g. "3.8"; NULL = any */
    int minutes;   /* expected time to finish */
    /* The steps: read with the header by lesson_parse_file and
     * lesson_load_dir; after lesson_load_headers, by lesson_read_body. */
    struct lesson_step *steps;
    size_t step_count;
    int body_read; /* 1 once the steps are read */
};

/* Parses one lesson file. include:: paths resolve relative to the file's
 * directory. Returns 0, or -1 with "FILE:LINE: what is wrong" in err. */
int lesson_parse_file(const char *path, struct lesson *out, char *err, size_t errlen);
/* The same from memory: name is used in messages and as the id; includes
 * resolve relative to base_dir. */
int lesson_parse_string(const char *text, const char *name, const char *base_dir,
                        struct lesson *out, char *err, size_t errlen);
void lesson_free(struct lesson *lesson);

/* Loads every NN-*.adoc in dir, sorted by number. Any malformed file is an
 * error (never skipped). Caller frees with lesson_free_all. */
int lesson_load_dir(const char *dir, struct lesson **lessons, size_t *count, char *err,
                    size_t errlen);
void lesson_free_all(struct lesson *lessons, size_t count);

/* The same, but reading each lesson's header only (title, summary, kernel,
 * minutes: what the list and the start need); the steps and the regions they
 * include are read by lesson_read_body when the lesson is needed. A file that
 * cannot be read or whose header is malformed, and two lessons with one
 * number, are errors here; a malformed body is lesson_read_body's error. */
int lesson_load_headers(const char *dir, struct lesson **lessons, size_t *count, char *err,
                        size_t errlen);
/* Reads the steps of a lesson loaded by lesson_load_headers (nothing to do
 * when they are read). Returns 0, or -1 with "FILE:LINE: what is wrong" in
 * err as lesson_parse_file says it; the lesson then keeps no steps, and the
 * next call reads the file again. */
int lesson_read_body(struct lesson *lesson, char *err, size_t errlen);

/* Compares a command's output with an EXPECT pattern: whole lines, with
 * leading and trailing blanks ignored and runs of blanks folded (so that
 * right-aligned columns of varying width match), trailing empty lines ignored; in the pattern, {N}
 * matches a number, {*} any text within a line, and a line "..." any number of lines. Returns 1 on
 * a match, 0 otherwise. */
int lesson_output_matches(const char *pattern, const char *output);

/* Compares output with an EXPECT block: lesson_output_matches, or for an
 * unordered block, every pattern line matches a different output line (any
 * order) and, unless the pattern has a "..." line, no output line is left. */
int lesson_block_output_matches(const struct lesson_block *expect, const char *output);

/* The output so far of a command that is still running, against an EXPECT
 * block: 1 it matches; 0 not yet, but more lines could make it match (its
 * whole lines match the first lines of the pattern); -1 never (a line
 * already differs), so waiting for more is pointless. */
int lesson_block_output_progress(const struct lesson_block *expect, const char *output);

/* Compares a learner's prediction with the expected answer: case, surrounding
 * blanks and runs of blanks ignored. Returns 1 on a match. */
int lesson_answer_matches(const char *expected, const char *given);

/* Which choice of a QUIZ block the learner's answer names: its number
 * (1..choice_count), or its text, whole or a prefix, case and blanks as in
 * lesson_answer_matches and the backticks of the choice ignored. A whole text
 * wins over a prefix. Returns the choice's number, 0 when none matches (or
 * the answer is empty), -1 when the answer starts several choices. */
int lesson_quiz_choice(const struct lesson_block *quiz, const char *given);

/* The tagged region TAG of a source text (named name in messages): the
 * lines between those holding `tag::TAG[]` and `end::TAG[]`, or with tag NULL
 * the whole text; lines holding any tag directive are left out, as
 * asciidoctor does. Returns 0 with a malloc'd *code and the 1-based line of
 * its first line (0 when empty), or -1 with the reason in why. The one
 * reader of tagged regions: lessons' includes and the `source` command. */
int lesson_include_text(const char *text, const char *name, const char *tag, char **code,
                        int *first_line, char *why, size_t whylen);

#endif
