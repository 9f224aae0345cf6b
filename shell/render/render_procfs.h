/* SPDX-License-Identifier: MIT */
/* render_procfs.h: what procfs read, as the text the `tree`, `ps` and `ns
 * PID` commands print (render_procfs.c), beside render_table. */
#ifndef PIDNS_TUTOR_RENDER_PROCFS_H
#define PIDNS_TUTOR_RENDER_PROCFS_H

#include <stddef.h>

#include "procfs/procfs.h"

/* Text the shell prints as is (malloc'd, NULL when out of memory). The exact
 * formats are documented in render_procfs.c; tests and lessons compare them. */
char *render_format_tree(const struct procfs_tree *tree); /* the `tree` command */
char *render_format_ps(const struct procfs_tree *tree);   /* the `ps` command */
char *render_format_ns_links(const struct procfs_ns_entry *entries, size_t count); /* `ns PID` */

#endif
