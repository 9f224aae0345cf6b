/* SPDX-License-Identifier: MIT */
/* test_lesson_match.c: expected-output patterns ({N}, {*}, "...", blanks
 * folded, any order) and prediction answers match what they should, and only
 * that. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson/lesson.h"

#include <stdlib.h>
#include <string.h>

static void test_number_placeholder_matches_digits_only(void **state)
{
    (void)state;
    assert_true(
        lesson_output_matches("PID returned by clone(): {N}", "PID returned by clone(): 27656\n"));
    assert_false(
        lesson_output_matches("PID returned by clone(): {N}", "PID returned by clone(): \n"));
    assert_false(
        lesson_output_matches("PID returned by clone(): {N}", "PID returned by clone(): x1\n"));
    assert_true(lesson_output_matches("pid:[{N}]", "pid:[4026532412]"));
    assert_false(lesson_output_matches("pid:[{N}]", "net:[4026532412]"));
}

static void test_ps_columns_of_any_width_match(void **state)
{
    (void)state;
    const char *pattern = "PID PPID STAT CMD\n"
                          "{N} {N} T pidns_init_sleep /proc2\n"
                          "{N} {N} S sleep {N}\n";
    const char *output = "    PID    PPID STAT CMD\n"
                         "  27655   27090 T    pidns_init_sleep /proc2\n"
                         "    656     655 S\tsleep 600   \n\n\n";
    assert_true(lesson_output_matches(pattern, output));
    assert_false(
        lesson_output_matches(pattern, "PID PPID STAT CMD\n1 0 T pidns_init_sleep /proc2\n"));
}

static void test_any_text_placeholder_stays_within_a_line(void **state)
{
    (void)state;
    assert_true(
        lesson_output_matches("/proc0/1/status:Name:{*}sleep", "/proc0/1/status:Name:\tsleep"));
    assert_true(lesson_output_matches("a{*}", "a"));
    assert_false(lesson_output_matches("a{*}b", "a\nb"));
    assert_true(lesson_output_matches("{*}{*}{*}x", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyx"));
}

static void test_ellipsis_line_stands_for_any_lines(void **state)
{
    (void)state;
    const char *pattern = "first\n...\nlast\n";
    assert_true(lesson_output_matches(pattern, "first\nlast\n"));
    assert_true(lesson_output_matches(pattern, "first\na\nb\nc\nlast\n"));
    assert_false(lesson_output_matches(pattern, "first\na\nlast\nextra\n"));
    assert_true(lesson_output_matches("...", ""));
    assert_true(lesson_output_matches("...\nMounting procfs at /proc2\n...",
                                      "x\nMounting procfs at /proc2\n"));
}

static void test_whole_lines_must_match_and_nothing_extra(void **state)
{
    (void)state;
    assert_false(lesson_output_matches("/proc2/1", "/proc2/1\n/proc2/2\n"));
    assert_false(lesson_output_matches("/proc2/1", "x/proc2/1"));
    assert_false(lesson_output_matches("/proc2/1\n/proc2/2", "/proc2/1\n"));
    assert_true(lesson_output_matches("", ""));
    assert_true(lesson_output_matches("", "\n\n"));
    assert_false(lesson_output_matches("", "something\n"));
    /* a literal brace that is not a placeholder is just a character */
    assert_true(lesson_output_matches("{x} {N", "{x} {N"));
}

