/* SPDX-License-Identifier: MIT */
/* lesson_internal.h: what the lesson_*.c files share and nobody else uses.
 *
 * lesson.c (model, files, directories), lesson_parse.c (the AsciiDoc
 * subset), lesson_include.c (tagged regions of the example files) and
 * lesson_match.c (expected output and answers) together implement lesson.h.
 */
#ifndef PIDNS_TUTOR_LESSON_INTERNAL_H
#define PIDNS_TUTOR_LESSON_INTERNAL_H

#include <stddef.h>

/* Largest lesson or included file we read: a lesson is a few KiB. */
#define LESSON_MAX_FILE_BYTES (1024 * 1024)

/* Reads a whole text file into a malloc'd NUL-terminated string. Returns 0,
 * or -1 with the reason (no file, too big, NUL byte...) in why. */
int lesson_read_text_file(const char *path, char **text, char *why, size_t whylen);

/* Resolves include::target[tag=tag] relative to base_dir: the region between
 * the lines holding `tag::TAG[]` and `end::TAG[]` (directive lines dropped, as
 * asciidoctor does). Returns 0 with a malloc'd *code and the 1-based line in
 * the file of the region's first line, or -1 with the reason in why. */
int lesson_include_region(const char *base_dir, const char *target, const char *tag, char **code,
                          int *first_line, char *why, size_t whylen);

/* The path of an include target as shown to a learner: relative to the
 * parent of the lessons directory ("../examples/x.c" -> "examples/x.c"). */
char *lesson_display_path(const char *base_dir, const char *target);

#endif
