/* SPDX-License-Identifier: MIT */
/* test_lesson_parse.c: the lesson parser reads every construct of the lesson
 * format into the model (tests/fixtures/lessons/valid), and refuses each
 * malformed case with the right FILE:LINE message (.../malformed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson/lesson.h"
#include "testlib.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    assert_null(s->blocks[4].job);
    assert_int_equal(s->blocks[5].type, LESSON_EXPECT);
    assert_string_equal(s->blocks[5].text, "hello");
    assert_int_equal(s->blocks[5].unordered, 0);

    s = &l.steps[1];
    assert_int_equal(s->block_count, 4);
    assert_int_equal(s->blocks[0].type, LESSON_RUN);
    assert_int_equal(s->blocks[0].background, 1);
    assert_string_equal(s->blocks[0].job, "first");
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
    assert_int_equal(ex->wrong_count, 2);
    assert_string_equal(ex->wrongs[0].title, "an empty directory, nothing mounted");
    assert_string_equal(ex->wrongs[0].commands, "mkdir -p /proc7");
    assert_int_equal(ex->wrongs[0].line, 81);
    assert_string_equal(ex->wrongs[1].title, "a tmpfs instead of a procfs");
    assert_string_equal(ex->wrongs[1].commands, "mkdir -p /proc7\nmount -t tmpfs tmpfs /proc7");
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

/* Each malformed fixture says on its first line what it must be refused
 * with: "// expect-error: LINE: text". */
static int expect_refused(const char *dir, const char *file)
{
    char path[8192], err[1024], want[512], where[600];
    int line = 0, failed = 0;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "// expect-error: %d: %511[^\n]", &line, want) != 2) {
        print_message("%s: no '// expect-error: LINE: text' first line\n", path);
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    struct lesson l;
    if (lesson_parse_file(path, &l, err, sizeof(err)) == 0) {
        print_message("%s: accepted, but must fail with '%s'\n", path, want);
        lesson_free(&l);
        return 1;
    }
    snprintf(where, sizeof(where), "%s:%d: ", file, line);
    if (!strstr(err, where) || !strstr(err, want)) {
        print_message("%s:\n  got:  %s\n  want: line %d, '%s'\n", file, err, line, want);
        failed = 1;
    }
    return failed;
}

/* Cuts every occurrence of what out of s; returns 1. */
static int cut_all(char *s, const char *what)
{
    size_t n = strlen(what);
    for (char *at; n > 0 && (at = strstr(s, what)) != NULL;)
        memmove(at, at + n, strlen(at + n) + 1);
    return 1;
}

/* The error of a lesson read as a session reads the shipped ones: its header
 * at start (lesson_load_headers, over a directory holding it alone, beside
 * the fixtures' examples and exercises), its body when it is entered
 * (lesson_read_body). NULL when both accept it; else malloc'd, with the
 * directory's path (before the 01- the file is given) cut out. */
static char *lazy_error(const char *path, const char *file)
{
    char tmp[4096], lessons[4200], link[8400], err[1024];
    struct lesson *all = NULL;
    size_t n = 0;
    snprintf(tmp, sizeof tmp, "%s/lazy.XXXXXX", tl_tmpdir());
    assert_non_null(mkdtemp(tmp));
    snprintf(lessons, sizeof lessons, "%s/lessons", tmp);
    assert_int_equal(mkdir(lessons, 0755), 0);
    snprintf(link, sizeof link, "%s/01-%s", lessons, file);
    char *whole_path = realpath(path, NULL); /* the links' targets: absolute */
    assert_non_null(whole_path);
    assert_int_equal(symlink(whole_path, link), 0);
    free(whole_path);
    const char *beside[] = {"examples", "exercises"};
    for (size_t i = 0; i < 2; i++) {
        char target[PATH_MAX], at[4200];
        assert_non_null(realpath(fixture(beside[i]), target));
        snprintf(at, sizeof at, "%s/%s", tmp, beside[i]);
        assert_int_equal(symlink(target, at), 0);
    }
    int rc = lesson_load_headers(lessons, &all, &n, err, sizeof err);
    if (rc == 0) {
        assert_int_equal(n, 1);
        assert_int_equal(all[0].body_read, 0);
        assert_int_equal(all[0].step_count, 0);
        rc = lesson_read_body(&all[0], err, sizeof err);
        lesson_free_all(all, n);
    }
    char *r = NULL, cut[4300], slash[4300];
    snprintf(cut, sizeof cut, "%s/01-", lessons);
    snprintf(slash, sizeof slash, "%s/", lessons);
    if (rc != 0 && cut_all(err, cut) && cut_all(err, slash) && cut_all(err, lessons))
        r = strdup(err);
    unlink(link);
    for (size_t i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "%s/%s", tmp, beside[i]);
        unlink(link);
    }
    rmdir(lessons);
    rmdir(tmp);
    return r;
}

