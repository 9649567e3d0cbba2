/*
 * summarize.h - the summarizers, and what they share.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_SUMMARIZE_H
#define IPCTAX_SUMMARIZE_H

#include <stddef.h>

#include "report/model.h"
#include "report/store.h"
#include "util/stats.h"

typedef void summarizer(const struct run_data *d, struct store *s);

summarizer summarize_run, summarize_sweep, summarize_architectures, summarize_calls,
    summarize_pooled, summarize_robustness, summarize_derived, summarize_design,
    summarize_calibration, summarize_claims, summarize_model, summarize_multiplicity;
/* ... and one for each measurement of the table (@sec:measurements) */
#define MEASUREMENT(name, ...) summarizer summarize_##name;
#include "schema/measurements.def"

/* Every summarizer, in their order: what the summary program runs on a run. */
summarizer summarize_all;
/* Only the summarizers that put a family of `wanted` (names separated by
 * spaces) and, before them, those that put what they read: a kept run's
 * summary, of which the tables across runs read a part (@sec:appendix-reproductions). */
void summarize_families(const struct run_data *d, struct store *s, const char *wanted);

/* A line of the summarizers' list: its name, its function, the families
 * of values it writes and those of others it reads (@sec:summarizer-order). */
struct summarizer_line {
    const char *name;
    summarizer *run;
    const char *writes, *reads;
};
/* Whether every family each line reads is written by a line before it, or
 * by itself: 0, or -1 with err naming the reader and the family, and the
 * later line that writes it if one does. */
int summarizers_check_order(const struct summarizer_line *lines, size_t n, char *err,
                            size_t err_size);

/* <<summary-helpers>>, paper/90-appendix-report.md */
/* A growable array of doubles. */
struct doubles {
    double *v;
    size_t n, cap;
};
void doubles_push(struct doubles *a, double x);
void doubles_free(struct doubles *a);
struct estimate doubles_estimate(const struct doubles *a);

/* arch's time over in_process's: the median of its units' ratios. */
struct estimate ratio_to_baseline(const struct run_data *d, const char *arch);
/* "couples" or "triples": the unit of arch's ratio. */
const char *unit_name(const struct run_data *d, const char *arch);
/* a's ratio to the baseline over b's, from both rows' units (a composite). */
struct estimate ratio_between(const struct run_data *d, const char *a, const char *b);
/* Whether arch has any successful run. */
int has_runs(const struct run_data *d, const char *arch);
/* The pass values (block medians, µs) of one echo point into out; how many. */
size_t echo_pass_values(const struct run_data *d, const char *client, const char *transport,
                        const char *placement, const char *mode, long floats, double *out,
                        size_t room);

#endif
