/* SPDX-License-Identifier: MIT */
/* command_execute.c: one typed line run: refused when it is no line a
 * person types, split into words (or, for a COMMAND_RAW command, kept
 * whole), looked up in the table (commands.c), its argument count and
 * argument check passed, what it needs (a lab, a lesson) checked once for
 * every command, and then its handler called.
 */
#include "cmd/commands.h"
#include "tutor/tutor_cursor.h"

#include <stdlib.h>
#include <string.h>

/* Runs a command whose argument count is right: its argument check, then
 * what it needs (a lab, a lesson), checked here once for every command,
 * then its handler. A handler's SHELL_USAGE prints the command's usage. */
static int dispatch(struct shell *sh, const struct command *cmd, int argc, char **argv)
{
    int rc = cmd->check_args != NULL ? cmd->check_args(sh, argc, argv) : SHELL_OK;
    if (rc == SHELL_OK && (cmd->flags & COMMAND_NEEDS_LAB) && sh->lab == NULL) {
        shell_error(sh, "the lab is not open (see pidns-tutor --doctor)");
        rc = SHELL_ERROR;
    }
    if (rc == SHELL_OK && (cmd->flags & COMMAND_NEEDS_LESSON) && tutor_lesson(sh) < 0) {
        shell_error(sh, "no lesson started: type `lessons` to see them, `lesson 1` to begin");
        rc = SHELL_ERROR;
    }
    if (rc == SHELL_OK)
        rc = cmd->handler(sh, argc, argv);
    return rc == SHELL_USAGE ? command_usage(sh, cmd) : rc;
}

static int dispatch_raw(struct shell *sh, const struct command *cmd, const char *rest)
{
    char *argv[3] = {(char *)cmd->name, NULL, NULL};
    char *copy = strdup(rest);
    size_t len = copy != NULL ? strlen(copy) : 0;

    while (len > 0 && (copy[len - 1] == ' ' || copy[len - 1] == '\t'))
        copy[--len] = '\0';
    if (copy == NULL || len == 0) {
        free(copy);
        return command_usage(sh, cmd);
    }
    argv[1] = copy;
    int rc = dispatch(sh, cmd, 2, argv);
    free(copy);
    return rc;
}

int command_execute(struct shell *sh, const char *line, size_t len)
{
    const char *problem = command_line_problem(line, len);
    char buf[COMMAND_LINE_MAX + 1];
    char *argv[COMMAND_ARGS_MAX + 1];
    const char *error = NULL;

    if (problem != NULL) {
        shell_error(sh, "input refused: %s; type a command, or help", problem);
        return SHELL_ERROR;
    }
    const char *s = line + strspn(line, " \t");
    if (*s == '\0' && tutor_lesson(sh) < 0)
        return SHELL_OK;
    if (*s == '\0') /* Enter on an empty line: `next` */
        return dispatch(sh, command_find("next"), 1, (char *[]){"next", NULL});
    if (*s == '#')
        return SHELL_OK; /* a comment, in scripts */
    size_t name_len = strcspn(s, " \t");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(name_len < 63 ? name_len : 63), s);
    const struct command *cmd = command_find(name);
    if (cmd == NULL || name_len > 63)
        return command_unknown(sh, name, name_len > 63 ? NULL : s);
    if (cmd->flags & COMMAND_RAW)
        return dispatch_raw(sh, cmd, s + name_len + strspn(s + name_len, " \t"));
    int argc = command_split(s, buf, sizeof buf, argv, COMMAND_ARGS_MAX, &error);
    if (argc < 0) {
        shell_error(sh, "%s: %s", cmd->name, error);
        return command_usage(sh, cmd);
    }
    if (argc - 1 < cmd->min_args || argc - 1 > cmd->max_args)
        return command_usage(sh, cmd);
    return dispatch(sh, cmd, argc, argv);
}
