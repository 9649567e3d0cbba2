/*
 * grid.h - the parameter sets the sweep runs over.
 *
 * Tangled from paper/30-kernel.md.
 */
#ifndef IPCTAX_GRID_H
#define IPCTAX_GRID_H

#include <stddef.h>
#include <stdint.h>

enum { DEFAULT_COMBOS = 80, GRID_MIN_LENGTH = 6, GRID_MAX_LENGTH = 200 };

/* <<combo-params>>, paper/30-kernel.md */
/* The six window lengths of one combination, in wire order. */
struct combo_params {
    int64_t h_half;    /* HMA: fast WMA */
    int64_t h_len;     /* HMA: slow WMA */
    int64_t h_sqrt;    /* HMA: smoothing WMA */
    int64_t t_third;   /* HMA3: fastest WMA */
    int64_t t_half;    /* HMA3: middle WMA */
    int64_t t_len;     /* HMA3: slowest WMA, also its smoothing WMA */
};

enum { PARAMS_PER_COMBO = 6 };

int64_t grid_length(size_t k, size_t n_combos);
struct combo_params grid_params(int64_t length);
void grid_fill(struct combo_params *params, size_t n_combos);

#endif
