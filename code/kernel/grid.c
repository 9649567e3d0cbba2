/*
 * grid.c - the parameter grid: 80 lengths over [6, 200].
 *
 * Tangled from paper/30-kernel.md.
 */
#include "kernel/grid.h"

/* <<integer-square-root>>, paper/30-kernel.md */
static int64_t isqrt(int64_t n)
{
    int64_t r = 0;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r;
}

static int64_t at_least_one(int64_t n)
{
    return n < 1 ? 1 : n;
}

/* <<grid-length>>, paper/30-kernel.md */
int64_t grid_length(size_t k, size_t n_combos)
{
    const int64_t span = GRID_MAX_LENGTH - GRID_MIN_LENGTH;
    if (n_combos < 2)
        return GRID_MIN_LENGTH;
    int64_t steps = (int64_t)n_combos - 1;
    return GRID_MIN_LENGTH + (span * (int64_t)k + steps / 2) / steps;
}

/* <<grid-params>>, paper/30-kernel.md */
struct combo_params grid_params(int64_t length)
{
    int64_t period = length / 2;
    struct combo_params p = {
        .h_half = at_least_one(length / 2),
        .h_len = length,
        .h_sqrt = at_least_one(isqrt(length)),
        .t_third = at_least_one(period / 3),
        .t_half = at_least_one(period / 2),
        .t_len = period,
    };
    return p;
}

void grid_fill(struct combo_params *params, size_t n_combos)
{
    for (size_t k = 0; k < n_combos; k++)
        params[k] = grid_params(grid_length(k, n_combos));
}
