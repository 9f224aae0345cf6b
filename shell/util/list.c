/* SPDX-License-Identifier: MIT */
/* list.c: NULL-terminated lists of strings. See list.h. */
#include "util/list.h"

#include <stdlib.h>
#include <string.h>

char **list_filter(const char *const *items, size_t count, const char *text)
{
    char **list = calloc(count + 1, sizeof *list);
    size_t n = 0, len = strlen(text);

    for (size_t i = 0; list != NULL && i < count; i++) {
        if (strncmp(items[i], text, len) != 0)
            continue;
        list[n] = strdup(items[i]);
        if (list[n] != NULL)
            n++;
    }
    return list;
}
