/*
 * names.c - comma-separated lists of names.
 *
 * Tangled from paper/41-architectures.md.
 */
#include <stdio.h>
#include <string.h>

#include "harness/names.h"

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

int names_check(const char *list, int (*index_of)(const char *), const char *kind)
{
    for (const char *p = list; p != NULL && *p != '\0';) {
        char name[128];
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), p);
        if (strcmp(name, "none") != 0 && index_of(name) < 0) {
            fprintf(stderr, "ipctax-bench: no %s named '%s' (see --list)\n", kind, name);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}
