/*
 * test_harness.c - the pieces the measurements rest on: order statistics,
 * the bootstrapped median and the verdicts drawn from it, the random order
 * of the rounds, the CSV writer and reader, number formatting, the
 * workspace's layout, the equivalence gate, and the host's spin.
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/pairs.h"            /* before cmocka, whose fail() is a macro */
#include "harness/arch.h"
#include "harness/env.h"
#include "testutil.h"
#include "testengine.h"
#include "util/csvout.h"
#include "harness/gate.h"
#include "harness/measure.h"
#include "harness/placement.h"
#include "util/random.h"
#include "util/stats.h"
#include "kernel/kernels.h"
#include "kernel/workspace.h"
#include "schema/architectures.h"
#include "report/claims.h"
#include "report/csvread.h"
#include "report/store.h"
#include "schema/data_out.h"
#include "util/options.h"
#include "util/timing.h"

static void median_of_an_even_count_averages_the_middle_pair(void **state)
{
    (void)state;
    const double xs[] = {5, 1, 4, 2, 3, 6, 10, 8, 7, 9};
    struct sample_stats s = sample_stats(xs, 10);
    assert_same_double(s.min, 1.0);
    assert_same_double(s.max, 10.0);
    assert_same_double(s.p50, 5.5);
    assert_same_double(s.p90, 9.1);       /* 9 + 0.1 * (10 - 9), numpy's default */
    assert_same_double(xs[0], 5.0);       /* the input is left alone */
}

static int less_first(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* sort_doubles gives what qsort gives, on the shapes the bootstrap makes:
 * many repeats of few values, runs already in order or reversed, a few
 * values, and NaNs, which go last. */
static void sorting_doubles_agrees_with_qsort(void **state)
{
    (void)state;
    enum { MOST = 3000 };
    static double mine[MOST], theirs[MOST];
    struct mt19937 mt;
    mt19937_seed(&mt, 7);
    for (int shape = 0; shape < 5; shape++)
        for (size_t n = 0; n < MOST; n = n < 40 ? n + 1 : n * 3) {
            size_t nans = 0;
            for (size_t i = 0; i < n; i++) {
                double v = shape == 0   ? (double)random_below(&mt, 1000000) / 7.0
                           : shape == 1 ? (double)random_below(&mt, 5)      /* repeats */
                           : shape == 2 ? (double)i                         /* in order */
                           : shape == 3 ? -(double)i                        /* reversed */
                                        : (random_below(&mt, 9) == 0 ? NAN : (double)(i % 7));
                mine[i] = v;
                nans += isnan(v) != 0;
            }
            size_t numbers = 0;
            for (size_t i = 0; i < n; i++)
                if (!isnan(mine[i]))
                    theirs[numbers++] = mine[i];
            qsort(theirs, numbers, sizeof *theirs, less_first);
            sort_doubles(mine, n);
            for (size_t i = 0; i < numbers; i++)
                assert_same_double(mine[i], theirs[i]);
            for (size_t i = numbers; i < n; i++)
                assert_true(isnan(mine[i]));
            assert_int_equal(n - numbers, nans);
        }
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
    assert_same_double(median_in_place(odd, 3), 2.0);
    assert_same_double(median_in_place(even, 4), 2.5);
    assert_true(isnan(median_in_place(odd, 0)));
}

/* sort_tails gives every quantile in its tails that the whole sort gives,
 * on the same shapes (NaNs included), at every tail an interval asks for
 * and at every length, the short ones whose tails meet included. */
static void sorting_the_tails_reads_as_the_whole_sort(void **state)
{
    (void)state;
    enum { MOST = 12000 };
    static double whole[MOST], tails[MOST];
    static const double Q[] = {0.0, 0.0025, 0.005, 0.0125, 0.025, 0.05, 0.25, 0.49};
    struct mt19937 mt;
    mt19937_seed(&mt, 11);
    for (int shape = 0; shape < 5; shape++)
        for (size_t n = 1; n < MOST; n = n < 40 ? n + 1 : n * 3)
            for (size_t t = 0; t < sizeof Q / sizeof Q[0]; t++) {
                for (size_t i = 0; i < n; i++)
                    whole[i] = tails[i] =
                        shape == 0   ? (double)random_below(&mt, 1000000) / 7.0
                        : shape == 1 ? (double)random_below(&mt, 5)
                        : shape == 2 ? (double)i
                        : shape == 3 ? -(double)i
                                     : (random_below(&mt, 9) == 0 ? NAN : (double)(i % 7));
                sort_doubles(whole, n);
                sort_tails(tails, n, Q[t]);
                for (int k = 0; k <= 100; k++) {
                    double q = Q[t] * k / 100.0;
                    double lo = quantile_sorted(whole, n, q), hi = quantile_sorted(whole, n, 1 - q);
                    double tl = quantile_sorted(tails, n, q), th = quantile_sorted(tails, n, 1 - q);
                    if (!(lo == tl || (isnan(lo) && isnan(tl))) ||
                        !(hi == th || (isnan(hi) && isnan(th))))
                        fail_msg("shape %d, n %zu, tail %g: quantile %g reads %g and %g, "
                                 "sorted whole %g and %g", shape, n, Q[t], q, tl, th, lo, hi);
                }
            }
}

static void quantiles_of_one_sample_are_that_sample(void **state)
{
    (void)state;
    const double x = 2.5;
    struct sample_stats s = sample_stats(&x, 1);
    assert_same_double(s.p50, 2.5);
    assert_same_double(s.p99, 2.5);
    assert_int_equal(sample_stats(&x, 0).n, 0);
}

/* A thread that spins on CPU 0 until told to stop. */
static atomic_int hog_stop;
static void *hog_cpu0(void *arg)
{
    (void)arg;
    if (pin_this_thread(0) != 0)
        return NULL;
    while (!atomic_load(&hog_stop))
        ;
    return NULL;
}

/* The host's spin (@sec:host) counts the time its CPU was taken: with a
 * second thread spinning on the same CPU, the scheduler gives each slices
 * of a millisecond or more, which the spin sees as gaps; the gaps fit in
 * the spin, and the longest in their total. */
static void a_spin_sees_its_cpu_taken(void **state)
{
    (void)state;
    pthread_t hog;
    struct host_spin sp;
    placement_init();
    assert_int_equal(pin_this_thread(0), 0);
    atomic_store(&hog_stop, 0);
    assert_int_equal(pthread_create(&hog, NULL, hog_cpu0, NULL), 0);
    host_spin(100000000u, 200000u, &sp);
    atomic_store(&hog_stop, 1);
    pthread_join(hog, NULL);
    pin_this_thread(CPU_ANY);
    assert_true(sp.spin_ns >= 100000000u);
    assert_true(sp.reads > 1);
    assert_true(sp.gaps > 0);
    assert_true(sp.gap_ns <= sp.spin_ns);
    assert_true(sp.longest_ns <= sp.gap_ns);
}

static void clock_is_monotonic(void **state)
{
    (void)state;
    uint64_t a = clock_ns(), b = clock_ns();
    assert_true(b >= a);
}

static char *temp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/ipctax-test-%d-%s", (int)getpid(), name);
    return path;
}

