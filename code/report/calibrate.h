/*
 * calibrate.h - the coverage of the paper's intervals, by simulation.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#ifndef IPCTAX_CALIBRATE_H
#define IPCTAX_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "util/stats.h"

/* <<noise-model>>, paper/93-appendix-units.md */
enum {
    CALIBRATION_RUNS = 2000,           /* synthetic runs per coverage */
    CALIBRATION_RESAMPLES = 1000,      /* a composite's resamples inside each */
    CALIBRATION_SEED = 7,
};

struct noise_model {
    int log_normal;                    /* 1: log-normal; 0: normal (a value <= 0 seen) */
    double centre, spread;             /* median and robust sd, of the logs if log_normal */
    double drift;                      /* lag-one correlation between consecutive units */
};

/* The model of n unit values, in the order they ran. */
struct noise_model noise_fit(const double *values, size_t n);
/* 1.4826 times the median absolute deviation of the finite x, as they are. */
double robust_spread(const double *x, size_t n);
/* The model's median: the true value a synthetic run estimates. */
double noise_median(struct noise_model m);

/* <<coverage-by-simulation>>, paper/93-appendix-units.md */
/* The share of CALIBRATION_RUNS synthetic runs of n units from m whose
 * order-statistic interval of the median holds the model's median. */
double median_coverage(struct noise_model m, size_t n, uint32_t seed);

/* The same for f of k groups' medians, each group from its own model, with
 * the percentile bootstrap at `level`. */
double composite_coverage(size_t k, const struct noise_model models[], const size_t n[],
                          median_function *f, const void *ctx, double level, uint32_t seed);
/* ... at several levels from the same synthetic runs: coverage[i] for levels[i]. */
void composite_coverages(size_t k, const struct noise_model models[], const size_t n[],
                         median_function *f, const void *ctx, const double levels[],
                         size_t n_levels, uint32_t seed, double coverage[]);

/* The one group's median: the percentile bootstrap of a median is the
 * composite of one group. */
double median_of_one(const double *medians, const void *ctx);

/* What a calibration found for one composite: the level it chose and the
 * coverage that level reached. */
struct calibration {
    double level, coverage;
};

/* f of the groups' medians, its interval at the level the run's own noise
 * needs; cal (if not NULL) says what was found. e.coverage is the coverage. */
struct estimate calibrated_composite(size_t k, const double *const groups[], const size_t n[],
                                     median_function *f, const void *ctx,
                                     struct calibration *cal);

/* Nested synthetic rounds: `units` rounds of `per_unit` calls, the rounds'
 * offsets with sd `between`, the calls' with sd `within` (both in logs).
 * The coverage of (a) the bootstrap over every call pooled and (b) the
 * order-statistic interval over the rounds' medians, and their mean widths. */
struct pooling_check {
    double pooled_coverage, unit_coverage;
    double pooled_width, unit_width;   /* relative to the true median */
};
struct pooling_check pooled_against_units(size_t units, size_t per_unit, double between,
                                          double within, uint32_t seed);

#endif
