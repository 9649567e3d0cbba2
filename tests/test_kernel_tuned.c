/*
 * test_kernel_tuned.c - the tuned kernel against the naive one, bit for bit.
 *
 * The naive kernel is the definition (paper/30-kernel.md); the tuned kernel
 * (paper/35-tuned-kernel.md) must return exactly its results for every
 * input, on any number of threads and at every vector width this processor
 * has. The small inputs are chosen for their edges: series shorter than a
 * vector span or a window, tails that are not a multiple of any width,
 * windows of length one or longer than the series, NaN, exact ties.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "kernel/series.h"

static const int WIDTHS[] = {16, 32, 64};
static const int SMALL_THREADS[] = {0, 1, 2, 3};

/* Index of the first combination whose trades or PnL bits differ, or -1. */
static long first_difference(const struct combo_result *a, const struct combo_result *b,
                             size_t n_combos)
{
    for (size_t k = 0; k < n_combos; k++)
        if (a[k].trades != b[k].trades || memcmp(&a[k].pnl, &b[k].pnl, sizeof a[k].pnl) != 0)
            return (long)k;
    return -1;
}

static void assert_same_results(const struct combo_result *got,
                                const struct combo_result *naive, size_t n_combos,
                                size_t n_bars, int n_threads, int width)
{
    long k = first_difference(got, naive, n_combos);
    if (k >= 0)
        fail_msg("%zu bars, %d threads, %d-byte vectors: combo %ld has pnl %.17g over %lld "
                 "trades, the naive kernel %.17g over %lld",
                 n_bars, n_threads, width, k, got[k].pnl, (long long)got[k].trades,
                 naive[k].pnl, (long long)naive[k].trades);
}

/*
 * Equal results are a weaker check than they look: PnL is computed from the
 * close prices, and a line wrong in its last bit changes a trade only when
 * it flips a comparison. So the lines are compared too, value by value:
 * the same bits, or NaN on both sides (NaN's payload means nothing here;
 * the event loop only asks isnan).
 */
static long first_different_value(const double *a, const double *b, size_t n)
{
    for (size_t t = 0; t < n; t++)
        if (!(isnan(a[t]) && isnan(b[t])) && memcmp(&a[t], &b[t], sizeof a[t]) != 0)
            return (long)t;
    return -1;
}

static void assert_same_values(const double *got, const double *naive, size_t n,
                               const char *what, int width)
{
    long t = first_different_value(got, naive, n);
    if (t >= 0)
        fail_msg("%s, %d-byte vectors, %zu bars: bar %ld is %.17g, the naive kernel's %.17g",
                 what, width, n, t, got[t], naive[t]);
}

/* Both lines of every combination, at every width, against kernel_lines. */
static void check_lines_against_naive(const double *close, size_t n_bars,
                                      const struct combo_params *params, size_t n_combos)
{
    size_t bytes = (n_bars > 0 ? n_bars : 1) * sizeof(double);
    double *hma = malloc(bytes), *hma3 = malloc(bytes);
    double *naive_hma = malloc(bytes), *naive_hma3 = malloc(bytes);
    assert_true(hma && hma3 && naive_hma && naive_hma3);
    for (size_t k = 0; k < n_combos; k++) {
        assert_int_equal(kernel_lines(close, n_bars, &params[k], naive_hma, naive_hma3), 0);
        for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
            if (WIDTHS[w] > tuned_vector_bytes())
                continue;
            assert_int_equal(kernel_tuned_lines(close, n_bars, &params[k], hma, hma3, WIDTHS[w]),
                             0);
            assert_same_values(hma, naive_hma, n_bars, "hma", WIDTHS[w]);
            assert_same_values(hma3, naive_hma3, n_bars, "hma3", WIDTHS[w]);
        }
    }
    free(hma);
    free(hma3);
    free(naive_hma);
    free(naive_hma3);
}

/*
 * Runs the tuned kernel at every width the processor has and every thread
 * count given, and compares each sweep with the naive one. The results are
 * poisoned before each run, so a combination the tuned kernel skipped cannot
 * pass by keeping the previous run's answer.
 */
