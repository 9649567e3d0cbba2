/*
 * pooled.c - a row-and-round fit of every unit's log ratio, its residuals
 * pooled, and each row's ratio on that pool.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/pooled.h"
#include "report/units.h"
#include "schema/architectures.h"
#include "util/random.h"

/* <<pooled-median>>, paper/93-appendix-units.md */
enum { POOLED_SWEEPS = 20, POOLED_RESAMPLES = 4000, POOLED_CHECK_RESAMPLES = 1000 };

/* <<pooled-polish>>, paper/93-appendix-units.md */
static void polish(struct pooled_fit *f, double *scratch)
{
    for (int sweep = 0; sweep < POOLED_SWEEPS; sweep++) {
        for (size_t r = 0; r < f->n_rows; r++) {
            size_t k = 0;
            for (size_t i = 0; i < f->n_units; i++)
                if (f->units[i].row == r)
                    scratch[k++] = f->units[i].x - f->round_effect[f->units[i].round];
            f->row_effect[r] = median_in_place(scratch, k);
        }
        for (long g = 0; g <= f->max_round; g++) {
            size_t k = 0;
            for (size_t i = 0; i < f->n_units; i++)
                if (f->units[i].round == g)
                    scratch[k++] = f->units[i].x - f->row_effect[f->units[i].row];
            f->round_effect[g] = k > 0 ? median_in_place(scratch, k) : 0.0;
        }
        size_t k = 0;
        for (long g = 0; g <= f->max_round; g++)
            scratch[k++] = f->round_effect[g];
        double centre = median_in_place(scratch, k);
        for (long g = 0; g <= f->max_round; g++)
            f->round_effect[g] -= centre;
    }
    size_t rounds_seen = 0;
    for (long g = 0; g <= f->max_round; g++)
        for (size_t i = 0; i < f->n_units; i++)
            if (f->units[i].round == g) {
                rounds_seen++;
                break;
            }
    double spent = (double)(f->n_rows + rounds_seen) - 1.0;
    double widen = f->n_units > spent + 1 ? sqrt(f->n_units / (f->n_units - spent)) : 1.0;
    f->n_pool = 0;
    for (size_t i = 0; i < f->n_units; i++) {
        const struct pooled_unit *u = &f->units[i];
        double e = u->x - f->row_effect[u->row] - f->round_effect[u->round];
        if (isfinite(e))
            f->pool[f->n_pool++] = e * widen;
    }
}

int pooled_fit_units(const struct pooled_unit *units, size_t n_units, size_t n_rows,
                     struct pooled_fit *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < n_units; i++)
        f->max_round = units[i].round > f->max_round ? units[i].round : f->max_round;
    f->units = malloc((n_units ? n_units : 1) * sizeof *f->units);
    f->pool = malloc((n_units ? n_units : 1) * sizeof *f->pool);
    f->row_effect = calloc(n_rows ? n_rows : 1, sizeof *f->row_effect);
    f->round_effect = calloc((size_t)f->max_round + 1, sizeof *f->round_effect);
    f->rows = calloc(n_rows ? n_rows : 1, sizeof *f->rows);
    double *scratch = malloc((n_units + (size_t)f->max_round + 2) * sizeof *scratch);
    if (f->units == NULL || f->pool == NULL || f->row_effect == NULL ||
        f->round_effect == NULL || f->rows == NULL || scratch == NULL) {
        free(scratch);
        pooled_free(f);
        return -1;
    }
    memcpy(f->units, units, n_units * sizeof *units);
    f->n_units = n_units;
    f->n_rows = n_rows;
    polish(f, scratch);
    free(scratch);
    return 0;
}

void pooled_free(struct pooled_fit *f)
{
    free(f->units);
    free(f->pool);
    free(f->row_effect);
    free(f->round_effect);
    free((void *)f->rows);
    memset(f, 0, sizeof *f);
}