/* Calls one(dir, name) for each malformed fixture; asserts they are all
 * there and that none failed (one returns 1 for a failure). */
static void each_malformed(int (*one)(const char *dir, const char *file))
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", fixture("malformed"));
    DIR *d = opendir(dir);
    assert_non_null(d);
    int cases = 0, failures = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".adoc") != 0)
            continue;
        cases++;
        failures += one(dir, e->d_name);
    }
    closedir(d);
    assert_true(cases >= 40); /* the fixtures are all there */
    assert_int_equal(failures, 0);
}

/* Read lazily, a malformed fixture is refused with the very message (file,
 * line, words) the whole read gives: at start for its header, when entered
 * for its body. */
static int refused_alike_when_lazy(const char *dir, const char *file)
{
    char path[8192], err[1024], cut[4200];
    struct lesson l;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (lesson_parse_file(path, &l, err, sizeof err) != -1) {
        print_message("%s: accepted by the whole read\n", file);
        lesson_free(&l);
        return 1;
    }
    char *lazy = lazy_error(path, file);
    snprintf(cut, sizeof cut, "%s/", dir);
    cut_all(err, cut);
    cut_all(err, dir);
    int bad = lazy == NULL || strcmp(lazy, err) != 0;
    if (bad)
        print_message("%s:\n  whole: %s\n  lazy:  %s\n", file, err,
                      lazy != NULL ? lazy : "(accepted)");
    free(lazy);
    return bad;
}

static void test_each_malformed_lesson_is_refused_as_well_when_read_lazily(void **state)
{
    (void)state;
    each_malformed(refused_alike_when_lazy);
}

/* The headers alone, then each body, give what the whole read gives. */
static void test_headers_then_bodies_equal_the_whole_read(void **state)
{
    (void)state;
    struct lesson *whole, *lazy;
    size_t n, m;
    char err[1024];
    assert_int_equal(lesson_load_dir(fixture("valid"), &whole, &n, err, sizeof(err)), 0);
    assert_int_equal(lesson_load_headers(fixture("valid"), &lazy, &m, err, sizeof(err)), 0);
    assert_int_equal(n, m);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(lazy[i].id, whole[i].id);
        assert_string_equal(lazy[i].title, whole[i].title);
        assert_string_equal(lazy[i].summary, whole[i].summary);
        assert_int_equal(lazy[i].minutes, whole[i].minutes);
        assert_int_equal(lazy[i].body_read, 0);
        assert_int_equal(lesson_read_body(&lazy[i], err, sizeof err), 0);
        assert_int_equal(lesson_read_body(&lazy[i], err, sizeof err), 0); /* once */
        assert_int_equal(lazy[i].step_count, whole[i].step_count);
        for (size_t s = 0; s < whole[i].step_count; s++) {
            assert_string_equal(lazy[i].steps[s].title, whole[i].steps[s].title);
            assert_int_equal(lazy[i].steps[s].block_count, whole[i].steps[s].block_count);
        }
    }
    lesson_free_all(whole, n);
    lesson_free_all(lazy, m);
    /* A broken body does not stop the headers; it is the body's error. */
    assert_int_equal(lesson_load_headers(fixture("baddir"), &lazy, &m, err, sizeof(err)), 0);
    assert_int_equal(m, 2);
    assert_int_equal(lesson_read_body(&lazy[1], err, sizeof err), -1);
    assert_non_null(strstr(err, "02-broken.adoc:"));
    assert_int_equal(lazy[1].step_count, 0);
    lesson_free_all(lazy, m);
}

static void test_each_malformed_lesson_is_refused_with_file_and_line(void **state)
{
    (void)state;
    each_malformed(expect_refused);
}

static void test_message_names_file_then_line(void **state)
{
    (void)state;
    struct lesson l;
    char err[512];
    const char *text = "= T\n:summary: s\n:minutes: 1\n\n== S\n\n[.bogus]\n----\nx\n----\n";
    assert_int_equal(lesson_parse_string(text, "lessons/09-x.adoc", ".", &l, err, sizeof(err)), -1);
    assert_string_equal(err, "lessons/09-x.adoc:7: unknown role '.bogus' (known: run, expect, "
                             "predict, exercise, quiz; see docs/lesson-format.adoc)");
    /* the model is left empty: nothing to free, nothing half-built */
    assert_null(l.steps);
    assert_null(l.title);
}

/* A coding exercise: [.program] names the learner's file; solution.c and
 * the wrong-*.c beside it are found, and no [.solution] listing is needed. */
