/*
 * kernel.c - the naive kernel, which is also the definition.
 *
 * Tangled from paper/30-kernel.md. Built with -ffp-contract=off and without
 * -ffast-math: every sum below must round exactly as written.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

/* <<wma>>, paper/30-kernel.md */
/* The weighted sum of one full window, oldest value first, divided by the
 * weights' sum: the definition every kernel in this paper shares. */
double wma_window(const double *window, int64_t n)
{
    const double weight_sum = (double)n * (double)(n + 1) / 2.0;
    double s = 0.0;
    for (int64_t j = 0; j < n; j++)
        s = s + window[j] * (double)(j + 1);
    return s / weight_sum;
}

/* out[t] = wma_window(x + t - n + 1, n), NaN for t < n-1, in slices of
 * about SWEEP_STOP_CHECK_STEPS steps with a look at *stop before each;
 * once *stop is raised, the rest of out is left as it was. */
static void wma(const double *x, size_t n_bars, int64_t n, double *out,
                const atomic_int *stop)
{
    const size_t first = (size_t)n - 1, slice = sweep_slice_bars(n, 1);
    for (size_t t = 0; t < n_bars && t < first; t++)
        out[t] = NAN;
    for (size_t t = first; t < n_bars && !sweep_stop_asked(stop);) {
        const size_t end = n_bars - t > slice ? t + slice : n_bars;
        for (; t < end; t++)
            out[t] = wma_window(x + t - first, n);
    }
}

/* <<hma-lines>>, paper/30-kernel.md */
/* hma = wma(2*wma(close, h_half) - wma(close, h_len), h_sqrt) */
static void hma_line(const double *close, size_t n_bars, const struct combo_params *p,
                     struct sweep_workspace *ws, double *hma)
{
    wma(close, n_bars, p->h_half, ws->fast, &ws->stop);
    wma(close, n_bars, p->h_len, ws->slow, &ws->stop);
    for (size_t t = 0; t < n_bars; t++)
        ws->mix[t] = 2.0 * ws->fast[t] - ws->slow[t];
    wma(ws->mix, n_bars, p->h_sqrt, hma, &ws->stop);
}

/* hma3 = wma((3*wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len) */
static void hma3_line(const double *close, size_t n_bars, const struct combo_params *p,
                      struct sweep_workspace *ws, double *hma3)
{
    wma(close, n_bars, p->t_third, ws->fast, &ws->stop);
    wma(close, n_bars, p->t_half, ws->middle, &ws->stop);
    wma(close, n_bars, p->t_len, ws->slow, &ws->stop);
    for (size_t t = 0; t < n_bars; t++)
        ws->mix[t] = (3.0 * ws->fast[t] - ws->middle[t]) - ws->slow[t];
    wma(ws->mix, n_bars, p->t_len, hma3, &ws->stop);
}

/* <<close-position>>, paper/30-kernel.md */
static void close_position(struct position *p, double price)
{
    if (p->side == +1)
        p->result.pnl += (price / p->entry - 1.0) * 100.0 - ROUND_TRIP_FEE;
    else
        p->result.pnl += (1.0 - price / p->entry) * 100.0 - ROUND_TRIP_FEE;
    p->result.trades += 1;
}

/* <<stop-and-reverse>>, paper/30-kernel.md */
void position_step(struct position *p, double hma_prev, double hma3_prev, double hma,
                   double hma3, double price)
{
    if (isnan(hma_prev) || isnan(hma3_prev) || isnan(hma) || isnan(hma3))
        return;                                  /* the warm-up of the longest window */
    if (hma_prev <= hma3_prev && hma > hma3) {
        if (p->side == -1)
            close_position(p, price);
        p->side = +1;
        p->entry = price;
    } else if (hma_prev >= hma3_prev && hma < hma3) {
        if (p->side == +1)
            close_position(p, price);
        p->side = -1;
        p->entry = price;
    }
}

void position_finish(struct position *p, double last_price)
{
    if (p->side != 0)
        close_position(p, last_price);
    p->side = 0;
}

struct combo_result stop_and_reverse(const double *close, const double *hma,
                                     const double *hma3, size_t n_bars)
{
    struct position p = {0, 0.0, {0.0, 0}};
    for (size_t t = 1; t < n_bars; t++)
        position_step(&p, hma[t - 1], hma3[t - 1], hma[t], hma3[t], close[t]);
    if (n_bars > 0)
        position_finish(&p, close[n_bars - 1]);
    return p.result;
}

/* <<sweep-naive>>, paper/30-kernel.md */
int sweep_naive_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results)
{
    if (sweep_workspace_load(ws, close, n_bars) != 0)
        return -1;
    const double *series = ws->series;
    for (size_t k = 0; k < n_combos; k++) {
        hma_line(series, n_bars, &params[k], ws, ws->hma);
        hma3_line(series, n_bars, &params[k], ws, ws->hma3);
        if (sweep_stop_asked(&ws->stop))
            return SWEEP_STOPPED;              /* the lines are unfinished: no result */
        results[k] = stop_and_reverse(series, ws->hma, ws->hma3, n_bars);
    }
    return 0;
}

int sweep_naive(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results)
{
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_naive_in(&ws, close, n_bars, params, n_combos, results);
    sweep_workspace_free(&ws);
    return status;
}

/* <<kernel-test-entry-points>>, paper/30-kernel.md */
void kernel_wma(const double *x, size_t n_bars, int64_t n, double *out)
{
    static const atomic_int never = 0;
    wma(x, n_bars, n, out, &never);
}

int kernel_lines(const double *close, size_t n_bars, const struct combo_params *p,
                 double *hma, double *hma3)
{
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_workspace_reserve(&ws, n_bars);
    if (status == 0) {
        hma_line(close, n_bars, p, &ws, hma);
        hma3_line(close, n_bars, p, &ws, hma3);
    }
    sweep_workspace_free(&ws);
    return status;
}
