/*
 * compare.h - this run's results, claims and key figures beside the
 * published run's.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_COMPARE_H
#define IPCTAX_COMPARE_H

#include "report/store.h"

/* Reads PUBLISHED/values.csv (a summary of the published run; absent or
 * empty for a run the summary could not read) and writes compare.txt,
 * tables/compare.csv, tables/claims_compared.csv, tables/verdicts.csv and
 * architectures_published.csv into s's folder, and the compare.* values. */
void compare_with_published(struct store *s, const char *published_dir);

#endif
