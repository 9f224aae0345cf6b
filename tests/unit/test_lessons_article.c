/* SPDX-License-Identifier: MIT */
/* test_lessons_article.c: every command the article shows appears in some
 * lesson, so that a learner who takes the lessons in order sees all of it.
 * The list is tests/fixtures/lessons/article-commands.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lesson/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source_dir(void)
{
    const char *src = getenv("PIDNS_TUTOR_SRC");
    return src ? src : ".";
}

/* "{*}COMMAND{*}" with each <PLACEHOLDER> turned into {*}: a pattern for
 * lesson_output_matches() that finds the command inside a command line. */
static void command_pattern(const char *command, char *out, size_t outlen)
{
    size_t n = (size_t)snprintf(out, outlen, "{*}");
    for (const char *c = command; *c && n + 8 < outlen; c++) {
        const char *close = *c == '<' ? strchr(c, '>') : NULL;
        if (close) {
            n += (size_t)snprintf(out + n, outlen - n, "{*}");
            c = close;
        } else {
            out[n++] = *c;
        }
    }
    snprintf(out + n, outlen - n, "{*}");
}

/* Looks for the command in every [.run] and [.solution] line. */
static const char *find_command(const struct lesson *lessons, size_t count, const char *pattern)
{
    for (size_t i = 0; i < count; i++)
        for (size_t s = 0; s < lessons[i].step_count; s++)
            for (size_t b = 0; b < lessons[i].steps[s].block_count; b++) {
                const struct lesson_block *k = &lessons[i].steps[s].blocks[b];
                const char *text = k->type == LESSON_RUN        ? k->text
                                   : k->type == LESSON_EXERCISE ? k->solution
                                                                : NULL;
                if (!text)
                    continue;
                char *copy = strdup(text);
                assert_non_null(copy);
                int found = 0;
                for (char *line = strtok(copy, "\n"); line && !found; line = strtok(NULL, "\n"))
                    found = lesson_output_matches(pattern, line);
                free(copy);
                if (found)
                    return lessons[i].id;
            }
    return NULL;
}

static void test_every_article_command_is_in_a_lesson(void **state)
{
    (void)state;
    char path[4096], err[1024], line[512], pattern[1200];
    struct lesson *lessons;
    size_t count;
    snprintf(path, sizeof(path), "%s/lessons", source_dir());
    int rc = lesson_load_dir(path, &lessons, &count, err, sizeof(err));
    if (rc != 0)
        print_message("%s\n", err);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof(path), "%s/tests/fixtures/lessons/article-commands.txt", source_dir());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int commands = 0, missing = 0;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        commands++;
        command_pattern(line, pattern, sizeof(pattern));
        const char *where = find_command(lessons, count, pattern);
        if (!where) {
            print_message("the article's command is in no lesson: %s\n", line);
            missing++;
        }
    }
    fclose(f);
    lesson_free_all(lessons, count);
    assert_true(commands >= 15);
    assert_int_equal(missing, 0);
}

static void test_the_finder_can_fail(void **state)
{
    (void)state;
    char pattern[256];
    struct lesson l;
    char err[256];
    const char *text = "= T\n:summary: s\n:minutes: 1\n\n== S\n\n[.run]\n----\n"
                       "readlink /proc/$(pgrep -x sleep)/ns/pid\n----\n";
    assert_int_equal(lesson_parse_string(text, "01-t.adoc", ".", &l, err, sizeof(err)), 0);
    command_pattern("readlink /proc/<PID>/ns/pid", pattern, sizeof(pattern));
    assert_non_null(find_command(&l, 1, pattern));
    command_pattern("umount /proc?", pattern, sizeof(pattern));
    assert_null(find_command(&l, 1, pattern));
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_finder_can_fail),
        cmocka_unit_test(test_every_article_command_is_in_a_lesson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
