/*
 * names.c - comma-separated lists of names.
 *
 * Tangled from paper/41-architectures.md.
 */
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/names.h"

int names_include(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        size_t item = strcspn(p, ",");
        if (item == n && strncmp(p, name, n) == 0)
            return 1;
        p += item + (p[item] == ',');
    }
    return 0;
}

int names_check(const char *option, const char *list, int (*index_of)(const char *),
                const char *kind, char *err, size_t err_size)
{
    if (list == NULL)
        return 0;
    for (const char *p = list;; p++) {
        char name[128];
        size_t n = strcspn(p, ",");
        if (n == 0)
            return set_error(err, err_size, "%s: '%s' has an empty %s name", option, list,
                             kind);
        snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), p);
        if (strcmp(name, "none") != 0 && index_of(name) < 0)
            return set_error(err, err_size, "%s: no %s named '%s' (--list names them)",
                             option, kind, name);
        p += n;
        if (*p == '\0')
            return 0;
    }
}
