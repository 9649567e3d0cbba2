/*
 * reproduce.h - runs kept as reproductions, and their verdicts side by side.
 *
 * Tangled from paper/96-reproductions.md.
 */
#ifndef IPCTAX_REPRODUCE_H
#define IPCTAX_REPRODUCE_H

#include <stddef.h>

#include "report/model.h"
#include "report/store.h"

/* Whether name may name a kept run: 1 to MAX_ID_BYTES letters, digits,
 * '.', '-' and '_', starting with a letter or a digit. */
enum { MAX_ID_BYTES = 80 };
int reproduction_name_ok(const char *name);

/* Adds the run in `data` as root/ID, ID made from the machine and the date
 * when `id` is NULL; refuses an ID that exists or is not a name. `by` and
 * `conditions` go into its README. The ID made is written to made. 0, or
 * -1 with err (nothing is left behind, and the same call may be retried). */
int reproduction_add(const char *data, const char *root, const char *id, const char *by,
                     const char *conditions, char *made, size_t made_size, char *err,
                     size_t err_size);

/* Writes the kept run root/id as the one file `file`; 0, or -1 with err. */
int reproduction_pack(const char *root, const char *id, const char *file, char *err,
                      size_t err_size);

/* Why the run d is reduced (a QUICK or partial run), into why: "" when it
 * is a full run, the study's job at the paper's repetitions. */
void reproduction_reduced_because(const struct run_data *d, char *why, size_t size);

/* Checks the file a reproduction_pack wrote, and adds the run it holds as
 * root/ID (ID into made); refuses it, naming the file and the member, when
 * any check fails. 0, or -1 with err (root is then as it was). */
int reproduction_receive(const char *file, const char *root, char *made, size_t made_size,
                         char *err, size_t err_size);

/* The families of values that the tables across runs and the plan read
 * of a kept run's summary: its summary runs only the summarizers they need. */
extern const char KEPT_FAMILIES[];

/* Summarizes the run d into s (none when d is NULL: the plan before a
 * run) and, when root is not NULL, every reproduction under root (into
 * s's kept_summaries/ID/, OUT/reproductions/ID/ by default), then judges the claims on each, writes the
 * claim-by-claim table and the machines' table into s, and plans the next
 * run's units from the full ones (@sec:plan). The summaries share nothing they write, so they run side
 * by side, one thread per CPU. A folder that is not a whole run, or not a
 * folder of its own, is an error of s. */
void summarize_with_reproductions(const struct run_data *d, struct store *s,
                                  const char *root);

#endif
