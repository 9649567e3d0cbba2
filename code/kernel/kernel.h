/*
 * kernel.h - the backtest kernel: HMA/HMA3 stop-and-reverse over a grid.
 *
 * Tangled from paper/30-kernel.md.
 */
#ifndef IPCTAX_KERNEL_H
#define IPCTAX_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/grid.h"
#include "kernel/workspace.h"

/* <<combo-result>>, paper/30-kernel.md */
/* What one combination earns: PnL in percentage points, and trades closed. */
struct combo_result {
    double pnl;
    int64_t trades;
};

/* Round-trip fee per closed trade, in percentage points (0.09%). */
#define ROUND_TRIP_FEE 0.09

/* A combination walking the bars: -1 short, 0 flat, +1 long. */
struct position {
    int side;
    double entry;
    struct combo_result result;
};

/* Loads the series into the workspace (@sec:workspace), which it grows as
 * needed, and runs every combination over the loaded copy; returns 0, -1
 * when out of memory, or SWEEP_STOPPED when ws's stop flag was raised (the
 * results are then incomplete). Passing ws->series as close copies nothing. */
int sweep_naive_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results);

/* The same with a workspace of its own, allocated and freed per call. */
int sweep_naive(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results);

/* The pieces, shared with the other kernels and exposed for the tests. */
double wma_window(const double *window, int64_t n);
void kernel_wma(const double *x, size_t n_bars, int64_t n, double *out);
int kernel_lines(const double *close, size_t n_bars, const struct combo_params *p,
                 double *hma, double *hma3);
void position_step(struct position *p, double hma_prev, double hma3_prev, double hma,
                   double hma3, double price);
void position_finish(struct position *p, double last_price);
struct combo_result stop_and_reverse(const double *close, const double *hma,
                                     const double *hma3, size_t n_bars);

#endif
