/*
 * test_calibrate.c - the calibration of the paper's intervals on synthetic
 * data with a known answer: the order-statistic interval of a median keeps
 * 95% at six units, the percentile bootstrap does not, a calibrated
 * composite keeps it, and resampling calls that share their round's offset
 * gives intervals narrower than the rounds allow.
 */
#include <math.h>
#include <stdlib.h>

#include "report/calibrate.h"            /* before cmocka, whose fail() is a macro */
#include "testutil.h"
#include "util/random.h"

/* The calibration's own floor: an interval that covers less than this on its
 * model fails the test (2,000 runs measure a 95% coverage to about +-1%). */
#define FLOOR 0.93

static const struct noise_model ONE_PERCENT = {1, 0.0, 0.01, 0.0};

static void order_statistics_keep_their_promise_at_six_units(void **state)
{
    (void)state;
    double c = median_coverage(ONE_PERCENT, 6, 1);
    if (!(c >= FLOOR))
        fail_msg("the order-statistic interval covered %.3f of synthetic runs of six", c);
    assert_true(c <= 1.0);
}

/* The check can fail: the percentile bootstrap, at six units, covers less than
 * the order statistics do on the same model. */
static void the_percentile_bootstrap_undercovers_at_six_units(void **state)
{
    (void)state;
    size_t n = 6;
    double boot = composite_coverage(1, &ONE_PERCENT, &n, median_of_one, NULL, 0.95, 1);
    double order = median_coverage(ONE_PERCENT, 6, 1);
    if (!(boot < order && boot < 0.95))
        fail_msg("the bootstrap covered %.3f, the order statistics %.3f", boot, order);
}

static double quotient(const double *m, const void *ctx)
{
    (void)ctx;
    return m[0] / m[1];
}

/* A ratio of two medians from six and ten units, 3% and 5% of noise: the
 * calibrated composite reaches the floor, at whatever level it needed. */
static void a_calibrated_composite_keeps_its_promise(void **state)
{
    (void)state;
    double a[6], b[10];
    struct mt19937 mt;
    mt19937_seed(&mt, 3);
    for (int i = 0; i < 6; i++)
        a[i] = 2.0 * exp(0.03 * ((double)random_below(&mt, 2001) - 1000.0) / 1000.0);
    for (int i = 0; i < 10; i++)
        b[i] = 1.0 * exp(0.05 * ((double)random_below(&mt, 2001) - 1000.0) / 1000.0);
    const double *groups[] = {a, b};
    size_t n[] = {6, 10};
    struct calibration cal;
    struct estimate e = calibrated_composite(2, groups, n, quotient, NULL, &cal);
    if (!(cal.coverage >= FLOOR) || !(cal.level >= 0.95))
        fail_msg("level %.3f covered %.3f", cal.level, cal.coverage);
    assert_true(e.low < e.value && e.value < e.high);
    assert_true(e.coverage == cal.coverage);
}

/* Calls that share their round's offset: resampled one by one, their interval
 * is narrower than the rounds' and misses the truth far more often than 5%. */
static void resampling_calls_is_narrower_than_resampling_rounds(void **state)
{
    (void)state;
    struct pooling_check p = pooled_against_units(6, 80, 0.05, 0.02, 9);
    if (!(p.unit_width > 2.0 * p.pooled_width))
        fail_msg("rounds' interval %.4f wide, calls' %.4f", p.unit_width, p.pooled_width);
    if (!(p.pooled_coverage < 0.8 && p.unit_coverage >= FLOOR))
        fail_msg("calls covered %.3f, rounds %.3f", p.pooled_coverage, p.unit_coverage);
}

/* A model is fitted to what it is given: the median and the spread of logs. */
static void a_noise_model_fits_its_units(void **state)
{
    (void)state;
    const double x[] = {1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97};
    struct noise_model m = noise_fit(x, 7);
    assert_true(m.log_normal);
    assert_true(fabs(noise_median(m) - 1.0) < 1e-12);
    assert_true(m.spread > 0.01 && m.spread < 0.04);
    const double with_zero[] = {0.0, 1.0, 2.0};
    assert_false(noise_fit(with_zero, 3).log_normal);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_statistics_keep_their_promise_at_six_units),
        cmocka_unit_test(the_percentile_bootstrap_undercovers_at_six_units),
        cmocka_unit_test(a_calibrated_composite_keeps_its_promise),
        cmocka_unit_test(resampling_calls_is_narrower_than_resampling_rounds),
        cmocka_unit_test(a_noise_model_fits_its_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
