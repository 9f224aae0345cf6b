/* SPDX-License-Identifier: MIT */
/* fuzz_command.c: libFuzzer target for what the shell does with a typed
 * line before any handler touches the lab: the refusal of absurd input
 * (command_line_problem), word splitting and quoting (command_split), the
 * command lookup and the "did you mean" suggestion, the cutting of a `sh`
 * line at its background `&` (sh_line_split), the lesson lookup of
 * `lesson N|NAME`, and tab completion of the raw readline buffer (which
 * readline hands over unchecked). `help` is the only command executed: its
 * handler only prints. Nothing here starts a process or writes a file.
 *
 * The shell reads lessons from FUZZ_LESSONS_DIR, example sources from
 * FUZZ_EXAMPLE_SRC_DIR and example names from FUZZ_EXAMPLES_DIR (a directory
 * of empty executable stubs that mk/fuzz.mk makes).
 */
#include "cmd/cmd.h"
#include "cmd/commands.h"
#include "cmd/sh_line.h"
#include "lesson/lesson.h"
#include "tutor/tutor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FUZZ_LESSONS_DIR) || !defined(FUZZ_EXAMPLE_SRC_DIR) || !defined(FUZZ_EXAMPLES_DIR)
#error                                                                                             \
    "build with -DFUZZ_LESSONS_DIR=... -DFUZZ_EXAMPLE_SRC_DIR=... -DFUZZ_EXAMPLES_DIR=... (mk/fuzz.mk)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct shell sh;
static char *rendered;
static size_t rendered_len;
static char *example_text; /* an example source, for lesson_include_text() */

/* The tagged-region reader of `source` (and of lessons' includes). */
static void fuzz_include(const char *text, const char *tag)
{
    char *code, why[256];
    int first_line;
    if (lesson_include_text(text, "fuzz.c", tag, &code, &first_line, why, sizeof why) == 0)
        free(code);
}

static char *fuzz_read_example(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 16);
    if (f != NULL && text != NULL)
        text[fread(text, 1, (1 << 16) - 1, f)] = '\0';
    if (f != NULL)
        fclose(f);
    return text;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[1024];

    (void)argc;
    (void)argv;
    sh.program = "pidns-tutor";
    sh.render.out = open_memstream(&rendered, &rendered_len);
    sh.render.width = 80;
    snprintf(sh.dirs.lessons, sizeof sh.dirs.lessons, "%s", FUZZ_LESSONS_DIR);
    snprintf(sh.dirs.example_src, sizeof sh.dirs.example_src, "%s", FUZZ_EXAMPLE_SRC_DIR);
    snprintf(sh.dirs.examples, sizeof sh.dirs.examples, "%s", FUZZ_EXAMPLES_DIR);
    example_text = fuzz_read_example(FUZZ_EXAMPLE_SRC_DIR "/pidns_init_sleep.c");
    if (sh.render.out == NULL || example_text == NULL ||
        lesson_load_dir(sh.dirs.lessons, &sh.lessons, &sh.lesson_count, err, sizeof err) == -1) {
        fprintf(stderr, "fuzz_command: cannot set up: %s\n", err);
        exit(1);
    }
    return 0;
}

static void fuzz_free_list(char **list)
{
    for (size_t i = 0; list != NULL && list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

/* Tab completion as readline asks for it: the line before the word being
 * typed, and the word (the text after the last blank). */
static void fuzz_complete(const char *line)
{
    size_t len = strlen(line), start = len;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
        start--;
    char *before = strndup(line, start);
    if (before != NULL)
        fuzz_free_list(command_complete(&sh, before, line + start));
    free(before);
}

/* The checks command_split promises: argc words, each a string inside buf. */
static void fuzz_split(const char *line)
{
    char buf[COMMAND_LINE_MAX + 1];
    char *argv[COMMAND_ARGS_MAX + 1];
    const char *error = NULL;

    int argc = command_split(line, buf, sizeof buf, argv, COMMAND_ARGS_MAX, &error);
    if (argc < 0) {
        if (error == NULL)
            abort();
        return;
    }
    if (argc > COMMAND_ARGS_MAX || argv[argc] != NULL)
        abort();
    for (int i = 0; i < argc; i++)
        if (argv[i] < buf || argv[i] + strlen(argv[i]) >= buf + sizeof buf)
            abort();
    if (argc == 0)
        return;
    const struct command *cmd = command_find(argv[0]);
    if (cmd == NULL)
        command_closest(argv[0]);
    if (argc > 1)
        tutor_find_lesson(&sh, argv[1]);
    if (cmd != NULL && strcmp(cmd->name, "source") == 0 && argc == 2) {
        const char *colon = strchr(argv[1], ':');
        fuzz_include(example_text, colon != NULL ? colon + 1 : NULL);
    }
    /* help is pure (it prints); the other handlers reach the lab.
     * command_execute looks the command up by the first word as typed
     * (before quote removal), so check that word too. */
    const char *typed = line + strspn(line, " \t");
    size_t typed_len = strcspn(typed, " \t");
    if (cmd != NULL && strcmp(cmd->name, "help") == 0 && typed_len >= 2 && typed_len <= 4 &&
        strncmp(typed, "help", typed_len) == 0 &&
        (argc == 1 || (argc == 2 && command_find(argv[1]) != NULL))) {
        if (command_execute(&sh, line, strlen(line)) != SHELL_OK)
            abort();
        rewind(sh.render.out);
    }
}

/* What sh_line_split promises: at least one part; each a piece of the line
 * (or the line itself), never empty when the line was cut. */
static void fuzz_sh_line(const char *line)
{
    struct sh_line l;
    if (sh_line_split(line, &l) == -1)
        return;
    if (l.count == 0)
        abort();
    for (size_t i = 0; i < l.count; i++)
        if (strstr(line, l.parts[i].text) == NULL || (l.count > 1 && l.parts[i].text[0] == '\0'))
            abort();
    sh_line_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);

    if (line == NULL)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    /* What the shell accepts is a C string of at most COMMAND_LINE_MAX. */
    if (command_line_problem(line, size) == NULL) {
        if (strlen(line) != size || size > COMMAND_LINE_MAX)
            abort();
        fuzz_split(line);
        fuzz_sh_line(line);
    }
    fuzz_complete(line);
    fuzz_include(line, NULL);
    fuzz_include(line, "t");
    free(line);
    return 0;
}
