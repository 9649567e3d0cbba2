/*
 * summarize.h - the summarizers, and what they share.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_SUMMARIZE_H
#define IPCTAX_SUMMARIZE_H

#include <stddef.h>

#include "harness/stats.h"
#include "report/model.h"
#include "report/store.h"

typedef void summarizer(const struct run_data *d, struct store *s);

summarizer summarize_run, summarize_sweep, summarize_architectures, summarize_calls,
    summarize_echo, summarize_serialization, summarize_spawn, summarize_layout,
    summarize_roofline, summarize_counts, summarize_robustness, summarize_derived,
    summarize_claims;

/* A growable array of doubles. */
struct doubles {
    double *v;
    size_t n, cap;
};
void doubles_push(struct doubles *a, double x);
void doubles_free(struct doubles *a);
struct estimate doubles_estimate(const struct doubles *a);

/* The rounds of a run: 1 .. n_rounds. */
long run_rounds(const struct run_data *d);
/* seconds[r - 1] of arch's successful run in round r, NAN where none; free() it. */
double *seconds_by_round(const struct run_data *d, const char *arch, long n_rounds);
/* The median over rounds of a's time over b's in the same round. */
struct estimate paired_ratio(const struct run_data *d, const char *a, const char *b);
/* Whether arch has any successful run. */
int has_runs(const struct run_data *d, const char *arch);

#endif