static void check_against_naive(const double *close, size_t n_bars,
                                 const struct combo_params *params, size_t n_combos,
                                 const int *threads, size_t n_thread_counts)
{
    struct combo_result *naive = malloc(n_combos * sizeof *naive);
    struct combo_result *got = malloc(n_combos * sizeof *got);
    assert_non_null(naive);
    assert_non_null(got);
    assert_int_equal(sweep_naive(close, n_bars, params, n_combos, naive), 0);
    for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
        if (WIDTHS[w] > tuned_vector_bytes())
            continue;
        for (size_t i = 0; i < n_thread_counts; i++) {
            memset(got, 0xff, n_combos * sizeof *got);
            assert_int_equal(sweep_tuned_lanes(close, n_bars, params, n_combos, got,
                                               threads[i], WIDTHS[w]), 0);
            assert_same_results(got, naive, n_combos, n_bars, threads[i], WIDTHS[w]);
        }
    }
    memset(got, 0xff, n_combos * sizeof *got);
    assert_int_equal(sweep_tuned(close, n_bars, params, n_combos, got, 0), 0);
    assert_same_results(got, naive, n_combos, n_bars, 0, tuned_vector_bytes());
    free(naive);
    free(got);
    check_lines_against_naive(close, n_bars, params, n_combos);
}

/* ---- The full job of the specification ------------------------------------ */

struct full_job {
    double *close;
    struct combo_params params[DEFAULT_COMBOS];
    struct combo_result naive[DEFAULT_COMBOS];
};

static int full_job_setup(void **state)
{
    struct full_job *job = calloc(1, sizeof *job);
    if (job == NULL || (job->close = malloc(DEFAULT_BARS * sizeof(double))) == NULL)
        return -1;
    gbm_series(job->close, DEFAULT_BARS, DEFAULT_SEED);
    grid_fill(job->params, DEFAULT_COMBOS);
    if (sweep_naive(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS, job->naive) != 0)
        return -1;
    *state = job;
    return 0;
}

static int full_job_teardown(void **state)
{
    struct full_job *job = *state;
    free(job->close);
    free(job);
    return 0;
}

static void full_job_with(struct full_job *job, int n_threads, int width)
{
    struct combo_result got[DEFAULT_COMBOS];
    memset(got, 0xff, sizeof got);
    assert_int_equal(sweep_tuned_lanes(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS,
                                       got, n_threads, width), 0);
    assert_same_results(got, job->naive, DEFAULT_COMBOS, DEFAULT_BARS, n_threads, width);
}

static void full_job_on_one_thread(void **state)
{
    full_job_with(*state, 1, 0);
}

static void full_job_on_two_threads(void **state)
{
    full_job_with(*state, 2, 0);
}

/* The narrower paths this processor has, on the full job too. */
static void full_job_at_every_width(void **state)
{
    for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++)
        if (WIDTHS[w] <= tuned_vector_bytes())
            full_job_with(*state, 2, WIDTHS[w]);
}

/* The harness calls it with n_threads = 0: every online core. */
static void full_job_on_every_core(void **state)
{
    struct full_job *job = *state;
    struct combo_result got[DEFAULT_COMBOS];
    memset(got, 0xff, sizeof got);
    assert_int_equal(sweep_tuned(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS, got, 0),
                     0);
    assert_same_results(got, job->naive, DEFAULT_COMBOS, DEFAULT_BARS, 0, tuned_vector_bytes());
}

/* Both lines of all 80 combinations over the whole series, at every width. */
static void full_job_lines(void **state)
{
    struct full_job *job = *state;
    check_lines_against_naive(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS);
}

/* ---- Small and odd inputs ------------------------------------------------- */

/* Every window from 1 to 70 over series around the spans' sizes, at every width. */
static void wma_of_every_window(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 7, 13, 47, 48, 49, 64, 65, 199, 1003};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        size_t n = lengths[i];
        double *x = malloc(n * sizeof *x), *naive = malloc(n * sizeof *x);
        double *got = malloc(n * sizeof *x);
        assert_true(x && naive && got);
        gbm_series(x, n, DEFAULT_SEED);
        for (int64_t window = 1; window <= 70; window++) {
            kernel_wma(x, n, window, naive);
            for (size_t w = 0; w < sizeof WIDTHS / sizeof WIDTHS[0]; w++) {
                if (WIDTHS[w] > tuned_vector_bytes())
                    continue;
                kernel_tuned_wma(x, n, window, got, WIDTHS[w]);
                assert_same_values(got, naive, n, "wma", WIDTHS[w]);
            }
        }
        free(x);
        free(naive);
        free(got);
    }
}

