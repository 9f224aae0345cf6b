/* SPDX-License-Identifier: MIT */
/* cmd.h: the command handlers and completers the table in commands.c
 * points to. Internal to the shell: only commands.c and the tests use it.
 */
#ifndef PIDNS_TUTOR_CMD_H
#define PIDNS_TUTOR_CMD_H

#include "tutor/shell.h"

/* cmd_lesson.c: lessons and the guided flow */
int cmd_lessons(struct shell *sh, int argc, char **argv);
int cmd_lesson(struct shell *sh, int argc, char **argv);
int cmd_next(struct shell *sh, int argc, char **argv);
int cmd_back(struct shell *sh, int argc, char **argv);
int cmd_again(struct shell *sh, int argc, char **argv);
int cmd_where(struct shell *sh, int argc, char **argv);
int cmd_check(struct shell *sh, int argc, char **argv);
struct lesson_block;
/* What `check` does once an exercise's check passed: the solution, the
 * debrief, the progress saved. */
int cmd_check_passed(struct shell *sh, const struct lesson_block *ex);
int cmd_hint(struct shell *sh, int argc, char **argv);
int cmd_reset(struct shell *sh, int argc, char **argv);
int cmd_export(struct shell *sh, int argc, char **argv);

/* cmd_lab.c: the lab */
int cmd_run(struct shell *sh, int argc, char **argv);
int cmd_sh(struct shell *sh, int argc, char **argv);
int cmd_ps(struct shell *sh, int argc, char **argv);
int cmd_tree(struct shell *sh, int argc, char **argv);
int cmd_ns(struct shell *sh, int argc, char **argv);
int cmd_status(struct shell *sh, int argc, char **argv);
int cmd_cleanup(struct shell *sh, int argc, char **argv);

/* cmd_code.c: coding exercises */
int cmd_edit(struct shell *sh, int argc, char **argv);
int cmd_build(struct shell *sh, int argc, char **argv);
int cmd_watch(struct shell *sh, int argc, char **argv);
int cmd_reset_file(struct shell *sh, int argc, char **argv);

/* cmd_source.c */
int cmd_source(struct shell *sh, int argc, char **argv);

/* commands.c */
int cmd_help(struct shell *sh, int argc, char **argv);
int cmd_quit(struct shell *sh, int argc, char **argv);

/* Argument checks, run by dispatch before a command's needs */
int check_run_args(struct shell *sh, int argc, char **argv);
int check_ns_args(struct shell *sh, int argc, char **argv);
int check_all_arg(struct shell *sh, int argc, char **argv);
int check_yes_arg(struct shell *sh, int argc, char **argv);
/* check [-v] */
int check_verbose_arg(struct shell *sh, int argc, char **argv);

/* Completers */
char **complete_lessons(struct shell *sh, const char *text, int argi);
char **complete_examples(struct shell *sh, const char *text, int argi);
char **complete_source(struct shell *sh, const char *text, int argi);
char **complete_commands(struct shell *sh, const char *text, int argi);
char **complete_nothing(struct shell *sh, const char *text, int argi);
char **complete_all_option(struct shell *sh, const char *text, int argi);
char **complete_pids(struct shell *sh, const char *text, int argi);

#endif
