/* SPDX-License-Identifier: MIT */
/* cmd_code.c: the commands of coding exercises: `edit`, `build`, `watch`,
 * `reset-file`. The work is done in tutor/tutor_code.c; `check` (in
 * cmd_lesson.c) builds a coding exercise before checking it; `hint` (also
 * there) answers inside `watch`.
 */
#include "cmd/cmd.h"
#include "lesson/lesson.h"
#include "tutor/tutor.h"
#include "tutor/tutor_code.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The current step's coding exercise, or NULL after saying there is none. */
static const struct lesson_block *coding_exercise(struct shell *sh, const char *command)
{
    const struct lesson_block *ex = tutor_current_exercise(sh);
    if (ex == NULL || ex->program == NULL) {
        shell_error(sh, "%s: this step has no coding exercise (`where` says where you are)",
                    command);
        return NULL;
    }
    return ex;
}

int cmd_edit(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    const struct lesson_block *ex = coding_exercise(sh, argv[0]);
    return ex != NULL ? tutor_code_edit(sh, ex) : SHELL_ERROR;
}

int cmd_build(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    const struct lesson_block *ex = coding_exercise(sh, argv[0]);
    if (ex == NULL || tutor_code_build(sh, ex) != 0)
        return SHELL_ERROR;
    char dir[NAME_MAX + 1], name[NAME_MAX + 1];
    tutor_code_names(ex, dir, sizeof dir, name, sizeof name);
    render_textf(&sh->render, RENDER_NOTE,
                 "(in the lab it is %s/%s/%s: `sh cd %s/%s && ./%s ...` runs it yourself; "
                 "`check` runs it and checks what it did)",
                 TUTOR_CODE_LAB_DIR, dir, name, TUTOR_CODE_LAB_DIR, dir, name);
    return SHELL_OK;
}

int cmd_watch(struct shell *sh, int argc, char **argv)
{
    (void)argc;
    const struct lesson_block *ex = coding_exercise(sh, argv[0]);
    struct tutor_watch w = {.seen_size = -1};
    char line[256];
    int rc = -1;
    /* A line typed while watching: `hint` answers, the rest is said. */
    while (ex != NULL && (rc = tutor_code_watch(sh, ex, &w, line, sizeof line)) == 2) {
        char *word = line + strspn(line, " \t");
        word[strcspn(word, " \t\r")] = '\0';
        if (strcmp(word, "hint") == 0)
            cmd_hint(sh, 1, (char *[]){"hint", NULL});
        else if (word[0] != '\0')
            render_text(&sh->render, RENDER_NOTE,
                        "(watching: only `hint` works here; Ctrl-C stops watching, then any "
                        "command)");
    }
    if (rc == 1)
        return cmd_check_passed(sh, ex);
    return rc == 0 ? SHELL_OK : SHELL_ERROR;
}

int check_yes_arg(struct shell *sh, int argc, char **argv)
{
    (void)sh;
    return argc == 2 && strcmp(argv[1], "-y") != 0 ? SHELL_USAGE : SHELL_OK;
}

int cmd_reset_file(struct shell *sh, int argc, char **argv)
{
    const struct lesson_block *ex = coding_exercise(sh, argv[0]);
    if (ex == NULL)
        return SHELL_ERROR;
    if (argc == 1) {
        int yes = shell_confirm(
            sh, "reset-file", "Start this exercise's file afresh (yours is kept as .bak)? [y/N] ");
        if (yes == -1)
            return SHELL_ERROR;
        if (!yes) {
            render_text(&sh->render, RENDER_NOTE, "Kept your file.");
            return SHELL_OK;
        }
    }
    int rc = tutor_code_reset(sh, ex);
    if (rc == SHELL_OK)
        render_text(&sh->render, RENDER_GOOD, "Your file is as the exercise gave it again.");
    return rc;
}
