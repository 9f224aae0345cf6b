/* SPDX-License-Identifier: MIT */
/* lesson_blocks.c: the body of a lesson: `== ` steps and the blocks in them.
 *
 * Each role has one reader here. The readers enforce what makes a block
 * usable by the tutorial (an exercise has a check and a solution, a quiz has
 * exactly one right answer and an explanation for every choice, an expect
 * follows the run it describes...), so that a lesson that loads is a lesson
 * that can be taken, and `--auto` can run it.
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"
#include "lesson/lesson_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct lesson_block *lb_add(struct lp *p, struct lesson_step *step,
                                   enum lesson_block_type type, size_t at)
{
    struct lesson_block *bigger =
        realloc(step->blocks, (step->block_count + 1) * sizeof(*step->blocks));
    if (!bigger) {
        lp_oom(p);
        return NULL;
    }
    step->blocks = bigger;
    struct lesson_block *b = &step->blocks[step->block_count++];
    memset(b, 0, sizeof(*b));
    b->type = type;
    b->line = (int)at + 1;
    return b;
}

/* "include::TARGET[tag=NAME]" -> target and tag (malloc'd). */
static int lb_parse_include(struct lp *p, size_t at, char **target, char **tag)
{
    const char *line = lp_line(p, at);
    const char *open = strchr(line, '[');
    size_t n = strlen(line);
    *target = *tag = NULL;
    if (strncmp(line, "include::", 9) != 0 || !open || open == line + 9 || line[n - 1] != ']' ||
        strncmp(open, "[tag=", 5) != 0 || open + 5 >= line + n - 1)
        return lp_fail(p, at,
                       "a [source] listing holds exactly one line "
                       "include::PATH[tag=NAME] (code comes from the example files)");
    for (const char *c = open + 5; c < line + n - 1; c++)
        if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
            return lp_fail(p, at,
                           "tag names are letters, digits, '-' and '_' (one tag per include)");
    *target = strndup(line + 9, (size_t)(open - line - 9));
    *tag = strndup(open + 5, (size_t)(line + n - 1 - (open + 5)));
    if (!*target || !*tag)
        return lp_oom(p);
    return 0;
}

static int lb_source(struct lp *p, struct lesson_step *step, size_t at)
{
    char *content, *target = NULL, *tag = NULL, *code = NULL, why[512];
    size_t cs, ce;
    int first = 0, rc = -1;
    if (lp_read_delimited(p, "----", "a [source] listing", &content, &cs, &ce) == -1)
        return -1;
    free(content);
    if (ce - cs != 1) {
        lp_fail(p, at,
                "a [source] listing holds exactly one include:: line "
                "(code comes from the example files)");
        return -1;
    }
    if (lb_parse_include(p, cs, &target, &tag) == -1)
        goto out;
    if (lesson_include_region(p->base_dir, target, tag, &code, &first, why, sizeof(why)) == -1) {
        lp_fail(p, cs, "include::%s[tag=%s]: %s", target, tag, why);
        goto out;
    }
    struct lesson_block *b = lb_add(p, step, LESSON_CODE, at);
    if (!b)
        goto out;
    b->text = code;
    b->source_path = lesson_display_path(p->base_dir, target);
    b->source_tag = tag;
    b->first_line = first;
    code = tag = NULL;
    rc = b->source_path ? 0 : lp_oom(p);
out:
    free(target);
    free(tag);
    free(code);
    return rc;
}

static int lb_run(struct lp *p, struct lesson_step *step, size_t at, const struct lp_attrs *a)
{
    char *content;
    size_t cs, ce;
    if (lp_read_delimited(p, "----", "a [.run] listing", &content, &cs, &ce) == -1)
        return -1;
    if (ce - cs != 1 || lp_is_blank(content)) {
        free(content);
        return lp_fail(p, at,
                       "a [.run] listing holds exactly one command line "
                       "(use one [.run] block per command)");
    }
    struct lesson_block *b = lb_add(p, step, LESSON_RUN, at);
    if (!b) {
        free(content);
        return -1;
    }
    b->text = content;
    b->background = a->role_count > 1;
    if (a->job[0] && !(b->job = strdup(a->job)))
        return lp_oom(p);
    return 0;
}

