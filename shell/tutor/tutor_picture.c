/* SPDX-License-Identifier: MIT */
/* tutor_picture.c: in --auto, the lab's namespace tree after a step, for the
 * handbook's pictures (docs/handbook/handbook.rb draws each as an SVG beside
 * its text). Only when PIDNS_TUTOR_TREES is set (docs/handbook/
 * capture-reference.sh sets it) and the lab holds a namespace below its own:
 *
 *     tree after lesson 5, step 1:
 *       | pid:[4026532199] level 1 (the lab's namespace), 2 processes
 *       | `-- pid:[4026532209] level 2, 1 process
 *       | ...
 *
 * The lines are the `tree` command's, each after "  | ", so that nothing
 * reading the transcript takes them for a command's output. */
#include "tutor/tutor.h"
#include "lab/lab.h"
#include "procfs/procfs.h"
#include "render/render_procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tutor_print_tree_for_picture(struct shell *sh, int lesson, size_t step)
{
    struct procfs_tree tree;

    if (getenv("PIDNS_TUTOR_TREES") == NULL || sh->lab == NULL)
        return;
    if (procfs_read_tree(lab_path(sh->lab, "/proc"), &tree) == -1)
        return;
    tree.base_level = lab_level(sh->lab);
    tree.root_name = "the lab's namespace";
    procfs_tree_remove(&tree, procfs_entered_from_outside, NULL);
    char *text = tree.count >= 2 ? render_format_tree(&tree) : NULL;
    procfs_tree_free(&tree);
    if (text == NULL)
        return;
    fprintf(sh->render.out, "tree after lesson %d, step %zu:\n", lesson, step);
    for (char *line = text, *next; *line != '\0'; line = next) {
        next = line + strcspn(line, "\n");
        fprintf(sh->render.out, "  | %.*s\n", (int)(next - line), line);
        if (*next == '\n')
            next++;
    }
    fflush(sh->render.out);
    free(text);
}
