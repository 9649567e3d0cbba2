/*
 * reproduce.h - runs kept as reproductions, and their verdicts side by side.
 *
 * Tangled from paper/96-reproductions.md.
 */
#ifndef IPCTAX_REPRODUCE_H
#define IPCTAX_REPRODUCE_H

#include <stddef.h>

#include "report/store.h"

/* Adds the run in `data` as root/ID, ID made from the machine and the date
 * when `id` is NULL; refuses an ID that exists. `by` and `conditions` go
 * into its README. The ID made is written to made. 0, or -1 with err. */
int reproduction_add(const char *data, const char *root, const char *id, const char *by,
                     const char *conditions, char *made, size_t made_size, char *err,
                     size_t err_size);

/* Summarizes every reproduction under root (into OUT/reproductions/ID/),
 * judges the claims on each, and writes the claim-by-claim table and the
 * machines' table into s. A folder that is not a whole run stops it. */
void summarize_reproductions(struct store *s, const char *root);

#endif
