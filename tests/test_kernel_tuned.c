/*
 * test_kernel_tuned.c - the tuned kernel against the naive one, bit for bit.
 *
 * The naive kernel is the definition (paper/30-kernel.md); the tuned kernel
 * (paper/35-tuned-kernel.md) must return exactly its results for every
 * input, on any number of threads and on every path (vector width) this
 * machine runs. The small inputs are chosen for their edges: series shorter
 * than a block of rows or a window, last columns of every length, windows
 * of length one, as long as the series or longer, NaN, exact ties, flat
 * prices, prices that change sign. The dispatcher is tested on machines
 * described by hand: it never picks, and never lets anyone force, a path
 * the machine lacks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "kernel/series.h"

static const int SMALL_THREADS[] = {0, 1, 2, 3};

/* The path of a name, or -1. */
static int tuned_path_find(const char *name)
{
    for (int p = 0; p < tuned_path_count(); p++)
        if (strcmp(tuned_path_name(p), name) == 0)
            return p;
    return -1;
}

/* Whether this machine runs a path: the paths the tests can reach here. */
static int runs_here(int path)
{
    return tuned_path_lacks(path, cpu_simd_here()) == NULL;
}

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
                                size_t n_bars, int n_threads, int path)
{
    long k = first_difference(got, naive, n_combos);
    if (k >= 0)
        fail_msg("%zu bars, %d threads, path %s: combo %ld has pnl %.17g over %lld "
                 "trades, the naive kernel %.17g over %lld",
                 n_bars, n_threads, tuned_path_name(path), k, got[k].pnl, (long long)got[k].trades,
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
                               const char *what, int path)
{
    long t = first_different_value(got, naive, n);
    if (t >= 0)
        fail_msg("%s, path %s, %zu bars: bar %ld is %.17g, the naive kernel's %.17g",
                 what, tuned_path_name(path), n, t, got[t], naive[t]);
}

/* Both lines of every combination, on every path, against kernel_lines. */
static void check_lines_against_naive(const double *close, size_t n_bars,
                                      const struct combo_params *params, size_t n_combos)
{
    size_t bytes = (n_bars > 0 ? n_bars : 1) * sizeof(double);
    double *hma = malloc(bytes), *hma3 = malloc(bytes);
    double *naive_hma = malloc(bytes), *naive_hma3 = malloc(bytes);
    assert_true(hma && hma3 && naive_hma && naive_hma3);
    for (size_t k = 0; k < n_combos; k++) {
        assert_int_equal(kernel_lines(close, n_bars, &params[k], naive_hma, naive_hma3), 0);
        for (int path = 0; path < tuned_path_count(); path++) {
            if (!runs_here(path))
                continue;
            assert_int_equal(kernel_tuned_lines(close, n_bars, &params[k], hma, hma3, path), 0);
            assert_same_values(hma, naive_hma, n_bars, "hma", path);
            assert_same_values(hma3, naive_hma3, n_bars, "hma3", path);
        }
    }
    free(hma);
    free(hma3);
    free(naive_hma);
    free(naive_hma3);
}

/*
 * Runs the tuned kernel on every path this machine runs and every thread
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
    for (int path = 0; path < tuned_path_count(); path++) {
        if (!runs_here(path))
            continue;
        for (size_t i = 0; i < n_thread_counts; i++) {
            memset(got, 0xff, n_combos * sizeof *got);
            assert_int_equal(sweep_tuned_path(close, n_bars, params, n_combos, got,
                                              threads[i], path), 0);
            assert_same_results(got, naive, n_combos, n_bars, threads[i], path);
        }
    }
    memset(got, 0xff, n_combos * sizeof *got);
    assert_int_equal(sweep_tuned(close, n_bars, params, n_combos, got, 0), 0);
    assert_same_results(got, naive, n_combos, n_bars, 0, tuned_path_in_use());
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

static void full_job_with(struct full_job *job, int n_threads, int path)
{
    struct combo_result got[DEFAULT_COMBOS];
    memset(got, 0xff, sizeof got);
    assert_int_equal(sweep_tuned_path(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS,
                                      got, n_threads, path), 0);
    assert_same_results(got, job->naive, DEFAULT_COMBOS, DEFAULT_BARS, n_threads, path);
}

static void full_job_on_one_thread(void **state)
{
    full_job_with(*state, 1, tuned_path_in_use());
}

static void full_job_on_two_threads(void **state)
{
    full_job_with(*state, 2, tuned_path_in_use());
}

/* The narrower paths this machine runs, on the full job too. */
static void full_job_on_every_path(void **state)
{
    for (int path = 0; path < tuned_path_count(); path++)
        if (runs_here(path))
            full_job_with(*state, 2, path);
}

/* The harness calls it with n_threads = 0: every online core. */
static void full_job_on_every_core(void **state)
{
    struct full_job *job = *state;
    struct combo_result got[DEFAULT_COMBOS];
    memset(got, 0xff, sizeof got);
    assert_int_equal(sweep_tuned(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS, got, 0),
                     0);
    assert_same_results(got, job->naive, DEFAULT_COMBOS, DEFAULT_BARS, 0, tuned_path_in_use());
}

/* Both lines of all 80 combinations over the whole series, on every path. */
static void full_job_lines(void **state)
{
    struct full_job *job = *state;
    check_lines_against_naive(job->close, DEFAULT_BARS, job->params, DEFAULT_COMBOS);
}

/* ---- Small and odd inputs ------------------------------------------------- */

/*
 * Every window from 1 to 70 alone, over series around the sizes of a block
 * of rows (6 or 8 rows of 2, 4 or 8 lanes), on every path: the HMA line of
 * {w, w, 1, ...} is wma(2a - a, 1) with a = wma(close, w), which is a exactly.
 */
static void wma_of_every_window(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 7, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33,
                                     47, 48, 49, 63, 64, 65, 199, 1003};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        size_t n = lengths[i];
        double *x = malloc(n * sizeof *x), *naive = malloc(n * sizeof *x);
        double *got = malloc(n * sizeof *x), *other = malloc(n * sizeof *x);
        assert_true(x && naive && got && other);
        gbm_series(x, n, DEFAULT_SEED);
        for (int64_t window = 1; window <= 70; window++) {
            const struct combo_params alone = {window, window, 1, 1, 1, 1};
            kernel_wma(x, n, window, naive);
            for (int path = 0; path < tuned_path_count(); path++) {
                if (!runs_here(path))
                    continue;
                memset(got, 0x55, n * sizeof *got);
                assert_int_equal(kernel_tuned_lines(x, n, &alone, got, other, path), 0);
                assert_same_values(got, naive, n, "wma", path);
            }
        }
        free(x);
        free(naive);
        free(got);
        free(other);
    }
}

