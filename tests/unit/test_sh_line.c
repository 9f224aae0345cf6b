/* SPDX-License-Identifier: MIT */
/* test_sh_line.c: cmd/sh_line.c, where a shell command line puts programs
 * in the background: the line is cut at the `&` (and `;`) that /bin/sh
 * would cut it at, and left whole otherwise. Pure. */
#include "testlib.h"
#include "cmd/sh_line.h"

#include <stdlib.h>
#include <string.h>

/* The parts as "&TEXT" (background) or "TEXT", joined by " | ". */
static char *split(const char *line, int *nested)
{
    struct sh_line l;
    assert_int_equal(sh_line_split(line, &l), 0);
    size_t len = 1;
    for (size_t i = 0; i < l.count; i++)
        len += strlen(l.parts[i].text) + 4;
    char *text = calloc(1, len);
    assert_non_null(text);
    for (size_t i = 0; i < l.count; i++) {
        if (i > 0)
            strcat(text, " | ");
        if (l.parts[i].background)
            strcat(text, "&");
        strcat(text, l.parts[i].text);
    }
    if (nested != NULL)
        *nested = l.nested_background;
    sh_line_free(&l);
    return text;
}

static void expect_split(const char *line, const char *want, int want_nested)
{
    int nested = -1;
    char *got = split(line, &nested);
    if (strcmp(got, want) != 0 || nested != want_nested)
        fail_msg("%s: got \"%s\" (nested %d), want \"%s\" (nested %d)", line, got, nested, want,
                 want_nested);
    free(got);
}

static void test_a_trailing_ampersand_makes_a_background_part(void **state)
{
    (void)state;
    expect_split("pidns_init_sleep &", "&pidns_init_sleep", 0);
    expect_split("  pidns_init_sleep /proc2   &  ", "&pidns_init_sleep /proc2", 0);
    expect_split("mkdir /proc2; pidns_init_sleep /proc2 &",
                 "mkdir /proc2 | &pidns_init_sleep /proc2", 0);
    expect_split("a & b &", "&a | &b", 0);
    expect_split("a\nb &", "a | &b", 0);
    expect_split("cd /tmp && prog | tee x &", "&cd /tmp && prog | tee x", 0);
}

static void test_an_ampersand_mid_line_puts_only_its_command_in_the_background(void **state)
{
    (void)state;
    expect_split("a & b", "&a | b", 0);
    expect_split("sleep 100 & echo started; echo more", "&sleep 100 | echo started | echo more", 0);
    expect_split("echo if & b", "&echo if | b", 0); /* "if" is no keyword there */
    expect_split("echo done &", "&echo done", 0);
}

static void test_no_background_leaves_the_line_whole(void **state)
{
    (void)state;
    expect_split("a && b", "a && b", 0);
    expect_split("a; b;", "a; b;", 0);
    expect_split("echo x >&2 2>&1", "echo x >&2 2>&1", 0);
    expect_split("echo 'a & b'", "echo 'a & b'", 0);
    expect_split("echo \"a & b\"", "echo \"a & b\"", 0);
    expect_split("echo a\\& b", "echo a\\& b", 0);
    expect_split("a # & b", "a # & b", 0);
    expect_split("  spaced  ", "  spaced  ", 0);
}

static void test_redirections_with_ampersands_are_no_separators(void **state)
{
    (void)state;
    expect_split("echo x 2>&1 &", "&echo x 2>&1", 0);
    expect_split("cat <&0 >&2 &", "&cat <&0 >&2", 0);
    expect_split("echo ${x:-&} &", "&echo ${x:-&}", 0);
    expect_split("echo \"$(echo \")\")\" & b", "&echo \"$(echo \")\")\" | b", 0);
}

static void test_an_ampersand_inside_a_compound_stays_inside(void **state)
{
    (void)state;
    expect_split("for i in 1 2; do sleep $i & done", "for i in 1 2; do sleep $i & done", 1);
    expect_split("(sleep 1 &)", "(sleep 1 &)", 1);
    expect_split("echo $(sleep 1 &)", "echo $(sleep 1 &)", 1);
    expect_split("{ a & }", "{ a & }", 1);
    expect_split("if true; then a & fi", "if true; then a & fi", 1);
    expect_split("case x in x) a & ;; esac", "case x in x) a & ;; esac", 1);
    expect_split("while false; do a & done &", "&while false; do a & done", 1);
    expect_split("case x in (x) a ;; esac &", "&case x in (x) a ;; esac", 0);
    expect_split("{ a; b; } & c", "&{ a; b; } | c", 0);
}

static void test_what_sh_refuses_is_left_to_sh(void **state)
{
    (void)state;
    expect_split("& a", "& a", 0);
    expect_split("a &;", "a &;", 0);
    expect_split("a & & b", "a & & b", 0);
    expect_split("echo 'unclosed &", "echo 'unclosed &", 0);
    expect_split("(a &", "(a &", 0);
    expect_split("a) &", "a) &", 0);
    expect_split("done &", "done &", 0);
    expect_split("a &&", "a &&", 0);
}

static void test_a_line_that_manages_its_jobs_stays_whole(void **state)
{
    (void)state;
    expect_split("sleep 603 & kill -0 $! && echo alive; kill $!",
                 "sleep 603 & kill -0 $! && echo alive; kill $!", 0);
    expect_split("a & b & wait", "a & b & wait", 0);
    expect_split("a & echo \"started $!\"", "a & echo \"started $!\"", 0);
    expect_split("a & o=$(jobs)", "a & o=$(jobs)", 0);
    expect_split("(sleep 1 & wait)", "(sleep 1 & wait)", 0); /* no note: it waits */
    expect_split("a & echo wait", "&a | echo wait", 0);      /* an argument, not the builtin */
    expect_split("a & echo '$!'", "&a | echo '$!'", 0);      /* quoted: no $! */
}

static void test_deep_nesting_is_refused_not_recursed(void **state)
{
    (void)state;
    char line[4096] = "";
    for (int i = 0; i < 1000; i++)
        strcat(line, "$(");
    strcat(line, " &");
    char *got = split(line, NULL);
    assert_string_equal(got, line);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_trailing_ampersand_makes_a_background_part),
        cmocka_unit_test(test_an_ampersand_mid_line_puts_only_its_command_in_the_background),
        cmocka_unit_test(test_no_background_leaves_the_line_whole),
        cmocka_unit_test(test_redirections_with_ampersands_are_no_separators),
        cmocka_unit_test(test_an_ampersand_inside_a_compound_stays_inside),
        cmocka_unit_test(test_what_sh_refuses_is_left_to_sh),
        cmocka_unit_test(test_a_line_that_manages_its_jobs_stays_whole),
        cmocka_unit_test(test_deep_nesting_is_refused_not_recursed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
