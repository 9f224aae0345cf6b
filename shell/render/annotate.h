/* SPDX-License-Identifier: MIT */
/* annotate.h: the short notes under a command's output that relate the
 * values a learner should notice ("27656 is sleep's PID as the lab sees
 * it; in its own namespace it is 1"), from what the kernel says now.
 */
#ifndef PIDNS_TUTOR_ANNOTATE_H
#define PIDNS_TUTOR_ANNOTATE_H

#include <stddef.h>

struct procfs_tree;

/* Writes at most max_notes notes (one line each, '\n'-separated) about the
 * PIDs and pid:[...] links in output, using the tree of the lab's PID
 * namespaces. Pure. Returns a malloc'd string, "" when nothing to say. */
char *annotate_output(const char *output, const struct procfs_tree *tree, size_t max_notes);

#endif
