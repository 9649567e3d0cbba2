/*
 * calibrate.c - noise models fitted to a run's units, and synthetic runs.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "util/random.h"

/* <<fit-a-noise-model>>, paper/93-appendix-units.md */
struct noise_model noise_fit(const double *values, size_t n)
{
    struct noise_model m = {1, NAN, NAN, 0.0};
    double *t = malloc((n ? n : 1) * sizeof *t), *dev = malloc((n ? n : 1) * sizeof *dev);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        m.log_normal &= !(values[i] <= 0.0);
    for (size_t i = 0; t != NULL && i < n; i++)
        if (isfinite(values[i]))
            t[k++] = m.log_normal ? log(values[i]) : values[i];
    if (t == NULL || dev == NULL || k < 2) {
        free(t);
        free(dev);
        return m;
    }
    double sum_lag = 0, sum_sq = 0, mean = 0;
    for (size_t i = 0; i < k; i++)
        mean += t[i] / (double)k;
    for (size_t i = 0; i < k; i++) {
        sum_sq += (t[i] - mean) * (t[i] - mean);
        if (i > 0)
            sum_lag += (t[i] - mean) * (t[i - 1] - mean);
    }
    m.drift = sum_sq > 0 ? fmin(0.9, fmax(0.0, sum_lag / sum_sq)) : 0.0;
    memcpy(dev, t, k * sizeof *t);
    m.centre = median_in_place(dev, k);
    for (size_t i = 0; i < k; i++)
        dev[i] = fabs(t[i] - m.centre);
    m.spread = 1.4826 * median_in_place(dev, k);
    free(t);
    free(dev);
    return m;
}

/* <<a-robust-spread>>, paper/93-appendix-units.md */
double robust_spread(const double *x, size_t n)
{
    double *t = malloc((n ? n : 1) * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; t != NULL && i < n; i++)
        if (isfinite(x[i]))
            t[k++] = x[i];
    double spread = NAN;
    if (t != NULL && k > 1) {
        double centre = median_in_place(t, k);
        for (size_t i = 0; i < k; i++)
            t[i] = fabs(t[i] - centre);
        spread = 1.4826 * median_in_place(t, k);
    }
    free(t);
    return spread;
}

double noise_median(struct noise_model m)
{
    return m.log_normal ? exp(m.centre) : m.centre;
}

/* <<draw-a-synthetic-run>>, paper/93-appendix-units.md */
static double normal_draw(struct mt19937 *mt)
{
    double u1 = ((double)mt19937_next32(mt) + 0.5) / 4294967296.0;
    double u2 = ((double)mt19937_next32(mt) + 0.5) / 4294967296.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void synthetic_units(struct noise_model m, size_t n, struct mt19937 *mt, double *out)
{
    double z = normal_draw(mt), keep = sqrt(1.0 - m.drift * m.drift);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            z = m.drift * z + keep * normal_draw(mt);
        double t = m.centre + m.spread * z;
        out[i] = m.log_normal ? exp(t) : t;
    }
}

/* <<simulate-coverage>>, paper/93-appendix-units.md */
double median_coverage(struct noise_model m, size_t n, uint32_t seed)
{
    double *x = malloc((n ? n : 1) * sizeof *x), truth = noise_median(m);
    struct mt19937 mt;
    int held = 0;
    if (x == NULL || !isfinite(truth) || !isfinite(m.spread))
        return free(x), NAN;
    mt19937_seed(&mt, seed);
    for (int r = 0; r < CALIBRATION_RUNS; r++) {
        synthetic_units(m, n, &mt, x);
        struct estimate e = estimate_median(x, n);
        held += e.low <= truth && truth <= e.high;
    }
    free(x);
    return (double)held / CALIBRATION_RUNS;
}

