/*
 * compare.h - this run's key figures and claims beside the published run's.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_COMPARE_H
#define IPCTAX_COMPARE_H

#include "report/store.h"

/* Reads PUBLISHED/values.csv and writes tables/compare.csv,
 * tables/compare_claims.csv and compare.txt. */
void compare_with_published(struct store *s, const char *published_dir);

#endif