/* Fields that need quoting survive a write and a read; doubles round-trip. */
static void csv_round_trips_text_and_doubles(void **state)
{
    (void)state;
    const char *path = temp_path("roundtrip.csv");
    static const char *const header[] = {"name", "value", "note"};
    const double third = 1.0 / 3.0;
    struct csv_out out;
    assert_int_equal(csv_out_open(&out, path, header, 3), 0);
    csv_out_text(&out, "plain");
    csv_out_double(&out, third);
    csv_out_text(&out, "has, a comma and \"quotes\"\nand a newline");
    csv_out_end_row(&out);
    assert_int_equal(csv_out_close(&out), 0);

    struct csv_table t;
    char err[256];
    assert_int_equal(csv_table_load(path, &t, err, sizeof err), 0);
    assert_int_equal(t.n_rows, 1);
    assert_int_equal(csv_table_column(&t, "note"), 2);
    assert_int_equal(csv_table_column(&t, "absent"), -1);
    assert_string_equal(csv_table_cell(&t, 0, 2), "has, a comma and \"quotes\"\nand a newline");
    assert_same_double(strtod(csv_table_cell(&t, 0, 1), NULL), third);
    csv_table_free(&t);
    unlink(path);
}

/* Until it is closed, the file being written is not where readers look. */
static void csv_file_appears_only_when_complete(void **state)
{
    (void)state;
    const char *path = temp_path("atomic.csv");
    static const char *const header[] = {"x"};
    struct csv_out out;
    unlink(path);
    assert_int_equal(csv_out_open(&out, path, header, 1), 0);
    csv_out_text(&out, "x");
    csv_out_end_row(&out);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(csv_out_close(&out), 0);
    assert_int_equal(access(path, F_OK), 0);
    unlink(path);
}

