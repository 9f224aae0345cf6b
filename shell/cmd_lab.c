/* cmd_lab.c: the commands that act in the lab or look at it: run, sh, ps,
 * tree, ns, status, cleanup.
 */
#include "cmd.h"
#include "commands.h"
#include "lab.h"
#include "procfs.h"
#include "tee.h"
#include "tutor.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int need_lab(const struct shell *sh)
{
    if (sh->lab != NULL)
        return 1;
    shell_error(sh, "the lab is not open (see pidns-tutor --doctor)");
    return 0;
}

/* Appends word to buf quoted for /bin/sh. Returns 0, -1 if it does not fit. */
static int append_quoted(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    int plain = word[0] != '\0' && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                                "VWXYZ0123456789/_.,:=+-") == strlen(word);

    if (used + 1 < len)
        buf[used++] = ' ';
    if (plain) {
        int n = snprintf(buf + used, len - used, "%s", word);
        return n < 0 || (size_t)n >= len - used ? -1 : 0;
    }
    if (used < len)
        buf[used++] = '\'';
    for (const char *s = word; *s != '\0'; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t plen = piece != NULL ? strlen(piece) : 1;
        if (used + plen + 2 >= len)
            return -1;
        memcpy(buf + used, piece != NULL ? piece : s, plen);
        used += plen;
    }
    buf[used++] = '\'';
    buf[used] = '\0';
    return 0;
}

static int example_exists(const struct shell *sh, const char *name, char *closest, size_t len)
{
    char **names = shell_example_names(sh);
    int found = 0;

    closest[0] = '\0';
    for (size_t i = 0; names[i] != NULL && !found; i++) {
        found = strcmp(names[i], name) == 0;
        if (!found && closest[0] == '\0' &&
            (strstr(names[i], name) != NULL || strncmp(names[i], name, 4) == 0))
            snprintf(closest, len, "%s", names[i]);
    }
    shell_free_list(names);
    return found;
}

int cmd_run(struct shell *sh, int argc, char **argv)
{
    char line[COMMAND_LINE_MAX + 256] = "";
    char closest[256];

    if (!example_exists(sh, argv[1], closest, sizeof closest)) {
        if (closest[0] != '\0')
            shell_error(sh, "no example '%s': did you mean '%s'? (run + Tab lists them)",
                        argv[1], closest);
        else
            shell_error(sh, "no example '%s' in %s (run + Tab lists them)", argv[1],
                        sh->dirs.examples);
        return SHELL_ERROR;
    }
    if (!need_lab(sh))
        return SHELL_ERROR;
    snprintf(line, sizeof line, "%s", argv[1]);
    for (int i = 2; i < argc; i++)
        if (append_quoted(line, sizeof line, argv[i]) == -1)
            return command_usage_of(sh, "run");
    int status = tutor_run_command(sh, line, 1, NULL);
    if (status != 0 && status != 130)
        render_textf(&sh->render, RENDER_BAD, "(%s exited with status %d)", argv[1], status);
    return status == 0 ? SHELL_OK : SHELL_ERROR;
}

int cmd_sh(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    if (!need_lab(sh))
        return SHELL_ERROR;
    int status = tutor_run_command(sh, argv[1], 0, NULL);
    if (status > 0 && status != 130)
        render_textf(&sh->render, RENDER_NOTE, "(exit status %d)", status);
    return status == 0 ? SHELL_OK : SHELL_ERROR;
}