void composite_coverages(size_t k, const struct noise_model models[], const size_t n[],
                         median_function *f, const void *ctx, const double levels[],
                         size_t n_levels, uint32_t seed, double coverage[])
{
    enum { MAX_GROUPS = 8 };
    double *x[MAX_GROUPS] = {NULL}, truths[MAX_GROUPS], value;
    double *draws = malloc(CALIBRATION_RESAMPLES * sizeof *draws);
    struct mt19937 mt;
    int ok = k > 0 && k <= MAX_GROUPS && draws != NULL;
    for (size_t g = 0; ok && g < k; g++) {
        x[g] = malloc((n[g] ? n[g] : 1) * sizeof *x[g]);
        truths[g] = noise_median(models[g]);
        ok = x[g] != NULL && isfinite(truths[g]) && isfinite(models[g].spread);
    }
    double truth = ok ? f(truths, ctx) : NAN, widest_tail = 0.0;
    for (size_t l = 0; l < n_levels; l++) {
        coverage[l] = ok ? 0.0 : NAN;
        widest_tail = fmax(widest_tail, (1.0 - levels[l]) / 2);   /* the lowest level's */
    }
    mt19937_seed(&mt, seed);
    for (int r = 0; ok && r < CALIBRATION_RUNS; r++) {
        for (size_t g = 0; g < k; g++)
            synthetic_units(models[g], n[g], &mt, x[g]);
        if (composite_draws(k, (const double *const *)x, n, f, ctx, CALIBRATION_RESAMPLES,
                            mt19937_next32(&mt), draws, &value) != 0)
            continue;
        sort_tails(draws, CALIBRATION_RESAMPLES, widest_tail);
        for (size_t l = 0; l < n_levels; l++) {
            double lo = quantile_sorted(draws, CALIBRATION_RESAMPLES, (1.0 - levels[l]) / 2);
            double hi = quantile_sorted(draws, CALIBRATION_RESAMPLES, (1.0 + levels[l]) / 2);
            coverage[l] += (lo <= truth && truth <= hi) / (double)CALIBRATION_RUNS;
        }
    }
    for (size_t g = 0; g < k && g < MAX_GROUPS; g++)
        free(x[g]);
    free(draws);
}

double composite_coverage(size_t k, const struct noise_model models[], const size_t n[],
                          median_function *f, const void *ctx, double level, uint32_t seed)
{
    double coverage;
    composite_coverages(k, models, n, f, ctx, &level, 1, seed, &coverage);
    return coverage;
}

/* <<choose-a-composites-level>>, paper/93-appendix-units.md */
struct estimate calibrated_composite(size_t k, const double *const groups[], const size_t n[],
                                     median_function *f, const void *ctx,
                                     struct calibration *cal)
{
    static const double LEVELS[] = {0.95, 0.975, 0.99, 0.995};
    enum { MAX_GROUPS = 8, N_LEVELS = sizeof LEVELS / sizeof LEVELS[0] };
    struct noise_model models[MAX_GROUPS];
    struct calibration found = {LEVELS[0], NAN};
    double coverage[N_LEVELS];
    for (size_t g = 0; g < k && g < MAX_GROUPS; g++)
        models[g] = noise_fit(groups[g], n[g]);
    composite_coverages(k, models, n, f, ctx, LEVELS, N_LEVELS, CALIBRATION_SEED, coverage);
    for (size_t i = 0; i < N_LEVELS; i++) {
        found.level = LEVELS[i];
        found.coverage = coverage[i];
        if (!(found.coverage < 0.95))
            break;                             /* reached, or nothing to simulate */
    }
    struct estimate e = estimate_composite(k, groups, n, f, ctx, found.level,
                                           BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED);
    e.coverage = isnan(found.coverage) ? 0.0 : found.coverage;
    if (cal != NULL)
        *cal = found;
    return e;
}

/* <<pooled-calls-against-units>>, paper/93-appendix-units.md */
double median_of_one(const double *medians, const void *ctx)
{
    (void)ctx;
    return medians[0];
}

struct pooling_check pooled_against_units(size_t units, size_t per_unit, double between,
                                          double within, uint32_t seed)
{
    struct pooling_check c = {0, 0, 0, 0};
    double *calls = malloc(units * per_unit * sizeof *calls), *medians = malloc(units * sizeof *medians);
    struct mt19937 mt;
    enum { CHECK_RUNS = 500 };                 /* each pooled bootstrap resamples every call */
    if (calls == NULL || medians == NULL)
        return free(calls), free(medians), c;
    mt19937_seed(&mt, seed);
    for (int r = 0; r < CHECK_RUNS; r++) {
        for (size_t u = 0; u < units; u++) {
            double offset = between * normal_draw(&mt);
            for (size_t i = 0; i < per_unit; i++)
                calls[u * per_unit + i] = exp(offset + within * normal_draw(&mt));
            medians[u] = estimate_median(calls + u * per_unit, per_unit).value;
        }
        size_t all = units * per_unit;
        const double *pool = calls;
        struct estimate pooled = estimate_composite(1, &pool, &all, median_of_one, NULL, 0.95,
                                                    CALIBRATION_RESAMPLES, mt19937_next32(&mt));
        struct estimate unit = estimate_median(medians, units);
        c.pooled_coverage += (pooled.low <= 1.0 && 1.0 <= pooled.high) / (double)CHECK_RUNS;
        c.unit_coverage += (unit.low <= 1.0 && 1.0 <= unit.high) / (double)CHECK_RUNS;
        c.pooled_width += (pooled.high - pooled.low) / CHECK_RUNS;
        c.unit_width += (unit.high - unit.low) / CHECK_RUNS;
    }
    free(calls);
    free(medians);
    return c;
}