/* A file of data/ gets the schema's header, and a field given for the wrong
 * column (or a row ended early) leaves no file at all. */
static void data_file_keeps_the_schemas_columns(void **state)
{
    (void)state;
    char err[512], line[256] = "";
    struct data_out out;
    const char *dir = "/tmp";
    char path[256];
    snprintf(path, sizeof path, "%s/gate.csv", dir);
    unlink(path);
    assert_int_equal(data_out_open(&out, dir, "gate.csv", err, sizeof err), 0);
    data_text(&out, GATE_architecture, "in_process");
    data_int(&out, GATE_combos, 2);
    data_int(&out, GATE_identical, 2);
    data_double(&out, GATE_max_abs_pnl_diff, 0);
    data_text(&out, GATE_verdict, "pass");
    data_text(&out, GATE_error, "");
    data_end_row(&out);
    assert_int_equal(data_out_close(&out), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "architecture,combos,identical,max_abs_pnl_diff,verdict,error\n");
    unlink(path);

    assert_int_equal(data_out_open(&out, dir, "gate.csv", err, sizeof err), 0);
    data_text(&out, GATE_architecture, "in_process");
    data_int(&out, GATE_identical, 2);                 /* combos skipped */
    data_end_row(&out);
    assert_int_equal(data_out_close(&out), -1);
    assert_int_equal(access(path, F_OK), -1);

    assert_int_equal(data_out_open(&out, dir, "gate.csv", err, sizeof err), 0);
    data_text(&out, GATE_architecture, "in_process");
    data_end_row(&out);                                /* a row ended early */
    assert_int_equal(data_out_close(&out), -1);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(data_out_open(&out, dir, "nothing.csv", err, sizeof err), -1);
}

/* Every architecture names a kernel of the registry, and a row that runs
 * its kernel in C (in the process or behind an engine) names one with a C
 * sweep, which an engine row's engine must offer. */
static void every_row_names_a_registered_kernel(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *row = &ARCH_ROWS[i];
        const struct kernel_entry *k = kernel_named(row->kernel);
        if (k == NULL)
            fail_msg("%s: no kernel named %s", row->name, row->kernel);
        if (row->client != CLIENT_PYTHON || row->transport != TRANSPORT_NONE)
            assert_non_null(k->sweep);
        if (row->transport != TRANSPORT_NONE && !k->engine)
            fail_msg("%s: the engine does not offer %s", row->name, row->kernel);
    }
    char err[256];
    assert_null(kernel_for_engine("numba", err, sizeof err));
    assert_non_null(strstr(err, "naive, tuned, tuned-PATH"));
}

/* An abandoned file leaves the previous one of that name untouched. */
static void abandoned_file_keeps_the_published_one(void **state)
{
    (void)state;
    const char *path = temp_path("published.csv");
    static const char *const header[] = {"x"};
    FILE *f = fopen(path, "w");
    fputs("x\npublished\n", f);
    fclose(f);
    struct csv_out out;
    assert_int_equal(csv_out_open(&out, path, header, 1), 0);
    csv_out_text(&out, "half a measurement");
    csv_out_end_row(&out);
    csv_out_abandon(&out);
    char line[64] = "";
    f = fopen(path, "r");
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "published\n");
    assert_int_equal(access(out.temp_path, F_OK), -1);
    unlink(path);
}

