/*
 * test_data.c - the generator and the series against kernel-spec.md's vectors.
 *
 * Every comparison is exact: the specification promises numpy's values bit
 * for bit, so a tolerance would hide exactly the errors these tests exist for.
 */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"
#include "util/rng.h"
#include "kernel/series.h"

static void first_uniforms_match_numpy(void **state)
{
    (void)state;
    struct legacy_rng rng;
    legacy_rng_seed(&rng, 42);
    assert_same_double(legacy_random_sample(&rng), 0.3745401188473625);
    assert_same_double(legacy_random_sample(&rng), 0.9507143064099162);
    assert_same_double(legacy_random_sample(&rng), 0.7319939418114051);
}

static void first_normals_match_numpy(void **state)
{
    (void)state;
    static const double expected[] = {
        0.4967141530112327, -0.13826430117118466, 0.6476885381006925,
        1.5230298564080254, -0.23415337472333597, -0.23413695694918055,
    };
    struct legacy_rng rng;
    legacy_rng_seed(&rng, 42);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        assert_same_double(legacy_standard_normal(&rng), expected[i]);
}

/* The reference MT19937 (init_genrand(5489)) gives 3499211612 first. */
static void twister_matches_reference_output(void **state)
{
    (void)state;
    struct mt19937 mt;
    mt19937_seed(&mt, 5489);
    assert_int_equal(mt19937_next32(&mt), 3499211612u);
    /* ... and its 10,000th output is 4123659995 (C++11 mt19937's check value). */
    uint32_t v = 0;
    for (int i = 1; i < 10000; i++)
        v = mt19937_next32(&mt);
    assert_int_equal(v, 4123659995u);
}

static void spare_normal_is_used_before_new_draws(void **state)
{
    (void)state;
    struct legacy_rng a;
    legacy_rng_seed(&a, 7);
    (void)legacy_standard_normal(&a);
    assert_true(a.has_spare);
    struct mt19937 before = a.mt;
    (void)legacy_standard_normal(&a);      /* the spare: no words consumed */
    assert_memory_equal(&before, &a.mt, sizeof before);
    assert_false(a.has_spare);
}

static void closes_match_the_specification(void **state)
{
    (void)state;
    double *close = malloc(DEFAULT_BARS * sizeof *close);
    assert_non_null(close);
    gbm_series(close, DEFAULT_BARS, 42);
    assert_same_double(close[0], 100.04963372876203);
    assert_same_double(close[1], 100.0357513744651);
    assert_same_double(close[2], 100.1005143208127);
    assert_same_double(close[DEFAULT_BARS - 1], 122.16336925448061);
    free(close);
}

static void series_hash_matches_the_specification(void **state)
{
    (void)state;
    char hex[65];
    double *close = malloc(DEFAULT_BARS * sizeof *close);
    assert_non_null(close);
    gbm_series(close, DEFAULT_BARS, 42);
    series_sha256_hex(close, DEFAULT_BARS, hex);
    assert_string_equal(hex, SPEC_SERIES_SHA256);
    close[DEFAULT_BARS / 2] = nextafter(close[DEFAULT_BARS / 2], 0.0);   /* one ulp */
    series_sha256_hex(close, DEFAULT_BARS, hex);
    assert_string_not_equal(hex, SPEC_SERIES_SHA256);
    free(close);
}

/* A shorter series is a prefix of the longer one: same generator, same order. */
static void shorter_series_is_a_prefix(void **state)
{
    (void)state;
    double long_series[1000], short_series[10];
    gbm_series(long_series, 1000, 42);
    gbm_series(short_series, 10, 42);
    assert_memory_equal(long_series, short_series, sizeof short_series);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_uniforms_match_numpy),
        cmocka_unit_test(first_normals_match_numpy),
        cmocka_unit_test(twister_matches_reference_output),
        cmocka_unit_test(spare_normal_is_used_before_new_draws),
        cmocka_unit_test(closes_match_the_specification),
        cmocka_unit_test(series_hash_matches_the_specification),
        cmocka_unit_test(shorter_series_is_a_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
