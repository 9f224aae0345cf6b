/* SPDX-License-Identifier: MIT */
/* cmd_lab.c: the commands that act in the lab or look at it: run, sh, ps,
 * tree, ns, status, cleanup.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "cmd/sh_line.h"
#include "lab/lab.h"
#include "procfs/procfs.h"
#include "render/render_procfs.h"
#include "render/tee.h"
#include "tutor/tutor.h"
#include "util/list.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

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

/* Before the lab is asked for: a name that is no example is said as such. */
int check_run_args(struct shell *sh, int argc, char **argv)
{
    char closest[256];

    (void)argc;
    if (!example_exists(sh, argv[1], closest, sizeof closest)) {
        if (closest[0] != '\0')
            shell_error(sh, "no example '%s': did you mean '%s'? (run + Tab lists them)", argv[1],
                        closest);
        else
            shell_error(sh, "no example '%s' in %s (run + Tab lists them)", argv[1],
                        sh->dirs.examples);
        return SHELL_ERROR;
    }
    return SHELL_OK;
}

int cmd_run(struct shell *sh, int argc, char **argv)
{
    char line[COMMAND_LINE_MAX + 256] = "";
    /* A last word "&" is what a shell user types to say "in the background". */
    int background = argc > 2 && strcmp(argv[argc - 1], "&") == 0;

    /* A plain program call: the lab execs it, so the example is the job. */
    snprintf(line, sizeof line, "%s", argv[1]);
    for (int i = 2; i < argc - background; i++)
        if (append_quoted(line, sizeof line, argv[i]) == -1)
            return SHELL_USAGE;
    int status = tutor_run_command(
        sh, line, (background ? TUTOR_RUN_BACKGROUND : TUTOR_RUN_MAY_STAY) | TUTOR_RUN_TYPED, NULL);
    if (status != 0 && status != 130)
        render_textf(&sh->render, RENDER_BAD, "(%s exited with status %d)", argv[1], status);
    return status == 0 ? SHELL_OK : SHELL_ERROR;
}

/* A signal name or number as kill takes it ("STOP", "SIGSTOP", "19"); 0 for
 * none. */
static int signal_number(const char *word)
{
    if (isdigit((unsigned char)word[0]))
        return atoi(word) > 0 && atoi(word) < NSIG ? atoi(word) : 0;
    if (strncasecmp(word, "SIG", 3) == 0)
        word += 3;
    for (int sig = 1; sig < SIGRTMIN; sig++) {
        const char *abbrev = sigabbrev_np(sig);
        if (abbrev != NULL && strcasecmp(abbrev, word) == 0)
            return sig;
    }
    return 0;
}

/* The signal a simple "kill [-SIG | -s SIG] PID..." line sends to PID 1,
 * 0 when the line is no such kill (or sends signal 0, which only probes). */
static int signal_to_init(const char *line)
{
    char copy[256], *save = NULL;
    if (strlen(line) >= sizeof copy || line[strcspn(line, ";&|<>()`$\n")] != '\0')
        return 0;
    snprintf(copy, sizeof copy, "%s", line);
    char *word = strtok_r(copy, " \t", &save);
    if (word == NULL || (strcmp(word, "kill") != 0 && strcmp(word, "/bin/kill") != 0 &&
                         strcmp(word, "/usr/bin/kill") != 0))
        return 0;
    int sig = SIGTERM, to_init = 0, options = 1;
    while ((word = strtok_r(NULL, " \t", &save)) != NULL) {
        if (options && strcmp(word, "--") == 0) {
            options = 0;
        } else if (options && (strcmp(word, "-s") == 0 || strcmp(word, "-n") == 0)) {
            word = strtok_r(NULL, " \t", &save);
            sig = word != NULL ? signal_number(word) : 0;
            if (sig == 0)
                return 0;
        } else if (options && word[0] == '-') {
            if (strcmp(word, "-0") == 0)
                return 0;
            sig = signal_number(word + 1);
            if (sig == 0)
                return 0;
        } else {
            options = 0;
            to_init |= strcmp(word, "1") == 0;
        }
    }
    return to_init ? sig : 0;
}

/* Does the lab's PID 1 catch sig (bit sig-1 of SigCgt in its status)? */
static int init_catches(struct shell *sh, int sig)
{
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof path, "%s/1/status", lab_path(sh->lab, "/proc"));
    FILE *f = fopen(path, "re");
    int caught = -1;
    while (f != NULL && caught == -1 && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "SigCgt:", 7) == 0)
            caught = (int)((strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1);
    if (f != NULL)
        fclose(f);
    return caught;
}

/* One command of a `sh` line, in the foreground or (`CMD &`) as a job. */
static int run_sh_part(struct shell *sh, const struct sh_line_part *part)
{
    int mode = (part->background ? TUTOR_RUN_BACKGROUND : TUTOR_RUN_FOREGROUND) | TUTOR_RUN_TYPED;
    int status = tutor_run_command(sh, part->text, mode, NULL);
    int sig = status == 0 ? signal_to_init(part->text) : 0;
    if (sig != 0 && init_catches(sh, sig) == 0) {
        char *note = render_note_init_signal(sigabbrev_np(sig));
        if (note != NULL)
            render_text(&sh->render, RENDER_NOTE, note);
        free(note);
    }
    if (status > 0 && status != 130)
        render_textf(&sh->render, RENDER_NOTE, "(exit status %d)", status);
    return status;
}