static void csv_reader_rejects_ragged_rows(void **state)
{
    (void)state;
    const char *path = temp_path("ragged.csv");
    FILE *f = fopen(path, "w");
    fputs("a,b\n1,2\n3\n", f);
    fclose(f);
    struct csv_table t;
    char err[256];
    assert_int_equal(csv_table_load(path, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 3"));
    unlink(path);
    assert_int_equal(csv_table_load(path, &t, err, sizeof err), -1);   /* missing file */
}

static void numbers_are_grouped_by_thousands(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(format_fixed(buf, 2043.44, 1), "2,043.4");
    assert_string_equal(format_fixed(buf, 150000, 0), "150,000");
    assert_string_equal(format_fixed(buf, -5189.4667, 2), "-5,189.47");
    assert_string_equal(format_fixed(buf, 999.9, 0), "1,000");
    assert_string_equal(format_fixed(buf, -0.001, 2), "0.00");
    assert_string_equal(format_fixed(buf, NAN, 2), "n/a");
}

static void gate_passes_identical_results(void **state)
{
    (void)state;
    const struct combo_result a[] = {{-1.5, 10}, {2.25, 3}};
    struct gate_verdict v = gate_compare(a, a, 2);
    assert_true(v.passed);
    assert_int_equal(v.identical, 2);
    assert_same_double(v.max_abs_pnl_diff, 0.0);
}

/* One ulp of PnL, one trade, or the sign of a zero: each fails the gate. */
static void gate_fails_on_any_difference(void **state)
{
    (void)state;
    const struct combo_result ref[] = {{-1.5, 10}, {2.25, 3}, {0.0, 0}};
    struct combo_result c[3];
    memcpy(c, ref, sizeof c);
    c[1].pnl = nextafter(c[1].pnl, 10.0);
    struct gate_verdict v = gate_compare(ref, c, 3);
    assert_false(v.passed);
    assert_int_equal(v.identical, 2);
    assert_true(v.max_abs_pnl_diff > 0.0);

    memcpy(c, ref, sizeof c);
    c[0].trades = 11;
    assert_false(gate_compare(ref, c, 3).passed);

    memcpy(c, ref, sizeof c);
    c[2].pnl = -0.0;
    assert_false(gate_compare(ref, c, 3).passed);
}

static void command_line_numbers_are_checked_whole(void **state)
{
    (void)state;
    long v = -7;
    assert_int_equal(parse_long_in_range("10", 1, 100, &v), 0);
    assert_int_equal(v, 10);
    assert_int_equal(parse_long_in_range("1", 1, 100, &v), 0);
    assert_int_equal(parse_long_in_range("100", 1, 100, &v), 0);
    assert_int_equal(v, 100);
    v = -7;
    const char *bad[] = {"", "1O", "10 ", " x", "0", "101", "-5", "99999999999999999999999",
                         " 5", "+5", "\t5", "5\n", "-", "--5", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_long_in_range(bad[i], 1, 100, &v), -1);
        assert_int_equal(v, -7);             /* a refused number sets nothing */
    }
}

/* ---- The estimator and the verdicts ------------------------------------ */

/* The median of a sample, and an interval that contains it. */
/* The interval of a median is a pair of order statistics: the k-th smallest and
 * the k-th largest, k the largest rank with 2 P(B < k) <= 5%, B ~ Bin(n, 1/2). */
static void median_interval_is_a_pair_of_order_statistics(void **state)
{
    (void)state;
    double x[101];
    for (int i = 0; i < 101; i++)
        x[i] = 1.0 + 0.001 * ((i * 37) % 101);        /* 1.000 .. 1.100, shuffled */
    struct estimate e = estimate_median(x, 101);
    assert_int_equal(e.n, 101);
    assert_same_double(e.value, 1.050);
    /* P(B <= 40) = 0.0235, P(B <= 41) = 0.0358 for n = 101: k = 41 */
    assert_same_double(e.low, 1.0 + 0.001 * 40);
    assert_same_double(e.high, 1.0 + 0.001 * 60);
    assert_true(e.coverage >= 0.95 && e.coverage < 0.96);
}

/* Six units: the smallest and the largest, covering 1 - 2/64; ten: the second
 * smallest and largest, 1 - 2 * 11/1024; five: no pair reaches 95%. */
static void median_interval_coverage_at_small_n(void **state)
{
    (void)state;
    const double six[] = {6, 1, 5, 2, 4, 3}, ten[] = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
    struct estimate e = estimate_median(six, 6);
    assert_same_double(e.low, 1.0);
    assert_same_double(e.high, 6.0);
    assert_same_double(e.coverage, 1.0 - 2.0 / 64.0);
    e = estimate_median(ten, 10);
    assert_same_double(e.low, 2.0);
    assert_same_double(e.high, 9.0);
    assert_true(fabs(e.coverage - (1.0 - 22.0 / 1024.0)) < 1e-12);
    e = estimate_median(six, 5);
    assert_same_double(e.low, 1.0);
    assert_same_double(e.high, 6.0);
    assert_true(fabs(e.coverage - (1.0 - 2.0 / 32.0)) < 1e-12);
    assert_int_equal(judge_interval(e, BELOW, 100.0, 0), UNDECIDED);   /* short of 95% */
}

/* Same data, same interval, for both estimators (the bootstrap's seed is fixed). */
static void estimates_are_reproducible(void **state)
{
    (void)state;
    const double x[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7};
    struct estimate a = estimate_median(x, 14), b = estimate_median(x, 14);
    assert_memory_equal(&a, &b, sizeof a);
    a = estimate_median_bootstrap(x, 14), b = estimate_median_bootstrap(x, 14);
    assert_memory_equal(&a, &b, sizeof a);
}

/* A constant sample has a zero-width interval; NaNs are left out; none is n/a. */
static void median_edge_cases(void **state)
{
    (void)state;
    const double same[] = {2.5, 2.5, 2.5, 2.5, 2.5, 2.5};
    struct estimate e = estimate_median(same, 6);
    assert_same_double(e.low, 2.5);
    assert_same_double(e.high, 2.5);
    const double holes[] = {NAN, 1.0, NAN, 3.0, 2.0};
    e = estimate_median(holes, 5);
    assert_int_equal(e.n, 3);
    assert_same_double(e.value, 2.0);
    e = estimate_median(holes, 0);
    assert_int_equal(e.n, 0);
    assert_true(isnan(e.value));
    e = estimate_median(same, 1);                 /* one value: a median, no interval */
    assert_same_double(e.value, 2.5);
    assert_true(isnan(e.low) && isnan(e.high));
}

/* A couple's ratio is the row's true ratio whatever the two CPUs' speeds and
 * the machine's speed in each duet: the CPUs' difference cancels. */
static void couple_ratio_cancels_the_cpus_difference(void **state)
{
    (void)state;
    const double r = 1.07, speeds[][4] = {{1.0, 1.03, 2.2, 2.5}, {0.91, 1.2, 3.1, 1.7},
                                          {1.5, 0.98, 0.4, 0.41}};
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        double a = speeds[i][0], b = speeds[i][1], t1 = speeds[i][2], t2 = speeds[i][3];
        /* duet 1: the row on CPU A, the baseline on B; duet 2 swapped */
        double ratio = couple_ratio(r * t1 * a, t1 * b, r * t2 * b, t2 * a);
        assert_true(fabs(ratio - r) < 1e-12);
        assert_true(fabs(r * t1 * a / (t1 * b) - r) > 0.01);   /* a lone duet does not */
    }
}

