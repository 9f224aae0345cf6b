/* SPDX-License-Identifier: MIT */
/* test_lab_expect.c: lab_start_expecting() settles a program that keeps
 * running on an event, not on a silence: once its output is what the caller
 * waits for (however late it comes), at once when the output can never be
 * that, at the bound when it never comes, and Ctrl-C still stops the wait.
 * The negative control: lab_start() makes the same late program a job
 * before its line has come. */
#include "lab_holder.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* READY once the output holds arg; NEVER once it holds "wrong". */
static enum lab_output_state holds(const char *output, const void *arg)
{
    if (strstr(output, arg) != NULL)
        return LAB_OUTPUT_READY;
    return strstr(output, "wrong") != NULL ? LAB_OUTPUT_NEVER : LAB_OUTPUT_NOT_YET;
}

struct start_case {
    const char *command;
    const char *wanted;     /* NULL: lab_start() */
    double bound;           /* seconds, 0: the lab's 30 s */
    double at_least, below; /* when it must have settled (s) */
};

/* Starts the case's command; it must become a job between at_least and
 * below seconds after the start. */
static int start_case(void *arg)
{
    const struct start_case *c = arg;
    int failed = 0, status = -1, job = 0, null = open("/dev/null", O_RDWR);
    struct lab *lab = NULL;
    EXPECT(null != -1 && dup2(null, 0) == 0, "no terminal");
    lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    struct lab_expect expect = {holds, c->wanted, c->bound};
    double t0 = tl_now();
    int rc = lab_start_expecting(lab, c->command, null, c->wanted != NULL ? &expect : NULL, &status,
                                 &job);
    double took = tl_now() - t0;
    EXPECT(rc == 1 && job == 1, "'%s' became a job: %d, status %d", c->command, rc, status);
    EXPECT(took >= c->at_least && took < c->below,
           "'%s' settled after %.0f ms, not in [%.0f, %.0f)", c->command, took * 1000,
           c->at_least * 1000, c->below * 1000);
    EXPECT(lab_close(lab, NULL) == 0, "host unchanged");
out:
    return failed;
}

static void run_case(const struct start_case *c)
{
    TL_REQUIRE_ROOT();
    struct tl_host_snapshot before;
    tl_host_snapshot(&before);
    lt_assert_holder_passed(lt_run_holder(start_case, (void *)c, 0, 60));
    tl_assert_host_unchanged(&before);
    tl_host_snapshot_free(&before);
}

#define LATE "sleep 2; echo ready; exec sleep 600"

static void test_a_late_line_is_waited_for(void **state)
{
    (void)state;
    run_case(&(struct start_case){LATE, "ready\n", 0, 2, 10});
}

static void test_negative_control_lab_start_settles_before_the_line(void **state)
{
    (void)state;
    run_case(&(struct start_case){LATE, NULL, 0, 0, 1.9});
}

static void test_a_prompt_line_settles_as_before(void **state)
{
    (void)state;
    /* printed at once: quiet for the settle time (0.3 s), not more */
    run_case(&(struct start_case){"echo ready; exec sleep 600", "ready\n", 0, 0.3, 1.9});
}

static void test_what_expects_no_output_settles_as_before(void **state)
{
    (void)state;
    /* an empty [.expect] after a silent program: met before any output */
    run_case(&(struct start_case){"exec sleep 600", "", 0, 0.3, 1.9});
}

static void test_output_that_cannot_match_settles_at_once(void **state)
{
    (void)state;
    run_case(&(struct start_case){"echo wrong; exec sleep 600", "ready\n", 0, 0.3, 1.9});
}

static void test_a_chatty_program_that_never_matches_settles_at_the_bound(void **state)
{
    (void)state;
    run_case(
        &(struct start_case){"while :; do echo tick; sleep 0.05; done", "ready\n", 2.5, 2.5, 10});
}

/* Ctrl-C (a SIGINT to the shell, no terminal) while the lab waits for a
 * line that does not come stops the command: 130, at once. */
static int interrupted_wait(void *arg)
{
    int tell_fd = *(int *)arg;
    int failed = 0, status = -1, job = 0, null = open("/dev/null", O_RDONLY);
    struct lab *lab = NULL;
    EXPECT(null != -1 && dup2(null, 0) == 0, "no terminal");
    EXPECT(setpgid(0, 0) == 0, "a process group of our own, like a shell");
    lab = lt_open(0);
    EXPECT(lab != NULL, "a lab");
    struct lab_expect expect = {holds, "never printed", 0};
    double t0 = tl_now();
    int rc =
        lab_start_expecting(lab, "echo started; exec sleep 600", tell_fd, &expect, &status, &job);
    EXPECT(rc == 0 && status == 130, "stopped by Ctrl-C: rc %d, status %d", rc, status);
    EXPECT(tl_now() - t0 < 10, "long before the bound (%.0f ms)", (tl_now() - t0) * 1000);
    EXPECT(lab_close(lab, NULL) == 0, "host unchanged");
out:
    return failed;
}

static void test_ctrl_c_stops_the_wait(void **state)
{
    (void)state;
    TL_REQUIRE_ROOT();
    int pipefd[2];
    char line[64];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        close(pipefd[0]);
        _exit(interrupted_wait(&pipefd[1]));
    }
    close(pipefd[1]);
    int got = lt_read_line(pipefd[0], line, sizeof line, 20);
    usleep(500000); /* well past the settle time: the lab is still waiting */
    kill(holder, SIGINT);
    int status = 0;
    waitpid(holder, &status, 0);
    close(pipefd[0]);
    assert_int_equal(got, 0);
    lt_assert_holder_passed(status);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_late_line_is_waited_for),
        cmocka_unit_test(test_negative_control_lab_start_settles_before_the_line),
        cmocka_unit_test(test_a_prompt_line_settles_as_before),
        cmocka_unit_test(test_what_expects_no_output_settles_as_before),
        cmocka_unit_test(test_output_that_cannot_match_settles_at_once),
        cmocka_unit_test(test_a_chatty_program_that_never_matches_settles_at_the_bound),
        cmocka_unit_test(test_ctrl_c_stops_the_wait),
    };
    return cmocka_run_group_tests(tests, lt_setup, lt_teardown);
}
