/*
 * test_serialization.c - the codecs the serialization measurement times:
 * every encoding gives back the same bits, byte counts are what the paper
 * says, and broken input is refused. No timing is tested.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "wire/frame.h"
#include "wire/serialize.h"
#include "kernel/series.h"

/* Doubles that are easy to get wrong: signs, zeros, extremes, subnormals,
   values whose shortest text is not their 17-digit text. */
static const double AWKWARD[] = {
    0.0, -0.0, 1.0, -1.5, 0.1, -0.1, 1.0 / 3.0, 0.30000000000000004,
    100.0, -123456.789, 9007199254740993.0, 1e16, 1e17, 1e-5,
    DBL_MIN, -DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN, 2.5e-310, -2.5e-310,
    DBL_MAX, -DBL_MAX, 1e300, -1e-300, 1.0000000000000002, 0.99999999999999989,
};
enum { N_AWKWARD = sizeof AWKWARD / sizeof AWKWARD[0] };

static void assert_same_series(const double *actual, const double *expected, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_same_double(actual[i], expected[i]);
}

static void json_round_trips_awkward_doubles_bit_for_bit(void **state)
{
    (void)state;
    double back[N_AWKWARD];
    size_t len = 0;
    char *text = json_series_encode(AWKWARD, N_AWKWARD, &len);
    assert_non_null(text);
    assert_int_equal(len, strlen(text));
    assert_int_equal(json_series_decode(text, len, back, N_AWKWARD), 0);
    assert_same_series(back, AWKWARD, N_AWKWARD);
    free(text);
}

static void text_round_trips_awkward_doubles_bit_for_bit(void **state)
{
    (void)state;
    double back[N_AWKWARD];
    char *text = malloc(text_series_capacity(N_AWKWARD));
    assert_non_null(text);
    size_t len = text_series_encode(text, AWKWARD, N_AWKWARD);
    assert_int_equal(len, strlen(text));
    assert_true(len < text_series_capacity(N_AWKWARD));
    assert_int_equal(text_series_decode(text, back, N_AWKWARD), 0);
    assert_same_series(back, AWKWARD, N_AWKWARD);
    free(text);
}

static void raw_round_trips_awkward_doubles_bit_for_bit(void **state)
{
    (void)state;
    double back[N_AWKWARD];
    uint8_t body[9 + 8 * N_AWKWARD];
    assert_int_equal(raw_series_size(N_AWKWARD), sizeof body);
    raw_series_encode(body, AWKWARD, N_AWKWARD);
    assert_int_equal(body[0], OP_ECHO);
    assert_int_equal(raw_series_decode(body, sizeof body, back, N_AWKWARD), 0);
    assert_same_series(back, AWKWARD, N_AWKWARD);
}

/* The study's own series, at a size a unit test can afford, in every format. */
static void every_format_round_trips_the_study_series(void **state)
{
    (void)state;
    enum { N = 5000 };
    double *close = malloc(N * sizeof *close), *back = malloc(N * sizeof *back);
    uint8_t *body = malloc(raw_series_size(N));
    char *text = malloc(text_series_capacity(N));
    assert_true(close && back && body && text);
    gbm_series(close, N, DEFAULT_SEED);

    raw_series_encode(body, close, N);
    memset(back, 0xff, N * sizeof *back);
    assert_int_equal(raw_series_decode(body, raw_series_size(N), back, N), 0);
    assert_memory_equal(back, close, N * sizeof *back);

    size_t len = 0;
    char *json = json_series_encode(close, N, &len);
    assert_non_null(json);
    memset(back, 0xff, N * sizeof *back);
    assert_int_equal(json_series_decode(json, len, back, N), 0);
    assert_memory_equal(back, close, N * sizeof *back);

    size_t text_len = text_series_encode(text, close, N);
    memset(back, 0xff, N * sizeof *back);
    assert_int_equal(text_series_decode(text, back, N), 0);
    assert_memory_equal(back, close, N * sizeof *back);
    /* JSON is the same numbers as the text, plus two brackets. */
    assert_int_equal(len, text_len + 2);

    free(json);
    free(close);
    free(back);
    free(body);
    free(text);
}

static void byte_counts_are_the_formats(void **state)
{
    (void)state;
    const double two[] = {1.0, -0.0};
    char text[64];
    size_t len = 0;

    assert_int_equal(raw_series_size(0), 9);
    assert_int_equal(raw_series_size(150000), 1200009);
    assert_int_equal(raw_series_size(2), 25);

    char *json = json_series_encode(two, 2, &len);
    assert_non_null(json);
    assert_string_equal(json, "[1.0,-0.0]");        /* compact, reals keep their point */
    assert_int_equal(len, 10);
    free(json);

    assert_int_equal(text_series_encode(text, two, 2), 4);
    assert_string_equal(text, "1,-0");

    const double longest = -DBL_MIN;               /* -2.2250738585072014e-308 */
    assert_int_equal(text_series_encode(text, &longest, 1), 24);
    assert_int_equal(text_series_capacity(1), 26);
}