static int lb_expect(struct lp *p, struct lesson_step *step, size_t at, const struct lp_attrs *a)
{
    char *content;
    size_t cs, ce;
    if (step->block_count == 0 || step->blocks[step->block_count - 1].type != LESSON_RUN)
        return lp_fail(p, at,
                       "an [.expect] block must directly follow the [.run] block "
                       "whose output it describes");
    if (lp_read_delimited(p, "....", "an [.expect] literal", &content, &cs, &ce) == -1)
        return -1;
    if (!content && !(content = strdup("")))
        return lp_oom(p);
    struct lesson_block *b = lb_add(p, step, LESSON_EXPECT, at);
    if (!b) {
        free(content);
        return -1;
    }
    b->text = content;
    b->unordered = a->role_count > 1;
    return 0;
}

/* Finds the inside [cs, ce) of the "====" block opening at p->pos. */
static int lb_compound(struct lp *p, const char *what, size_t *cs, size_t *ce)
{
    char *content;
    if (lp_read_delimited(p, "====", what, &content, cs, ce) == -1)
        return -1;
    free(content);
    return 0;
}

/* Reads "[.role]" + paragraph inside a compound block into *text. */
static int lb_role_paragraph(struct lp *p, size_t at, const char *role, char **text)
{
    if (*text && strcmp(role, "hint") != 0)
        return lp_fail(p, at, "a second [.%s] in the same block", role);
    while (p->pos < p->limit && lp_is_blank(lp_line(p, p->pos)))
        p->pos++;
    if (p->pos >= p->limit || lp_is_attribute_line(lp_line(p, p->pos)) ||
        lp_is_delimiter(lp_line(p, p->pos)))
        return lp_fail(p, at, "[.%s] must be followed by its paragraph", role);
    return lp_read_paragraph(p, text, 0);
}

static int lb_add_hint(struct lp *p, struct lesson_block *b, size_t at, struct lp_attrs *a)
{
    char *text = NULL;
    if (lb_role_paragraph(p, at, "hint", &text) == -1) {
        free(text);
        return -1;
    }
    struct lesson_hint *bigger = realloc(b->hints, (b->hint_count + 1) * sizeof(*b->hints));
    if (!bigger) {
        free(text);
        return lp_oom(p);
    }
    b->hints = bigger;
    b->hints[b->hint_count].text = text;
    b->hints[b->hint_count].when = a->when;
    a->when = NULL;
    b->hint_count++;
    return 0;
}

/* A paragraph of a compound block's text (its task or question), added to
 * what it already has; stop_at_choice as for lp_read_paragraph. */
static int lb_text_paragraph(struct lp *p, struct lesson_block *b, int stop_at_choice)
{
    char *para = NULL;
    int rc = lp_read_paragraph(p, &para, stop_at_choice);
    if (rc == 0 && para && lp_append(&b->text, "\n\n", para) == -1)
        rc = lp_oom(p);
    free(para);
    return rc;
}

/* One item inside an exercise: task paragraph, [.check], [.solution], [.hint]. */
static int lb_exercise_item(struct lp *p, struct lesson_block *b)
{
    size_t at = p->pos;
    const char *line = lp_line(p, at);
    if (lp_is_block_title(line))
        return lp_wrong_attempt(p, b);
    if (!lp_is_attribute_line(line)) {
        if (lp_is_delimiter(line))
            return lp_fail(p, at,
                           "a delimited block inside an exercise needs a role: "
                           "[.check], [.solution] or [.wrong]");
        return lb_text_paragraph(p, b, 0);
    }
    struct lp_attrs a;
    p->pos++;
    int rc = lp_parse_attrs(p, at, &a);
    if (rc == 0 && (a.is_source || a.role_count == 0))
        rc = lp_fail(p, at,
                     "inside an exercise only [.check], [.solution], [.program], [.hint] and "
                     "[.wrong] may "
                     "appear");
    if (rc == 0)
        rc = lp_check_modifiers(p, at, &a, NULL);
    if (rc == 0 && strcmp(a.roles[0], "check") == 0)
        rc = lp_listing_once(p, at, "check", &b->check);
    else if (rc == 0 && strcmp(a.roles[0], "solution") == 0)
        rc = lp_listing_once(p, at, "solution", &b->solution);
    else if (rc == 0 && strcmp(a.roles[0], "program") == 0)
        rc = lp_listing_once(p, at, "program", &b->program) ?: lp_program_resolve(p, at, b);
    else if (rc == 0 && strcmp(a.roles[0], "hint") == 0)
        rc = lb_add_hint(p, b, at, &a);
    else if (rc == 0 && strcmp(a.roles[0], "wrong") == 0)
        rc = lp_fail(p, at,
                     "a [.wrong] attempt needs a title line right above it, saying what the "
                     "mistake is (e.g. '.the parent program's PID')");
    else if (rc == 0)
        rc = lp_fail(p, at,
                     "unknown role '.%s' inside an exercise (known: check, solution, program, "
                     "hint, wrong)",
                     a.roles[0]);
    free(a.when);
    return rc;
}

