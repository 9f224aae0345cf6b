/* SPDX-License-Identifier: MIT */
/* test_tee.c: the output relay's mark for a background job's later lines
 * (PIDNS_TUTOR_MARK_JOBS, the handbook's reference capture).
 *
 * The relay and the shell write to the same file. A job's later line must
 * reach it whole, mark included: written as two pieces, the shell's own
 * line could come between them ("[job] # command", then the job's line
 * unmarked), which failed the handbook's lesson 24 page in CI. Here a job
 * and the "shell" (this process) each write 3000 lines at once into one
 * file; every job line must carry its mark, and no shell line may.
 * Negative control: the relay that wrote the mark apart failed this test
 * in 2 runs of 3 ("78 lines out of place, the first: [job] shell line
 * 2269").
 */
#include "testlib.h"
#include "render/tee.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINES 3000

static void test_a_later_line_and_its_mark_arrive_together(void **state)
{
    (void)state;
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/pidns-tutor-tee.XXXXXX", dir != NULL ? dir : "/tmp");
    int file = mkstemp(path), saved = dup(STDOUT_FILENO);
    assert_true(file != -1 && saved != -1);
    unlink(path);
    setenv("PIDNS_TUTOR_MARK_JOBS", "1", 1);
    struct render r;
    render_init(&r, stdout, 1);
    fflush(stdout);
    assert_int_equal(dup2(file, STDOUT_FILENO), STDOUT_FILENO);
    struct tee *t = tee_start(&r);
    assert_non_null(t);
    int job = dup(tee_fd(t)); /* the job's end of the pipe, as its runner keeps it */
    free(tee_finish(t, 0));   /* the shell stops waiting: what follows is later */
    pid_t writer = fork();
    if (writer == 0) {
        for (int i = 0; i < LINES; i++)
            dprintf(job, "job line %d\n", i);
        _exit(0);
    }
    close(job);
    for (int i = 0; i < LINES; i++)
        dprintf(STDOUT_FILENO, "shell line %d\n", i);
    waitpid(writer, NULL, 0);
    tee_reap(5000);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    unsetenv("PIDNS_TUTOR_MARK_JOBS");

    FILE *in = fdopen(file, "r");
    assert_non_null(in);
    rewind(in);
    char line[256], bad[256] = "";
    int jobs = 0, shells = 0, wrong = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        int ok = strncmp(line, TEE_LATER_MARK "job line ", strlen(TEE_LATER_MARK) + 9) == 0 ||
                 strncmp(line, "shell line ", 11) == 0;
        jobs += strstr(line, "job line ") != NULL;
        shells += strstr(line, "shell line ") != NULL;
        if (!ok && wrong++ == 0)
            snprintf(bad, sizeof bad, "%s", line);
    }
    fclose(in);
    if (wrong != 0)
        fail_msg("%d lines out of place, the first: %s", wrong, bad);
    assert_int_equal(jobs, LINES);
    assert_int_equal(shells, LINES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_later_line_and_its_mark_arrive_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
