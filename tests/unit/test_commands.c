/* SPDX-License-Identifier: MIT */
/* test_commands.c: the command table and everything that reads it:
 * dispatch, the closest-command suggestion, usage on bad arguments,
 * argument splitting and quoting, refusal of absurd input, help and tab
 * completion. Pure: no lab is opened.
 */
#include "testlib.h"
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "lesson/lesson.h"
#include "tutor/tutor_cursor.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/shell"

struct fixture {
    struct shell sh;
    char *out; /* what the shell printed on stdout (render) */
    size_t out_len;
    char err_path[PATH_MAX];
    char examples[PATH_MAX]; /* a directory with one executable "example" */
    int saved_stderr, err_fd;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char err[512];

    f->sh.program = "pidns-tutor";
    f->sh.render.out = open_memstream(&f->out, &f->out_len);
    f->sh.render.width = 200;
    snprintf(f->sh.dirs.lessons, sizeof f->sh.dirs.lessons, "%s/lessons", FIXTURES);
    snprintf(f->sh.dirs.example_src, sizeof f->sh.dirs.example_src, "%s/examples", FIXTURES);
    snprintf(f->examples, sizeof f->examples, "%s/test_commands.examples.%ld", tl_tmpdir(),
             (long)getpid());
    snprintf(f->sh.dirs.examples, sizeof f->sh.dirs.examples, "%s", f->examples);
    if (tl_shf(NULL,
               "mkdir -p %s && printf '#!/bin/sh\\necho hi\\n' > %s/hello && chmod 755 %s/hello",
               f->examples, f->examples, f->examples) != 0)
        return -1;
    if (lesson_load_dir(f->sh.dirs.lessons, &f->sh.lessons, &f->sh.lesson_count, err, sizeof err) ==
        -1) {
        fprintf(stderr, "fixture lessons: %s\n", err);
        return -1;
    }
    /* While a command runs, stderr goes to a file so tests can read its
     * one-line errors; cmocka's own messages still reach the real stderr. */
    snprintf(f->err_path, sizeof f->err_path, "%s/test_commands.err.%ld", tl_tmpdir(),
             (long)getpid());
    f->err_fd = open(f->err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    f->saved_stderr = dup(STDERR_FILENO);
    if (f->err_fd == -1 || f->saved_stderr == -1)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    close(f->saved_stderr);
    close(f->err_fd);
    unlink(f->err_path);
    tl_shf(NULL, "rm -rf %s", f->examples);
    fclose(f->sh.render.out);
    free(f->out);
    tutor_leave(&f->sh);
    lesson_free_all(f->sh.lessons, f->sh.lesson_count);
    free(f);
    return 0;
}

/* What the shell wrote to stderr since the last call. */
static char *take_errors(struct fixture *f)
{
    static char buf[4096];
    ssize_t n = pread(f->err_fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    if (ftruncate(f->err_fd, 0) == 0)
        lseek(f->err_fd, 0, SEEK_SET);
    return buf;
}

static int execute(struct fixture *f, const char *line, size_t len)
{
    fflush(stderr);
    dup2(f->err_fd, STDERR_FILENO);
    int rc = command_execute(&f->sh, line, len);
    fflush(stderr);
    dup2(f->saved_stderr, STDERR_FILENO);
    return rc;
}

static const char *take_output(struct fixture *f)
{
    fflush(f->sh.render.out);
    return f->out;
}

static int run(struct fixture *f, const char *line)
{
    return execute(f, line, strlen(line));
}

static void test_every_command_has_synopsis_summary_help_and_handler(void **state)
{
    (void)state;
    assert_true(command_count >= 20);
    for (size_t i = 0; i < command_count; i++) {
        const struct command *c = &command_table[i];
        assert_non_null(c->handler);
        assert_true(strlen(c->summary) > 10);
        assert_true(strlen(c->help) > strlen(c->summary));
        assert_int_equal(strncmp(c->synopsis, c->name, strlen(c->name)), 0);
        assert_true(c->min_args <= c->max_args);
        for (size_t j = i + 1; j < command_count; j++)
            assert_string_not_equal(c->name, command_table[j].name);
    }
}

static void test_the_commands_the_issue_lists_exist(void **state)
{
    static const char *const wanted[] = {"lessons", "lesson", "next",   "back",    "again",
                                         "where",   "run",    "sh",     "source",  "ps",
                                         "tree",    "ns",     "status", "cleanup", "check",
                                         "hint",    "reset",  "help",   "quit",    "export"};
    (void)state;
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        const struct command *c = command_find(wanted[i]);
        assert_non_null(c);
        assert_string_equal(c->name, wanted[i]);
    }
}

static void test_find_takes_unique_prefixes_only(void **state)
{
    (void)state;
    assert_string_equal(command_find("stat")->name, "status");
    assert_string_equal(command_find("lesson")->name, "lesson");
    assert_null(command_find("les")); /* lesson, lessons */
    assert_null(command_find("s"));   /* too short */
    assert_null(command_find("nope"));
}

static void test_closest_command_for_typos(void **state)
{
    (void)state;
    assert_string_equal(command_closest("lesons")->name, "lessons");
    assert_string_equal(command_closest("hlep")->name, "help");
    assert_string_equal(command_closest("qiut")->name, "quit");
    assert_string_equal(command_closest("cleanpu")->name, "cleanup");
    assert_null(command_closest("xyzzyplugh"));
}

static void test_unknown_command_names_the_closest_in_one_line(void **state)
{
    struct fixture *f = *state;
    take_errors(f);
    assert_int_equal(run(f, "lesons"), SHELL_ERROR);
    const char *err = take_errors(f);
    assert_non_null(strstr(err, "unknown command 'lesons'"));
    assert_non_null(strstr(err, "did you mean 'lessons'?"));
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
}

static void test_bad_arguments_get_the_usage(void **state)
{
    struct fixture *f = *state;
    static const char *const bad[][2] = {
        {"lesson", "usage: lesson N|NAME"},
        {"lesson 1 2", "usage: lesson N|NAME"},
        {"ns", "usage: ns PID"},
        {"ns abc", "usage: ns PID"},
        {"ns -3", "usage: ns PID"},
        {"sh", "usage: sh COMMAND LINE"},
        {"sh    ", "usage: sh COMMAND LINE"},
        {"source", "usage: source EXAMPLE[:TAG]"},
        {"source a/b", "usage: source"},
        {"reset now", "usage: reset [-y]"},
        {"run", "usage: run EXAMPLE"},
        {"ps extra", "usage: ps [--all]"},
        {"tree --al", "usage: tree [--all]"},
        {"ps --all x", "usage: ps [--all]"},
        {"export", "usage: export LESSON [FILE]"},
        {"lesson 'one", "a quote is not closed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        take_errors(f);
        assert_int_equal(run(f, bad[i][0]), SHELL_ERROR);
        const char *err = take_errors(f);
        if (strstr(err, bad[i][1]) == NULL)
            fail_msg("'%s' printed '%s', not '%s'", bad[i][0], err, bad[i][1]);
    }
}

static void test_split_handles_quotes_and_escapes(void **state)
{
    char buf[256], *argv[8];
    const char *error = NULL;
    (void)state;

    int argc =
        command_split("run  prog 'a b' \"c \\\"d\\\"\" e\\ f ''", buf, sizeof buf, argv, 7, &error);
    assert_int_equal(argc, 6);
    assert_string_equal(argv[0], "run");
    assert_string_equal(argv[1], "prog");
    assert_string_equal(argv[2], "a b");
    assert_string_equal(argv[3], "c \"d\"");
    assert_string_equal(argv[4], "e f");
    assert_string_equal(argv[5], "");
    assert_null(argv[6]);
    assert_int_equal(command_split("a \"b", buf, sizeof buf, argv, 7, &error), -1);
    assert_string_equal(error, "a quote is not closed");
    assert_int_equal(command_split("1 2 3 4 5 6 7 8", buf, sizeof buf, argv, 7, &error), -1);
    assert_string_equal(error, "too many words");
    assert_int_equal(command_split("   ", buf, sizeof buf, argv, 7, &error), 0);
}

static void test_absurd_lines_are_refused_politely(void **state)
{
    struct fixture *f = *state;
    size_t big = 100 * 1024;
    char *line = malloc(big + 1);
    memset(line, 'a', big);
    line[big] = '\0';

    assert_non_null(command_line_problem(line, big));
    take_errors(f);
    assert_int_equal(execute(f, line, big), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "input refused: the line is too long"));
    assert_int_equal(execute(f, "help\0quit", 9), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "NUL byte"));
    assert_int_equal(run(f, "help \x01\x02\x7f"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "control characters"));
    assert_int_equal(run(f, "help \xff\xfe"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "invalid UTF-8"));
    assert_null(command_line_problem("sh echo caf\xc3\xa9", 13)); /* real UTF-8 is fine */
    free(line);
}