/* Parses the inside [cs, ce) of a compound block with item(), then restores. */
static int lb_inside(struct lp *p, size_t cs, size_t ce, struct lesson_block *b,
                     int (*item)(struct lp *, struct lesson_block *))
{
    size_t after = p->pos, limit = p->limit;
    int rc = 0;
    p->pos = cs;
    p->limit = ce;
    while (rc == 0 && p->pos < p->limit) {
        int skipped = lp_skip_ignorable(p);
        if (skipped < 0)
            rc = -1;
        else if (!skipped)
            rc = item(p, b);
    }
    p->pos = after;
    p->limit = limit;
    return rc;
}

/* A compound block ([.exercise], [.predict], [.quiz]) of the given type:
 * added to the step and filled item by item. NULL on error (said in p). */
static struct lesson_block *lb_compound_block(struct lp *p, struct lesson_step *step, size_t at,
                                              const char *what, enum lesson_block_type type,
                                              int (*item)(struct lp *, struct lesson_block *))
{
    size_t cs, ce;
    if (lb_compound(p, what, &cs, &ce) == -1)
        return NULL;
    struct lesson_block *b = lb_add(p, step, type, at);
    if (!b || lb_inside(p, cs, ce, b, item) == -1)
        return NULL;
    return b;
}

static int lb_exercise(struct lp *p, struct lesson_step *step, size_t at)
{
    struct lesson_block *b =
        lb_compound_block(p, step, at, "an [.exercise] block", LESSON_EXERCISE, lb_exercise_item);
    if (!b)
        return -1;
    if (!b->text)
        return lp_fail(p, at, "the exercise has no task: write what to do as a paragraph");
    if (!b->check)
        return lp_fail(p, at,
                       "the exercise has no [.check] listing (a shell command; exit 0 = done)");
    if (b->program && b->solution)
        return lp_fail(p, at,
                       "a coding exercise ([.program]) has no [.solution] listing: its solution.c "
                       "is the reference");
    if (!b->solution && !b->program)
        return lp_fail(p, at,
                       "the exercise has no [.solution] listing (the commands that solve it)");
    return 0;
}

static int lb_predict_item(struct lp *p, struct lesson_block *b)
{
    size_t at = p->pos;
    const char *line = lp_line(p, at);
    if (!lp_is_attribute_line(line)) {
        if (lp_is_delimiter(line))
            return lp_fail(p, at,
                           "no delimited blocks inside a [.predict]: a question and an "
                           "[.answer] paragraph");
        if (b->answer)
            return lp_fail(p, at, "text after the [.answer] paragraph: put the question first");
        return lb_text_paragraph(p, b, 0);
    }
    struct lp_attrs a;
    p->pos++;
    int rc = lp_parse_attrs(p, at, &a);
    if (rc == 0 && (a.is_source || strcmp(a.roles[0], "answer") != 0))
        rc = lp_fail(p, at, "inside a [.predict] only an [.answer] paragraph may appear");
    if (rc == 0)
        rc = lp_check_modifiers(p, at, &a, NULL);
    if (rc == 0)
        rc = lb_role_paragraph(p, at, "answer", &b->answer);
    free(a.when);
    return rc;
}

static int lb_predict(struct lp *p, struct lesson_step *step, size_t at)
{
    struct lesson_block *b =
        lb_compound_block(p, step, at, "a [.predict] block", LESSON_PREDICT, lb_predict_item);
    if (!b)
        return -1;
    if (!b->text)
        return lp_fail(p, at, "the [.predict] block has no question");
    if (!b->answer)
        return lp_fail(p, at, "the [.predict] block has no [.answer] paragraph");
    return 0;
}

/* A choice: "* [x] text" or "* [ ] text", more text lines, then a "+" line
 * and the explanation paragraph (asciidoctor's list continuation). */