/*
 * The grid's 80 combinations (windows 1 to 200) over short series: shorter
 * than a span, than the windows, one bar either side of the longest window,
 * and tails that are not a multiple of any vector width.
 */
static void grid_over_short_series(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 7, 13, 199, 200, 201, 1003};
    struct combo_params params[DEFAULT_COMBOS];
    grid_fill(params, DEFAULT_COMBOS);
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        double *close = malloc(lengths[i] * sizeof *close);
        assert_non_null(close);
        gbm_series(close, lengths[i], DEFAULT_SEED);
        check_against_naive(close, lengths[i], params, DEFAULT_COMBOS, SMALL_THREADS, 4);
        free(close);
    }
}

/* Combinations no grid makes: windows of one, windows longer than the series. */
static const struct combo_params HAND_MADE[] = {
    {1, 1, 1, 1, 1, 1},         /* every line is the series itself: no cross */
    {1, 2, 1, 1, 1, 2},
    {2, 3, 1, 1, 2, 3},
    {3, 7, 2, 1, 1, 5},
    {1, 300, 1, 1, 1, 1},       /* the slow HMA average longer than most series here */
    {5, 9, 3, 1, 2, 250},       /* the HMA3 windows longer than most series here */
    {100, 200, 14, 16, 25, 50},
    {250, 500, 22, 41, 62, 125},
    {7, 7, 7, 7, 7, 7},
};
enum { N_HAND_MADE = sizeof HAND_MADE / sizeof HAND_MADE[0] };

static void hand_made_windows(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 7, 13, 64, 199, 200, 201, 1003};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        double *close = malloc(lengths[i] * sizeof *close);
        assert_non_null(close);
        gbm_series(close, lengths[i], 7);
        check_against_naive(close, lengths[i], HAND_MADE, N_HAND_MADE, SMALL_THREADS, 4);
        free(close);
    }
}

/* NaN in the series: NaN averages must appear at the same bars. */
static void series_with_nan(void **state)
{
    (void)state;
    enum { N = 1003 };
    static const size_t holes[] = {0, 5, 300, 301, 700, N - 1};
    double *close = malloc(N * sizeof *close);
    struct combo_params params[DEFAULT_COMBOS];
    assert_non_null(close);
    gbm_series(close, N, DEFAULT_SEED);
    for (size_t i = 0; i < sizeof holes / sizeof holes[0]; i++)
        close[holes[i]] = NAN;
    grid_fill(params, DEFAULT_COMBOS);
    check_against_naive(close, N, params, DEFAULT_COMBOS, SMALL_THREADS, 4);
    check_against_naive(close, N, HAND_MADE, N_HAND_MADE, SMALL_THREADS, 4);
    free(close);
}

/*
 * A sawtooth of small integers: many averages are exact and the two lines
 * touch, which exercises the <= and >= of the event loop.
 */
static void sawtooth_with_exact_ties(void **state)
{
    (void)state;
    enum { N = 517 };
    double close[N];
    struct combo_params params[DEFAULT_COMBOS];
    for (size_t t = 0; t < N; t++)
        close[t] = 100.0 + (double)(t % 11) - (double)(t % 3);
    grid_fill(params, DEFAULT_COMBOS);
    check_against_naive(close, N, params, DEFAULT_COMBOS, SMALL_THREADS, 4);
    check_against_naive(close, N, HAND_MADE, N_HAND_MADE, SMALL_THREADS, 4);
}

/* More threads than combinations, and a handful of combinations. */
static void more_threads_than_combinations(void **state)
{
    (void)state;
    static const int threads[] = {0, 1, 2, 3, 5, 8};
    enum { N = 333 };
    double close[N];
    gbm_series(close, N, DEFAULT_SEED);
    for (size_t n_combos = 1; n_combos <= 3; n_combos++)
        check_against_naive(close, N, HAND_MADE + 1, n_combos, threads, 6);
}

