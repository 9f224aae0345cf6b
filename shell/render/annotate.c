/* SPDX-License-Identifier: MIT */
/* annotate.c: notes relating the values in a command's output to the
 * processes and namespaces they belong to. See annotate.h.
 */
#include "render/annotate.h"
#include "procfs/procfs.h"
#include "render/render.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct notes {
    char *text;
    size_t len, count, max;
};

static void add_note(struct notes *n, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    if (n->count >= n->max)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    char *more = realloc(n->text, n->len + len + 2);
    if (more == NULL)
        return;
    n->text = more;
    memcpy(n->text + n->len, line, len);
    n->len += len;
    n->text[n->len++] = '\n';
    n->text[n->len] = '\0';
    n->count++;
}

/* Whether the number at s is the PID part of a path into another
 * namespace's procfs, such as "/proc4/5": a PID of the namespace mounted at
 * /proc4, not of the lab's, so it must not be read as a lab PID. */
static int in_other_procfs(const char *text, const char *s)
{
    const char *p = s - 1;

    if (p < text || *p != '/')
        return 0;
    while (p > text && isdigit((unsigned char)p[-1]))
        p--;
    return p < s - 1 && p - text >= 5 && strncmp(p - 5, "/proc", 5) == 0;
}

/* Whether the number at s sits in an NSpid: or NStgid: line where it is not
 * a PID of the lab's namespace: every number after the first is a PID
 * further down, and even the first is not the lab's when the line came from
 * another namespace's procfs ("/proc4/5/status:NSpid: 5 1", grep -H). */
static int in_nspid_tail(const char *text, const char *s)
{
    const char *line = s;
    while (line > text && line[-1] != '\n')
        line--;
    const char *tag = NULL;
    for (const char *p = line; p < s && tag == NULL; p++)
        if (strncmp(p, "NSpid:", 6) == 0 || strncmp(p, "NStgid:", 7) == 0)
            tag = p;
    if (tag == NULL)
        return 0;
    const char *first = tag + strcspn(tag, ":") + 1;
    first += strspn(first, " \t");
    if (first != s)
        return 1;
    return strncmp(line, "/proc", 5) == 0 && isdigit((unsigned char)line[5]);
}

/* Whether the decimal number value appears in text as a whole word, as a
 * PID of the lab's namespace. */
static int mentions_number(const char *text, long value)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%ld", value);

    for (const char *s = strstr(text, digits); s != NULL; s = strstr(s + 1, digits)) {
        int before = s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '[');
        int after = isalnum((unsigned char)s[len]) || s[len] == ']';
        if (!before && !after && !in_other_procfs(text, s) && !in_nspid_tail(text, s))
            return 1;
    }
    return 0;
}

static void note_process(struct notes *n, const struct procfs_status *st, int base_level)
{
    char *sentence = render_note_nspid(st->name, st->nspid, st->nspid_count, base_level);
    if (sentence != NULL)
        add_note(n, "%s", sentence);
    free(sentence);
}

static void note_namespace(struct notes *n, const struct procfs_pidns *ns, int base_level)
{
    if (ns->level == 0) {
        add_note(n,
                 "pid:[%llu] is the lab's own PID namespace (level %d): the parent of the "
                 "examples' namespaces.",
                 ns->inode, base_level);
        return;
    }
    const char *who = "gone (no process left)";
    for (size_t m = 0; m < ns->member_count; m++) {
        const struct procfs_status *st = &ns->members[m].status;
        if (st->nspid_count > 0 && st->nspid[st->nspid_count - 1] == 1)
            who = st->name;
    }
    add_note(
        n, "pid:[%llu] is a PID namespace at level %d, %d level%s below the lab's; its init is %s.",
        ns->inode, base_level + ns->level, ns->level, ns->level == 1 ? "" : "s", who);
}

char *annotate_output(const char *output, const struct procfs_tree *tree, size_t max_notes)
{
    struct notes n = {NULL, 0, 0, max_notes};

    for (size_t i = 0; tree != NULL && output != NULL && i < tree->count; i++) {
        const struct procfs_pidns *ns = tree->all[i];
        char link[48];
        snprintf(link, sizeof link, "pid:[%llu]", ns->inode);
        if (strstr(output, link) != NULL)
            note_namespace(&n, ns, tree->base_level);
        for (size_t m = 0; ns->level > 0 && m < ns->member_count; m++) {
            const struct procfs_status *st = &ns->members[m].status;
            if (st->nspid_count >= 2 && mentions_number(output, st->nspid[0]))
                note_process(&n, st, tree->base_level);
        }
    }
    return n.text != NULL ? n.text : strdup("");
}