/* <<pooled-collect>>, paper/93-appendix-units.md */
int pooled_fit(const struct run_data *d, int duet, struct pooled_fit *f)
{
    size_t cap = d->n_runs ? d->n_runs : 1, n = 0, rows = 0;
    struct pooled_unit *units = malloc(cap * sizeof *units);
    const char **names = malloc(N_ARCH_ROWS * sizeof *names);
    if (units == NULL || names == NULL) {
        free(units);
        free(names);
        return -1;
    }
    for (size_t a = 0; a < N_ARCH_ROWS; a++) {
        struct unit_view *u;
        if (ARCH_ROWS[a].pairing == PAIRING_NONE)
            continue;                          /* the baseline: every unit's denominator */
        size_t k = arch_units(d, ARCH_ROWS[a].name, &u), before = n;
        for (size_t i = 0; i < k && n < cap; i++)
            if (u[i].complete && u[i].duet == duet && u[i].ratio > 0)
                units[n++] = (struct pooled_unit){rows, u[i].round, log(u[i].ratio)};
        free(u);
        if (n > before)
            names[rows++] = ARCH_ROWS[a].name;
    }
    int status = pooled_fit_units(units, n, rows, f);
    if (status == 0)
        memcpy((void *)f->rows, names, rows * sizeof *names);
    free(units);
    free(names);
    return status;
}

int pooled_row(const struct pooled_fit *f, const char *arch)
{
    for (size_t r = 0; r < f->n_rows; r++)
        if (f->rows[r] != NULL && strcmp(f->rows[r], arch) == 0)
            return (int)r;
    return -1;
}

/* <<pooled-estimate>>, paper/93-appendix-units.md */
static size_t units_of(const struct pooled_fit *f, size_t row)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n_units; i++)
        k += f->units[i].row == row;
    return k;
}

/* The sorted medians of `resamples` draws of n residuals from the pool,
 * less the pool's median, into out. */
static void resampled_medians(const struct pooled_fit *f, size_t n, uint32_t seed,
                              double *draw, double *out, int resamples)
{
    struct mt19937 mt;
    double centre;
    memcpy(draw, f->pool, f->n_pool * sizeof *draw);
    centre = median_in_place(draw, f->n_pool);
    mt19937_seed(&mt, seed);
    for (int b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++)
            draw[i] = f->pool[random_below(&mt, (uint32_t)f->n_pool)];
        out[b] = median_in_place(draw, n) - centre;
    }
    sort_doubles(out, (size_t)resamples);
}

static struct estimate pooled_estimate_with(const struct pooled_fit *f, size_t row,
                                            uint32_t seed, int resamples)
{
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    size_t n = row < f->n_rows ? units_of(f, row) : 0;
    double *draw = malloc((f->n_pool > n ? f->n_pool : n + 1) * sizeof *draw);
    double *medians = malloc((size_t)resamples * sizeof *medians);
    if (n > 0 && f->n_pool > 1 && draw != NULL && medians != NULL) {
        resampled_medians(f, n, seed, draw, medians, resamples);
        double theta = f->row_effect[row];
        e = (struct estimate){n, exp(theta),
                              exp(theta - quantile_sorted(medians, (size_t)resamples, 0.975)),
                              exp(theta - quantile_sorted(medians, (size_t)resamples, 0.025)),
                              0.95};
    }
    free(draw);
    free(medians);
    return e;
}

struct estimate pooled_estimate(const struct pooled_fit *f, size_t row, uint32_t seed)
{
    return pooled_estimate_with(f, row, seed, POOLED_RESAMPLES);
}

/* <<pooled-calibrate>>, paper/93-appendix-units.md */
double pooled_coverage(const struct pooled_fit *f, int runs, uint32_t seed)
{
    struct pooled_unit *units = malloc((f->n_units ? f->n_units : 1) * sizeof *units);
    struct mt19937 mt;
    long held = 0, asked = 0;
    if (units == NULL || f->n_pool == 0)
        return free(units), NAN;
    mt19937_seed(&mt, seed);
    for (int run = 0; run < runs; run++) {
        struct pooled_fit g;
        for (size_t i = 0; i < f->n_units; i++) {
            units[i] = f->units[i];
            units[i].x = f->row_effect[units[i].row] + f->round_effect[units[i].round] +
                         f->pool[random_below(&mt, (uint32_t)f->n_pool)];
        }
        if (pooled_fit_units(units, f->n_units, f->n_rows, &g) != 0)
            break;
        for (size_t r = 0; r < g.n_rows; r++) {
            struct estimate e = pooled_estimate_with(&g, r, seed + (uint32_t)run,
                                                     POOLED_CHECK_RESAMPLES);
            if (e.n == 0)
                continue;
            double truth = exp(f->row_effect[r]);
            held += e.low <= truth && truth <= e.high;
            asked++;
        }
        pooled_free(&g);
    }
    free(units);
    return asked > 0 ? (double)held / (double)asked : NAN;
}