/* The line runs whole, as one /bin/sh -c, unless a command of it ends in
 * `&`: then each command runs in turn (sh_line.h), those ending in `&` as
 * jobs of the lab that outlive the line, the others in the foreground. */
int cmd_sh(struct shell *sh, int argc, char **argv)
{
    struct sh_line line;
    int status = 0;

    (void)argc;
    if (sh_line_split(argv[1], &line) == -1) {
        shell_error(sh, "out of memory");
        return SHELL_ERROR;
    }
    for (size_t i = 0; i < line.count && status != 130 && status != -1; i++)
        status = run_sh_part(sh, &line.parts[i]);
    if (line.nested_background && status != 130 && status != -1)
        render_text(&sh->render, RENDER_NOTE,
                    "(a `&` inside ( ), { } or a loop lasts only as long as the line; "
                    "`sh PROG &` keeps a program running)");
    sh_line_free(&line);
    return status == 0 ? SHELL_OK : SHELL_ERROR;
}

/* argv[1] of ps and tree: none, or --all (-A and -e, as in procps). */
static int wants_all(int argc, char **argv)
{
    return argc == 2 && (strcmp(argv[1], "--all") == 0 || strcmp(argv[1], "-A") == 0 ||
                         strcmp(argv[1], "-e") == 0);
}

int check_all_arg(struct shell *sh, int argc, char **argv)
{
    (void)sh;
    return argc == 1 || wants_all(argc, argv) ? SHELL_OK : SHELL_USAGE;
}

/* The lab's processes; the tutorial's own (procfs_entered_from_outside: the
 * shell, outside the lab, starts them there) left out unless all. The lab's
 * init (PID 1) stays: lessons talk about it. */
static int read_tree(struct shell *sh, struct procfs_tree *tree, int all)
{
    if (procfs_read_tree(lab_path(sh->lab, "/proc"), tree) == -1) {
        shell_error(sh, "cannot read the lab's processes from %s", lab_path(sh->lab, "/proc"));
        return -1;
    }
    tree->base_level = lab_level(sh->lab);
    tree->root_name = "the lab's namespace";
    if (!all)
        procfs_tree_remove(tree, procfs_entered_from_outside, NULL);
    return 0;
}

/* Prints text a line at a time with the values highlighted. */
static void print_highlighted(struct shell *sh, char *text)
{
    if (text == NULL) {
        shell_error(sh, "out of memory");
        return;
    }
    for (char *line = text, *next; *line != '\0'; line = next) {
        next = line + strcspn(line, "\n");
        if (*next == '\n')
            *next++ = '\0';
        char *lit = render_highlight(&sh->render, line);
        fprintf(sh->render.out, "%s\n", lit != NULL ? lit : line);
        free(lit);
    }
    free(text);
}

int cmd_ps(struct shell *sh, int argc, char **argv)
{
    struct procfs_tree tree;

    if (read_tree(sh, &tree, wants_all(argc, argv)) == -1)
        return SHELL_ERROR;
    print_highlighted(sh, render_format_ps(&tree));
    procfs_tree_free(&tree);
    return SHELL_OK;
}

int cmd_tree(struct shell *sh, int argc, char **argv)
{
    struct procfs_tree tree;

    if (read_tree(sh, &tree, wants_all(argc, argv)) == -1)
        return SHELL_ERROR;
    print_highlighted(sh, render_format_tree(&tree));
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

int check_ns_args(struct shell *sh, int argc, char **argv)
{
    pid_t pid;
    (void)sh;
    (void)argc;
    return parse_pid(argv[1], &pid) == -1 ? SHELL_USAGE : SHELL_OK;
}

int cmd_ns(struct shell *sh, int argc, char **argv)
{
    struct procfs_ns_entry entries[16];
    size_t count = 0;
    pid_t pid;

    (void)argc;
    if (parse_pid(argv[1], &pid) == -1)
        return SHELL_USAGE;
    if (procfs_read_ns_links(lab_path(sh->lab, "/proc"), pid, entries, 16, &count) == -1) {
        shell_error(sh, "no process %d in the lab (`ps` lists them)", (int)pid);
        return SHELL_ERROR;
    }
    print_highlighted(sh, render_format_ns_links(entries, count));
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
    char(*numbers)[16] = calloc(count + 1, sizeof *numbers);
    const char **items = calloc(count + 1, sizeof *items);
    for (size_t i = 0; numbers != NULL && items != NULL && i < count; i++) {
        snprintf(numbers[i], sizeof numbers[i], "%d", (int)pids[i]);
        items[i] = numbers[i];
    }
    if (numbers != NULL && items != NULL)
        list = list_filter(items, count, text);
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
    char **list = list_filter((const char *const *)names, n, text);
    shell_free_list(names);
    return list;
}
