/* SPDX-License-Identifier: MIT */
/* commands.c: the command table, and everything that reads it: lookup,
 * the closest-command suggestion, `help`, and tab completion. A typed line
 * is run in command_execute.c; the handlers live in cmd_*.c.
 */
#include "cmd/commands.h"
#include "cmd/cmd.h"
#include "lab/lab.h"
#include "util/list.h"

#include <stdlib.h>
#include <string.h>

#define ANY 1000

const struct command command_table[] = {
    {
        .name = "lessons",
        .synopsis = "lessons",
        .summary = "list the lessons, with your progress",
        .help = "Lists every lesson with its number, name and length, and marks where you are: "
                "[done] (finished, every exercise passed), [step 2 of 5] (started, now at step "
                "2), [finished, 1 skipped] (an exercise was left with `next` before it passed; "
                "the lesson is done once it passes).",
        .handler = cmd_lessons,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_LOOKS,
    },
    {
        .name = "lesson",
        .synopsis = "lesson N|NAME [again]",
        .summary = "start or resume a lesson",
        .help =
            "Starts lesson N (its number, its name, or the start of its name), or resumes it at "
            "the step you reached (in a finished lesson: at the exercise you skipped), and "
            "shows that step. For a lesson that is done it says so and asks whether to "
            "replay it. `lesson N again` starts any lesson at step 1 without asking. A replay "
            "leaves a lesson done.",
        .handler = cmd_lesson,
        .completer = complete_lessons,
        .min_args = 1,
        .max_args = 2,
    },
    {
        .name = "next",
        .synopsis = "next",
        .summary = "go to the next step (Enter on an empty line does the same)",
        .help = "Shows the next step of the current lesson. Leaving an exercise that has not "
                "passed marks it skipped (`back` returns to it). At the end of a lesson the lab "
                "is cleaned up and the next lesson not done yet is suggested.",
        .handler = cmd_next,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "back",
        .synopsis = "back",
        .summary = "go back one step",
        .help = "Shows the previous step of the current lesson again.",
        .handler = cmd_back,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "again",
        .synopsis = "again",
        .summary = "run the current step again",
        .help = "Shows the current step again and re-runs its commands in the lab.",
        .handler = cmd_again,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "where",
        .synopsis = "where",
        .summary = "say which lesson and step you are at",
        .help = "Names the current lesson and step, and its exercise, if any: waiting for "
                "`check`, or passed.",
        .handler = cmd_where,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_LOOKS,
    },
    {
        .name = "run",
        .synopsis = "run EXAMPLE [ARGS...] [&]",
        .summary = "run a bundled example in the lab",
        .help =
            "Runs one of the bundled example programs in the lab with its output live. An example "
            "that keeps running (one that ends in sleep) goes on in the background, like the "
            "article's ^Z; `status` lists it and `cleanup` stops it. A last `&` puts it in the "
            "background at once, out of Ctrl-C's reach.",
        .handler = cmd_run,
        .check_args = check_run_args,
        .completer = complete_examples,
        .min_args = 1,
        .max_args = COMMAND_ARGS_MAX - 2,
        .flags = COMMAND_NEEDS_LAB,
    },
    {
        .name = "sh",
        .synopsis = "sh COMMAND LINE",
        .summary = "run a shell command line in the lab",
        .help =
            "Runs any shell command line in the lab (with /bin/sh), with its live output: for "
            "example `sh ls -d /proc2/[1-9]*` or `sh readlink /proc/1/ns/pid`. Ctrl-C stops it; "
            "after 3 s a note says so. A command ending in `&` runs in the background as a job "
            "of the lab, like `run`: `sh pidns_init_sleep /proc2 &`; `status` lists it, "
            "`cleanup` stops it, Ctrl-C does not reach it. In `sh a & b`, a is a job and b "
            "runs in the foreground; each command of such a line runs in a shell of its own "
            "(a `cd` or a variable does not carry over: join with && for that). A `&` inside "
            "( ), { } or a loop lasts only as long as the line. A signal sent to PID 1 (the "
            "lab's init) that the init does not catch gets a note on why nothing happened.",
        .handler = cmd_sh,
        .min_args = 1,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LAB | COMMAND_RAW,
    },
    {
        .name = "source",
        .synopsis = "source EXAMPLE[:TAG]",
        .summary = "show an example's code with line numbers",
        .help =
            "Shows the source of a bundled example with line numbers, or only the region TAG of "
            "it (the parts the lessons quote). Long listings go through your pager ($PAGER, or "
            "less); without one, or if it fails, they are printed directly.",
        .handler = cmd_source,
        .completer = complete_source,
        .min_args = 1,
        .max_args = 1,
        .flags = COMMAND_LOOKS,
    },
    {
        .name = "ps",
        .synopsis = "ps [--all]",
        .summary = "the lab's processes, with their PID in every namespace",
        .help =
            "Lists the processes of the lab: for each one its PID as the lab sees it, then its PID "
            "in each nested namespace it belongs to (the NSpid line of /proc/PID/status). LEVEL "
            "counts as the kernel does, the namespace the tutor started in being 0: the lab is "
            "level 1. The tutorial's own processes are left out: lab-runner, which runs each "
            "command line (the PPID of what a command started), and tutor-output, which "
            "relays its output. Both are children of the tutor, outside the lab, so their "
            "PPID is 0. `ps --all` (or -A, or -e) shows them too.",
        .handler = cmd_ps,
        .check_args = check_all_arg,
        .completer = complete_all_option,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LAB | COMMAND_LOOKS,
    },
    {
        .name = "tree",
        .synopsis = "tree [--all]",
        .summary = "draw the PID namespaces of the lab as a tree",
        .help =
            "Draws the hierarchy of PID namespaces in the lab, each with its processes and the PID "
            "each one has at that level. Levels count as the kernel does: the lab's namespace, "
            "named on the first line, is level 1 below the one the tutor started in. As in "
            "`ps`, the tutorial's own processes (lab-runner, tutor-output) are left out; "
            "`tree --all` shows them too.",
        .handler = cmd_tree,
        .check_args = check_all_arg,
        .completer = complete_all_option,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LAB | COMMAND_LOOKS,
    },
    {
        .name = "ns",
        .synopsis = "ns PID",
        .summary = "show a process's namespace links",
        .help =
            "Shows the namespace links of process PID (a PID as the lab sees it, as `ps` prints "
            "it), as `readlink /proc/PID/ns/*` shows them.",
        .handler = cmd_ns,
        .check_args = check_ns_args,
        .completer = complete_pids,
        .min_args = 1,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LAB | COMMAND_LOOKS,
    },
    {
        .name = "status",
        .synopsis = "status",
        .summary = "what runs in the lab and what is mounted",
        .help = "Lists the background jobs and the procfs mounts of the lab, and the command that "
                "enters "
                "the lab from another terminal.",
        .handler = cmd_status,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LAB | COMMAND_LOOKS,
    },
    {
        .name = "cleanup",
        .synopsis = "cleanup [-v]",
        .summary = "stop everything in the lab, unmount, remove /procN",
        .help = "Stops every running example, unmounts what was mounted in the lab, removes the "
                "directories made there, and says in one line what it did (\"stopped 2 programs, "
                "unmounted /proc0-/proc4\"); `cleanup -v` lists each process, mount and directory. "
                "The same happens at the end of a lesson and when you quit.",
        .handler = cmd_cleanup,
        .completer = complete_nothing,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LAB,
    },
    {
        .name = "check",
        .synopsis = "check [-v]",
        .summary = "check the current exercise against the kernel's state",
        .help =
            "Checks whether the exercise of the current step is done, by looking at the real state "
            "of the lab (what runs, what is mounted). When it is not, it names the conditions it "
            "looked at, in order, up to the first that does not hold, with what it found (for a "
            "coding exercise, after what your program printed and how it ended); `check -v` "
            "lists every condition with what the kernel showed. Still waiting for a program that "
            "is still running is said as such. Once it passes, the worked solution is shown, "
            "then the rest of the step.",
        .handler = cmd_check,
        .check_args = check_verbose_arg,
        .completer = complete_nothing,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "hint",
        .synopsis = "hint",
        .summary = "a hint for the current exercise",
        .help =
            "Looks at what runs and what is mounted in the lab, and at the first condition of "
            "the check that does not hold, and gives a hint about the next move for the current "
            "exercise. Ask again for another.",
        .handler = cmd_hint,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON | COMMAND_LOOKS,
    },
    {
        .name = "edit",
        .synopsis = "edit",
        .summary = "open your file of the current coding exercise in your editor",
        .help =
            "Copies the coding exercise's C file into your working directory "
            "(~/pidns-exercises/, kept between sessions) if it is not there yet, and opens it in "
            "$VISUAL, $EDITOR, or the first of editor, nano and vi found.",
        .handler = cmd_edit,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "build",
        .synopsis = "build",
        .summary = "compile your file of the current coding exercise",
        .help =
            "Compiles your file of the coding exercise with the examples' flags (-std=gnu11 "
            "-Wall -Wextra -Werror -O2 -g); the compiler's messages name your file and line. The "
            "program built is put into the lab, where `check` runs it.",
        .handler = cmd_build,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON | COMMAND_NEEDS_LAB,
    },
    {
        .name = "watch",
        .synopsis = "watch",
        .summary = "build and check your file each time you save it",
        .help =
            "Watches your file of the coding exercise: each time it is saved (from an editor in "
            "another terminal, say), builds it and runs the check, until the check passes. "
            "`hint` works while it watches; Ctrl-C stops watching.",
        .handler = cmd_watch,
        .completer = complete_nothing,
        .max_args = 0,
        .flags = COMMAND_NEEDS_LESSON | COMMAND_NEEDS_LAB,
    },
    {
        .name = "reset-file",
        .synopsis = "reset-file [-y]",
        .summary = "start the coding exercise's file afresh (asks first)",
        .help = "Puts the coding exercise's file back as it was given, after asking (-y: without "
                "asking); your version is kept beside it as FILE.c.bak.",
        .handler = cmd_reset_file,
        .check_args = check_yes_arg,
        .completer = complete_nothing,
        .max_args = 1,
        .flags = COMMAND_NEEDS_LESSON,
    },
    {
        .name = "reset",
        .synopsis = "reset [-y]",
        .summary = "forget all progress (asks first)",
        .help = "Forgets the progress of every lesson, after asking for confirmation (-y confirms "
                "without asking, for scripts).",
        .handler = cmd_reset,
        .completer = complete_nothing,
        .max_args = 1,
    },
    {
        .name = "export",
        .synopsis = "export LESSON [FILE]",
        .summary = "write a lesson's commands as a shell script",
        .help =
            "Writes the commands of a lesson as a commented shell script that runs by hand outside "
            "the tutorial, to FILE or to the screen.",
        .handler = cmd_export,
        .completer = complete_lessons,
        .min_args = 1,
        .max_args = 2,
        .flags = COMMAND_LOOKS,
    },
    {
        .name = "help",
        .synopsis = "help [COMMAND]",
        .summary = "list the commands, or explain one",
        .help =
            "Without an argument, lists every command with a one-line summary. With one, shows its "
            "usage and what it does.",
        .handler = cmd_help,
        .completer = complete_commands,
        .max_args = 1,
        .flags = COMMAND_LOOKS,
    },
    {
        .name = "quit",
        .synopsis = "quit",
        .summary = "clean up the lab and leave (Ctrl-D does the same)",
        .help = "Cleans up the lab, checks that the host is unchanged, saves your progress, and "
                "leaves.",
        .handler = cmd_quit,
        .completer = complete_nothing,
        .max_args = 0,
    },
};
const size_t command_count = sizeof command_table / sizeof command_table[0];

