/* SPDX-License-Identifier: MIT */
/* test_progress.c: the learner's progress file: saved and resumed, where
 * it lives ($XDG_STATE_HOME, HOME, the invoking user's home under sudo),
 * who owns it under sudo, and an unwritable home as a warning only; skipped
 * exercises (format 2) and files of format 1 read back, from the fixtures
 * of tests/fixtures/progress (format1-*: written by the tutor before skips
 * were recorded; format2-*: after).
 */
#include "testlib.h"
#include "tutor/progress.h"
#include "util/io.h"

#include <fcntl.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[PATH_MAX];

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "%s/test_progress.%ld", tl_tmpdir(), (long)getpid());
    return tl_shf(NULL, "rm -rf %s && mkdir -p %s", scratch, scratch) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    unsetenv("SUDO_UID");
    unsetenv("SUDO_GID");
    return tl_shf(NULL, "rm -rf %s", scratch) == 0 ? 0 : -1;
}

static void test_saved_progress_is_resumed_by_the_next_session(void **state)
{
    struct progress p, again;
    char dir[PATH_MAX + 64];
    (void)state;

    snprintf(dir, sizeof dir, "%s/a/deep/state", scratch);
    progress_open(&p, dir, stderr);
    assert_true(p.writable);
    struct progress_entry *e = progress_entry(&p, "02-proc");
    e->step = 3;
    e->checked = 5;
    progress_entry(&p, "01-new-namespace")->finished = 1;
    snprintf(p.current, sizeof p.current, "02-proc");
    assert_int_equal(progress_save(&p, stderr), 0);
    progress_close(&p);

    progress_open(&again, dir, stderr);
    assert_string_equal(again.current, "02-proc");
    assert_int_equal(again.count, 2);
    assert_int_equal(progress_get(&again, "02-proc")->step, 3);
    assert_int_equal(progress_get(&again, "02-proc")->checked, 5);
    assert_int_equal(progress_get(&again, "01-new-namespace")->finished, 1);
    assert_null(progress_get(&again, "03-nope"));
    progress_reset(&again);
    assert_int_equal(again.count, 0);
    assert_string_equal(again.current, "");
    progress_close(&again);
}

static void test_malformed_lines_are_skipped_and_counted(void **state)
{
    struct progress p;
    (void)state;
    memset(&p, 0, sizeof p);
    int skipped = progress_parse(&p, "# comment\n"
                                     "current 01-a\n"
                                     "lesson 01-a step 2 done 0 checked 0\n"
                                     "lesson 01-b step -1 done 0 checked 0\n"
                                     "lesson 01-c step 1 done 7 checked 0\n"
                                     "lesson 01-d step 1 done 0 checked 0 extra\n"
                                     "garbage\n"
                                     "current has space\n"
                                     "\n");
    assert_int_equal(skipped, 5);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.entries[0].step, 2);
    assert_string_equal(p.current, "01-a");
    progress_close(&p);
}

static void test_state_dir_follows_xdg_then_home(void **state)
{
    char dir[PATH_MAX + 64];
    (void)state;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;

    setenv("XDG_STATE_HOME", "/somewhere/state", 1);
    assert_int_equal(progress_state_dir(dir, sizeof dir), 0);
    assert_string_equal(dir, "/somewhere/state/pidns-tutor");
    setenv("XDG_STATE_HOME", "relative/ignored", 1);
    setenv("HOME", "/home/learner", 1);
    assert_int_equal(progress_state_dir(dir, sizeof dir), 0);
    assert_string_equal(dir, "/home/learner/.local/state/pidns-tutor");
    unsetenv("XDG_STATE_HOME");
    assert_int_equal(progress_state_dir(dir, sizeof dir), 0);
    assert_string_equal(dir, "/home/learner/.local/state/pidns-tutor");

    if (old_home != NULL)
        setenv("HOME", old_home, 1);
    if (old_xdg != NULL)
        setenv("XDG_STATE_HOME", old_xdg, 1);
    free(old_home);
    free(old_xdg);
}