/*
 * The grid's 80 combinations (windows 1 to 200) over short series: shorter
 * than a span, than the windows, one bar either side of the longest window,
 * and last columns shorter than the others at every width.
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
    {1, 1, 3, 1, 1, 1},         /* the HMA mix has no warm-up: its average's comes from the halo */
    {1, 1, 7, 2, 3, 5},
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

/* ---- Crafted series ------------------------------------------------------- */

/* Windows of one, of the whole series, and one longer, for a series of n bars. */
static size_t edge_windows(int64_t n, struct combo_params *params)
{
    const struct combo_params edges[] = {
        {1, n, 1, 1, 1, n},
        {n, n, n, n, n, n},
        {1, 1, 1, 1, 1, 1},
        {n, n + 1, 1, 1, n, n + 1},
        {1, 2, n, 1, 2, n},
        {1, 1, n, 1, 1, n},
        {n > 2 ? n / 2 : 1, n, 1, n > 3 ? n / 3 : 1, n > 2 ? n / 2 : 1, n},
    };
    memcpy(params, edges, sizeof edges);
    return sizeof edges / sizeof edges[0];
}

/*
 * Series made to trip a vector kernel: flat prices (every average equal
 * to the price, the lines tied everywhere), prices that change sign and
 * pass through zero (entries of zero and negative prices), a step, a
 * strictly rising ramp, and a random walk, each at lengths that leave the
 * last column of every path short by every amount, with the grid's and the
 * edge windows.
 */
static void crafted_series(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 3, 8, 9, 63, 64, 65, 200, 333};
    struct combo_params grid[DEFAULT_COMBOS], edges[8];
    grid_fill(grid, DEFAULT_COMBOS);
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        size_t n = lengths[i];
        double *x = malloc(n * sizeof *x);
        assert_non_null(x);
        for (int kind = 0; kind < 5; kind++) {
            for (size_t t = 0; t < n; t++) {
                double u = (double)t;
                x[t] = kind == 0 ? 100.0
                     : kind == 1 ? 3.0 * sin(u * 0.37) + (t % 7 == 0 ? 0.0 : 0.25)
                     : kind == 2 ? (t < n / 2 ? 100.0 : 101.5)
                     : kind == 3 ? 50.0 + 0.125 * u
                     : 0.0;
                if (kind == 1 && t % 7 == 0)
                    x[t] = 0.0;                /* a price of zero: an entry to divide by */
            }
            if (kind == 4)
                gbm_series(x, n, (uint32_t)(11 + i));
            size_t n_edges = edge_windows((int64_t)n, edges);
            check_against_naive(x, n, grid, DEFAULT_COMBOS, SMALL_THREADS, 2);
            check_against_naive(x, n, edges, n_edges, SMALL_THREADS, 4);
        }
        free(x);
    }
}