/* A triple's ratio cancels a drift that is steady (geometric) over its three runs. */
static void turn_ratio_cancels_a_steady_drift(void **state)
{
    (void)state;
    const double r = 0.93;
    for (double g = 0.8; g < 1.25; g += 0.05) {
        double t = 2.0;
        assert_true(fabs(turn_ratio(t, r * t * g, t * g * g) - r) < 1e-12);
    }
}

/* The pair estimator on synthetic couples with a known ratio: the CPUs differ by
 * 4%, each duet has its own machine speed and 1% of noise; the median of the
 * couples' ratios lands near the truth and its interval holds it. */
static void pair_estimator_on_synthetic_couples(void **state)
{
    (void)state;
    const double truth = 1.02;
    double ratios[40];
    struct mt19937 mt;
    mt19937_seed(&mt, 5);
    for (int i = 0; i < 40; i++) {
        double t[2], noise[4];
        for (int k = 0; k < 2; k++)
            t[k] = 1.5 + (double)random_below(&mt, 1000) / 1000.0;       /* the machine's speed */
        for (int k = 0; k < 4; k++)
            noise[k] = 1.0 + ((double)random_below(&mt, 2001) - 1000.0) / 100000.0;
        ratios[i] = couple_ratio(truth * t[0] * 1.04 * noise[0], t[0] * noise[1],
                                 truth * t[1] * noise[2], t[1] * 1.04 * noise[3]);
    }
    struct estimate e = estimate_median(ratios, 40);
    assert_true(e.low <= truth && truth <= e.high);
    assert_true(fabs(e.value - truth) < 0.01);
    assert_true(e.high - e.low < 0.02);
}

/* A sample centred on 1 with a 10% spread: equivalence within 5% is
 * decided one way for a tight sample, undecided for a wide one. */
