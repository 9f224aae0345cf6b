/* SPDX-License-Identifier: MIT */
/* render_note.c: the short annotations that relate the values a learner has
 * just seen ("27656 is the child's PID in your namespace; in its own it is
 * 1."). Pure: each returns a malloc'd sentence (NULL when out of memory) that
 * the shell prints with render_text(..., RENDER_NOTE, ...).
 */
#include "render/render.h"

#include <stdio.h>
#include <stdlib.h>

char *render_note_clone_pid(pid_t pid_in_parent, pid_t pid_in_child)
{
    char *note;
    int n;
    if (pid_in_parent == pid_in_child)
        n = asprintf(&note,
                     "%d is the child's PID in your namespace, and the child sees the same "
                     "number for itself.",
                     (int)pid_in_parent);
    else
        n = asprintf(&note, "%d is the child's PID in your namespace; in its own it is %d.",
                     (int)pid_in_parent, (int)pid_in_child);
    return n == -1 ? NULL : note;
}

/* One clause per level: "5 in the lab's", "3 at level 3", "1 in its own".
 * Levels are the kernel's: the lab's namespace is base_level. */
static void print_level(FILE *out, const pid_t *nspid, int count, int level, int base_level)
{
    if (level == 0)
        fprintf(out, "%d in the lab's", (int)nspid[0]);
    else if (level == count - 1)
        fprintf(out, "%d in its own", (int)nspid[level]);
    else
        fprintf(out, "%d at level %d", (int)nspid[level], base_level + level);
}

char *render_note_nspid(const char *name, const pid_t *nspid, int count, int base_level)
{
    char *note = NULL;
    size_t size;
    FILE *out = count > 0 ? open_memstream(&note, &size) : NULL;
    if (out == NULL)
        return NULL;
    if (count == 1) {
        fprintf(out, "%s has one PID, %d: it lives in the lab's namespace (level %d).", name,
                (int)nspid[0], base_level);
    } else {
        fprintf(out,
                "%s has %d PIDs, one in each namespace from the lab's (level %d) down to its own "
                "(level %d): ",
                name, count, base_level, base_level + count - 1);
        for (int level = 0; level < count; level++) {
            if (level > 0)
                fputs(level == count - 1 ? " and " : ", ", out);
            print_level(out, nspid, count, level, base_level);
        }
        fputc('.', out);
    }
    if (fclose(out) != 0) {
        free(note);
        return NULL;
    }
    return note;
}

char *render_note_init_signal(const char *signame)
{
    char *note;
    int n = asprintf(&note,
                     "PID 1 here is the lab's init, and it has no handler for SIG%s. The kernel "
                     "shields a namespace's init from the processes of its own namespace: their "
                     "signal reaches it only if init catches it, so this one was dropped and kill "
                     "still reported success. Only SIGKILL or SIGSTOP sent from an ancestor "
                     "namespace gets through regardless (lesson 9).",
                     signame);
    return n == -1 ? NULL : note;
}
