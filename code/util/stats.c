/*
 * stats.c - quantiles, order statistics, the median and its interval.
 *
 * Tangled from paper/40-harness.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/random.h"
#include "util/stats.h"

/* <<quantiles>>, paper/40-harness.md */
double quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double position = q * (double)(n - 1);
    size_t below = (size_t)position;
    if (below + 1 >= n)
        return sorted[n - 1];
    double fraction = position - (double)below;
    return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

/* <<sorting-doubles>>, paper/40-harness.md */
/* Partitions x[lo..hi) (no NaN) three ways about a median-of-three pivot:
 * afterwards [lo,*lt) < pivot, [*lt,*gt) equal to it, [*gt,hi) > pivot. */
static void partition_three_ways(double *x, size_t lo, size_t hi, size_t *lt_out,
                                 size_t *gt_out)
{
    double a = x[lo], b = x[lo + (hi - lo) / 2], c = x[hi - 1];
    double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    size_t lt = lo, i = lo, gt = hi;
    while (i < gt) {
        double v = x[i];
        if (v < pivot) {
            x[i++] = x[lt];
            x[lt++] = v;
        } else if (v > pivot) {
            x[i] = x[--gt];
            x[gt] = v;
        } else {
            i++;
        }
    }
    *lt_out = lt, *gt_out = gt;
}

/* Sorts x[lo..hi) of values with no NaN among them, three ways about a
 * median-of-three pivot, by insertion below 16 values. */
