/*
 * pooled.h - every row's ratio on the noise of all rows of its pairing.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#ifndef IPCTAX_POOLED_H
#define IPCTAX_POOLED_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"
#include "util/stats.h"

/* One unit of the fit: its row, its round and its log ratio. */
struct pooled_unit {
    size_t row;
    long round;
    double x;
};

struct pooled_fit {
    struct pooled_unit *units;
    size_t n_units;
    const char **rows;                 /* the rows' names, as ARCH_ROWS holds them */
    double *row_effect;                /* log ratio, per row */
    size_t n_rows;
    double *round_effect;              /* per round, 0 .. max_round */
    long max_round;
    double *pool;                      /* the widened residuals */
    size_t n_pool;
};

/* Fits the units of every row paired as `duet` says (couples, or triples).
 * 0, or -1 when out of memory; a run with no such units fits nothing. */
int pooled_fit(const struct run_data *d, int duet, struct pooled_fit *f);
/* The fit of synthetic units: `units` as given, for the calibration. */
int pooled_fit_units(const struct pooled_unit *units, size_t n_units, size_t n_rows,
                     struct pooled_fit *f);
void pooled_free(struct pooled_fit *f);

/* Row r's pooled ratio (exp of its effect) with its bootstrap interval;
 * n = 0 when the row has no unit. */
struct estimate pooled_estimate(const struct pooled_fit *f, size_t row, uint32_t seed);
/* The row of that name in the fit, or -1. */
int pooled_row(const struct pooled_fit *f, const char *arch);

enum { POOLED_CALIBRATION_RUNS = 200 };

/* The share of `runs` synthetic runs, drawn from f's effects with
 * residuals from f's pool and refitted, in which a row's interval holds its
 * true ratio, over all rows. */
double pooled_coverage(const struct pooled_fit *f, int runs, uint32_t seed);

#endif