static void test_unwritable_home_is_a_warning_not_a_failure(void **state)
{
    struct progress p;
    char dir[PATH_MAX + 64], *warning = NULL;
    size_t len = 0;
    (void)state;

    /* A path under a regular file cannot be created, even by root. */
    assert_int_equal(tl_shf(NULL, "touch %s/file", scratch), 0);
    snprintf(dir, sizeof dir, "%s/file/state", scratch);
    FILE *warn = open_memstream(&warning, &len);
    progress_open(&p, dir, warn);
    assert_false(p.writable);
    assert_non_null(progress_entry(&p, "01-a")); /* still usable in memory */
    assert_int_equal(progress_save(&p, warn), -1);
    fclose(warn);
    assert_non_null(strstr(warning, "warning: cannot write"));
    assert_non_null(strstr(warning, "this session only"));
    assert_int_equal(strstr(warning, "\n") - warning + 1, (long)strlen(warning)); /* once */
    free(warning);
    progress_close(&p);
}

static void test_under_sudo_files_belong_to_the_invoking_user(void **state)
{
    struct progress p;
    struct stat st;
    char dir[PATH_MAX + 64], path[PATH_MAX + 128];
    (void)state;
    TL_REQUIRE_ROOT();

    setenv("SUDO_UID", "65534", 1);
    setenv("SUDO_GID", "65534", 1);
    snprintf(dir, sizeof dir, "%s/home/.local/state/pidns-tutor", scratch);
    assert_int_equal(tl_shf(NULL, "mkdir -p %s/home", scratch), 0);
    progress_open(&p, dir, stderr);
    assert_true(p.writable);
    progress_entry(&p, "01-a");
    assert_int_equal(progress_save(&p, stderr), 0);
    assert_int_equal(stat(p.path, &st), 0);
    assert_int_equal(st.st_uid, 65534);
    assert_int_equal(st.st_gid, 65534);
    snprintf(path, sizeof path, "%s/home/.local", scratch); /* made by us: given away too */
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, 65534);
    snprintf(path, sizeof path, "%s/home", scratch); /* existed: left alone */
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, 0);
    progress_close(&p);
}

/* A fixture of tests/fixtures/progress, parsed into p. */
static int parse_fixture(struct progress *p, const char *name)
{
    char path[PATH_MAX];
    const char *src = getenv("PIDNS_TUTOR_SRC");
    snprintf(path, sizeof path, "%s/tests/fixtures/progress/%s", src ? src : ".", name);
    char *text = io_read_file(AT_FDCWD, path, 1 << 16);
    assert_non_null(text);
    memset(p, 0, sizeof *p);
    int skipped = progress_parse(p, text);
    free(text);
    return skipped;
}

/* format1-skipped: lesson 01-tiny (exercise at step 2, bit 1) left with
 * `next` twice by the tutor of format 1, which wrote "done 1 checked 0".
 * Read now, it is finished but not done: its exercise was skipped. */
static void test_format1_file_with_an_exercise_never_passed_is_not_done(void **state)
{
    struct progress p;
    (void)state;
    assert_int_equal(parse_fixture(&p, "format1-skipped"), 0);
    struct progress_entry *e = progress_get(&p, "01-tiny");
    assert_non_null(e);
    assert_int_equal(e->finished, 1);
    assert_int_equal(e->legacy, 1);
    progress_settle(e, 1ul << 1);
    assert_int_equal(e->legacy, 0);
    assert_int_equal(e->skipped, 1ul << 1);
    assert_false(progress_entry_done(e));
    int first = -2;
    assert_int_equal(progress_skipped(e, &first), 1);
    assert_int_equal(first, 1);
    progress_close(&p);
}

/* format1-passed: the same lesson with its exercise passed: done. */
static void test_format1_file_with_every_exercise_passed_is_done(void **state)
{
    struct progress p;
    (void)state;
    assert_int_equal(parse_fixture(&p, "format1-passed"), 0);
    assert_string_equal(p.current, "02-second");
    struct progress_entry *e = progress_get(&p, "01-tiny");
    progress_settle(e, 1ul << 1);
    assert_int_equal(e->skipped, 0);
    assert_true(progress_entry_done(e));
    e = progress_get(&p, "02-second"); /* no exercise, not finished */
    progress_settle(e, 0);
    assert_false(progress_entry_done(e));
    assert_int_equal(progress_skipped(e, NULL), 0);
    progress_close(&p);
}

/* A format 1 entry not finished: only the exercises before the step reached
 * were skipped (the one at the step reached is still ahead). */