static void empty_series_round_trip(void **state)
{
    (void)state;
    double none[1] = {0};
    char text[8];
    uint8_t body[9];
    size_t len = 99;
    char *json = json_series_encode(none, 0, &len);
    assert_string_equal(json, "[]");
    assert_int_equal(json_series_decode(json, len, none, 0), 0);
    free(json);
    assert_int_equal(text_series_encode(text, none, 0), 0);
    assert_int_equal(text_series_decode(text, none, 0), 0);
    raw_series_encode(body, none, 0);
    assert_int_equal(raw_series_decode(body, sizeof body, none, 0), 0);
}

static void json_refuses_what_it_cannot_say(void **state)
{
    (void)state;
    const double nan_in[] = {1.0, NAN}, inf_in[] = {-INFINITY};
    size_t len = 0;
    assert_null(json_series_encode(nan_in, 2, &len));
    assert_null(json_series_encode(inf_in, 1, &len));
}

static int json_decodes(const char *text, size_t n)
{
    double x[4];
    return json_series_decode(text, strlen(text), x, n);
}

static void corrupted_json_is_rejected(void **state)
{
    (void)state;
    assert_int_equal(json_decodes("[1.0,2.0]", 2), 0);
    assert_int_equal(json_decodes("[1.0,2.0", 2), -1);         /* truncated */
    assert_int_equal(json_decodes("[1.0,x.0]", 2), -1);        /* not a number */
    assert_int_equal(json_decodes("[1.0,,2.0]", 2), -1);       /* empty element */
    assert_int_equal(json_decodes("[1.0,2.0] 3", 2), -1);      /* trailing data */
    assert_int_equal(json_decodes("[1.0,2.0]", 3), -1);        /* too few numbers */
    assert_int_equal(json_decodes("[1.0,2.0]", 1), -1);        /* too many */
    assert_int_equal(json_decodes("[1.0,\"2.0\"]", 2), -1);    /* a string */
    assert_int_equal(json_decodes("[1.0,[2.0]]", 2), -1);      /* nested */
    assert_int_equal(json_decodes("{\"a\":1.0}", 1), -1);      /* not an array */
    assert_int_equal(json_decodes("[1.0,1e999]", 2), -1);      /* overflows a double */
    assert_int_equal(json_decodes("", 0), -1);
}

/* JSON has one kind of number: an integer literal reads as the same double. */
static void json_integers_read_as_reals(void **state)
{
    (void)state;
    double x[2];
    assert_int_equal(json_series_decode("[100,-3]", 8, x, 2), 0);
    assert_same_double(x[0], 100.0);
    assert_same_double(x[1], -3.0);
}

static void corrupted_text_is_rejected(void **state)
{
    (void)state;
    double x[3];
    assert_int_equal(text_series_decode("1.5,2,3", x, 3), 0);
    assert_int_equal(text_series_decode("1.5,,3", x, 3), -1);
    assert_int_equal(text_series_decode("1.5;2;3", x, 3), -1);
    assert_int_equal(text_series_decode("1.5,2,3,", x, 3), -1);
    assert_int_equal(text_series_decode("1.5,2", x, 3), -1);
    assert_int_equal(text_series_decode("1.5,2,3x", x, 3), -1);
}

static void corrupted_raw_is_rejected(void **state)
{
    (void)state;
    const double two[] = {1.0, 2.0};
    double back[2];
    uint8_t body[25];
    raw_series_encode(body, two, 2);
    assert_int_equal(raw_series_decode(body, 24, back, 2), -1);   /* short */
    assert_int_equal(raw_series_decode(body, 25, back, 3), -1);   /* other count */
    body[0] = 7;                                                  /* unknown opcode */
    assert_int_equal(raw_series_decode(body, 25, back, 2), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_round_trips_awkward_doubles_bit_for_bit),
        cmocka_unit_test(text_round_trips_awkward_doubles_bit_for_bit),
        cmocka_unit_test(raw_round_trips_awkward_doubles_bit_for_bit),
        cmocka_unit_test(every_format_round_trips_the_study_series),
        cmocka_unit_test(byte_counts_are_the_formats),
        cmocka_unit_test(empty_series_round_trip),
        cmocka_unit_test(json_refuses_what_it_cannot_say),
        cmocka_unit_test(corrupted_json_is_rejected),
        cmocka_unit_test(json_integers_read_as_reals),
        cmocka_unit_test(corrupted_text_is_rejected),
        cmocka_unit_test(corrupted_raw_is_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
