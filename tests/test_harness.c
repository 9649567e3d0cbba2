/*
 * test_harness.c - the pieces the measurements rest on: order statistics,
 * the CSV writer and reader, number formatting, and the equivalence gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"
#include "harness/csvout.h"
#include "report/csvread.h"
#include "harness/gate.h"
#include "wire/options.h"
#include "wire/timing.h"
#include "report/values.h"

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

static void quantiles_of_one_sample_are_that_sample(void **state)
{
    (void)state;
    const double x = 2.5;
    struct sample_stats s = sample_stats(&x, 1);
    assert_same_double(s.p50, 2.5);
    assert_same_double(s.p99, 2.5);
    assert_int_equal(sample_stats(&x, 0).n, 0);
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
    assert_int_equal(csv_out_open(&out, path), 0);
    csv_out_header(&out, header, 3);
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
    double back;
    assert_int_equal(csv_table_number(&t, 0, 1, &back), 0);
    assert_same_double(back, third);
    assert_int_equal(csv_table_number(&t, 0, 0, &back), -1);
    csv_table_free(&t);
    unlink(path);
}

/* Until it is closed, the file being written is not where readers look. */
static void csv_file_appears_only_when_complete(void **state)
{
    (void)state;
    const char *path = temp_path("atomic.csv");
    struct csv_out out;
    unlink(path);
    assert_int_equal(csv_out_open(&out, path), 0);
    csv_out_text(&out, "x");
    csv_out_end_row(&out);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(csv_out_close(&out), 0);
    assert_int_equal(access(path, F_OK), 0);
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
    assert_non_null(strstr(err, "row 3"));
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
    const char *bad[] = {"", "1O", "10 ", " x", "0", "101", "-5", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_long_in_range(bad[i], 1, 100, &v), -1);
        assert_int_equal(v, -7);             /* a refused number sets nothing */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(command_line_numbers_are_checked_whole),
        cmocka_unit_test(median_of_an_even_count_averages_the_middle_pair),
        cmocka_unit_test(quantiles_of_one_sample_are_that_sample),
        cmocka_unit_test(clock_is_monotonic),
        cmocka_unit_test(csv_round_trips_text_and_doubles),
        cmocka_unit_test(csv_file_appears_only_when_complete),
        cmocka_unit_test(csv_reader_rejects_ragged_rows),
        cmocka_unit_test(numbers_are_grouped_by_thousands),
        cmocka_unit_test(gate_passes_identical_results),
        cmocka_unit_test(gate_fails_on_any_difference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
