/*
 * names.h - comma-separated lists of names on the command line.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_NAMES_H
#define IPCTAX_NAMES_H

#include <stddef.h>

/* Whether name is an item of list; a NULL list includes every name. */
int names_include(const char *list, const char *name);

/* Every item of list, the value of `option`, must satisfy index_of(item) >= 0
 * or be "none", and no item may be empty: 0, or -1 with a message in err
 * naming the option and the item. */
int names_check(const char *option, const char *list, int (*index_of)(const char *),
                const char *kind, char *err, size_t err_size);

#endif