static int lb_choice(struct lp *p, struct lesson_block *b)
{
    size_t at = p->pos;
    const char *line = lp_line(p, at);
    int correct = !strncmp(line, "* [x] ", 6);
    if (!correct && strncmp(line, "* [ ] ", 6) != 0)
        return lp_fail(p, at,
                       "after the question, a quiz holds only choices: '* [x] right' or "
                       "'* [ ] wrong'");
    struct lesson_choice *bigger = realloc(b->choices, (b->choice_count + 1) * sizeof(*b->choices));
    if (!bigger)
        return lp_oom(p);
    b->choices = bigger;
    struct lesson_choice *c = &b->choices[b->choice_count++];
    memset(c, 0, sizeof(*c));
    c->correct = correct;
    if (lp_append(&c->text, " ", line + 6) == -1)
        return lp_oom(p);
    for (p->pos++; p->pos < p->limit; p->pos++) {
        line = lp_line(p, p->pos);
        if (lp_is_blank(line) || !strcmp(line, "+") || !strncmp(line, "* [", 3))
            break;
        if (lp_append(&c->text, " ", line) == -1)
            return lp_oom(p);
    }
    if (p->pos >= p->limit || strcmp(lp_line(p, p->pos), "+") != 0)
        return lp_fail(p, at,
                       "the choice has no explanation: add a '+' line, then a paragraph "
                       "saying why it is right or wrong");
    for (p->pos++; p->pos < p->limit; p->pos++) {
        line = lp_line(p, p->pos);
        if (lp_is_blank(line) || !strncmp(line, "* [", 3))
            break;
        if (lp_is_delimiter(line) || lp_is_attribute_line(line))
            return lp_fail(p, p->pos, "a choice's explanation is one paragraph");
        if (lp_append(&c->explanation, " ", line) == -1)
            return lp_oom(p);
    }
    if (!c->explanation)
        return lp_fail(p, at, "the choice's explanation after '+' is empty");
    return 0;
}

static int lb_quiz_item(struct lp *p, struct lesson_block *b)
{
    const char *line = lp_line(p, p->pos);
    if (b->choice_count > 0 || !strncmp(line, "* [", 3))
        return lb_choice(p, b);
    if (lp_is_attribute_line(line) || lp_is_delimiter(line))
        return lp_fail(p, p->pos, "a quiz holds a question and choices, no other blocks");
    return lb_text_paragraph(p, b, 1);
}

static int lb_quiz(struct lp *p, struct lesson_step *step, size_t at)
{
    struct lesson_block *b =
        lb_compound_block(p, step, at, "a [.quiz] block", LESSON_QUIZ, lb_quiz_item);
    if (!b)
        return -1;
    size_t right = 0;
    for (size_t i = 0; i < b->choice_count; i++)
        right += b->choices[i].correct != 0;
    if (!b->text)
        return lp_fail(p, at, "the quiz has no question");
    if (b->choice_count < 2)
        return lp_fail(p, at, "a quiz needs at least two choices ('* [x] ...' and '* [ ] ...')");
    if (right == 0)
        return lp_fail(p, at, "the quiz has no right answer: mark it '* [x] ...'");
    if (right > 1)
        return lp_fail(p, at, "the quiz marks %zu choices right: mark exactly one '* [x]'", right);
    return 0;
}

static int lb_block(struct lp *p, struct lesson_step *step)
{
    size_t at = p->pos++;
    struct lp_attrs a;
    int rc = lp_parse_attrs(p, at, &a);
    const char *role = a.roles[0];
    if (rc == 0 && a.is_source)
        rc = lb_source(p, step, at);
    else if (rc == 0 && !strcmp(role, "run"))
        rc = lp_check_modifiers(p, at, &a, "background") ?: lb_run(p, step, at, &a);
    else if (rc == 0 && !strcmp(role, "expect"))
        rc = lp_check_modifiers(p, at, &a, "unordered") ?: lb_expect(p, step, at, &a);
    else if (rc == 0 && !strcmp(role, "predict"))
        rc = lp_check_modifiers(p, at, &a, NULL) ?: lb_predict(p, step, at);
    else if (rc == 0 && !strcmp(role, "exercise"))
        rc = lp_check_modifiers(p, at, &a, NULL) ?: lb_exercise(p, step, at);
    else if (rc == 0 && !strcmp(role, "quiz"))
        rc = lp_check_modifiers(p, at, &a, NULL) ?: lb_quiz(p, step, at);
    else if (rc == 0 && (!strcmp(role, "check") || !strcmp(role, "solution") ||
                         !strcmp(role, "hint") || !strcmp(role, "wrong")))
        rc = lp_fail(p, at, "[.%s] belongs inside an [.exercise] block", role);
    else if (rc == 0 && !strcmp(role, "answer"))
        rc = lp_fail(p, at, "[.answer] belongs inside a [.predict] block");
    else if (rc == 0)
        rc = lp_fail(p, at,
                     "unknown role '.%s' (known: run, expect, predict, exercise, quiz; "
                     "see docs/lesson-format.adoc)",
                     role);
    free(a.when);
    return rc;
}

