/* SPDX-License-Identifier: MIT */
/* list.h: NULL-terminated lists of strings, as tab completion hands them to
 * readline.
 */
#ifndef PIDNS_TUTOR_LIST_H
#define PIDNS_TUTOR_LIST_H

#include <stddef.h>

/* The items that start with text: a NULL-terminated malloc'd list of
 * malloc'd copies (NULL when out of memory). */
char **list_filter(const char *const *items, size_t count, const char *text);

#endif
