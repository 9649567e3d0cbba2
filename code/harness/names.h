/*
 * names.h - comma-separated lists of names on the command line.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_NAMES_H
#define IPCTAX_NAMES_H

/* Whether name is an item of list; a NULL list includes every name. */
int names_include(const char *list, const char *name);

/* Every item of list must satisfy index_of(item) >= 0, or be "none";
 * otherwise says which is unknown and returns -1. */
int names_check(const char *list, int (*index_of)(const char *), const char *kind);

#endif
