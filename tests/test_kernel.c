/*
 * test_kernel.c - WMA, HMA, HMA3 and the event loop on cases worked by hand.
 *
 * The inputs are chosen so that every intermediate value is a small integer
 * or an exact fraction, so the expected values can be written down on paper.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "testutil.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "kernel/series.h"

static void wma_weighs_newest_most(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3, 4, 5};
    double out[5];
    kernel_wma(x, 5, 3, out);
    assert_true(isnan(out[0]) && isnan(out[1]));
    assert_same_double(out[2], 14.0 / 6.0);     /* (1*1 + 2*2 + 3*3) / 6 */
    assert_same_double(out[3], 20.0 / 6.0);     /* (2*1 + 3*2 + 4*3) / 6 */
    assert_same_double(out[4], 26.0 / 6.0);     /* (3*1 + 4*2 + 5*3) / 6 */
}

static void wma_of_length_one_is_the_input(void **state)
{
    (void)state;
    const double x[] = {100.5, 99.25, 101.0};
    double out[3];
    kernel_wma(x, 3, 1, out);
    assert_memory_equal(out, x, sizeof x);
}

static void wma_propagates_nan_through_its_window(void **state)
{
    (void)state;
    const double x[] = {1, NAN, 3, 4, 5, 6};
    double out[6];
    kernel_wma(x, 6, 2, out);
    assert_true(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
    assert_same_double(out[3], 11.0 / 3.0);     /* (3*1 + 4*2) / 3 */
}

static void wma_longer_than_series_is_all_nan(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3};
    double out[3];
    kernel_wma(x, 3, 4, out);
    assert_true(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
}

/*
 * HMA with h_half = 1, h_len = 2, h_sqrt = 1 is 2x - wma(x, 2), and
 * wma(x, 2)[t] = (x[t-1] + 2 x[t]) / 3. On x = 3, 6, 12, 24:
 * wma2 = NaN, 5, 10, 20 and hma = NaN, 7, 14, 28.
 * HMA3 with t_third = t_half = 1, t_len = 2 mixes (3x - x) - wma2, the same
 * 2x - wma2, then smooths it with wma(., 2): NaN, NaN, (7 + 28)/3, (14 + 56)/3.
 */
static void hma_and_hma3_on_a_doubling_series(void **state)
{
    (void)state;
    const double x[] = {3, 6, 12, 24};
    const struct combo_params p = {1, 2, 1, 1, 1, 2};
    double hma[4], hma3[4];
    assert_int_equal(kernel_lines(x, 4, &p, hma, hma3), 0);
    assert_true(isnan(hma[0]));
    assert_same_double(hma[1], 7.0);
    assert_same_double(hma[2], 14.0);
    assert_same_double(hma[3], 28.0);
    assert_true(isnan(hma3[0]) && isnan(hma3[1]));
    assert_same_double(hma3[2], 35.0 / 3.0);
    assert_same_double(hma3[3], 70.0 / 3.0);
}

/* The smoothing WMA of HMA uses h_sqrt, not h_len: a length-3 window differs. */
static void hma_smooths_with_the_square_root_length(void **state)
{
    (void)state;
    const double x[] = {3, 6, 12, 24, 48};
    const struct combo_params p = {1, 2, 2, 1, 1, 2};
    double hma[5], hma3[5];
    assert_int_equal(kernel_lines(x, 5, &p, hma, hma3), 0);
    /* 2x - wma2 = NaN, 7, 14, 28, 56; smoothed over 2: (7 + 28)/3 at t = 2. */
    assert_true(isnan(hma[1]));
    assert_same_double(hma[2], 35.0 / 3.0);
    assert_same_double(hma[4], (28.0 + 112.0) / 3.0);
}

static const double FEE = 0.09;

static void long_closed_by_a_cross_down(void **state)
{
    (void)state;
    const double close[] = {100, 100, 110, 121};
    const double hma[] = {0, 1, 1, -1}, hma3[] = {0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 4);
    /* long at 100 (t=1), reversed at 121 (t=3), the short closed at the end. */
    double expected = 0.0;
    expected += (121.0 / 100.0 - 1.0) * 100.0 - FEE;
    expected += (1.0 - 121.0 / 121.0) * 100.0 - FEE;
    assert_int_equal(r.trades, 2);
    assert_same_double(r.pnl, expected);
}

static void short_closed_by_a_cross_up(void **state)
{
    (void)state;
    const double close[] = {100, 100, 90, 80};
    const double hma[] = {0, -1, -1, 1}, hma3[] = {0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 4);
    double expected = 0.0;
    expected += (1.0 - 80.0 / 100.0) * 100.0 - FEE;
    expected += (80.0 / 80.0 - 1.0) * 100.0 - FEE;
    assert_int_equal(r.trades, 2);
    assert_same_double(r.pnl, expected);
}

static void open_position_is_closed_at_the_last_bar(void **state)
{
    (void)state;
    const double close[] = {50, 50, 55, 60, 64};
    const double hma[] = {0, 1, 2, 3, 4}, hma3[] = {0, 0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 5);
    assert_int_equal(r.trades, 1);
    assert_same_double(r.pnl, (64.0 / 50.0 - 1.0) * 100.0 - FEE);
}

static void nan_warm_up_is_skipped(void **state)
{
    (void)state;
    const double close[] = {10, 20, 30, 40, 50};
    const double hma[] = {NAN, NAN, -1, 1, 1}, hma3[] = {NAN, 0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 5);
    /* The first pair with four defined values is (t-1, t) = (2, 3): long at 40. */
    assert_int_equal(r.trades, 1);
    assert_same_double(r.pnl, (50.0 / 40.0 - 1.0) * 100.0 - FEE);
}

static void no_cross_means_no_trade(void **state)
{
    (void)state;
    const double close[] = {10, 11, 12};
    const double hma[] = {1, 1, 1}, hma3[] = {0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 3);
    assert_int_equal(r.trades, 0);
    assert_same_double(r.pnl, 0.0);
}

/* Four reversals and a final close: five trades, five fees, nothing more. */
static void fee_is_charged_once_per_trade(void **state)
{
    (void)state;
    const double close[] = {100, 100, 100, 100, 100, 100};
    const double hma[] = {0, 1, -1, 1, -1, 1}, hma3[] = {0, 0, 0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 6);
    double expected = 0.0;
    for (int i = 0; i < 5; i++)
        expected += 0.0 * 100.0 - FEE;
    assert_int_equal(r.trades, 5);
    assert_same_double(r.pnl, expected);
}

/* Touching lines then crossing up again while long re-enters without a trade. */
static void cross_up_while_long_re_enters(void **state)
{
    (void)state;
    const double close[] = {100, 100, 105, 110, 120};
    const double hma[] = {0, 1, 0, 1, 1}, hma3[] = {0, 0, 0, 0, 0};
    struct combo_result r = stop_and_reverse(close, hma, hma3, 5);
    assert_int_equal(r.trades, 1);                    /* only the final close */
    assert_same_double(r.pnl, (120.0 / 110.0 - 1.0) * 100.0 - FEE);
}

static void grid_spans_six_to_two_hundred(void **state)
{
    (void)state;
    struct combo_params p[DEFAULT_COMBOS];
    grid_fill(p, DEFAULT_COMBOS);
    assert_int_equal(p[0].h_len, 6);
    assert_int_equal(p[1].h_len, 8);                  /* 6 + (194 + 39) / 79 */
    assert_int_equal(p[DEFAULT_COMBOS - 1].h_len, 200);
    const struct combo_params six = {3, 6, 2, 1, 1, 3};
    const struct combo_params two_hundred = {100, 200, 14, 33, 50, 100};
    assert_memory_equal(&p[0], &six, sizeof six);
    assert_memory_equal(&p[DEFAULT_COMBOS - 1], &two_hundred, sizeof two_hundred);
    for (int k = 1; k < DEFAULT_COMBOS; k++)
        assert_true(p[k].h_len >= p[k - 1].h_len);
}

static void small_lengths_never_give_a_zero_window(void **state)
{
    (void)state;
    struct combo_params p = grid_params(2);
    assert_true(p.h_half >= 1 && p.h_sqrt >= 1 && p.t_third >= 1 && p.t_half >= 1);
}

/* A sweep is the event loop over the two lines, combination by combination. */
static void sweep_equals_lines_plus_event_loop(void **state)
{
    (void)state;
    enum { BARS = 3000, COMBOS = 5 };
    double *close = malloc(BARS * sizeof *close);
    double *hma = malloc(BARS * sizeof *hma), *hma3 = malloc(BARS * sizeof *hma3);
    struct combo_params params[COMBOS];
    struct combo_result results[COMBOS];
    gbm_series(close, BARS, 42);
    grid_fill(params, COMBOS);
    assert_int_equal(sweep_naive(close, BARS, params, COMBOS, results), 0);
    for (int k = 0; k < COMBOS; k++) {
        assert_int_equal(kernel_lines(close, BARS, &params[k], hma, hma3), 0);
        struct combo_result r = stop_and_reverse(close, hma, hma3, BARS);
        assert_int_equal(results[k].trades, r.trades);
        assert_same_double(results[k].pnl, r.pnl);
        assert_true(r.trades > 0);
    }
    free(close);
    free(hma);
    free(hma3);
}

/* ---- Stopping a sweep ------------------------------------------------------ */

enum { LONG_BARS = 200000, LONG_WINDOW = 50000 };   /* 7e10 steps: a minute at least */

struct long_sweep {
    struct sweep_workspace ws;
    const double *close;
    struct combo_params params[2];
    struct combo_result results[2];
    int kernel;                    /* 0 naive, else the tuned kernel's thread count */
    int status;
};

static void *run_long_sweep(void *arg)
{
    struct long_sweep *l = arg;
    l->status = l->kernel == 0
        ? sweep_naive_in(&l->ws, l->close, LONG_BARS, l->params, 2, l->results)
        : sweep_tuned_in(&l->ws, l->close, LONG_BARS, l->params, 2, l->results, l->kernel);
    return NULL;
}

/*
 * A raised stop flag ends a sweep from inside a combination whose windows
 * make it a minute of work or more: each kernel, on one thread and on two,
 * returns SWEEP_STOPPED soon after another thread raised it (the test
 * waits at most 15 s), and a flag raised before the sweep stops it before
 * its first result. Lowered again, the workspace sweeps as usual.
 */
static void a_raised_stop_flag_ends_a_sweep_inside_a_combination(void **state)
{
    (void)state;
    double *close = malloc(LONG_BARS * sizeof *close);
    gbm_series(close, LONG_BARS, 3);
    const int kernels[] = {0, 1, 2};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        struct long_sweep l = {.close = close, .kernel = kernels[i]};
        sweep_workspace_init(&l.ws, NULL);
        for (int k = 0; k < 2; k++) {
            l.params[k] = (struct combo_params){LONG_WINDOW, LONG_WINDOW, LONG_WINDOW,
                                                LONG_WINDOW, LONG_WINDOW, LONG_WINDOW};
            l.results[k] = (struct combo_result){-1.0, -1};
        }
        pthread_t thread;
        assert_int_equal(pthread_create(&thread, NULL, run_long_sweep, &l), 0);
        nanosleep(&(struct timespec){0, 200000000}, NULL);
        sweep_workspace_stop(&l.ws);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 15;
        int joined = pthread_timedjoin_np(thread, NULL, &until);
        if (joined == ETIMEDOUT)
            fail_msg("kernel %d went on for 15 s after it was told to stop", kernels[i]);
        assert_int_equal(joined, 0);
        assert_int_equal(l.status, SWEEP_STOPPED);
        for (int k = 0; k < 2; k++)
            assert_int_equal(l.results[k].trades, -1);      /* no result was written */

        l.status = -7;                      /* still raised: the next sweep stops at once */
        run_long_sweep(&l);
        assert_int_equal(l.status, SWEEP_STOPPED);
        assert_int_equal(l.results[0].trades, -1);

        enum { BARS = 3000 };               /* lowered: the usual bits */
        struct combo_params grid[2];
        struct combo_result got[2], want[2];
        grid_fill(grid, 2);
        sweep_workspace_resume(&l.ws);
        assert_int_equal(sweep_naive(close, BARS, grid, 2, want), 0);
        int status = kernels[i] == 0 ? sweep_naive_in(&l.ws, close, BARS, grid, 2, got)
                                     : sweep_tuned_in(&l.ws, close, BARS, grid, 2, got,
                                                      kernels[i]);
        assert_int_equal(status, 0);
        for (int k = 0; k < 2; k++) {
            assert_int_equal(got[k].trades, want[k].trades);
            assert_same_double(got[k].pnl, want[k].pnl);
        }
        sweep_workspace_free(&l.ws);
    }
    free(close);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wma_weighs_newest_most),
        cmocka_unit_test(wma_of_length_one_is_the_input),
        cmocka_unit_test(wma_propagates_nan_through_its_window),
        cmocka_unit_test(wma_longer_than_series_is_all_nan),
        cmocka_unit_test(hma_and_hma3_on_a_doubling_series),
        cmocka_unit_test(hma_smooths_with_the_square_root_length),
        cmocka_unit_test(long_closed_by_a_cross_down),
        cmocka_unit_test(short_closed_by_a_cross_up),
        cmocka_unit_test(open_position_is_closed_at_the_last_bar),
        cmocka_unit_test(nan_warm_up_is_skipped),
        cmocka_unit_test(no_cross_means_no_trade),
        cmocka_unit_test(fee_is_charged_once_per_trade),
        cmocka_unit_test(cross_up_while_long_re_enters),
        cmocka_unit_test(grid_spans_six_to_two_hundred),
        cmocka_unit_test(small_lengths_never_give_a_zero_window),
        cmocka_unit_test(sweep_equals_lines_plus_event_loop),
        cmocka_unit_test(a_raised_stop_flag_ends_a_sweep_inside_a_combination),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
