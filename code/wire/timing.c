/*
 * timing.c - monotonic clock and order statistics.
 *
 * Tangled from paper/40-harness.md.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/timing.h"

uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double seconds_between(uint64_t start_ns, uint64_t end_ns)
{
    return (double)(end_ns - start_ns) * 1e-9;
}

double quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    double position = q * (double)(n - 1);
    size_t below = (size_t)position;
    if (below + 1 >= n)
        return sorted[n - 1];
    double fraction = position - (double)below;
    return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct sample_stats sample_stats(const double *samples, size_t n)
{
    struct sample_stats s = {0};
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (sorted == NULL || n == 0) {
        free(sorted);
        return s;
    }
    memcpy(sorted, samples, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    s.n = n;
    s.min = sorted[0];
    s.p50 = quantile_sorted(sorted, n, 0.50);
    s.p90 = quantile_sorted(sorted, n, 0.90);
    s.p99 = quantile_sorted(sorted, n, 0.99);
    s.max = sorted[n - 1];
    free(sorted);
    return s;
}
