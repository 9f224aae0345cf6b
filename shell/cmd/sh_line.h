/* SPDX-License-Identifier: MIT */
/* sh_line.h: where a shell command line puts programs in the background.
 *
 * `sh LINE` runs LINE with /bin/sh in the lab. A command that ends in `&`
 * ("a & b", "mkdir /proc2; prog /proc2 &") is what a shell user puts in the
 * background, and the tutor must keep it running after the line is done, as
 * a job of the lab. So the line is cut where /bin/sh would cut it: at each
 * `;`, `&` or newline that is not inside quotes, brackets, a $(...) or a
 * compound command (if, for, while, until, case, { }), and not part of `&&`
 * or of a redirection such as `2>&1`. A line that manages its background
 * processes itself (it uses $!, or wait, jobs, fg, bg) means them to last
 * only as long as the line: it stays whole. Pure: no I/O.
 */
#ifndef PIDNS_TUTOR_SH_LINE_H
#define PIDNS_TUTOR_SH_LINE_H

#include <stddef.h>

struct sh_line_part {
    char *text;     /* the command, without its separator, trimmed */
    int background; /* it ended in `&` */
};

struct sh_line {
    struct sh_line_part *parts;
    size_t count;
    /* A `&` inside brackets or a compound command: what it starts there is
     * part of the enclosing command, not a job of its own. */
    int nested_background;
};

/* Cuts line into its commands when one of them ends in `&`. Otherwise (no
 * such `&`, a line that manages its jobs, or a line /bin/sh would refuse: an
 * unclosed quote or bracket, an empty command before a separator) the line
 * stays whole: one foreground part, the line as given. Returns 0, or -1 when
 * out of memory. */
int sh_line_split(const char *line, struct sh_line *out);
void sh_line_free(struct sh_line *l);

#endif