static void test_unordered_expect_accepts_any_order(void **state)
{
    (void)state;
    struct lesson_block b = {.type = LESSON_EXPECT,
                             .unordered = 1,
                             .text = "PID returned by clone(): {N}\nchildFunc(): PID = 1\n"};
    assert_true(
        lesson_block_output_matches(&b, "childFunc(): PID = 1\nPID returned by clone(): 9\n"));
    assert_true(
        lesson_block_output_matches(&b, "PID returned by clone(): 9\nchildFunc(): PID = 1\n"));
    assert_false(lesson_block_output_matches(&b, "PID returned by clone(): 9\n"));
    assert_false(lesson_block_output_matches(
        &b, "childFunc(): PID = 1\nPID returned by clone(): 9\nmore\n"));
    b.text = "{*}\n1\n";
    /* each pattern line takes a different output line, found even when the
     * first choice would steal the only "1" */
    assert_true(lesson_block_output_matches(&b, "1\nx\n"));
    b.text = "a\n...\n";
    assert_true(lesson_block_output_matches(&b, "z\na\ny\n"));
    b.unordered = 0;
    assert_false(lesson_block_output_matches(&b, "z\na\ny\n"));
    assert_false(lesson_block_output_matches(NULL, "x"));
}

/* While a program still runs, the step waits as long as more lines could
 * make its output match (0), compares at once when it matches (1), and
 * stops waiting when a whole line already differs (-1). */
static void test_output_so_far_may_still_match(void **state)
{
    (void)state;
    struct lesson_block b = {.type = LESSON_EXPECT,
                             .text = "Mounting procfs at /proc2\nMounting procfs at /proc1\n"
                                     "Final child sleeping\n"};
    assert_int_equal(lesson_block_output_progress(&b, ""), 0);
    assert_int_equal(lesson_block_output_progress(&b, "Mounting procfs at /proc2\n"), 0);
    /* a line not yet ended may still become the right one */
    assert_int_equal(lesson_block_output_progress(&b, "Mounting procfs at /proc2\nMount"), 0);
    assert_int_equal(lesson_block_output_progress(&b, "Mounting procfs at /proc2\nMount\n"), -1);
    assert_int_equal(lesson_block_output_progress(&b, "Something else\n"), -1);
    assert_int_equal(
        lesson_block_output_progress(&b, "Mounting procfs at /proc2\nMounting procfs at /proc1\n"
                                         "Final child sleeping\n"),
        1);
    b.text = "...\nready {N}\n";
    assert_int_equal(lesson_block_output_progress(&b, "noise\nmore noise\n"), 0);
    assert_int_equal(lesson_block_output_progress(&b, "noise\nready 7\n"), 1);
    b.unordered = 1;
    b.text = "a {N}\nb {N}\n";
    assert_int_equal(lesson_block_output_progress(&b, "b 2\n"), 0);
    assert_int_equal(lesson_block_output_progress(&b, "b 2\na 1\n"), 1);
    assert_int_equal(lesson_block_output_progress(&b, "c 3\n"), -1);
    assert_int_equal(lesson_block_output_progress(&b, "b 2\na 1\nb 3\n"), -1);
    assert_int_equal(lesson_block_output_progress(NULL, "x"), -1);
    b.unordered = 0;
    b.text = ""; /* an empty [.expect]: met by no output at all */
    assert_int_equal(lesson_block_output_progress(&b, ""), 1);
}

static void test_answers_ignore_case_and_blanks(void **state)
{
    (void)state;
    assert_true(lesson_answer_matches("1", " 1 \n"));
    assert_true(lesson_answer_matches("Name: sleep", "name:   SLEEP"));
    assert_false(lesson_answer_matches("1", "0"));
    assert_false(lesson_answer_matches("1", ""));
    assert_false(lesson_answer_matches(NULL, "1"));
}