static void test_format1_settles_only_the_steps_before_the_one_reached(void **state)
{
    struct progress p;
    (void)state;
    memset(&p, 0, sizeof p);
    assert_int_equal(progress_parse(&p, "lesson 05-x step 3 done 0 checked 1\n"), 0);
    struct progress_entry *e = progress_get(&p, "05-x");
    progress_settle(e, 0x1bul); /* exercises at steps 0, 1, 3, 4 */
    assert_int_equal(e->skipped, 0x2ul);
    progress_settle(e, 0xfful); /* settled once only */
    assert_int_equal(e->skipped, 0x2ul);
    progress_close(&p);
}

/* format2-skipped: written by this tutor after `next` past the exercise. */
static void test_format2_file_records_the_skip(void **state)
{
    struct progress p;
    (void)state;
    assert_int_equal(parse_fixture(&p, "format2-skipped"), 0);
    struct progress_entry *e = progress_get(&p, "01-tiny");
    assert_int_equal(e->legacy, 0);
    assert_int_equal(e->finished, 1);
    assert_int_equal(e->skipped, 1ul << 1);
    progress_settle(e, 0); /* no effect on a format 2 entry */
    assert_int_equal(e->skipped, 1ul << 1);
    assert_false(progress_entry_done(e));
    progress_close(&p);
}

static void test_format2_malformed_lines_are_skipped_and_counted(void **state)
{
    struct progress p;
    (void)state;
    assert_int_equal(parse_fixture(&p, "format2-malformed"), 4); /* 01-b, c, d, e */
    assert_int_equal(p.count, 3);
    assert_int_equal(progress_get(&p, "01-a")->skipped, 4);
    assert_int_equal(progress_get(&p, "01-f")->skipped, 0); /* passed: not skipped */
    assert_true(progress_entry_done(progress_get(&p, "01-f")));
    assert_int_equal(progress_get(&p, "01-g")->legacy, 1);
    assert_null(progress_get(&p, "01-b"));
    progress_close(&p);
}

/* Skip, save, resume; a pass later clears the skip; `next` past an exercise
 * passed before does not mark it. An entry never settled (its lesson gone)
 * is written back as it was read, not with an invented "skipped 0". */
static void test_skip_then_pass_round_trip(void **state)
{
    struct progress p, again;
    char dir[PATH_MAX + 64];
    (void)state;
    snprintf(dir, sizeof dir, "%s/skips", scratch);
    progress_open(&p, dir, stderr);
    struct progress_entry *e = progress_entry(&p, "03-x");
    progress_mark_skipped(e, 4);
    progress_mark_passed(e, 2);
    progress_mark_skipped(e, 2);
    e->finished = 1;
    assert_int_equal(progress_parse(&p, "lesson 09-gone step 1 done 1 checked 0\n"), 0);
    assert_int_equal(progress_save(&p, stderr), 0);
    progress_close(&p);
    assert_int_equal(tl_shf(NULL,
                            "grep -qx 'lesson 03-x step 0 finished 1 checked 4 skipped 16' "
                            "%s/progress && grep -qx 'lesson 09-gone step 1 done 1 checked 0' "
                            "%s/progress",
                            dir, dir),
                     0);
    progress_open(&again, dir, stderr);
    e = progress_get(&again, "03-x");
    assert_int_equal(e->skipped, 16);
    assert_false(progress_entry_done(e));
    progress_mark_passed(e, 4);
    assert_int_equal(e->skipped, 0);
    assert_int_equal(e->checked, 20);
    assert_true(progress_entry_done(e));
    progress_close(&again);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saved_progress_is_resumed_by_the_next_session),
        cmocka_unit_test(test_malformed_lines_are_skipped_and_counted),
        cmocka_unit_test(test_state_dir_follows_xdg_then_home),
        cmocka_unit_test(test_unwritable_home_is_a_warning_not_a_failure),
        cmocka_unit_test(test_under_sudo_files_belong_to_the_invoking_user),
        cmocka_unit_test(test_format1_file_with_an_exercise_never_passed_is_not_done),
        cmocka_unit_test(test_format1_file_with_every_exercise_passed_is_done),
        cmocka_unit_test(test_format1_settles_only_the_steps_before_the_one_reached),
        cmocka_unit_test(test_format2_file_records_the_skip),
        cmocka_unit_test(test_format2_malformed_lines_are_skipped_and_counted),
        cmocka_unit_test(test_skip_then_pass_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
