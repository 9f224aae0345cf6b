/* SPDX-License-Identifier: MIT */
/* stage.c: the built examples, staged where every user can run them.
 * See stage.h. */
#include "stage.h"
#include "testlib.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char stage_dir[64]; /* /tmp/pidns-tutor-stage.XXXXXX, or "" */
static char stage_examples[sizeof stage_dir + 16];
static pid_t stage_owner; /* forked children share stage_dir: only we remove it */

void tl_unstage(void)
{
    if (stage_dir[0] == '\0' || getpid() != stage_owner)
        return;
    if (tl_shf(NULL, "rm -rf '%s'", stage_dir) != 0)
        fprintf(stderr, "stage: could not remove %s\n", stage_dir);
    stage_dir[0] = '\0';
}

const char *tl_stage_examples(void)
{
    char from[PATH_MAX];

    snprintf(from, sizeof from, "%s", tl_example(""));
    snprintf(stage_dir, sizeof stage_dir, "/tmp/pidns-tutor-stage.XXXXXX");
    if (mkdtemp(stage_dir) == NULL) {
        perror("stage: mkdtemp /tmp/pidns-tutor-stage.XXXXXX");
        stage_dir[0] = '\0';
        return NULL;
    }
    stage_owner = getpid();
    atexit(tl_unstage);
    /* mkdtemp makes it 0700: open it to all for reading and searching only. */
    snprintf(stage_examples, sizeof stage_examples, "%s/examples", stage_dir);
    int rc = chmod(stage_dir, 0755) == 0
                 ? tl_shf(NULL, "cp -R '%s' '%s' && chmod -R a+rX,go-w '%s'", from, stage_examples,
                          stage_dir)
                 : -1;
    if (rc != 0) {
        fprintf(stderr, "stage: could not copy %s to %s\n", from, stage_examples);
        tl_unstage();
        return NULL;
    }
    return stage_examples;
}