static void test_a_quiz_takes_a_choice_by_number_or_by_its_text(void **state)
{
    struct lesson_choice choices[] = {
        {.text = "The processes of the reader's namespace."},
        {.text = "The processes of the mounter's namespace."},
        {.text = "`rmdir` fails."},
        {.text = "32: the kernel's limit."},
    };
    struct lesson_block quiz = {.type = LESSON_QUIZ, .choices = choices, .choice_count = 4};
    (void)state;
    assert_int_equal(lesson_quiz_choice(&quiz, "2"), 2);
    assert_int_equal(lesson_quiz_choice(&quiz, " 4 "), 4);
    assert_int_equal(lesson_quiz_choice(&quiz, "the processes of the MOUNTER"), 2);
    assert_int_equal(lesson_quiz_choice(&quiz, "The  processes of the reader's namespace."), 1);
    assert_int_equal(lesson_quiz_choice(&quiz, "the processes"), -1); /* starts two */
    assert_int_equal(lesson_quiz_choice(&quiz, "rmdir"), 3);          /* backticks ignored */
    assert_int_equal(lesson_quiz_choice(&quiz, "32"), 4);             /* no choice 32: text */
    assert_int_equal(lesson_quiz_choice(&quiz, "5"), 0);
    assert_int_equal(lesson_quiz_choice(&quiz, "help"), 0);
    assert_int_equal(lesson_quiz_choice(&quiz, "mounter"), 0); /* a prefix, not a substring */
    assert_int_equal(lesson_quiz_choice(&quiz, ""), 0);
    assert_int_equal(lesson_quiz_choice(&quiz, NULL), 0);
}

/* A choice whose text starts with a number or a word before the words the
 * learner typed: those words pick no other choice that starts with them. */
static void test_a_quiz_answer_found_inside_another_choice_is_ambiguous(void **state)
{
    struct lesson_choice choices[] = {
        {.text = "1, its PID in the new namespace."},
        {.text = "Its PID in the parent namespace."},
        {.text = "Its PID in the parent, always 0."},
    };
    struct lesson_block quiz = {.type = LESSON_QUIZ, .choices = choices, .choice_count = 3};
    (void)state;
    assert_int_equal(lesson_quiz_choice(&quiz, "its pid in the new"), 1); /* words inside one */
    assert_int_equal(lesson_quiz_choice(&quiz, "its pid in the p"), -1);  /* starts two */
    assert_int_equal(lesson_quiz_choice(&quiz, "its pid in the parent namespace"), 2);
    assert_int_equal(lesson_quiz_choice(&quiz, "1, its"), 1);
    assert_int_equal(lesson_quiz_choice(&quiz, "pid"), 0);        /* one word inside: no choice */
    assert_int_equal(lesson_quiz_choice(&quiz, "d in the n"), 0); /* not from a word's start */

    /* Typed words that start choice 2 but are also inside choice 1. */
    struct lesson_block two = {.type = LESSON_QUIZ, .choices = choices, .choice_count = 2};
    assert_int_equal(lesson_quiz_choice(&two, "its pid in the"), -1);
    assert_int_equal(lesson_quiz_choice(&two, "its pid in the parent"), 2);
}

static void test_long_pathological_pattern_is_fast(void **state)
{
    (void)state;
    char pattern[3001], output[3001];
    for (int i = 0; i < 1000; i++)
        memcpy(pattern + 3 * i, "{*}", 3);
    pattern[3000] = '\0';
    memset(output, 'a', 3000);
    output[2999] = 'b';
    output[3000] = '\0';
    assert_true(lesson_output_matches(pattern, output));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_number_placeholder_matches_digits_only),
        cmocka_unit_test(test_ps_columns_of_any_width_match),
        cmocka_unit_test(test_any_text_placeholder_stays_within_a_line),
        cmocka_unit_test(test_ellipsis_line_stands_for_any_lines),
        cmocka_unit_test(test_whole_lines_must_match_and_nothing_extra),
        cmocka_unit_test(test_unordered_expect_accepts_any_order),
        cmocka_unit_test(test_output_so_far_may_still_match),
        cmocka_unit_test(test_answers_ignore_case_and_blanks),
        cmocka_unit_test(test_a_quiz_takes_a_choice_by_number_or_by_its_text),
        cmocka_unit_test(test_a_quiz_answer_found_inside_another_choice_is_ambiguous),
        cmocka_unit_test(test_long_pathological_pattern_is_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