static void verdicts_follow_the_interval(void **state)
{
    (void)state;
    struct estimate straddles = {20, 0.99, 0.97, 1.02, 0.96};
    assert_int_equal(judge_interval(straddles, BELOW, 1.0, 0), UNDECIDED);
    assert_int_equal(judge_interval(straddles, ABOVE, 1.0, 0), UNDECIDED);
    assert_int_equal(judge_interval(straddles, WITHIN, 0.95, 1.05), HOLDS);
    assert_int_equal(judge_interval(straddles, WITHIN, 0.98, 1.05), UNDECIDED);
    struct estimate shifted = {20, 1.20, 1.15, 1.26, 0.96};
    assert_int_equal(judge_interval(shifted, BELOW, 1.0, 0), FAILS);
    assert_int_equal(judge_interval(shifted, ABOVE, 1.0, 0), HOLDS);
    assert_int_equal(judge_interval(shifted, WITHIN, 0.95, 1.05), FAILS);
    struct estimate touching = {20, 1.02, 1.00, 1.04, 0.96};
    assert_int_equal(judge_interval(touching, BELOW, 1.0, 0), FAILS);   /* at the threshold */
    assert_int_equal(judge_interval(touching, ABOVE, 1.0, 0), UNDECIDED);
    struct estimate nothing = {0, NAN, NAN, NAN, 0.0};
    assert_int_equal(judge_interval(nothing, BELOW, 1.0, 0), UNDECIDED);
    struct estimate short_of_95 = {5, 1.20, 1.15, 1.26, 0.9375};   /* too few units */
    assert_int_equal(judge_interval(short_of_95, ABOVE, 1.0, 0), UNDECIDED);
}

/* From samples: a shifted sample fails "no slower", a straddling one is undecided. */
static void verdicts_from_synthetic_samples(void **state)
{
    (void)state;
    double slower[60], noisy[8];
    for (int i = 0; i < 60; i++)
        slower[i] = 1.10 + 0.01 * ((i * 7) % 11 - 5);   /* 1.05 .. 1.15 */
    for (int i = 0; i < 8; i++)
        noisy[i] = 1.0 + 0.04 * ((i * 3) % 8 - 3.5) / 3.5;  /* 0.96 .. 1.04 */
    assert_int_equal(judge_interval(estimate_median(slower, 60), BELOW, 1.01, 0), FAILS);
    assert_int_equal(judge_interval(estimate_median(noisy, 8), BELOW, 1.01, 0), UNDECIDED);
    assert_int_equal(judge_interval(estimate_median(noisy, 8), WITHIN, 0.9, 1.1), HOLDS);
}

/* ---- The rounds' order ------------------------------------------------- */

static void random_order_is_a_permutation(void **state)
{
    (void)state;
    enum { N = 23 };
    size_t order[N];
    for (uint32_t seed = 0; seed < 50; seed++) {
        struct mt19937 mt;
        int seen[N] = {0};
        mt19937_seed(&mt, round_seed(42, (int)seed));
        random_order(&mt, order, N);
        for (int i = 0; i < N; i++) {
            assert_true(order[i] < N);
            seen[order[i]]++;
        }
        for (int i = 0; i < N; i++)
            assert_int_equal(seen[i], 1);
    }
}

static void random_order_replays_from_its_seed_and_varies_by_round(void **state)
{
    (void)state;
    enum { N = 23 };
    size_t a[N], b[N], c[N];
    struct mt19937 mt;
    mt19937_seed(&mt, round_seed(42, 7));
    random_order(&mt, a, N);
    mt19937_seed(&mt, round_seed(42, 7));
    random_order(&mt, b, N);
    mt19937_seed(&mt, round_seed(42, 8));
    random_order(&mt, c, N);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    /* Over many rounds every architecture runs first some time: no fixed slot. */
    int first[N] = {0};
    for (int r = 1; r <= 400; r++) {
        mt19937_seed(&mt, round_seed(42, r));
        random_order(&mt, a, N);
        first[a[0]]++;
    }
    for (int i = 0; i < N; i++)
        assert_true(first[i] > 0);
}

static void bounded_draws_are_in_range_and_hit_every_value(void **state)
{
    (void)state;
    struct mt19937 mt;
    int seen[7] = {0};
    mt19937_seed(&mt, 1);
    for (int i = 0; i < 7000; i++) {
        uint32_t x = random_below(&mt, 7);
        assert_true(x < 7);
        seen[x]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 800 && seen[i] < 1200);
    assert_int_equal(random_below(&mt, 1), 0);
}

/* ---- The workspace -------------------------------------------------------- */