static void test_help_lists_every_command_and_explains_one(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(run(f, "help"), SHELL_OK);
    const char *out = take_output(f);
    for (size_t i = 0; i < command_count; i++) {
        assert_non_null(strstr(out, command_table[i].synopsis));
        assert_non_null(strstr(out, command_table[i].summary));
    }
    assert_int_equal(run(f, "help ns"), SHELL_OK);
    assert_non_null(strstr(take_output(f), command_find("ns")->help));
    take_errors(f);
    assert_int_equal(run(f, "help nosuch"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "unknown command 'nosuch'"));
}

static void test_a_line_at_a_question_is_a_command_only_when_it_names_one(void **state)
{
    (void)state;
    assert_int_equal(command_question_line("help"), SHELL_LINE_LOOKS);
    assert_int_equal(command_question_line(" help ps "), SHELL_LINE_LOOKS);
    assert_int_equal(command_question_line("ps"), SHELL_LINE_LOOKS);
    assert_int_equal(command_question_line("status"), SHELL_LINE_LOOKS);
    assert_int_equal(command_question_line("next"), SHELL_LINE_MOVES);
    assert_int_equal(command_question_line("lesson 3"), SHELL_LINE_MOVES);
    assert_int_equal(command_question_line("quit"), SHELL_LINE_MOVES);
    assert_int_equal(command_question_line("sh ls /proc2"), SHELL_LINE_MOVES);
    /* Guesses: no command, a prefix only, or arguments the command refuses. */
    assert_int_equal(command_question_line("1"), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line("yes"), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line("he"), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line("lesson"), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line("next step please"), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line("sh  "), SHELL_LINE_ANSWER);
    assert_int_equal(command_question_line(""), SHELL_LINE_ANSWER);
    /* What only looks is flagged in the table, never listed elsewhere. */
    for (size_t i = 0; i < command_count; i++)
        if (command_table[i].flags & COMMAND_LOOKS)
            assert_true(command_table[i].handler != cmd_next &&
                        command_table[i].handler != cmd_quit && command_table[i].handler != cmd_sh);
}