const struct command *command_find(const char *name)
{
    const struct command *match = NULL;
    size_t len = strlen(name);

    for (size_t i = 0; i < command_count; i++) {
        if (strcmp(command_table[i].name, name) == 0)
            return &command_table[i];
        if (len >= 2 && strncmp(command_table[i].name, name, len) == 0) {
            if (match != NULL)
                return NULL; /* ambiguous */
            match = &command_table[i];
        }
    }
    return match;
}

/* Edit distance counting a swap of two neighbours as one edit (optimal
 * string alignment): "hlep" is one typo away from "help". Names are short. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[34][34];

    if (la > 32 || lb > 32)
        return 99;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const struct command *command_closest(const char *name)
{
    const struct command *best = NULL;
    size_t best_distance = 99;

    for (size_t i = 0; i < command_count; i++) {
        size_t d = edit_distance(name, command_table[i].name);
        if (d < best_distance) {
            best_distance = d;
            best = &command_table[i];
        }
    }
    /* Close means: at most a third of the letters wrong (at least 1, at most 3). */
    size_t allowed = strlen(name) / 3;
    allowed = allowed < 1 ? 1 : allowed > 3 ? 3 : allowed;
    return best_distance <= allowed ? best : NULL;
}

int command_usage(const struct shell *sh, const struct command *cmd)
{
    shell_error(sh, "usage: %s   (type `help %s` for more)", cmd->synopsis, cmd->name);
    return SHELL_ERROR;
}