static void sort_numbers(double *x, size_t lo, size_t hi)
{
    while (hi - lo > 16) {
        size_t lt, gt;
        partition_three_ways(x, lo, hi, &lt, &gt);
        if (lt - lo < hi - gt) {
            sort_numbers(x, lo, lt);
            lo = gt;
        } else {
            sort_numbers(x, gt, hi);
            hi = lt;
        }
    }
    for (size_t i = lo + 1; i < hi; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > lo && x[j - 1] > v; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

void sort_doubles(double *x, size_t n)
{
    size_t numbers = 0;
    for (size_t i = 0; i < n; i++)             /* NaNs to the end, in one pass */
        if (!isnan(x[i])) {
            double v = x[i];
            x[i] = x[numbers];
            x[numbers++] = v;
        }
    sort_numbers(x, 0, numbers);
}

/* <<sorting-the-tails>>, paper/40-harness.md */
/* Leaves in x[k] the value a sort of x[lo..hi) (no NaN) would put there,
 * the values before it no larger and those after it no smaller. */
static void select_number(double *x, size_t lo, size_t hi, size_t k)
{
    while (hi - lo > 16) {
        size_t lt, gt;
        partition_three_ways(x, lo, hi, &lt, &gt);
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;                            /* k holds the pivot's value */
    }
    sort_numbers(x, lo, hi);
}

void sort_tails(double *x, size_t n, double q)
{
    size_t numbers = 0;
    for (size_t i = 0; i < n; i++)             /* NaNs to the end, as sort_doubles */
        if (!isnan(x[i])) {
            double v = x[i];
            x[i] = x[numbers];
            x[numbers++] = v;
        }
    /* quantile_sorted at p <= q reads places below `low`; at p >= 1 - q,
     * places from `high` on (one place of margin for the rounding of 1 - q) */
    double last = n > 0 ? (double)(n - 1) : 0.0;
    size_t low = (size_t)(q * last) + 2, high = (size_t)((1.0 - q) * last);
    high = high > 0 ? high - 1 : 0;
    low = low < numbers ? low : numbers;
    high = high < numbers ? high : numbers;
    if (!(q >= 0.0 && q < 0.5) || low >= high) {
        sort_numbers(x, 0, numbers);
        return;
    }
    select_number(x, 0, numbers, low);
    sort_numbers(x, 0, low);
    select_number(x, low, numbers, high);
    sort_numbers(x, high, numbers);
}

double median_in_place(double *x, size_t n)
{
    sort_doubles(x, n);
    return n == 0 ? NAN : n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

/* The finite values of x[0..n), sorted, in a new array; *kept says how many. */
static double *sorted_finite(const double *x, size_t n, size_t *kept)
{
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    *kept = 0;
    if (sorted == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            sorted[(*kept)++] = x[i];
    sort_doubles(sorted, *kept);
    return sorted;
}

struct sample_stats sample_stats(const double *samples, size_t n)
{
    struct sample_stats s = {0, NAN, NAN, NAN, NAN, NAN};
    size_t k;
    double *sorted = sorted_finite(samples, n, &k);
    if (sorted != NULL && k > 0) {
        s.n = k;
        s.min = sorted[0];
        s.p50 = quantile_sorted(sorted, k, 0.50);
        s.p90 = quantile_sorted(sorted, k, 0.90);
        s.p99 = quantile_sorted(sorted, k, 0.99);
        s.max = sorted[k - 1];
    }
    free(sorted);
    return s;
}

double quantile_of(const double *samples, size_t n, double q)
{
    size_t k;
    double *sorted = sorted_finite(samples, n, &k);
    double x = sorted != NULL ? quantile_sorted(sorted, k, q) : NAN;
    free(sorted);
    return x;
}

/* <<the-median-and-its-order-statistics>>, paper/40-harness.md */
/* The log of the gamma function, without lgamma's write to the global
 * signgam: the summaries run in several threads at once
 * (@sec:appendix-reproductions). */
static double log_gamma(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

/* P(B = j) for B ~ Binomial(n, 1/2). */
static double binomial_half(size_t n, size_t j)
{
    return exp(log_gamma((double)n + 1) - log_gamma((double)j + 1) -
               log_gamma((double)(n - j) + 1) - (double)n * log(2.0));
}

struct estimate estimate_median(const double *values, size_t n)
{
    return estimate_median_at(values, n, 0.05);
}

struct estimate estimate_median_at(const double *values, size_t n, double alpha)
{
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    size_t k;
    double *sorted = sorted_finite(values, n, &k);
    if (sorted != NULL && k > 0) {
        e.n = k;
        e.value = quantile_sorted(sorted, k, 0.5);
        size_t rank = 1;                       /* the rank-th smallest, from 1 */
        double below = binomial_half(k, 0);    /* P(B < rank) */
        while (rank < k / 2 && below + binomial_half(k, rank) <= alpha / 2.0)
            below += binomial_half(k, rank++);
        e.coverage = k > 1 ? 1.0 - 2.0 * below : 0.0;
        e.low = k > 1 ? sorted[rank - 1] : NAN;
        e.high = k > 1 ? sorted[k - rank] : NAN;
    }
    free(sorted);
    return e;
}

/* <<resample-a-median-by-counts>>, paper/40-harness.md */
/* The median of a resample that drew sorted[i] count[i] times (n draws). */
static double resample_median(const double *sorted, const uint32_t *count, size_t n)
{
    size_t lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0;
    double lo = 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t before = seen;
        seen += count[i];
        if (before <= lo_rank && lo_rank < seen)
            lo = sorted[i];
        if (hi_rank < seen)
            return (lo + sorted[i]) / 2.0;
    }
    return lo;
}

/* <<bootstrap-the-median>>, paper/40-harness.md */
struct estimate estimate_median_bootstrap(const double *values, size_t n)
{
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    size_t k;
    double *sorted = sorted_finite(values, n, &k);
    uint32_t *count = calloc(k ? k : 1, sizeof *count);
    double *medians = malloc(BOOTSTRAP_RESAMPLES * sizeof *medians);
    if (sorted != NULL && count != NULL && medians != NULL && k > 0) {
        struct mt19937 mt;
        mt19937_seed(&mt, BOOTSTRAP_SEED);
        e.n = k;
        e.value = quantile_sorted(sorted, k, 0.5);
        for (int b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
            memset(count, 0, k * sizeof *count);
            for (size_t i = 0; i < k; i++)
                count[random_below(&mt, (uint32_t)k)]++;
            medians[b] = resample_median(sorted, count, k);
        }
        sort_tails(medians, BOOTSTRAP_RESAMPLES, 0.025);
        e.low = k > 1 ? quantile_sorted(medians, BOOTSTRAP_RESAMPLES, 0.025) : NAN;
        e.high = k > 1 ? quantile_sorted(medians, BOOTSTRAP_RESAMPLES, 0.975) : NAN;
    }
    free(sorted);
    free(count);
    free(medians);
    return e;
}

/* <<draw-a-composite>>, paper/40-harness.md */
int composite_draws(size_t k, const double *const groups[], const size_t n[],
                    median_function *f, const void *ctx, int resamples, uint32_t seed,
                    double *draws, double *value)
{
    enum { MAX_GROUPS = 8 };
    double *sorted[MAX_GROUPS] = {NULL}, medians[MAX_GROUPS];
    uint32_t *count[MAX_GROUPS] = {NULL};
    size_t kept[MAX_GROUPS] = {0};
    int ok = k > 0 && k <= MAX_GROUPS && resamples > 0;
    for (size_t g = 0; ok && g < k; g++) {
        sorted[g] = sorted_finite(groups[g], n[g], &kept[g]);
        count[g] = calloc(kept[g] ? kept[g] : 1, sizeof *count[g]);
        ok = sorted[g] != NULL && count[g] != NULL && kept[g] > 0;
        medians[g] = ok ? quantile_sorted(sorted[g], kept[g], 0.5) : NAN;
    }
    if (ok) {
        struct mt19937 mt;
        mt19937_seed(&mt, seed);
        *value = f(medians, ctx);
        for (int b = 0; b < resamples; b++) {
            for (size_t g = 0; g < k; g++) {
                memset(count[g], 0, kept[g] * sizeof *count[g]);
                for (size_t i = 0; i < kept[g]; i++)
                    count[g][random_below(&mt, (uint32_t)kept[g])]++;
                medians[g] = resample_median(sorted[g], count[g], kept[g]);
            }
            draws[b] = f(medians, ctx);
        }
    }
    for (size_t g = 0; g < k && g < MAX_GROUPS; g++) {
        free(sorted[g]);
        free(count[g]);
    }
    return ok ? 0 : -1;
}

/* <<estimate-a-composite>>, paper/40-harness.md */
struct estimate estimate_composite(size_t k, const double *const groups[], const size_t n[],
                                   median_function *f, const void *ctx, double level,
                                   int resamples, uint32_t seed)
{
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    double *draws = malloc((size_t)(resamples > 0 ? resamples : 1) * sizeof *draws);
    size_t fewest = SIZE_MAX;
    for (size_t g = 0; g < k; g++)
        for (size_t i = 0, finite = 0; i <= n[g]; i++) {
            if (i == n[g]) {
                fewest = finite < fewest ? finite : fewest;
                break;
            }
            finite += isfinite(groups[g][i]) != 0;
        }
    if (draws != NULL && resamples > 1 &&
        composite_draws(k, groups, n, f, ctx, resamples, seed, draws, &e.value) == 0) {
        sort_tails(draws, (size_t)resamples, (1.0 - level) / 2);
        e.n = fewest;
        e.low = fewest > 1 ? quantile_sorted(draws, (size_t)resamples, (1.0 - level) / 2) : NAN;
        e.high = fewest > 1 ? quantile_sorted(draws, (size_t)resamples, (1.0 + level) / 2) : NAN;
        e.coverage = level;
    }
    free(draws);
    return e;
}

double estimate_half_width(struct estimate e)
{
    if (e.n == 0 || e.value == 0.0)
        return NAN;
    return (e.high - e.low) / 2.0 / fabs(e.value);
}

/* <<hodges-lehmann>>, paper/40-harness.md */
/* P(signed-rank statistic <= w) for n values, from the counts of each rank
 * sum: how many of the 2^n sign patterns give it. */
static double signed_rank_below(size_t n, size_t w)
{
    size_t most = n * (n + 1) / 2;
    double *count = calloc(most + 1, sizeof *count), p = 0.0;
    if (count == NULL)
        return NAN;
    count[0] = 1.0;
    for (size_t r = 1; r <= n; r++)
        for (size_t s = most; s >= r; s--)
            count[s] += count[s - r];
    for (size_t s = 0; s <= w && s <= most; s++)
        p += count[s];
    free(count);
    return p / pow(2.0, (double)n);
}

struct estimate estimate_hodges_lehmann(const double *values, size_t n)
{
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    size_t k;
    double *sorted = sorted_finite(values, n, &k);
    size_t m = k * (k + 1) / 2;
    double *walsh = k > 0 ? malloc(m * sizeof *walsh) : NULL;
    if (sorted != NULL && walsh != NULL) {
        size_t w = 0;
        for (size_t i = 0; i < k; i++)
            for (size_t j = i; j < k; j++)
                walsh[w++] = (sorted[i] + sorted[j]) / 2.0;
        sort_doubles(walsh, m);
        e.n = k;
        e.value = quantile_sorted(walsh, m, 0.5);
        /* the largest c with P(T <= c - 1) <= 2.5%, at least 1: the ends are
         * the c-th smallest and the c-th largest Walsh averages */
        size_t c = 1;
        while (c < m / 2 && signed_rank_below(k, c) <= 0.025)
            c++;
        e.coverage = k > 1 ? 1.0 - 2.0 * signed_rank_below(k, c - 1) : 0.0;
        e.low = k > 1 ? walsh[c - 1] : NAN;
        e.high = k > 1 ? walsh[m - c] : NAN;
    }
    free(sorted);
    free(walsh);
    return e;
}

/* <<the-ratio-of-a-unit>>, paper/42-pairs.md */
double couple_ratio(double x1, double b1, double x2, double b2)
{
    return exp((log(x1 / b1) + log(x2 / b2)) / 2.0);
}

double turn_ratio(double b1, double x, double b2)
{
    return x / sqrt(b1 * b2);
}