static void workspace_regions_sit_at_their_layout(void **state)
{
    (void)state;
    struct sweep_layout l;
    char err[256];
    assert_int_equal(option_layout("--layout", "64,2048,576", &l, err, sizeof err), 0);
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, &l);
    double series[300];
    for (int i = 0; i < 300; i++)
        series[i] = i * 0.5;
    assert_int_equal(sweep_workspace_load(&ws, series, 300), 0);
    assert_int_equal((uintptr_t)ws.series % 4096, 64);
    assert_int_equal((uintptr_t)ws.fast % 4096, 2048);
    assert_int_equal((uintptr_t)ws.middle % 4096, 2048 + 576);
    assert_int_equal((uintptr_t)ws.hma3 % 4096, (2048 + 5 * 576) % 4096);
    assert_memory_equal(ws.series, series, sizeof series);
    /* Growing keeps the loaded series; loading the region itself copies nothing. */
    assert_int_equal(sweep_workspace_reserve(&ws, 5000), 0);
    assert_memory_equal(ws.series, series, sizeof series);
    assert_int_equal(sweep_workspace_load(&ws, ws.series, 300), 0);
    assert_memory_equal(ws.series, series, sizeof series);
    sweep_workspace_free(&ws);
    const char *bad[] = {"", "1,2", "4096,0,0", "0,7,0", "0,0,0,0", "a,b,c", "8, 8, 8",
                         "+8,8,8", "-8,8,8", "8,8,8,", ",8,8", "8,,8,8", " 8,8,8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (option_layout("--layout", bad[i], &l, err, sizeof err) != -1)
            fail_msg("the layout '%s' was accepted", bad[i]);
        assert_non_null(strstr(err, "--layout: '"));
    }
}

/* Every number of every command line is read by the options module: whole
 * numbers, lists of them, and real numbers, each refusal naming the option. */
static void option_values_are_refused_with_their_option_named(void **state)
{
    (void)state;
    char err[256];
    long v = 0, list[3];
    double d = 0;
    assert_int_equal(option_long("--port", "70000", 0, 65535, &v, err, sizeof err), -1);
    assert_string_equal(err, "--port: 70000 is outside 0..65535");
    assert_int_equal(option_long("--port", "+80", 0, 65535, &v, err, sizeof err), -1);
    assert_string_equal(err, "--port: '+80' is not a whole number in 0..65535");
    assert_int_equal(option_longs("--xyz", "1,2,3", 3, 0, 9, list, err, sizeof err), 0);
    assert_true(list[0] == 1 && list[1] == 2 && list[2] == 3);
    assert_int_equal(option_longs("--xyz", "1,2", 3, 0, 9, list, err, sizeof err), -1);
    assert_int_equal(option_longs("--xyz", "1,2,3,4", 3, 0, 9, list, err, sizeof err), -1);
    assert_int_equal(option_double("--scale", "0.5", 0.01, 100, &d, err, sizeof err), 0);
    assert_true(d == 0.5);
    assert_int_equal(option_double("--scale", "1e1", 0.01, 100, &d, err, sizeof err), 0);
    assert_true(d == 10.0);
    assert_int_equal(option_double("--scale", ".5", 0.01, 100, &d, err, sizeof err), 0);
    const char *bad[] = {"", " 1", "+1", "1 ", "inf", "nan", "0x1p3", "1e", "1e+", ".", "-",
                         "1..2", "1e5", "0.001", "2,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = -7;
        if (option_double("--scale", bad[i], 0.01, 100, &d, err, sizeof err) != -1)
            fail_msg("--scale '%s' was accepted", bad[i]);
        assert_true(d == -7);
        assert_non_null(strstr(err, "--scale: '"));
    }
}

static void estimates_print_with_their_interval(void **state)
{
    (void)state;
    char buf[200];
    struct estimate e = {10, 1.0234, 0.99, 1.051, 0.978};
    assert_string_equal(format_estimate(buf, e, 2), "1.02 [0.99, 1.05]");
    struct estimate none = {0, NAN, NAN, NAN, 0.0};
    assert_string_equal(format_estimate(buf, none, 2), "n/a");
    /* five units: the smallest and largest hold the median 93.75% of the
     * time, and the interval says so; 95% exactly says nothing more */
    struct estimate five = {5, 1.0234, 0.99, 1.051, 0.9375};
    assert_string_equal(format_estimate(buf, five, 2), "1.02 [0.99, 1.05; 93.8% coverage]");
    struct estimate calibrated = {10, 1.0234, 0.99, 1.051, 0.94999999};
    assert_string_equal(format_estimate(buf, calibrated, 2), "1.02 [0.99, 1.05]");
}

