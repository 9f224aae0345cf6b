/* SPDX-License-Identifier: MIT */
/* stage.h: the built examples, staged where every user can run them.
 *
 * Tests that run an example as nobody (uid 65534) cannot run it from the
 * build tree when the checkout is out of nobody's reach, say a clone under
 * /root (mode 700). They run copies instead, staged in a fresh directory
 * under /tmp that only we write and everyone can read and search.
 */
#ifndef PIDNS_TUTOR_TESTS_STAGE_H
#define PIDNS_TUTOR_TESTS_STAGE_H

/* Copies every built example (tl_example("")) into a new directory and
 * returns that directory's path (static; no trailing slash), or NULL with
 * the reason on stderr. The copy is removed by tl_unstage(), or at exit of
 * the process that staged it. */
const char *tl_stage_examples(void);
/* Removes the staged copy, if any (safe to call twice). */
void tl_unstage(void);

#endif