/* A step is complete: every predict is answered by a later run. */
static int lb_close_step(struct lp *p, const struct lesson_step *step)
{
    if (!step)
        return 0;
    if (step->block_count == 0)
        return lp_fail(p, (size_t)step->line - 1, "the step '%s' is empty", step->title);
    for (size_t i = 0; i < step->block_count; i++) {
        if (step->blocks[i].type != LESSON_PREDICT)
            continue;
        size_t j = i + 1;
        while (j < step->block_count &&
               (step->blocks[j].type == LESSON_TEXT || step->blocks[j].type == LESSON_CODE))
            j++;
        if (j == step->block_count || step->blocks[j].type != LESSON_RUN)
            return lp_fail(p, (size_t)step->blocks[i].line - 1,
                           "a [.predict] must be followed by the [.run] whose output it "
                           "predicts, in the same step");
    }
    return 0;
}

static struct lesson_step *lb_new_step(struct lp *p, struct lesson *out)
{
    const char *title = lp_line(p, p->pos) + 3;
    while (*title == ' ')
        title++;
    if (!*title) {
        lp_fail(p, p->pos, "a step needs a title after '== '");
        return NULL;
    }
    struct lesson_step *bigger = realloc(out->steps, (out->step_count + 1) * sizeof(*out->steps));
    if (!bigger) {
        lp_oom(p);
        return NULL;
    }
    out->steps = bigger;
    struct lesson_step *step = &out->steps[out->step_count++];
    memset(step, 0, sizeof(*step));
    step->line = (int)p->pos + 1;
    step->title = strdup(title);
    p->pos++;
    if (!step->title) {
        lp_oom(p);
        return NULL;
    }
    return step;
}

static int lb_text(struct lp *p, struct lesson_step *step)
{
    size_t at = p->pos;
    char *para = NULL;
    if (lp_read_paragraph(p, &para, 0) == -1) {
        free(para);
        return -1;
    }
    if (!para) /* only comment lines */
        return 0;
    struct lesson_block *b = lb_add(p, step, LESSON_TEXT, at);
    if (!b) {
        free(para);
        return -1;
    }
    b->text = para;
    return 0;
}

/* The body: `== Title` steps holding paragraphs and role blocks. */
int lp_parse_body(struct lp *p, struct lesson *out)
{
    struct lesson_step *step = NULL;
    char *kernel = NULL; /* a [kernel=X.Y] line waiting for its step */
    while (p->pos < p->limit) {
        int skipped = lp_skip_ignorable(p);
        if (skipped < 0)
            return -1;
        if (skipped)
            continue;
        size_t at = p->pos;
        const char *line = lp_line(p, at);
        if (!strncmp(line, "[kernel=", 8) && line[strlen(line) - 1] == ']') {
            if (lp_step_kernel(p, out->kernel, &kernel) == -1)
                return -1;
            continue;
        }
        if (!strncmp(line, "== ", 3)) {
            if (lb_close_step(p, step) == -1 || !(step = lb_new_step(p, out))) {
                free(kernel);
                return -1;
            }
            /* A step needs what its lesson needs, or more ([kernel=X.Y]):
             * on an older kernel it is shown and skipped, not run to fail. */
            if (kernel == NULL && out->kernel != NULL && !(kernel = strdup(out->kernel)))
                return lp_oom(p);
            step->kernel = kernel;
            kernel = NULL;
            continue;
        }
        if (line[0] == '=')
            return lp_fail(p, at, "only '== Title' step sections are allowed after the title");
        if (!step)
            return lp_fail(p, at, "text before the first step: start a step with '== Title'");
        int rc;
        if (lp_is_attribute_line(line))
            rc = lb_block(p, step);
        else if (lp_is_delimiter(line))
            rc = lp_fail(p, at,
                         "a delimited block needs a role line before it, such as [.run] "
                         "(see docs/lesson-format.adoc)");
        else if (line[0] == ':')
            rc = lp_fail(p, at,
                         "document attributes (:name: value) belong in the header, "
                         "right under the title");
        else if (lp_is_block_title(line))
            rc = lp_fail(p, at,
                         "block titles ('.Title') are not part of the lesson format, but to "
                         "name a [.wrong] attempt inside an [.exercise]");
        else
            rc = lb_text(p, step);
        if (rc == -1)
            return -1;
    }
    if (lb_close_step(p, step) == -1)
        return -1;
    if (out->step_count == 0)
        return lp_fail(p, p->count ? p->count - 1 : 0, "the lesson has no steps ('== Title')");
    return 0;
}