static int is_example(const struct shell *sh, const char *name)
{
    char **names = shell_example_names(sh);
    int found = 0;
    for (size_t i = 0; names[i] != NULL && !found; i++)
        found = strcmp(names[i], name) == 0;
    shell_free_list(names);
    return found;
}

int command_unknown(const struct shell *sh, const char *name, const char *line)
{
    const struct command *close = command_closest(name);
    char shown[40], typed[100];

    /* Show only a readable, bounded part of what was typed. */
    snprintf(shown, sizeof shown, "%.*s", (int)sizeof shown - 1, name);
    if (line != NULL) {
        size_t len = strlen(line);
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        snprintf(typed, sizeof typed, "%.*s%s", (int)(len < 80 ? len : 80), line,
                 len > 80 ? "..." : "");
    }
    if (line != NULL && is_example(sh, name))
        shell_error(sh, "unknown command '%s': did you mean `run %s`? (type help for the list)",
                    shown, typed);
    else if (line != NULL && sh->lab != NULL && strlen(name) < 64 && lab_on_path(sh->lab, name))
        shell_error(sh, "unknown command '%s': did you mean `sh %s`? (type help for the list)",
                    shown, typed);
    else if (close != NULL)
        shell_error(sh, "unknown command '%s': did you mean '%s'? (type help for the list)", shown,
                    close->name);
    else
        shell_error(sh, "unknown command '%s' (type help for the list)", shown);
    return SHELL_ERROR;
}

