/* SPDX-License-Identifier: MIT */
/* tutor_private.c: the learner's files kept theirs alone. A tutor before
 * 686d4e8 made ~/pidns-exercises 0755 with 0644 files (every classmate could
 * read the answers) and its state directory (progress, history) the same way;
 * on start, those are tightened to 0700 for directories and 0600 for files
 * (0700 where the owner may execute), and the learner is told once: the next
 * start finds nothing to change.
 *
 * Only what the learner owns (the invoking user under sudo) is changed, and
 * nothing through a symbolic link.
 */
#include "tutor/tutor_private.h"
#include "tutor/progress.h"
#include "tutor/tutor_code.h"

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uid_t private_owner;
static int private_dirs, private_files;

static int private_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if ((type != FTW_F && type != FTW_D && type != FTW_DP) || st->st_uid != private_owner ||
        (st->st_mode & 077) == 0)
        return 0;
    if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
        return 0;
    if (chmod(path, st->st_mode & 0700) == -1)
        return 0;
    if (S_ISDIR(st->st_mode))
        private_dirs++;
    else
        private_files++;
    return 0;
}

/* The directories and files under dir that others could read, made the
 * owner's alone; what changed is added to the counts. */
static void private_tree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
        return;
    nftw(dir, private_one, 16, FTW_PHYS);
}

int tutor_private_tighten(const struct progress *p, char *said, size_t len)
{
    char home[PATH_MAX], exercises[PATH_MAX + 32], what[2 * PATH_MAX + 64] = "";

    private_owner = p->change_owner ? p->owner_uid : getuid();
    private_dirs = private_files = 0;
    if (progress_home(home, sizeof home) == 0) {
        snprintf(exercises, sizeof exercises, "%s/%s", home, TUTOR_CODE_HOME_DIR);
        private_tree(exercises);
        if (private_dirs + private_files > 0)
            snprintf(what, sizeof what, "%s", exercises);
    }
    int before = private_dirs + private_files;
    if (p->dir[0] != '\0')
        private_tree(p->dir);
    if (private_dirs + private_files > before)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", what[0] ? " and " : "",
                 p->dir);
    if (what[0] == '\0')
        return 0;
    snprintf(said, len,
             "(made %s yours alone: %d director%s and %d file%s that others on this machine "
             "could read are now 0700 and 0600)",
             what, private_dirs, private_dirs == 1 ? "y" : "ies", private_files,
             private_files == 1 ? "" : "s");
    return 1;
}
