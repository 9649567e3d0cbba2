/*
 * gate.h - the equivalence gate: same trades, same PnL bits.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_GATE_H
#define IPCTAX_GATE_H

#include <stddef.h>

#include "kernel/kernel.h"

struct gate_verdict {
    size_t combos;             /* combinations compared */
    size_t identical;          /* of which bit-identical in PnL and equal in trades */
    double max_abs_pnl_diff;   /* largest |PnL difference| over all combinations */
    int passed;                /* identical == combos */
};

struct gate_verdict gate_compare(const struct combo_result *reference,
                                 const struct combo_result *candidate, size_t n_combos);

#endif
