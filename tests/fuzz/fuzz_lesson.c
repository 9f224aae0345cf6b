/* SPDX-License-Identifier: MIT */
/* fuzz_lesson.c: libFuzzer target for the lesson parser and the matchers.
 *
 * The input up to its first NUL byte is a lesson file (a lesson on disk may
 * not hold a NUL: lesson_read_text_file refuses it). What follows the NUL,
 * if anything, is the output of a command: it is matched against every
 * [.expect] of the parsed lesson, against the lesson text taken as a pattern
 * (ordered and unordered), and against every [.predict] answer.
 *
 * The output part is also the text of an example file for the include::
 * region reader (tag "t"), through a memfd: no file is written.
 *
 * include:: reads files relative to FUZZ_LESSONS_DIR (the real lessons/, so
 * ../examples/NAME.c[tag=...] resolves). Inputs whose include targets leave
 * the source tree (an absolute path, or ".." past the one leading "../") are
 * skipped: the fuzzer reads files, and only ours. See docs/design.adoc.
 */
#include "lesson/lesson.h"
#include "lesson/lesson_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef FUZZ_LESSONS_DIR
#error "build with -DFUZZ_LESSONS_DIR='\"/path/to/lessons\"' (mk/fuzz.mk does)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int example_fd = -1; /* a memfd holding an example's text */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    example_fd = memfd_create("fuzz-example", MFD_CLOEXEC);
    if (example_fd == -1) {
        perror("fuzz_lesson: memfd_create");
        exit(1);
    }
    return 0;
}

/* The region tagged "t" of text, as include::/proc/self/fd/N[tag=t] reads it. */
static void fuzz_include_region(const char *text)
{
    size_t len = strlen(text);
    char target[32], why[512], *code = NULL;
    int first_line = 0;

    if (ftruncate(example_fd, 0) == -1 || pwrite(example_fd, text, len, 0) != (ssize_t)len)
        abort();
    snprintf(target, sizeof target, "%d", example_fd);
    if (lesson_include_region("/proc/self/fd", target, "t", &code, &first_line, why, sizeof why) ==
            0 &&
        (code == NULL || first_line < 1))
        abort(); /* a region found has code and the line it starts at */
    free(code);
}

/* Does every include:: target stay under the source tree? */
static int fuzz_includes_stay_inside(const char *text)
{
    for (const char *s = strstr(text, "include::"); s != NULL; s = strstr(s + 1, "include::")) {
        const char *target = s + 9;
        size_t n = strcspn(target, "[\n");
        const char *rest = strncmp(target, "../", 3) == 0 ? target + 3 : target;
        if (*target == '/' || memmem(rest, n - (size_t)(rest - target), "..", 2) != NULL)
            return 0;
    }
    return 1;
}

static void fuzz_match_blocks(const struct lesson *l, const char *output)
{
    for (size_t s = 0; s < l->step_count; s++)
        for (size_t b = 0; b < l->steps[s].block_count; b++) {
            const struct lesson_block *block = &l->steps[s].blocks[b];
            if (block->type == LESSON_EXPECT) {
                lesson_block_output_matches(block, output);
                /* A pattern with no {N}, {*} or "..." matches itself. */
                if (!strchr(block->text, '{') && !strstr(block->text, "...") && !block->unordered &&
                    !lesson_output_matches(block->text, block->text))
                    abort();
            }
            if (block->type == LESSON_PREDICT) {
                lesson_answer_matches(block->answer, output);
                if (!lesson_answer_matches(block->answer, block->answer))
                    abort();
            }
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[1024];
    struct lesson lesson;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t text_len = strlen(text);
    const char *output = text_len < size ? text + text_len + 1 : NULL;

    if (fuzz_includes_stay_inside(text)) {
        if (lesson_parse_string(text, "99-fuzz.adoc", FUZZ_LESSONS_DIR, &lesson, err, sizeof err) ==
            0) {
            if (output != NULL)
                fuzz_match_blocks(&lesson, output);
            lesson_free(&lesson);
        } else if (err[0] == '\0') {
            abort(); /* a failure must say what is wrong */
        }
    }
    if (output != NULL) {
        struct lesson_block unordered = {.type = LESSON_EXPECT, .text = text, .unordered = 1};
        lesson_output_matches(text, output);
        lesson_block_output_matches(&unordered, output);
        lesson_answer_matches(text, output);
        fuzz_include_region(output);
    }
    free(text);
    return 0;
}
