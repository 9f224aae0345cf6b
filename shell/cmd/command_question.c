/* SPDX-License-Identifier: MIT */
/* command_question.c: whether a line typed at a lesson's question is a
 * command of the table (see enum shell_line): the session gives the tutor
 * this reader, so that a question never traps the learner.
 */
#include "cmd/commands.h"

#include <string.h>

enum shell_line command_question_line(const char *line)
{
    char buf[COMMAND_LINE_MAX + 1];
    char *argv[COMMAND_ARGS_MAX + 1];
    const char *error = NULL;
    const struct command *cmd = NULL;

    if (command_line_problem(line, strlen(line)) != NULL)
        return SHELL_LINE_ANSWER;
    const char *s = line + strspn(line, " \t");
    size_t name_len = strcspn(s, " \t");
    for (size_t i = 0; i < command_count && cmd == NULL; i++)
        if (strlen(command_table[i].name) == name_len &&
            strncmp(command_table[i].name, s, name_len) == 0)
            cmd = &command_table[i];
    if (cmd == NULL)
        return SHELL_LINE_ANSWER;
    int args;
    if (cmd->flags & COMMAND_RAW) /* sh: the rest of the line, which must not be empty */
        args = s[name_len + strspn(s + name_len, " \t")] != '\0';
    else
        args = command_split(s, buf, sizeof buf, argv, COMMAND_ARGS_MAX, &error) - 1;
    if (args < cmd->min_args || args > cmd->max_args)
        return SHELL_LINE_ANSWER;
    return cmd->flags & COMMAND_LOOKS ? SHELL_LINE_LOOKS : SHELL_LINE_MOVES;
}