/* ---- The paths and the dispatcher ---------------------------------------- */

/* A machine described by five answers, bit k of `bits` the k-th. */
static struct cpu_simd machine_from_bits(unsigned bits)
{
    return (struct cpu_simd){bits & 1, bits >> 1 & 1, bits >> 2 & 1, bits >> 3 & 1,
                             bits >> 4 & 1};
}

/* Widest first, each a known width, names unique and found again by name. */
static void paths_are_a_table_widest_first(void **state)
{
    (void)state;
    int n = tuned_path_count();
    assert_true(n >= 1);
    for (int p = 0; p < n; p++) {
        int bytes = tuned_path_bytes(p);
        assert_true(bytes == 16 || bytes == 32 || bytes == 64);
        if (p > 0)
            assert_true(bytes < tuned_path_bytes(p - 1));
        assert_int_equal(tuned_path_find(tuned_path_name(p)), p);
    }
    assert_int_equal(tuned_path_find("avx1024"), -1);
    assert_int_equal(tuned_path_bytes(n), 0);
    assert_non_null(tuned_path_lacks(n, cpu_simd_here()));
    assert_non_null(tuned_path_lacks(-1, cpu_simd_here()));
    print_message("tuned kernel: path %s (%d-byte vectors) on this machine\n",
                  tuned_path_name(tuned_path_in_use()), tuned_path_bytes(tuned_path_in_use()));
}

/*
 * On each of the 32 machines five yes-or-no answers describe, the best path
 * is one the machine runs, and every wider one is one it lacks: the
 * dispatcher never picks what the machine lacks, and never less than it has.
 */
static void dispatcher_never_picks_what_the_machine_lacks(void **state)
{
    (void)state;
    for (unsigned bits = 0; bits < 32; bits++) {
        struct cpu_simd cpu = machine_from_bits(bits);
        int best = tuned_path_best(&cpu);
        if (tuned_path_lacks(best, &cpu) != NULL)
            fail_msg("machine %u: picked %s, which lacks: %s", bits, tuned_path_name(best),
                     tuned_path_lacks(best, &cpu));
        for (int wider = 0; wider < best; wider++)
            assert_non_null(tuned_path_lacks(wider, &cpu));
    }
#if defined(__x86_64__) || defined(__i386__)
    /* The instructions without the operating system's support are not enough. */
    struct cpu_simd no_zmm = {true, true, true, true, false};
    assert_string_equal(tuned_path_name(tuned_path_best(&no_zmm)), "avx2");
    assert_non_null(strstr(tuned_path_lacks(tuned_path_find("avx512"), &no_zmm), "XCR0"));
    struct cpu_simd no_ymm = {true, true, true, false, false};
    assert_string_equal(tuned_path_name(tuned_path_best(&no_ymm)), "sse2");
    struct cpu_simd everything = {true, true, true, true, true};
    assert_string_equal(tuned_path_name(tuned_path_best(&everything)), "avx512");
#endif
}

/* A path asked for by name on a machine that lacks it is refused, saying what it lacks. */
static void forcing_a_path_the_machine_lacks_is_refused(void **state)
{
    (void)state;
    char err[256] = "";
    struct cpu_simd nothing = machine_from_bits(0);
    assert_int_equal(tuned_path_choose("avx1024", &nothing, err, sizeof err), -1);
    assert_non_null(strstr(err, "'avx1024' is not a path of the tuned kernel ("));
    for (int p = 0; p < tuned_path_count(); p++) {
        err[0] = '\0';
        int got = tuned_path_choose(tuned_path_name(p), &nothing, err, sizeof err);
        const char *lack = tuned_path_lacks(p, &nothing);
        if (lack == NULL) {
            assert_int_equal(got, p);
            continue;
        }
        assert_int_equal(got, -1);
        assert_non_null(strstr(err, tuned_path_name(p)));
        assert_non_null(strstr(err, lack));
        assert_null(strchr(err, '\n'));
    }
    assert_int_equal(tuned_path_choose(NULL, &nothing, err, sizeof err),
                     tuned_path_best(&nothing));
    assert_int_equal(tuned_path_choose("", &nothing, err, sizeof err),
                     tuned_path_best(&nothing));
}

#if defined(__x86_64__) || defined(__i386__)
/* The probe agrees with GCC's own, which also checks CPUID and XCR0. */
static void probe_agrees_with_the_compiler(void **state)
{
    (void)state;
    __builtin_cpu_init();
    const struct cpu_simd *here = cpu_simd_here();
    assert_int_equal(tuned_path_lacks(tuned_path_find("avx512"), here) == NULL,
                     __builtin_cpu_supports("avx512f") != 0);
    assert_int_equal(tuned_path_lacks(tuned_path_find("avx2"), here) == NULL,
                     __builtin_cpu_supports("avx2") != 0);
}
#endif