static void test_quit_exits_and_blank_or_comment_lines_do_nothing(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(run(f, "quit"), SHELL_EXIT);
    assert_int_equal(run(f, "  "), SHELL_OK);
    assert_int_equal(run(f, "# a comment in a script"), SHELL_OK);
}

static void test_lesson_commands_without_a_lesson_say_what_to_do(void **state)
{
    struct fixture *f = *state;
    static const char *const cmds[] = {"next", "back", "again", "check", "hint"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        take_errors(f);
        assert_int_equal(run(f, cmds[i]), SHELL_ERROR);
        assert_non_null(strstr(take_errors(f), "no lesson started: type `lessons`"));
    }
    take_errors(f);
    assert_int_equal(run(f, "lesson 99"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "no lesson '99'"));
    take_errors(f);
    assert_int_equal(run(f, "reset"), SHELL_ERROR); /* not interactive: needs -y */
    assert_non_null(strstr(take_errors(f), "reset -y"));
}

static void test_commands_needing_the_lab_say_it_is_not_open(void **state)
{
    struct fixture *f = *state;
    static const char *const cmds[] = {"ps", "tree", "ns 1", "status", "cleanup", "sh true"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        take_errors(f);
        assert_int_equal(run(f, cmds[i]), SHELL_ERROR);
        assert_non_null(strstr(take_errors(f), "the lab is not open"));
    }
}

static int has(char **list, const char *word)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        if (strcmp(list[i], word) == 0)
            return 1;
    return 0;
}

static size_t length(char **list)
{
    size_t n = 0;
    while (list != NULL && list[n] != NULL)
        n++;
    return n;
}

static void test_completion_reads_the_table_and_the_completers(void **state)
{
    struct fixture *f = *state;
    char **l;

    l = command_complete(&f->sh, "", "les");
    assert_int_equal(length(l), 2);
    assert_true(has(l, "lesson") && has(l, "lessons"));
    shell_free_list(l);
    l = command_complete(&f->sh, "", "");
    assert_int_equal(length(l), command_count); /* every command, none other */
    shell_free_list(l);
    l = command_complete(&f->sh, "help ", "q");
    assert_int_equal(length(l), 1);
    assert_true(has(l, "quit"));
    shell_free_list(l);
    l = command_complete(&f->sh, "lesson ", "");
    assert_true(has(l, "1") && has(l, "01-tiny") && has(l, "tiny") && has(l, "2"));
    shell_free_list(l);
    l = command_complete(&f->sh, "lesson ", "sec");
    assert_int_equal(length(l), 1);
    assert_true(has(l, "second"));
    shell_free_list(l);
    l = command_complete(&f->sh, "source ", "hello:");
    assert_true(has(l, "hello:main") && has(l, "hello:print"));
    shell_free_list(l);
    l = command_complete(&f->sh, "source ", "he");
    assert_true(has(l, "hello"));
    shell_free_list(l);
    assert_null(command_complete(&f->sh, "sh ls ", "/pr"));      /* paths */
    assert_null(command_complete(&f->sh, "export 1 ", "/tmp/")); /* paths */
    l = command_complete(&f->sh, "status ", "");
    assert_int_equal(length(l), 0);
    shell_free_list(l);
}

