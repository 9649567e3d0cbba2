/*
 * gate.c - compares two sweeps bit for bit.
 *
 * Tangled from paper/40-harness.md.
 */
#include <math.h>
#include <string.h>

#include "harness/gate.h"

struct gate_verdict gate_compare(const struct combo_result *reference,
                                 const struct combo_result *candidate, size_t n_combos)
{
    struct gate_verdict v = {n_combos, 0, 0.0, 0};
    for (size_t k = 0; k < n_combos; k++) {
        const struct combo_result *a = &reference[k], *b = &candidate[k];
        double diff = fabs(a->pnl - b->pnl);
        if (isnan(diff) || diff > v.max_abs_pnl_diff)
            v.max_abs_pnl_diff = isnan(diff) ? INFINITY : diff;
        if (a->trades == b->trades && memcmp(&a->pnl, &b->pnl, sizeof a->pnl) == 0)
            v.identical++;
    }
    v.passed = v.identical == n_combos;
    return v;
}
