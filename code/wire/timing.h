/*
 * timing.h - the one clock every measurement reads, and what is made of it.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_TIMING_H
#define IPCTAX_TIMING_H

#include <stddef.h>
#include <stdint.h>

uint64_t clock_ns(void);
double seconds_between(uint64_t start_ns, uint64_t end_ns);

struct sample_stats {
    size_t n;
    double min, p50, p90, p99, max;
};

/* Quantile q in [0, 1] of n sorted values, linearly interpolated. */
double quantile_sorted(const double *sorted, size_t n, double q);

/* Order statistics of n samples; the samples are not modified. */
struct sample_stats sample_stats(const double *samples, size_t n);

#endif