static void test_source_shows_a_tagged_region_with_its_line_numbers(void **state)
{
    struct fixture *f = *state;
    int first;
    char *code, why[256];
    assert_int_equal(
        lesson_include_text("a\n// tag::x[]\nb\n// tag::y[]\nc\n// end::y[]\n// end::x[]\nd\n",
                            "t.c", "x", &code, &first, why, sizeof why),
        0);
    assert_string_equal(code, "b\nc\n");
    assert_int_equal(first, 3);
    free(code);
    assert_int_equal(lesson_include_text("a\n// tag::x[]\nb\n// end::x[]\n", "t.c", NULL, &code,
                                         &first, why, sizeof why),
                     0);
    assert_string_equal(code, "a\nb\n");
    free(code);
    assert_int_equal(
        lesson_include_text("a\nb\n", "t.c", "missing", &code, &first, why, sizeof why), -1);
    assert_null(code);

    assert_int_equal(run(f, "source hello:print"), SHELL_OK);
    const char *out = take_output(f);
    assert_non_null(strstr(out, "puts(\"hello\");"));
    assert_non_null(strstr(out, "8"));
    take_errors(f);
    assert_int_equal(run(f, "source hello:nosuch"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "no part tagged 'nosuch'"));
    assert_int_equal(run(f, "source nosuch"), SHELL_ERROR);
    assert_non_null(strstr(take_errors(f), "no example 'nosuch'"));
}

static void test_export_writes_a_runnable_commented_script(void **state)
{
    struct fixture *f = *state;
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;

    snprintf(path, sizeof path, "%s/test_commands.export.%ld.sh", tl_tmpdir(), (long)getpid());
    unlink(path);
    assert_int_equal(run(f, "export tiny"), SHELL_OK);
    const char *out = take_output(f);
    assert_non_null(strstr(out, "#!/bin/sh\n"));
    assert_non_null(strstr(out, "\necho hello\n"));
    assert_non_null(strstr(out, "\nmkdir -p /proc9\n"));
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "export 1 %s", path);
    assert_int_equal(run(f, cmd), SHELL_OK);
    int rc = tl_shf(&text, "sh -n %s && head -2 %s", path, path);
    assert_int_equal(rc, 0); /* valid shell syntax */
    assert_string_equal(text, "#!/bin/sh\n# SPDX-License-Identifier: MIT\n");
    free(text);
    take_errors(f);
    assert_int_equal(run(f, cmd), SHELL_ERROR); /* never overwrites */
    assert_non_null(strstr(take_errors(f), "File exists"));
    unlink(path);
    (void)len;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_command_has_synopsis_summary_help_and_handler),
        cmocka_unit_test(test_the_commands_the_issue_lists_exist),
        cmocka_unit_test(test_find_takes_unique_prefixes_only),
        cmocka_unit_test(test_closest_command_for_typos),
        cmocka_unit_test(test_unknown_command_names_the_closest_in_one_line),
        cmocka_unit_test(test_bad_arguments_get_the_usage),
        cmocka_unit_test(test_split_handles_quotes_and_escapes),
        cmocka_unit_test(test_absurd_lines_are_refused_politely),
        cmocka_unit_test(test_help_lists_every_command_and_explains_one),
        cmocka_unit_test(test_a_line_at_a_question_is_a_command_only_when_it_names_one),
        cmocka_unit_test(test_quit_exits_and_blank_or_comment_lines_do_nothing),
        cmocka_unit_test(test_lesson_commands_without_a_lesson_say_what_to_do),
        cmocka_unit_test(test_commands_needing_the_lab_say_it_is_not_open),
        cmocka_unit_test(test_completion_reads_the_table_and_the_completers),
        cmocka_unit_test(test_source_shows_a_tagged_region_with_its_line_numbers),
        cmocka_unit_test(test_export_writes_a_runnable_commented_script),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