static void test_program_exercise_finds_its_solution_and_wrong_programs(void **state)
{
    (void)state;
    struct lesson l;
    char err[1024];
    const char *text = "= T\n:summary: s\n:minutes: 1\n\n== S\n\n[.exercise]\n====\nWrite it."
                       "\n\n[.program]\n----\n../exercises/01-ok/prog.c\n----\n\n[.check]\n----\n"
                       "./prog\n----\n====\n";
    char base[4096];
    snprintf(base, sizeof base, "%s", fixture("malformed"));
    assert_int_equal(lesson_parse_string(text, "x.adoc", base, &l, err, sizeof err), 0);
    const struct lesson_block *ex = &l.steps[0].blocks[0];
    assert_int_equal(ex->type, LESSON_EXERCISE);
    assert_string_equal(ex->program, "../exercises/01-ok/prog.c");
    assert_non_null(strstr(ex->program_path, "/exercises/01-ok/prog.c"));
    assert_null(ex->solution);
    assert_int_equal(ex->wrong_program_count, 1);
    assert_string_equal(ex->wrong_programs[0], "wrong-two.c");
    lesson_free(&l);
}

static void test_missing_file_is_an_error(void **state)
{
    (void)state;
    struct lesson l;
    char err[512];
    assert_int_equal(lesson_parse_file(fixture("valid/99-none.adoc"), &l, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "99-none.adoc"));
    assert_non_null(strstr(err, "No such file"));
}

static void test_include_of_a_fifo_is_refused_not_waited_on(void **state)
{
    (void)state;
    struct lesson l;
    char err[512], dir[PATH_MAX], fifo[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/lesson-fifo.XXXXXX", tl_tmpdir());
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/x.c", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *text = "= T\n:summary: s\n:minutes: 1\n\n== S\n\n[source,c]\n----\n"
                       "include::x.c[tag=a]\n----\n";
    /* Without O_NONBLOCK, opening a FIFO with no writer blocks for ever. */
    int rc = lesson_parse_string(text, "01-x.adoc", dir, &l, err, sizeof(err));
    unlink(fifo);
    rmdir(dir);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "not a regular file"));
}

static void test_string_and_file_agree(void **state)
{
    (void)state;
    struct lesson l;
    char err[512];
    const char *text = "// comment first\n= Title here\n:summary: x\n:minutes: 2\n\n"
                       "== One\n\nHello.\r\n\n[.run]\n----\nls -d /proc2/[1-9]*\n----\n";
    assert_int_equal(lesson_parse_string(text, "07-cleanup.adoc", ".", &l, err, sizeof(err)), 0);
    assert_string_equal(l.id, "07-cleanup");
    assert_int_equal(l.number, 7);
    assert_null(l.kernel);
    assert_string_equal(l.steps[0].blocks[0].text, "Hello.");
    assert_string_equal(l.steps[0].blocks[1].text, "ls -d /proc2/[1-9]*");
    assert_int_equal(l.steps[0].blocks[1].line, 10);
    lesson_free(&l);
}

static void test_load_dir_sorts_by_number(void **state)
{
    (void)state;
    struct lesson *all;
    size_t n;
    char err[1024];
    int rc = lesson_load_dir(fixture("valid"), &all, &n, err, sizeof(err));
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    assert_true(n >= 2);
    for (size_t i = 1; i < n; i++)
        assert_true(all[i - 1].number < all[i].number);
    lesson_free_all(all, n);
}

static void test_load_dir_refuses_a_malformed_lesson(void **state)
{
    (void)state;
    struct lesson *all = (void *)1;
    size_t n = 99;
    char err[1024];
    assert_int_equal(lesson_load_dir(fixture("baddir"), &all, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "02-broken.adoc:"));
    assert_null(all);
    assert_int_equal(n, 0);
    assert_int_equal(lesson_load_dir(fixture("nosuchdir"), &all, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "nosuchdir"));
    assert_int_equal(lesson_load_dir(fixture("examples"), &all, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no lessons"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_feature_is_read_into_the_model),
        cmocka_unit_test(test_each_malformed_lesson_is_refused_with_file_and_line),
        cmocka_unit_test(test_each_malformed_lesson_is_refused_as_well_when_read_lazily),
        cmocka_unit_test(test_headers_then_bodies_equal_the_whole_read),
        cmocka_unit_test(test_message_names_file_then_line),
        cmocka_unit_test(test_missing_file_is_an_error),
        cmocka_unit_test(test_include_of_a_fifo_is_refused_not_waited_on),
        cmocka_unit_test(test_string_and_file_agree),
        cmocka_unit_test(test_load_dir_sorts_by_number),
        cmocka_unit_test(test_load_dir_refuses_a_malformed_lesson),
        cmocka_unit_test(test_program_exercise_finds_its_solution_and_wrong_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
