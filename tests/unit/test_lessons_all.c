/* SPDX-License-Identifier: MIT */
/* test_lessons_all.c: every real lesson in lessons/ loads (which validates it
 * and resolves each include:: tag against the examples), and each one has
 * what every lesson must offer a learner: steps that run commands with expected
 * output, a predict-then-run step, an exercise whose hints look at the
 * current state first, and a quiz. Lessons are numbered 1..N without gaps,
 * and the first one takes at most five minutes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson/lesson.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct lesson *lessons;
static size_t lesson_count;

static const char *source_path(const char *rel)
{
    static char path[4096];
    const char *src = getenv("PIDNS_TUTOR_SRC");
    snprintf(path, sizeof(path), "%s/%s", src ? src : ".", rel);
    return path;
}

static int load(void **state)
{
    (void)state;
    char err[1024];
    if (lesson_load_dir(source_path("lessons"), &lessons, &lesson_count, err, sizeof(err)) != 0) {
        print_message("%s\n", err);
        return -1;
    }
    return 0;
}

static int unload(void **state)
{
    (void)state;
    lesson_free_all(lessons, lesson_count);
    return 0;
}

static size_t count_blocks(const struct lesson *l, enum lesson_block_type type)
{
    size_t n = 0;
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++)
            n += l->steps[s].blocks[b].type == type;
    return n;
}

/* Lessons 1 to 7 follow the article; the ones after go beyond it. */
static void test_lessons_are_numbered_without_gaps_the_article_first(void **state)
{
    (void)state;
    assert_true(lesson_count >= 7);
    for (size_t i = 0; i < lesson_count; i++)
        assert_int_equal(lessons[i].number, (int)i + 1);
    assert_true(lessons[0].minutes <= 5);
}

static void test_each_lesson_has_every_kind_of_step(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < lesson_count; i++) {
        const struct lesson *l = &lessons[i];
        static const struct {
            enum lesson_block_type type;
            const char *name;
        } wanted[] = {{LESSON_TEXT, "explanation"},     {LESSON_RUN, "[.run]"},
                      {LESSON_EXPECT, "[.expect]"},     {LESSON_PREDICT, "[.predict]"},
                      {LESSON_EXERCISE, "[.exercise]"}, {LESSON_QUIZ, "[.quiz]"}};
        for (size_t w = 0; w < sizeof(wanted) / sizeof(*wanted); w++)
            if (count_blocks(l, wanted[w].type) == 0) {
                print_message("%s: no %s\n", l->path, wanted[w].name);
                failures++;
            }
    }
    assert_int_equal(failures, 0);
}

/* Hints must look at the learner's state: at least one has a `when`, and
 * the last one (the fallback) has none, so that `hint` always says something. */
static void test_exercise_hints_look_at_state_first(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < lesson_count; i++)
        for (size_t s = 0; s < lessons[i].step_count; s++)
            for (size_t b = 0; b < lessons[i].steps[s].block_count; b++) {
                const struct lesson_block *k = &lessons[i].steps[s].blocks[b];
                if (k->type != LESSON_EXERCISE)
                    continue;
                size_t conditional = 0;
                for (size_t h = 0; h < k->hint_count; h++)
                    conditional += k->hints[h].when != NULL;
                if (conditional == 0 || k->hints[k->hint_count - 1].when != NULL) {
                    print_message("%s:%d: an exercise needs hints with when=... first and "
                                  "an unconditional one last\n",
                                  lessons[i].path, k->line);
                    failures++;
                }
            }
    assert_int_equal(failures, 0);
}

/* A word of a command line that looks like an example's name must be a real
 * example, or the lesson would fail in the lab with "not found". */
static int check_example_names(const struct lesson *l, const struct lesson_block *k)
{
    const char *text = k->type == LESSON_RUN ? k->text : k->solution != NULL ? k->solution : "";
    int failures = 0;
    for (const char *c = text; *c;) {
        size_t n = strspn(c, "abcdefghijklmnopqrstuvwxyz_");
        if (n == 0) {
            c++;
            continue;
        }
        if ((n > 6 && !strncmp(c, "pidns_", 6)) || (n == 11 && !strncmp(c, "multi_pidns", 11))) {
            char rel[128];
            snprintf(rel, sizeof(rel), "examples/%.*s.c", (int)n, c);
            if (access(source_path(rel), R_OK) != 0) {
                print_message("%s:%d: no example %s\n", l->path, k->line, rel);
                failures++;
            }
        }
        c += n;
    }
    return failures;
}

static void test_commands_name_real_examples(void **state)
{
    (void)state;
    int failures = 0, named = 0;
    for (size_t i = 0; i < lesson_count; i++)
        for (size_t s = 0; s < lessons[i].step_count; s++)
            for (size_t b = 0; b < lessons[i].steps[s].block_count; b++) {
                const struct lesson_block *k = &lessons[i].steps[s].blocks[b];
                if (k->type == LESSON_RUN || k->type == LESSON_EXERCISE) {
                    failures += check_example_names(&lessons[i], k);
                    named++;
                }
            }
    assert_true(named > 20);
    assert_int_equal(failures, 0);
}

/* Code shown is the examples' code: the include resolved to a real file,
 * and the lines are those of the file from first_line on. */
static void test_included_code_is_the_examples_code(void **state)
{
    (void)state;
    size_t code_blocks = 0;
    for (size_t i = 0; i < lesson_count; i++)
        for (size_t s = 0; s < lessons[i].step_count; s++)
            for (size_t b = 0; b < lessons[i].steps[s].block_count; b++) {
                const struct lesson_block *k = &lessons[i].steps[s].blocks[b];
                if (k->type != LESSON_CODE)
                    continue;
                code_blocks++;
                assert_int_equal(strncmp(k->source_path, "examples/", 9), 0);
                FILE *f = fopen(source_path(k->source_path), "r");
                assert_non_null(f);
                char line[1024];
                for (int n = 1; fgets(line, sizeof(line), f); n++)
                    if (n == k->first_line)
                        break;
                fclose(f);
                size_t len = strcspn(k->text, "\n");
                assert_int_equal(strncmp(line, k->text, len), 0);
            }
    assert_true(code_blocks >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lessons_are_numbered_without_gaps_the_article_first),
        cmocka_unit_test(test_each_lesson_has_every_kind_of_step),
        cmocka_unit_test(test_exercise_hints_look_at_state_first),
        cmocka_unit_test(test_commands_name_real_examples),
        cmocka_unit_test(test_included_code_is_the_examples_code),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