/*
 * Forcing: every path this machine runs, by name and through the
 * environment, is the one sweeps then run, and gives the naive results; a
 * name that is no path, or a path this machine lacks, is refused and
 * changes nothing; the entry points refuse what the machine cannot run.
 */
static void forcing_each_path(void **state)
{
    (void)state;
    enum { N = 700 };
    double close[N];
    struct combo_params params[DEFAULT_COMBOS];
    struct combo_result naive[DEFAULT_COMBOS], got[DEFAULT_COMBOS];
    char err[256];
    gbm_series(close, N, DEFAULT_SEED);
    grid_fill(params, DEFAULT_COMBOS);
    assert_int_equal(sweep_naive(close, N, params, DEFAULT_COMBOS, naive), 0);
    for (int p = 0; p < tuned_path_count(); p++) {
        if (!runs_here(p)) {
            assert_int_equal(tuned_path_force(tuned_path_name(p), err, sizeof err), -1);
            assert_non_null(strstr(err, "cannot run here"));
            assert_int_equal(sweep_tuned_path(close, N, params, DEFAULT_COMBOS, got, 1, p), -1);
            continue;
        }
        assert_int_equal(setenv(TUNED_PATH_VARIABLE, tuned_path_name(p), 1), 0);
        assert_int_equal(tuned_path_force_from_environment(err, sizeof err), 0);
        assert_int_equal(tuned_path_in_use(), p);
        memset(got, 0xff, sizeof got);
        assert_int_equal(sweep_tuned(close, N, params, DEFAULT_COMBOS, got, 1), 0);
        assert_same_results(got, naive, DEFAULT_COMBOS, N, 1, p);
    }
    int before = tuned_path_in_use();
    assert_int_equal(setenv(TUNED_PATH_VARIABLE, "avx9", 1), 0);
    assert_int_equal(tuned_path_force_from_environment(err, sizeof err), -1);
    assert_non_null(strstr(err, TUNED_PATH_VARIABLE ": 'avx9' is not a path"));
    assert_int_equal(tuned_path_in_use(), before);
    assert_int_equal(unsetenv(TUNED_PATH_VARIABLE), 0);
    assert_int_equal(tuned_path_force_from_environment(err, sizeof err), 0);
    assert_int_equal(tuned_path_in_use(), tuned_path_best(cpu_simd_here()));
    assert_int_equal(sweep_tuned_path(close, N, params, 1, got, 1, -1), -1);
    assert_int_equal(sweep_tuned_path(close, N, params, 1, got, 1, tuned_path_count()), -1);
    double hma[N], hma3[N];
    assert_int_equal(kernel_tuned_lines(close, N, params, hma, hma3, tuned_path_count()), -1);
}

/* The paths whose tests cannot run here, and why: a machine without AVX-512
 * checks only that the avx512 path is refused, and says so. */
static void say_what_does_not_run_here(void)
{
    for (int p = 0; p < tuned_path_count(); p++)
        if (!runs_here(p))
            print_message("test_kernel_tuned: the %s path is not tested on this machine, which "
                          "cannot run it (%s); only its refusal is\n", tuned_path_name(p),
                          tuned_path_lacks(p, cpu_simd_here()));
}

int main(void)
{
    say_what_does_not_run_here();
    const struct CMUnitTest small[] = {
        cmocka_unit_test(paths_are_a_table_widest_first),
        cmocka_unit_test(dispatcher_never_picks_what_the_machine_lacks),
        cmocka_unit_test(forcing_a_path_the_machine_lacks_is_refused),
#if defined(__x86_64__) || defined(__i386__)
        cmocka_unit_test(probe_agrees_with_the_compiler),
#endif
        cmocka_unit_test(forcing_each_path),
        cmocka_unit_test(comparison_notices_one_ulp),
        cmocka_unit_test(wma_of_every_window),
        cmocka_unit_test(grid_over_short_series),
        cmocka_unit_test(hand_made_windows),
        cmocka_unit_test(series_with_nan),
        cmocka_unit_test(sawtooth_with_exact_ties),
        cmocka_unit_test(more_threads_than_combinations),
        cmocka_unit_test(crafted_series),
        cmocka_unit_test(no_combinations_is_no_work),
    };
    const struct CMUnitTest full[] = {
        cmocka_unit_test(full_job_on_one_thread),
        cmocka_unit_test(full_job_on_two_threads),
        cmocka_unit_test(full_job_on_every_path),
        cmocka_unit_test(full_job_on_every_core),
        cmocka_unit_test(full_job_lines),
    };
    int failed = cmocka_run_group_tests_name("tuned kernel, small and odd inputs", small, NULL,
                                             NULL);
    failed += cmocka_run_group_tests_name("tuned kernel, the specification's full job", full,
                                          full_job_setup, full_job_teardown);
    return failed;
}
