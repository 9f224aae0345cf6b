/* SPDX-License-Identifier: MIT */
/* render_procfs.c: the text of the shell's `tree`, `ps` and `ns PID`
 * commands, made from what procfs read. Pure, so the formats are
 * unit-tested; lessons and tests
 * compare them, so change them only on purpose.
 *
 * `tree` (render_format_tree): one line per namespace, "pid:[INODE] level L,
 * N process(es)", then its member processes sorted by PID, then its child
 * namespaces in the order they were found; nesting drawn in ASCII as
 * tree --charset=ascii does ("|-- ", "`-- ", continued by "|   " or "    ").
 * A process line is "PID NAME", PID as the process's own namespace sees it,
 * followed by " (NSpid: A B ... PID)" when it has more than one PID (A in the
 * proc root's namespace, as in /proc/PID/status), and " <defunct>" when it is
 * a zombie:
 *
 *   pid:[4026531836] level 0, 1 process
 *   |-- 27655 pidns_init_slee
 *   `-- pid:[4026532412] level 1, 1 process
 *       `-- 1 sleep (NSpid: 27656 1)
 *
 * `ps` (render_format_ps): a header and one line per process sorted by PID
 * in the proc root's namespace; columns PID (%7d), PPID (%7d), S (state),
 * LEVEL (%5d, depth below the proc root's namespace), PIDNS (%-18s, the
 * pid:[INODE] link of its own namespace), NSPID (%-14s: every PID,
 * outermost first, space-separated), NAME (last, as ps puts CMD last, since
 * kernel threads have long names):
 *
 *       PID    PPID S LEVEL PIDNS              NSPID          NAME
 *     27656   27655 S     1 pid:[4026532412]   27656 1        sleep
 *
 * `ns PID` (render_format_ns_links): one line per link, "%-18s %s": the
 * name, then the link as readlink prints it, or "(unavailable: REASON)".
 */
#include "render/render_procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ends an open_memstream: the text, or NULL (and nothing leaked) on error. */
static char *finish_stream(FILE *stream, char **text, int failed)
{
    if (fclose(stream) != 0 || failed) {
        free(*text);
        return NULL;
    }
    return *text;
}

static void print_process_line(FILE *out, const char *prefix, const char *branch,
                               const struct procfs_process *process)
{
    const struct procfs_status *s = &process->status;
    fprintf(out, "%s%s%d %s", prefix, branch, (int)s->nspid[s->nspid_count - 1], s->name);
    if (s->nspid_count > 1) {
        fputs(" (NSpid:", out);
        for (int i = 0; i < s->nspid_count; i++)
            fprintf(out, " %d", (int)s->nspid[i]);
        fputc(')', out);
    }
    fputs(s->state == 'Z' ? " <defunct>\n" : "\n", out);
}

static void print_ns_line(FILE *out, const struct procfs_tree *tree, const struct procfs_pidns *ns)
{
    fprintf(out, "pid:[%llu] level %d", ns->inode, tree->base_level + ns->level);
    if (ns == tree->root && tree->root_name != NULL)
        fprintf(out, " (%s)", tree->root_name);
    fprintf(out, ", %zu process%s\n", ns->member_count, ns->member_count == 1 ? "" : "es");
}

/* Draws the members and children of ns; prefix is what precedes their
 * branches. Depth is bounded by the kernel's 32 levels. */
static void print_ns_body(FILE *out, const struct procfs_tree *tree, const struct procfs_pidns *ns,
                          char *prefix, size_t plen)
{
    size_t items = ns->member_count + ns->child_count;
    for (size_t i = 0; i < items; i++) {
        int last = i + 1 == items;
        const char *branch = last ? "`-- " : "|-- ";
        if (i < ns->member_count) {
            print_process_line(out, prefix, branch, &ns->members[i]);
            continue;
        }
        const struct procfs_pidns *child = ns->children[i - ns->member_count];
        fprintf(out, "%s%s", prefix, branch);
        print_ns_line(out, tree, child);
        memcpy(prefix + plen, last ? "    " : "|   ", 5);
        print_ns_body(out, tree, child, prefix, plen + 4);
        prefix[plen] = '\0';
    }
}

char *render_format_tree(const struct procfs_tree *tree)
{
    char *text = NULL;
    size_t size;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        return NULL;
    char prefix[4 * (PROCFS_MAX_LEVELS + 1) + 1] = "";
    if (tree->root != NULL) {
        print_ns_line(out, tree, tree->root);
        print_ns_body(out, tree, tree->root, prefix, 0);
    }
    return finish_stream(out, &text, tree->root == NULL);
}

static int compare_process_pointers(const void *a, const void *b)
{
    pid_t x = (*(const struct procfs_process *const *)a)->pid;
    pid_t y = (*(const struct procfs_process *const *)b)->pid;
    return (x > y) - (x < y);
}

struct ps_row {
    const struct procfs_process *process;
    const struct procfs_pidns *ns;
};

static void print_ps_row(FILE *out, const struct procfs_process *p, const struct procfs_pidns *ns,
                         int base_level)
{
    char link[40];
    snprintf(link, sizeof link, "pid:[%llu]", ns->inode);
    char nspid[PROCFS_MAX_LEVELS * 12] = "";
    for (int i = 0, len = 0; i < p->status.nspid_count; i++)
        len += snprintf(nspid + len, sizeof nspid - (size_t)len, "%s%d", i == 0 ? "" : " ",
                        (int)p->status.nspid[i]);
    fprintf(out, "%7d %7d %c %5d %-18s %-14s %s\n", (int)p->pid, (int)p->status.ppid,
            p->status.state, base_level + ns->level, link, nspid, p->status.name);
}

char *render_format_ps(const struct procfs_tree *tree)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; i < tree->count; i++)
        total += tree->all[i]->member_count;
    const struct procfs_process **rows = malloc((total + 1) * sizeof *rows);
    char *text = NULL;
    size_t size;
    FILE *out = rows != NULL ? open_memstream(&text, &size) : NULL;
    if (out == NULL) {
        free(rows);
        return NULL;
    }
    for (size_t i = 0; i < tree->count; i++)
        for (size_t j = 0; j < tree->all[i]->member_count; j++)
            rows[n++] = &tree->all[i]->members[j];
    qsort(rows, n, sizeof *rows, compare_process_pointers);
    fprintf(out, "%7s %7s %s %5s %-18s %-14s %s\n", "PID", "PPID", "S", "LEVEL", "PIDNS", "NSPID",
            "NAME");
    for (size_t i = 0; i < n; i++) {
        const struct procfs_pidns *ns;
        procfs_tree_find_process(tree, rows[i]->pid, &ns);
        print_ps_row(out, rows[i], ns, tree->base_level);
    }
    free(rows);
    return finish_stream(out, &text, 0);
}

char *render_format_ns_links(const struct procfs_ns_entry *entries, size_t count)
{
    char *text = NULL;
    size_t size;
    FILE *out = open_memstream(&text, &size);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (entries[i].error == 0)
            fprintf(out, "%-18s %s\n", entries[i].name, entries[i].link);
        else
            fprintf(out, "%-18s (unavailable: %s)\n", entries[i].name, strerror(entries[i].error));
    }
    return finish_stream(out, &text, 0);
}
