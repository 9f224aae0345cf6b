/* SPDX-License-Identifier: MIT */
/* test_progress.c: the learner's progress file: saved and resumed, where
 * it lives ($XDG_STATE_HOME, HOME, the invoking user's home under sudo),
 * who owns it under sudo, and an unwritable home as a warning only.
 */
#include "testlib.h"
#include "tutor/progress.h"

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
    progress_entry(&p, "01-new-namespace")->done = 1;
    snprintf(p.current, sizeof p.current, "02-proc");
    assert_int_equal(progress_save(&p, stderr), 0);
    progress_close(&p);

    progress_open(&again, dir, stderr);
    assert_string_equal(again.current, "02-proc");
    assert_int_equal(again.count, 2);
    assert_int_equal(progress_get(&again, "02-proc")->step, 3);
    assert_int_equal(progress_get(&again, "02-proc")->checked, 5);
    assert_int_equal(progress_get(&again, "01-new-namespace")->done, 1);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saved_progress_is_resumed_by_the_next_session),
        cmocka_unit_test(test_malformed_lines_are_skipped_and_counted),
        cmocka_unit_test(test_state_dir_follows_xdg_then_home),
        cmocka_unit_test(test_unwritable_home_is_a_warning_not_a_failure),
        cmocka_unit_test(test_under_sudo_files_belong_to_the_invoking_user),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