static int read_tree(struct shell *sh, struct procfs_tree *tree)
{
    if (!need_lab(sh))
        return -1;
    if (procfs_read_tree(lab_path(sh->lab, "/proc"), tree) == -1) {
        shell_error(sh, "cannot read the lab's processes from %s", lab_path(sh->lab, "/proc"));
        return -1;
    }
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    const struct procfs_status *x = *(const struct procfs_status *const *)a;
    const struct procfs_status *y = *(const struct procfs_status *const *)b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

int cmd_ps(struct shell *sh, int argc, char **argv)
{
    struct procfs_tree tree;
    size_t count = 0, n = 0;

    (void)argc;
    (void)argv;
    if (read_tree(sh, &tree) == -1)
        return SHELL_ERROR;
    for (size_t i = 0; i < tree.count; i++)
        count += tree.all[i]->member_count;
    const struct procfs_status **all = calloc(count + 1, sizeof *all);
    for (size_t i = 0; all != NULL && i < tree.count; i++)
        for (size_t m = 0; m < tree.all[i]->member_count; m++)
            all[n++] = &tree.all[i]->members[m].status;
    if (all != NULL)
        qsort(all, n, sizeof *all, by_pid);
    render_text(&sh->render, RENDER_HEADING, "  PID  PPID S  PIDs in nested namespaces  COMMAND");
    for (size_t i = 0; i < n; i++) {
        char chain[128] = "-";
        size_t used = 0;
        for (int k = 1; k < all[i]->nspid_count && used + 12 < sizeof chain; k++)
            used += (size_t)snprintf(chain + used, sizeof chain - used, "%s%d",
                                     k > 1 ? " " : "", (int)all[i]->nspid[k]);
        char *line = NULL;
        if (asprintf(&line, "%5d %5d %c  %-25s  %s", (int)all[i]->pid, (int)all[i]->ppid,
                     all[i]->state, chain, all[i]->name) != -1) {
            char *lit = render_highlight(&sh->render, line);
            fprintf(sh->render.out, "%s\n", lit != NULL ? lit : line);
            free(lit);
            free(line);
        }
    }
    free(all);
    procfs_tree_free(&tree);
    return SHELL_OK;
}

static void print_namespace(struct shell *sh, const struct procfs_pidns *ns, const char *indent,
                            int last)
{
    char deeper[256];
    const char *branch = ns->level == 0 ? "" : last ? "`-- " : "|-- ";

    render_textf(&sh->render, RENDER_VALUE, "%s%spid:[%llu] level %d%s", indent, branch, ns->inode,
                 ns->level, ns->level == 0 ? " (the lab)" : "");
    snprintf(deeper, sizeof deeper, "%s%s", indent,
             ns->level == 0 ? "" : last ? "    " : "|   ");
    for (size_t m = 0; m < ns->member_count; m++) {
        const struct procfs_status *st = &ns->members[m].status;
        char chain[160] = "";
        size_t used = 0;
        for (int k = st->nspid_count - 2; k >= 0 && used + 12 < sizeof chain; k--)
            used += (size_t)snprintf(chain + used, sizeof chain - used, "%s%d",
                                     used > 0 ? ", " : "; above: ", (int)st->nspid[k]);
        render_textf(&sh->render, RENDER_PLAIN, "%s%s  PID %d %s%s", deeper,
                     ns->child_count > 0 ? "|" : " ", (int)st->nspid[st->nspid_count - 1],
                     st->name, chain);
    }
    for (size_t c = 0; c < ns->child_count && strlen(deeper) < 200; c++)
        print_namespace(sh, ns->children[c], deeper, c + 1 == ns->child_count);
}

int cmd_tree(struct shell *sh, int argc, char **argv)
{
    struct procfs_tree tree;

    (void)argc;
    (void)argv;
    if (read_tree(sh, &tree) == -1)
        return SHELL_ERROR;
    if (tree.root != NULL)
        print_namespace(sh, tree.root, "", 1);
    procfs_tree_free(&tree);
    return SHELL_OK;
}

static int parse_pid(const char *text, pid_t *pid)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (!isdigit((unsigned char)text[0]) || *end != '\0' || value < 1 || value > 4194304)
        return -1;
    *pid = (pid_t)value;
    return 0;
}

int cmd_ns(struct shell *sh, int argc, char **argv)
{
    static const char *const names[] = {"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children",
                                        "time", "time_for_children", "user", "uts"};
    char link[128];
    pid_t pid;

    (void)argc;
    if (parse_pid(argv[1], &pid) == -1)
        return command_usage_of(sh, "ns");
    if (!need_lab(sh))
        return SHELL_ERROR;
    const char *proc = lab_path(sh->lab, "/proc");
    char root[4096];
    snprintf(root, sizeof root, "%s", proc);
    if (procfs_read_ns_link(root, pid, "pid", link, sizeof link) == -1) {
        shell_error(sh, "no process %d in the lab (`ps` lists them)", (int)pid);
        return SHELL_ERROR;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (procfs_read_ns_link(root, pid, names[i], link, sizeof link) == 0) {
            char *line = NULL;
            if (asprintf(&line, "/proc/%d/ns/%-17s -> %s", (int)pid, names[i], link) == -1)
                continue;
            char *lit = render_highlight(&sh->render, line);
            fprintf(sh->render.out, "%s\n", lit != NULL ? lit : line);
            free(lit);
            free(line);
        }
    return SHELL_OK;
}

char **complete_pids(struct shell *sh, const char *text, int argi)
{
    pid_t *pids = NULL;
    size_t count = 0;
    char **list = NULL;

    if (argi > 1 || sh->lab == NULL ||
        procfs_list_pids(lab_path(sh->lab, "/proc"), &pids, &count) == -1)
        return calloc(1, sizeof(char *));
    char (*numbers)[16] = calloc(count + 1, sizeof *numbers);
    const char **items = calloc(count + 1, sizeof *items);
    for (size_t i = 0; numbers != NULL && items != NULL && i < count; i++) {
        snprintf(numbers[i], sizeof numbers[i], "%d", (int)pids[i]);
        items[i] = numbers[i];
    }
    if (numbers != NULL && items != NULL)
        list = command_filter(items, count, text);
    free(items);
    free(numbers);
    free(pids);
    return list != NULL ? list : calloc(1, sizeof(char *));
}

char **complete_examples(struct shell *sh, const char *text, int argi)
{
    if (argi > 1)
        return NULL; /* the example's arguments: paths such as /proc2 */
    char **names = shell_example_names(sh);
    size_t n = 0;
    while (names[n] != NULL)
        n++;
    char **list = command_filter((const char *const *)names, n, text);
    shell_free_list(names);
    return list;
}
