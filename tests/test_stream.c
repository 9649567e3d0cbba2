/*
 * test_stream.c - the per-bar kernel against the batch kernel, bit for bit.
 */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/kernel_stream.h"
#include "kernel/series.h"

static void stream_the_series(const double *close, size_t n_bars,
                              const struct combo_params *params, size_t n_combos,
                              struct combo_result *results)
{
    struct sweep_stream s;
    int8_t *positions = malloc(n_combos);
    assert_int_equal(stream_open(&s, params, n_combos), 0);
    for (size_t t = 0; t < n_bars; t++)
        stream_bar(&s, close[t], positions);
    stream_close(&s, results);
    stream_free(&s);
    free(positions);
}

static void check_against_batch(size_t n_bars, const struct combo_params *params,
                                size_t n_combos)
{
    double *close = malloc((n_bars ? n_bars : 1) * sizeof *close);
    struct combo_result *batch = malloc(n_combos * sizeof *batch);
    struct combo_result *stream = malloc(n_combos * sizeof *stream);
    gbm_series(close, n_bars, 42);
    assert_int_equal(sweep_naive(close, n_bars, params, n_combos, batch), 0);
    stream_the_series(close, n_bars, params, n_combos, stream);
    for (size_t k = 0; k < n_combos; k++) {
        assert_int_equal(stream[k].trades, batch[k].trades);
        assert_same_double(stream[k].pnl, batch[k].pnl);
    }
    free(close);
    free(batch);
    free(stream);
}

static void grid_over_a_long_series(void **state)
{
    (void)state;
    struct combo_params params[16];
    grid_fill(params, 16);
    check_against_batch(20000, params, 16);
}

/* Windows longer than the series, windows of one, and series shorter than
 * every warm-up: the stream must be NaN exactly where the batch is. */
static void edge_windows_and_short_series(void **state)
{
    (void)state;
    const struct combo_params odd[] = {
        {1, 1, 1, 1, 1, 1}, {1, 2, 1, 1, 1, 2}, {3, 7, 2, 1, 2, 5}, {50, 300, 17, 40, 60, 90},
    };
    const size_t lengths[] = {0, 1, 2, 3, 10, 299, 300, 301, 1500};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        check_against_batch(lengths[i], odd, 4);
}

/* The positions a stream reports are those the batch loop would hold. */
static void positions_follow_the_rule(void **state)
{
    (void)state;
    enum { BARS = 3000 };
    struct combo_params p = grid_params(20);
    double *close = malloc(BARS * sizeof *close);
    gbm_series(close, BARS, 42);
    struct sweep_stream s;
    int8_t side;
    int changes = 0, last = 0;
    assert_int_equal(stream_open(&s, &p, 1), 0);
    for (size_t t = 0; t < BARS; t++) {
        stream_bar(&s, close[t], &side);
        assert_true(side == -1 || side == 0 || side == 1);
        changes += side != last;
        last = side;
    }
    struct combo_result r;
    stream_close(&s, &r);
    stream_free(&s);
    /* every reversal but the first entry closes a trade; the end closes one more */
    assert_int_equal(r.trades, changes);
    free(close);
}

/* Both lines of every combination defined after how many bars. */
static size_t bars_until_defined(const double *close, size_t n_bars,
                                 const struct combo_params *params, size_t n_combos)
{
    struct sweep_stream s;
    int8_t *positions = malloc(n_combos);
    size_t bars = 0;
    assert_int_equal(stream_open(&s, params, n_combos), 0);
    for (int defined = 0; !defined && bars < n_bars;) {
        stream_bar(&s, close[bars++], positions);
        defined = 1;
        for (size_t k = 0; k < n_combos; k++)
            defined &= !isnan(s.combos[k].hma_prev) && !isnan(s.combos[k].hma3_prev);
    }
    stream_free(&s);
    free(positions);
    return bars;
}

/* The warm-up is the bar after both lines are first defined, for each
 * combination alone and for a grid together. */
static void warm_up_ends_when_the_rule_steps(void **state)
{
    (void)state;
    enum { BARS = 1000 };
    const struct combo_params odd[] = {
        {1, 1, 1, 1, 1, 1}, {1, 2, 1, 1, 1, 2}, {3, 7, 2, 1, 2, 5}, {50, 300, 17, 40, 60, 90},
        {9, 3, 4, 30, 2, 11},
    };
    struct combo_params grid[80];
    double *close = malloc(BARS * sizeof *close);
    gbm_series(close, BARS, 42);
    grid_fill(grid, 80);
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++)
        assert_int_equal(stream_warmup_bars(&odd[k], 1),
                         bars_until_defined(close, BARS, &odd[k], 1) + 1);
    assert_int_equal(stream_warmup_bars(grid, 80), bars_until_defined(close, BARS, grid, 80) + 1);
    free(close);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_over_a_long_series),
        cmocka_unit_test(edge_windows_and_short_series),
        cmocka_unit_test(positions_follow_the_rule),
        cmocka_unit_test(warm_up_ends_when_the_rule_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