int cmd_help(struct shell *sh, int argc, char **argv)
{
    if (argc == 2) {
        const struct command *cmd = command_find(argv[1]);
        if (cmd == NULL)
            return command_unknown(sh, argv[1], NULL);
        render_text(&sh->render, RENDER_COMMAND, cmd->synopsis);
        render_text(&sh->render, RENDER_PLAIN, cmd->help);
        return SHELL_OK;
    }
    render_text(&sh->render, RENDER_HEADING, "Commands (help COMMAND for more):");
    const char *cells[2 * (sizeof command_table / sizeof command_table[0])];
    for (size_t i = 0; i < command_count; i++) {
        cells[2 * i] = command_table[i].synopsis;
        cells[2 * i + 1] = command_table[i].summary;
    }
    render_table(&sh->render, RENDER_PLAIN, 2, cells, command_count, 2);
    render_text(&sh->render, RENDER_PLAIN,
                "Enter on an empty line goes to the next step; Tab completes; Ctrl-C stops "
                "what runs; Ctrl-D leaves.");
    return SHELL_OK;
}

int cmd_quit(struct shell *sh, int argc, char **argv)
{
    (void)sh;
    (void)argc;
    (void)argv;
    return SHELL_EXIT;
}

char **complete_commands(struct shell *sh, const char *text, int argi)
{
    const char *names[sizeof command_table / sizeof command_table[0]];

    (void)sh;
    if (argi > 1)
        return calloc(1, sizeof(char *));
    for (size_t i = 0; i < command_count; i++)
        names[i] = command_table[i].name;
    return list_filter(names, command_count, text);
}

char **complete_all_option(struct shell *sh, const char *text, int argi)
{
    static const char *const options[] = {"--all"};
    (void)sh;
    if (argi > 1)
        return calloc(1, sizeof(char *));
    return list_filter(options, 1, text);
}

char **complete_nothing(struct shell *sh, const char *text, int argi)
{
    (void)sh;
    (void)text;
    (void)argi;
    return calloc(1, sizeof(char *));
}

char **command_complete(struct shell *sh, const char *line_before, const char *text)
{
    char buf[COMMAND_LINE_MAX + 1];
    char *argv[COMMAND_ARGS_MAX + 1];
    const char *error;

    int argc = command_split(line_before, buf, sizeof buf, argv, COMMAND_ARGS_MAX, &error);
    if (argc < 0)
        return NULL;
    if (argc == 0)
        return complete_commands(sh, text, 1);
    const struct command *cmd = command_find(argv[0]);
    if (cmd == NULL)
        return calloc(1, sizeof(char *));
    if (cmd->completer == NULL)
        return NULL;
    return cmd->completer(sh, text, argc);
}

void command_write_adoc(FILE *out)
{
    fprintf(out, "// SPDX-License-Identifier: MIT\n"
                 "// Generated by `pidns-tutor --commands-adoc` from the command table in\n"
                 "// shell/cmd/commands.c (make commands-doc): do not edit by hand.\n"
                 "= The commands of pidns-tutor\n\n"
                 "Type them at the `pidns-tutor>` prompt, or one a line on standard input. "
                 "Enter on an empty line goes to the next step; Tab completes commands, "
                 "lesson numbers and names, example names and file paths; Ctrl-C stops what "
                 "runs; Ctrl-D leaves. A command may be shortened to a unique prefix of at "
                 "least two letters.\n");
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "\n== %s\n\n`%s`: %s.\n\n%s\n", command_table[i].name,
                command_table[i].synopsis, command_table[i].summary, command_table[i].help);
}
