/*
 * stats.h - order statistics, and the one estimator every comparison uses.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_STATS_H
#define IPCTAX_STATS_H

#include <stddef.h>
#include <stdint.h>

struct sample_stats {
    size_t n;
    double min, p50, p90, p99, max;
};

/* Quantile q in [0, 1] of n sorted values, linearly interpolated. */
double quantile_sorted(const double *sorted, size_t n, double q);
/* Sorts n doubles into ascending order in place, NaNs last: what qsort with
 * a less-than comparison gives, without a call per comparison. */
void sort_doubles(double *x, size_t n);
/* Orders only the two tails of x: afterwards quantile_sorted reads the
 * same as on the sorted array for every quantile at or below q and at or
 * above 1 - q (0 <= q < 0.5); the middle is left in no order. */
void sort_tails(double *x, size_t n, double q);
/* The median of n values, sorted in place to find it (NAN if n is 0). */
double median_in_place(double *x, size_t n);

/* Order statistics of n samples; the samples are not modified. */
struct sample_stats sample_stats(const double *samples, size_t n);
/* Quantile q of n samples, the ones that are not finite left out (NAN if
 * none is); the samples are not modified. */
double quantile_of(const double *samples, size_t n, double q);

/* <<the-estimator-interface>>, paper/40-harness.md */
enum {
    BOOTSTRAP_RESAMPLES = 10000,
    BOOTSTRAP_SEED = 42,
};

/* A median and its 95% interval. */
struct estimate {
    size_t n;                  /* units it rests on */
    double value, low, high;   /* NAN when n is 0; the ends NAN when n is 1 */
    double coverage;           /* the interval's guaranteed coverage: >= 0.95 from n = 6 */
};

/* The median of the finite values, and its distribution-free interval. */
struct estimate estimate_median(const double *values, size_t n);
/* ... with the interval at the level 1 - alpha instead of 95%. */
struct estimate estimate_median_at(const double *values, size_t n, double alpha);

/* The same median with a 95% percentile-bootstrap interval, whose coverage is
 * not guaranteed (0 in `coverage`): kept to show why it is not used. */
struct estimate estimate_median_bootstrap(const double *values, size_t n);

/* A quantity built from the medians of several groups of units: a ratio of two
 * medians, a difference, a model's prediction. */
typedef double median_function(const double *medians, const void *ctx);

/* f of the k groups' medians, with the percentile-bootstrap interval at `level`
 * in which every resample draws every group's units anew. `coverage` is set to
 * `level`, which only a calibration can vouch for (@sec:appendix-calibration);
 * n is the smallest group's count. */
struct estimate estimate_composite(size_t k, const double *const groups[], const size_t n[],
                                   median_function *f, const void *ctx, double level,
                                   int resamples, uint32_t seed);
/* The composite's bootstrap itself: `resamples` values of f, in the order
 * drawn, into draws (sort_tails them for an interval); its point value into
 * *value. 0, or -1 when a group is empty. */
int composite_draws(size_t k, const double *const groups[], const size_t n[],
                    median_function *f, const void *ctx, int resamples, uint32_t seed,
                    double *draws, double *value);

/* Half the interval's width, as a fraction of the estimate (NAN if 0 or unknown). */
double estimate_half_width(struct estimate e);

/* The Hodges-Lehmann estimate of the finite values' centre (the median of
 * their pairwise means) with the signed-rank test's exact interval, for
 * values symmetric about it: the cross-check beside the median
 * (@sec:appendix-pooled). */
struct estimate estimate_hodges_lehmann(const double *values, size_t n);

/* <<the-ratio-of-a-unit-interface>>, paper/42-pairs.md */
/* A couple's ratio: the geometric mean of its two duets' ratios, x over b. */
double couple_ratio(double x1, double b1, double x2, double b2);
/* A triple's ratio: x over the geometric mean of the baseline runs around it. */
double turn_ratio(double b1, double x, double b2);

#endif