static void no_combinations_is_no_work(void **state)
{
    (void)state;
    double close[10];
    struct combo_result untouched = {1.5, 7};
    gbm_series(close, 10, DEFAULT_SEED);
    assert_int_equal(sweep_tuned(close, 10, HAND_MADE, 0, &untouched, 0), 0);
    assert_same_double(untouched.pnl, 1.5);
    assert_int_equal(untouched.trades, 7);
}

/* ---- The comparison itself ------------------------------------------------ */

/*
 * A test that cannot fail proves nothing: the comparison must notice one
 * unit in the last place of one PnL, one trade more, and the sign of a zero.
 */
static void comparison_notices_one_ulp(void **state)
{
    (void)state;
    enum { N = 500 };
    double close[N];
    struct combo_params params[DEFAULT_COMBOS];
    struct combo_result naive[DEFAULT_COMBOS], changed[DEFAULT_COMBOS];
    gbm_series(close, N, DEFAULT_SEED);
    grid_fill(params, DEFAULT_COMBOS);
    assert_int_equal(sweep_naive(close, N, params, DEFAULT_COMBOS, naive), 0);
    assert_int_equal(sweep_tuned(close, N, params, DEFAULT_COMBOS, changed, 0), 0);
    assert_int_equal(first_difference(changed, naive, DEFAULT_COMBOS), -1);

    changed[41].pnl = nextafter(naive[41].pnl, INFINITY);
    assert_int_equal(first_difference(changed, naive, DEFAULT_COMBOS), 41);
    changed[41] = naive[41];

    changed[79].trades = naive[79].trades + 1;
    assert_int_equal(first_difference(changed, naive, DEFAULT_COMBOS), 79);
    changed[79] = naive[79];

    struct combo_result zero = {0.0, 0}, minus_zero = {-0.0, 0};
    assert_int_equal(first_difference(&zero, &minus_zero, 1), 0);
    assert_int_equal(first_difference(changed, naive, DEFAULT_COMBOS), -1);

    /* The lines' comparison: one ulp and NaN against a number are noticed. */
    double a[3] = {NAN, 1.0, 2.0}, b[3] = {NAN, 1.0, 2.0};
    assert_int_equal(first_different_value(a, b, 3), -1);
    b[2] = nextafter(2.0, 0.0);
    assert_int_equal(first_different_value(a, b, 3), 2);
    b[1] = NAN;
    assert_int_equal(first_different_value(a, b, 3), 1);
}

static void vector_width_is_a_known_one(void **state)
{
    (void)state;
    int bytes = tuned_vector_bytes();
    assert_true(bytes == 16 || bytes == 32 || bytes == 64);
    print_message("tuned kernel: %d-byte vectors on this processor\n", bytes);
}

int main(void)
{
    const struct CMUnitTest small[] = {
        cmocka_unit_test(vector_width_is_a_known_one),
        cmocka_unit_test(comparison_notices_one_ulp),
        cmocka_unit_test(wma_of_every_window),
        cmocka_unit_test(grid_over_short_series),
        cmocka_unit_test(hand_made_windows),
        cmocka_unit_test(series_with_nan),
        cmocka_unit_test(sawtooth_with_exact_ties),
        cmocka_unit_test(more_threads_than_combinations),
        cmocka_unit_test(no_combinations_is_no_work),
    };
    const struct CMUnitTest full[] = {
        cmocka_unit_test(full_job_on_one_thread),
        cmocka_unit_test(full_job_on_two_threads),
        cmocka_unit_test(full_job_at_every_width),
        cmocka_unit_test(full_job_on_every_core),
        cmocka_unit_test(full_job_lines),
    };
    int failed = cmocka_run_group_tests_name("tuned kernel, small and odd inputs", small, NULL,
                                             NULL);
    failed += cmocka_run_group_tests_name("tuned kernel, the specification's full job", full,
                                          full_job_setup, full_job_teardown);
    return failed;
}
