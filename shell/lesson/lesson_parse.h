/* SPDX-License-Identifier: MIT */
/* lesson_parse.h: the line-level reader shared by lesson_parse.c (lines,
 * paragraphs, delimited blocks, attribute lists) and lesson_blocks.c (what
 * each role means). Internal to the lesson module.
 */
#ifndef PIDNS_TUTOR_LESSON_PARSE_H
#define PIDNS_TUTOR_LESSON_PARSE_H

#include <stddef.h>

#include "lesson/lesson.h"

/* The parser's state: the lines of one file and where we are. */
struct lp {
    const char *name;     /* the file, for messages */
    const char *base_dir; /* where include:: targets resolve */
    char **lines;
    size_t count;
    size_t pos;   /* index of the next line to read */
    size_t limit; /* end of the region being read (a compound block's inside) */
    char *err;
    size_t errlen;
    int failed;
};

#define LP_MAX_ROLES 4
/* One "[...]" block attribute line. */
struct lp_attrs {
    int is_source;
    char lang[32];
    char roles[LP_MAX_ROLES][24]; /* roles[0] is the role, the rest modifiers */
    size_t role_count;
    char *when;   /* malloc'd, hint only */
    char job[24]; /* job=NAME, [.run.background] only; "" when none */
};

/* Records "NAME:LINE: what" (index is 0-based) once; returns -1. */
int lp_fail(struct lp *p, size_t index, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int lp_oom(struct lp *p);
const char *lp_line(const struct lp *p, size_t index);
int lp_is_blank(const char *line);
int lp_is_delimiter(const char *line);
int lp_is_attribute_line(const char *line);
int lp_skip_ignorable(struct lp *p);
int lp_append(char **dst, const char *sep, const char *text);
int lp_read_paragraph(struct lp *p, char **text, int stop_at_choice);
int lp_read_delimited(struct lp *p, const char *delim, const char *what, char **text,
                      size_t *content_start, size_t *content_end);
int lp_parse_attrs(struct lp *p, size_t at, struct lp_attrs *a);
int lp_check_modifiers(struct lp *p, size_t at, const struct lp_attrs *a, const char *allowed);

/* lesson_program.c: checks an exercise's [.program] (b->program, read) and
 * fills program_path and wrong; -1 with the message in p. */
int lp_program_resolve(struct lp *p, size_t at, struct lesson_block *b);
/* Reads the ---- listing of role [.ROLE] at `at` into *text, once per
 * exercise (a second one, or an empty one, is an error). */
int lp_listing_once(struct lp *p, size_t at, const char *role, char **text);

/* "[kernel=X.Y]" right before a step's title: the step needs that kernel,
 * newer than the lesson's own (lesson_kernel, or NULL). Sets *kernel
 * (malloc'd) and moves past the line. 0, or -1 with the error set. */
int lp_step_kernel(struct lp *p, const char *lesson_kernel, char **kernel);
/* A block title line: ".Title" (not "..." or ". item"). */
int lp_is_block_title(const char *line);
/* The wrong attempt whose title line is at p->pos, added to b->wrongs
 * (lesson_wrong.c). */
int lp_wrong_attempt(struct lp *p, struct lesson_block *b);

/* lesson_blocks.c: the body of a lesson (steps and their blocks). */
int lp_parse_body(struct lp *p, struct lesson *out);

#endif
