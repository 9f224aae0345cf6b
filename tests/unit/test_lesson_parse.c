/* test_lesson_parse.c: the lesson parser reads every construct of the lesson
 * format into the model (tests/fixtures/lessons/valid), and refuses each
 * malformed case with the right FILE:LINE message (.../malformed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *rel)
{
    static char path[4096];
    const char *src = getenv("PIDNS_TUTOR_SRC");
    snprintf(path, sizeof(path), "%s/tests/fixtures/lessons/%s", src ? src : ".", rel);
    return path;
}

static void test_every_feature_is_read_into_the_model(void **state)
{
    (void)state;
    struct lesson l;
    char err[1024];
    int rc = lesson_parse_file(fixture("valid/01-every-feature.adoc"), &l, err, sizeof(err));
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    assert_string_equal(l.id, "01-every-feature");
    assert_int_equal(l.number, 1);
    assert_string_equal(l.title, "Every feature");
    assert_string_equal(l.summary, "One of each block, for the parser's tests");
    assert_string_equal(l.kernel, "3.8");
    assert_int_equal(l.minutes, 4);
    assert_int_equal(l.step_count, 2);

    const struct lesson_step *s = &l.steps[0];
    assert_string_equal(s->title, "First step");
    assert_int_equal(s->line, 7);
    assert_int_equal(s->block_count, 6);
    assert_int_equal(s->blocks[0].type, LESSON_TEXT);
    assert_string_equal(s->blocks[0].text, "A paragraph of explanation on two lines.");
    assert_int_equal(s->blocks[1].type, LESSON_TEXT);
    assert_string_equal(s->blocks[1].text, "* a list item\n* another");
    assert_int_equal(s->blocks[2].type, LESSON_CODE);
    assert_string_equal(s->blocks[2].source_path, "examples/demo.c");
    assert_string_equal(s->blocks[2].source_tag, "main");
    assert_int_equal(s->blocks[2].first_line, 5);
    /* the nested tag's directive lines are left out, as asciidoctor does */
    assert_string_equal(s->blocks[2].text,
                        "int main(void)\n{\n    puts(\"hello\");\n    return 0;\n}\n");
    assert_int_equal(s->blocks[3].type, LESSON_PREDICT);
    assert_string_equal(s->blocks[3].text, "What does the program print?");
    assert_string_equal(s->blocks[3].answer, "hello");
    assert_int_equal(s->blocks[4].type, LESSON_RUN);
    assert_string_equal(s->blocks[4].text, "demo");
    assert_int_equal(s->blocks[4].background, 0);
    assert_int_equal(s->blocks[5].type, LESSON_EXPECT);
    assert_string_equal(s->blocks[5].text, "hello");
    assert_int_equal(s->blocks[5].unordered, 0);

    s = &l.steps[1];
    assert_int_equal(s->block_count, 4);
    assert_int_equal(s->blocks[0].type, LESSON_RUN);
    assert_int_equal(s->blocks[0].background, 1);
    assert_int_equal(s->blocks[1].type, LESSON_EXPECT);
    assert_int_equal(s->blocks[1].unordered, 1);
    assert_string_equal(s->blocks[1].text,
                        "PID returned by clone(): {N}\nchildFunc(): PID = 1\n...");
    const struct lesson_block *ex = &s->blocks[2];
    assert_int_equal(ex->type, LESSON_EXERCISE);
    assert_string_equal(ex->text, "Mount a procfs for the namespace at /proc7.");
    assert_string_equal(ex->check, "test -d /proc7/1");
    assert_non_null(strstr(ex->solution, "mount -t proc proc /proc7"));
    assert_int_equal(ex->hint_count, 2);
    assert_string_equal(ex->hints[0].when, "! test -d /proc7");
    assert_string_equal(ex->hints[0].text,
                        "There is no /proc7 yet: create it with `mkdir /proc7`.");
    assert_null(ex->hints[1].when);
    const struct lesson_block *q = &s->blocks[3];
    assert_int_equal(q->type, LESSON_QUIZ);
    assert_string_equal(q->text, "Why is the parent PID 0?");
    assert_int_equal(q->choice_count, 2);
    assert_int_equal(q->choices[0].correct, 0);
    assert_string_equal(q->choices[0].text, "The parent has exited.");
    assert_string_equal(q->choices[0].explanation, "No: it is still running.");
    assert_int_equal(q->choices[1].correct, 1);
    assert_string_equal(q->choices[1].explanation, "Right: it cannot be seen from inside.");
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_feature_is_read_into_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
