/* SPDX-License-Identifier: MIT */
/* lesson_wrong.c: the wrong attempts of an exercise ([.wrong] listings
 * under a title naming the mistake), which --auto checks the exercise's
 * check refuses. See docs/lesson-format.adoc.
 */
#include "lesson/lesson_parse.h"

#include <stdlib.h>
#include <string.h>

/* A block title line: ".Title" (not "..." or ". item"). */
int lp_is_block_title(const char *line)
{
    return line[0] == '.' && line[1] && line[1] != ' ' && line[1] != '.';
}

/* A wrong attempt inside an exercise, at its title line:
 *     .what the mistake is
 *     [.wrong]
 *     ----
 *     the commands
 *     ----
 * The title comes first, directly above [.wrong]: asciidoctor shows it as
 * the listing's title, the tutorial names the attempt by it. */
int lp_wrong_attempt(struct lp *p, struct lesson_block *b)
{
    size_t title_at = p->pos, at = p->pos + 1;
    struct lp_attrs a;
    char *commands = NULL;

    if (at >= p->limit || !lp_is_attribute_line(lp_line(p, at)))
        return lp_fail(p, title_at,
                       "a block title ('.Title') inside an exercise names a wrong attempt: "
                       "put [.wrong] on the next line, then its ---- listing");
    if (lp_parse_attrs(p, at, &a) == -1)
        return -1;
    free(a.when);
    if (a.is_source || strcmp(a.roles[0], "wrong") != 0)
        return lp_fail(p, title_at,
                       "a block title ('.Title') inside an exercise names a wrong attempt: "
                       "the line after it must be [.wrong]");
    if (lp_check_modifiers(p, at, &a, NULL) == -1)
        return -1;
    p->pos = at + 1;
    if (lp_listing_once(p, at, "wrong", &commands) == -1) {
        free(commands);
        return -1;
    }
    struct lesson_wrong *bigger = realloc(b->wrongs, (b->wrong_count + 1) * sizeof(*b->wrongs));
    char *title = strdup(lp_line(p, title_at) + 1);
    if (!bigger || !title) {
        if (bigger)
            b->wrongs = bigger;
        free(title);
        free(commands);
        return lp_oom(p);
    }
    b->wrongs = bigger;
    b->wrongs[b->wrong_count++] = (struct lesson_wrong){title, commands, (int)at + 1};
    return 0;
}