/* How many of this process's children may run on CPUs other than cpu
 * (found in /proc by their parent's pid); -1 if /proc cannot be read. */
static int children_off_cpu(int cpu, int *children)
{
    DIR *proc = opendir("/proc");
    int off = 0;
    *children = 0;
    if (proc == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(proc)) != NULL;) {
        pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
        char path[64], line[512];
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        char *got = fgets(line, sizeof line, f);
        fclose(f);
        char *after = got != NULL ? strrchr(line, ')') : NULL;
        int ppid = 0;
        if (after == NULL || sscanf(after, ") %*c %d", &ppid) != 1 || ppid != (int)getpid())
            continue;
        cpu_set_t set;
        (*children)++;
        if (sched_getaffinity(pid, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1 ||
            !CPU_ISSET(cpu, &set))
            off++;
    }
    closedir(proc);
    return off;
}

/* A row that spawns an engine per combination keeps a warm engine for its
 * witnesses (@sec:witnesses); pinning the row pins that engine too, so a
 * warm call runs on the CPU of the spawned calls it is set against. */
static void pinning_a_spawning_row_pins_its_warm_engine(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        skip();
    struct harness_env env;
    char err[256] = "";
    placement_init();
    assert_int_equal(env_open(&env, engine_binary(), NULL, err, sizeof err), 0);
    int i = arch_row_named(arch_like(CLIENT_C, TRANSPORT_SPAWN, "naive", ENCODING_BINARY,
                                     GRAIN_COMBO));
    assert_true(i >= 0);
    struct sweep_job job = {NULL, 0, NULL, 0};
    struct arch_state *st = arch_open(&ARCH_ROWS[i], &env, NULL, &job, err, sizeof err);
    assert_non_null(st);
    int children = 0;
    assert_int_equal(arch_pin(st, 1), 0);
    assert_int_equal(children_off_cpu(1, &children), 0);
    assert_int_equal(children, 1);                 /* the warm engine */
    assert_int_equal(arch_pin(st, 0), 0);
    assert_int_equal(children_off_cpu(0, &children), 0);
    arch_close(st);
    env_close(&env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_interval_is_a_pair_of_order_statistics),
        cmocka_unit_test(couple_ratio_cancels_the_cpus_difference),
        cmocka_unit_test(turn_ratio_cancels_a_steady_drift),
        cmocka_unit_test(pair_estimator_on_synthetic_couples),
        cmocka_unit_test(median_interval_coverage_at_small_n),
        cmocka_unit_test(estimates_are_reproducible),
        cmocka_unit_test(median_edge_cases),
        cmocka_unit_test(verdicts_follow_the_interval),
        cmocka_unit_test(verdicts_from_synthetic_samples),
        cmocka_unit_test(random_order_is_a_permutation),
        cmocka_unit_test(random_order_replays_from_its_seed_and_varies_by_round),
        cmocka_unit_test(bounded_draws_are_in_range_and_hit_every_value),
        cmocka_unit_test(workspace_regions_sit_at_their_layout),
        cmocka_unit_test(estimates_print_with_their_interval),
        cmocka_unit_test(abandoned_file_keeps_the_published_one),
        cmocka_unit_test(command_line_numbers_are_checked_whole),
        cmocka_unit_test(option_values_are_refused_with_their_option_named),
        cmocka_unit_test(median_of_an_even_count_averages_the_middle_pair),
        cmocka_unit_test(quantiles_of_one_sample_are_that_sample),
        cmocka_unit_test(sorting_doubles_agrees_with_qsort),
        cmocka_unit_test(sorting_the_tails_reads_as_the_whole_sort),
        cmocka_unit_test(clock_is_monotonic),
        cmocka_unit_test(csv_round_trips_text_and_doubles),
        cmocka_unit_test(csv_file_appears_only_when_complete),
        cmocka_unit_test(data_file_keeps_the_schemas_columns),
        cmocka_unit_test(every_row_names_a_registered_kernel),
        cmocka_unit_test(csv_reader_rejects_ragged_rows),
        cmocka_unit_test(numbers_are_grouped_by_thousands),
        cmocka_unit_test(gate_passes_identical_results),
        cmocka_unit_test(gate_fails_on_any_difference),
        cmocka_unit_test(a_spin_sees_its_cpu_taken),
        cmocka_unit_test(pinning_a_spawning_row_pins_its_warm_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
