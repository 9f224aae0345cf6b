/* cmd_export.c: `export LESSON [FILE]`, a lesson's commands as a commented
 * shell script that runs by hand outside the tutorial: the copy-paste
 * reference.
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "lesson/lesson.h"
#include "tutor/tutor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Text as "# " comment lines wrapped to 72 columns. */
static void put_comment(FILE *f, const char *text)
{
    char *wrapped = render_wrap(text, 70, 0);
    const char *s = wrapped != NULL ? wrapped : text;

    while (*s != '\0') {
        size_t len = strcspn(s, "\n");
        fprintf(f, len > 0 ? "# %.*s\n" : "#\n", (int)len, s);
        s += len + (s[len] == '\n');
    }
    free(wrapped);
}

static void put_block(FILE *f, const struct lesson_block *b)
{
    switch (b->type) {
    case LESSON_TEXT:
    case LESSON_PREDICT:
        put_comment(f, b->text);
        break;
    case LESSON_QUIZ:
        put_comment(f, b->text);
        for (size_t i = 0; i < b->choice_count; i++)
            fprintf(f, "#   [%c] %s\n", b->choices[i].correct ? 'x' : ' ', b->choices[i].text);
        break;
    case LESSON_CODE:
        fprintf(f, "# (code: %s%s%s)\n", b->source_path != NULL ? b->source_path : "",
                b->source_tag != NULL ? ", tag " : "", b->source_tag != NULL ? b->source_tag : "");
        break;
    case LESSON_RUN:
        /* Background programs are remembered, to be stopped at the end. */
        fprintf(f, b->background ? "%s &\njobs=\"$jobs $!\"; sleep 1\n" : "%s\n", b->text);
        break;
    case LESSON_EXPECT:
        fprintf(f, "# It prints something like:\n");
        put_comment(f, b->text);
        break;
    case LESSON_EXERCISE:
        fprintf(f, "# Exercise:\n");
        put_comment(f, b->text);
        if (b->solution != NULL)
            fprintf(f, "# A solution:\n%s\n", b->solution);
        break;
    }
}

static void put_script(FILE *f, const struct shell *sh, const struct lesson *l)
{
    fprintf(f, "#!/bin/sh\n# Lesson %d: %s\n", l->number, l->title);
    fprintf(f, "# Exported by pidns-tutor from %s.\n#\n", l->path);
    put_comment(f, "It needs root, and it mounts procfs at /procN directories. To leave your "
                   "system as it was, run it in a private mount namespace of its own, which "
                   "vanishes with the script:");
    fprintf(f, "#     sudo unshare --mount --propagation private sh THIS_FILE\n");
    fprintf(f, "# The example programs are built in %s.\n\n", sh->dirs.examples);
    fprintf(f, "PATH=%s:$PATH\njobs=\n", sh->dirs.examples);
    for (size_t s = 0; s < l->step_count; s++) {
        fprintf(f, "\n# --- Step %zu: %s\n", s + 1, l->steps[s].title);
        for (size_t b = 0; b < l->steps[s].block_count; b++)
            put_block(f, &l->steps[s].blocks[b]);
    }
    fprintf(f, "\n# Clean up: stop what still runs, unmount, remove the mount points.\n");
    fprintf(f, "[ -z \"$jobs\" ] || kill $jobs 2>/dev/null; sleep 1\n");
    fprintf(f, "for d in /proc[0-9]*; do umount \"$d\" 2>/dev/null; rmdir \"$d\" 2>/dev/null; "
               "done\n");
}

int cmd_export(struct shell *sh, int argc, char **argv)
{
    int index = tutor_find_lesson(sh, argv[1]);
    if (index < 0) {
        shell_error(sh, "no lesson '%s': type `lessons` for the list", argv[1]);
        return SHELL_ERROR;
    }
    if (argc == 2) {
        fflush(sh->render.out);
        put_script(sh->render.out, sh, &sh->lessons[index]);
        return SHELL_OK;
    }
    FILE *f = fopen(argv[2], "wx");
    if (f == NULL) {
        shell_error(sh, "export: cannot create %s: %s%s", argv[2], strerror(errno),
                    errno == EEXIST ? " (choose another name)" : "");
        return SHELL_ERROR;
    }
    put_script(f, sh, &sh->lessons[index]);
    if (fclose(f) != 0) {
        shell_error(sh, "export: writing %s: %s", argv[2], strerror(errno));
        return SHELL_ERROR;
    }
    progress_own(&sh->progress, argv[2]);
    render_textf(&sh->render, RENDER_GOOD,
                 "Wrote lesson %d to %s (run it with: sudo unshare "
                 "--mount --propagation private sh %s).",
                 sh->lessons[index].number, argv[2], argv[2]);
    return SHELL_OK;
}
