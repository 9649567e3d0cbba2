/*
 * test_frame.c - the wire protocol's codec (code/wire/frame.c): byte
 * layouts written out by hand, round trips, sizes that must not wrap, every
 * way request_decode refuses a body, each with its message, and the one
 * check of parameter sets. What the engine's table of opcodes adds (unknown
 * opcodes, each opcode's shape) is checked through handle_request, which
 * touches no socket.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "engine/service.h"
#include "util/error.h"
#include "wire/frame.h"

/* ---- Little-endian helpers on known byte patterns --------------------- */

static void u32_is_lowest_byte_first(void **state)
{
    (void)state;
    uint8_t b[4];
    le_put_u32(b, 0x04030201u);
    const uint8_t expected[] = {0x01, 0x02, 0x03, 0x04};
    assert_memory_equal(b, expected, 4);
    const uint8_t top[] = {0xff, 0x00, 0x00, 0x80};
    assert_int_equal(le_get_u32(top), 0x800000ffu);
    le_put_u32(b, 0xffffffffu);
    assert_int_equal(le_get_u32(b), 0xffffffffu);
}

static void f64_bytes_are_ieee_little_endian(void **state)
{
    (void)state;
    const double values[] = {1.0, -2.0, 0.5, -0.0};
    const uint8_t expected[4][8] = {
        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f},    /* 1.0  = 0x3ff0000000000000 */
        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0},    /* -2.0 = 0xc000000000000000 */
        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f},    /* 0.5  = 0x3fe0000000000000 */
        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80},    /* -0.0 = 0x8000000000000000 */
    };
    uint8_t b[32];
    le_put_f64s(b, values, 4);
    assert_memory_equal(b, expected, 32);
    double back[4];
    le_get_f64s(back, (const uint8_t *)expected, 4);
    for (int i = 0; i < 4; i++)
        assert_same_double(back[i], values[i]);
}

static void i64_bytes_are_twos_complement_little_endian(void **state)
{
    (void)state;
    const int64_t values[] = {-2, 0x0102030405060708LL, INT64_MIN};
    const uint8_t expected[3][8] = {
        {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
        {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01},
        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80},
    };
    uint8_t b[24];
    le_put_i64s(b, values, 3);
    assert_memory_equal(b, expected, 24);
    int64_t back[3];
    le_get_i64s(back, (const uint8_t *)expected, 3);
    for (int i = 0; i < 3; i++)
        assert_true(back[i] == values[i]);
}

/* ---- Requests ------------------------------------------------------------ */

static void body_size_is_exact_and_never_wraps(void **state)
{
    (void)state;
    assert_true(request_body_size(0, 0) == 9);
    assert_true(request_body_size(1, 0) == 17);
    assert_true(request_body_size(0, 1) == 57);
    assert_true(request_body_size(150000, 80) == 9 + 1200000 + 3840);
    /* 9 + 8 (2^32 - 1) + 48 (2^32 - 1) = 56 * 2^32 - 47; 32-bit arithmetic
     * would wrap this to a small number. */
    assert_true(request_body_size(0xffffffffu, 0xffffffffu) == 240518168529ULL);
    assert_true(request_body_size(0xffffffffu, 0) == 34359738369ULL);
}

/* Closes chosen to catch a lost sign, a lost bit or a canonicalised NaN. */
static void closes_and_params(double close[6], struct combo_params params[2])
{
    uint64_t nan_bits = 0x7ff8000000000123ULL;     /* a quiet NaN with a payload */
    close[0] = 1.0;
    close[1] = -0.0;
    close[2] = DBL_MAX;
    close[3] = DBL_TRUE_MIN;
    memcpy(&close[4], &nan_bits, 8);
    close[5] = 100.12345678901234;
    params[0] = (struct combo_params){1, 2, 3, 4, 5, 6};
    params[1] = (struct combo_params){6, 5, 4, 3, 2, 1};
}

static void request_round_trips_bit_for_bit(void **state)
{
    (void)state;
    double close[6];
    struct combo_params params[2];
    closes_and_params(close, params);
    size_t len = (size_t)request_body_size(6, 2);
    uint8_t *body = malloc(len);
    request_encode(body, OP_SWEEP, close, 6, params, 2);

    struct request_view req;
    char err[256] = "";
    assert_int_equal(request_decode(body, len, &req, err, sizeof err), 0);
    assert_int_equal(req.opcode, OP_SWEEP);
    assert_int_equal(req.n_bars, 6);
    assert_int_equal(req.n_combos, 2);
    assert_ptr_equal(req.close, body + 9);
    assert_ptr_equal(req.params, body + 9 + 6 * 8);
    double back[6];
    le_get_f64s(back, req.close, 6);
    assert_memory_equal(back, close, sizeof close);          /* the NaN's payload too */
    struct combo_params pback[2];
    request_params(&req, pback);
    assert_memory_equal(pback, params, sizeof params);
    free(body);
}

/* The header's bytes, and the order of the six parameters on the wire. */
static void request_layout_is_the_documented_one(void **state)
{
    (void)state;
    const double close[2] = {1.0, -2.0};
    const struct combo_params p = {11, 12, 13, 14, 15, 16};
    uint8_t body[9 + 16 + 48];
    assert_true(request_body_size(2, 1) == sizeof body);
    request_encode(body, OP_ECHO, close, 2, &p, 1);
    const uint8_t header[9] = {0x01, 0x02, 0, 0, 0, 0x01, 0, 0, 0};
    assert_memory_equal(body, header, 9);
    assert_int_equal(body[9 + 6], 0xf0);                    /* 1.0's high bytes */
    assert_int_equal(body[9 + 7], 0x3f);
    assert_int_equal(body[9 + 15], 0xc0);                   /* -2.0's top byte */
    /* h_half, h_len, h_sqrt, t_third, t_half, t_len: 11 .. 16 in order. */
    for (int i = 0; i < 6; i++) {
        assert_int_equal(body[25 + 8 * i], 11 + i);
        for (int k = 1; k < 8; k++)
            assert_int_equal(body[25 + 8 * i + k], 0);
    }
}

/* Decodes a body that must be refused; its message must contain `needle`. */
static void assert_refused(const uint8_t *body, size_t len, const char *needle)
{
    struct request_view req;
    char err[512];
    memset(err, 0, sizeof err);
    int r = request_decode(body, len, &req, err, sizeof err);
    if (r != -1)
        fail_msg("a body that should be refused (\"%s\") was accepted", needle);
    if (strstr(err, needle) == NULL)
        fail_msg("message \"%s\" does not contain \"%s\"", err, needle);
}

static void assert_accepted(const uint8_t *body, size_t len)
{
    struct request_view req;
    char err[512] = "";
    if (request_decode(body, len, &req, err, sizeof err) != 0)
        fail_msg("a valid body was refused: %s", err);
}

/* A sweep body of n_bars closes of 100.0 and the given combos. */
static uint8_t *sweep_body(uint32_t n_bars, const struct combo_params *params, uint32_t n_combos,
                           size_t *len)
{
    double *close = malloc((n_bars ? n_bars : 1) * sizeof *close);
    for (uint32_t i = 0; i < n_bars; i++)
        close[i] = 100.0 + i;
    *len = (size_t)request_body_size(n_bars, n_combos);
    uint8_t *body = malloc(*len + 64);                 /* room to send extra bytes */
    memset(body, 0, *len + 64);
    request_encode(body, OP_SWEEP, close, n_bars, params, n_combos);
    free(close);
    return body;
}

static void shorter_than_the_header_is_refused(void **state)
{
    (void)state;
    const uint8_t body[9] = {0};
    for (size_t len = 0; len < 9; len++)
        assert_refused(body, len, "shorter than its 9-byte header");
    assert_refused(body, 5, "request body of 5 bytes");
}

/* What handle_request (the engine's table and checks) says of a body: the
 * message of a refusal, or "" when it was served. */
static const char *served(const uint8_t *body, size_t len)
{
    static char err[512];
    struct engine_config cfg = {.max_frame = 1u << 20, .max_work = DEFAULT_MAX_WORK,
                                .sweep = sweep_naive_in};
    struct connection c;
    connection_init(&c, &cfg);
    err[0] = '\0';
    if (handle_request(&c, body, len, err, sizeof err) == 0)
        err[0] = '\0';
    connection_free(&c);
    return err;
}

static void assert_served_refused(const uint8_t *body, size_t len, const char *needle)
{
    const char *err = served(body, len);
    if (err[0] == '\0')
        fail_msg("a request that should be refused (\"%s\") was served", needle);
    if (strstr(err, needle) == NULL)
        fail_msg("message \"%s\" does not contain \"%s\"", err, needle);
}

/* An opcode the protocol does not define is refused by the decoder (and so
 * by the engine), with or without the timing bit. */
static void unknown_opcode_is_refused(void **state)
{
    (void)state;
    size_t len;
    const struct combo_params p = {1, 1, 1, 1, 1, 1};
    uint8_t *body = sweep_body(4, &p, 1, &len);
    assert_accepted(body, len);
    assert_string_equal(served(body, len), "");
    /* The first number past the last opcode, whatever the protocol has grown to. */
    char expected[64];
    snprintf(expected, sizeof expected, "unknown opcode %d (opcodes are 0 to %d",
             OPCODE_COUNT, OPCODE_COUNT - 1);
    body[0] = OPCODE_COUNT;
    assert_refused(body, len, expected);
    assert_served_refused(body, len, expected);
    body[0] = 100;
    assert_refused(body, len, "unknown opcode 100");
    body[0] = OP_TIMED | OPCODE_COUNT;
    assert_refused(body, len, "or 128 to 134 with the timing bit");
    body[0] = OP_TIMED | OP_SWEEP;                           /* a timed sweep decodes */
    assert_accepted(body, len);
    free(body);
}

/* The length must equal what the counts imply, whichever way it is off. */
static void length_disagreeing_with_the_counts_is_refused(void **state)
{
    (void)state;
    size_t len;
    const struct combo_params p[2] = {{1, 2, 1, 1, 1, 2}, {2, 4, 2, 1, 2, 4}};
    uint8_t *body = sweep_body(10, p, 2, &len);
    assert_accepted(body, len);
    assert_refused(body, len - 1, "require 185");
    assert_refused(body, len - 48, "n_bars = 10 and n_combos = 2");
    assert_refused(body, len + 1, "body is 186 bytes");
    assert_refused(body, len + 8, "require 185");
    assert_refused(body, 9, "require 185");
    /* Counts so large that the size does not fit 32 bits: refused, not wrapped. */
    le_put_u32(body + 1, 0xffffffffu);
    le_put_u32(body + 5, 0xffffffffu);
    assert_refused(body, len, "require 240518168529");
    /* 2^29 bars is 2^32 bytes: a 32-bit size would wrap to 9 + 0 and accept a bare header. */
    le_put_u32(body + 1, 0x20000000u);
    le_put_u32(body + 5, 0);
    body[0] = OP_ECHO;
    assert_refused(body, 9, "require 4294967305");
    free(body);
}

static void sweep_without_bars_is_refused(void **state)
{
    (void)state;
    uint8_t body[9] = {OP_SWEEP, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_accepted(body, 9);
    assert_served_refused(body, 9, "opcode 0 (sweep) needs n_bars >= 1 (got n_bars = 0");
    body[0] = OP_ECHO;
    assert_string_equal(served(body, 9), "");            /* an empty echo is fine */
}

/* Each opcode's shape, from the table: a bar carries one close and no
 * parameters, a load a series and no parameters, and so on. */
static void each_opcode_has_its_shape(void **state)
{
    (void)state;
    static const struct {
        enum opcode op;
        uint32_t bars, combos;
        const char *needle;
    } wrong[] = {
        {OP_LOAD, 0, 0, "opcode 2 (load) needs n_bars >= 1 and n_combos = 0"},
        {OP_LOAD, 4, 1, "opcode 2 (load) needs n_bars >= 1 and n_combos = 0"},
        {OP_SWEEP_LOADED, 1, 1, "opcode 3 (sweep loaded) needs n_bars = 0 (got n_bars = 1"},
        {OP_OPEN_STREAM, 0, 0, "opcode 4 (open stream) needs n_bars = 0 and n_combos >= 1"},
        {OP_BAR, 2, 0, "opcode 5 (bar) needs n_bars = 1 and n_combos = 0"},
        {OP_CLOSE_STREAM, 0, 1, "opcode 6 (close stream) needs n_bars = 0 and n_combos = 0"},
    };
    const double close[4] = {1, 2, 3, 4};
    const struct combo_params p = {1, 1, 1, 1, 1, 1};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        size_t len = (size_t)request_body_size(wrong[i].bars, wrong[i].combos);
        uint8_t body[9 + 32 + 48];
        request_encode(body, wrong[i].op, close, wrong[i].bars, &p, wrong[i].combos);
        assert_accepted(body, len);
        assert_served_refused(body, len, wrong[i].needle);
    }
}

/* Every one of the six parameters is checked against 1..n_bars, by the one
 * check, and a sweep's handler calls it. */
static void windows_outside_one_to_n_bars_are_refused(void **state)
{
    (void)state;
    enum { BARS = 20 };
    const int64_t bad[] = {0, -1, INT64_MIN, BARS + 1, INT64_MAX};
    const char *const why[] = {"window 0 is", "window -1 is", "window -9223372036854775808",
                               "window 21 is", "window 9223372036854775807"};
    for (int combo = 0; combo < 2; combo++) {
        for (int param = 0; param < PARAMS_PER_COMBO; param++) {
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                struct combo_params p[2] = {{1, 2, 1, 1, 1, 2}, {1, 2, 1, 1, 1, 2}};
                ((int64_t *)&p[combo])[param] = bad[b];
                char err[256] = "", where[64];
                assert_int_equal(request_check_windows(p, 2, BARS, "n_bars", err, sizeof err), -1);
                snprintf(where, sizeof where, "combo %d, parameter %d:", combo, param);
                assert_non_null(strstr(err, where));
                assert_non_null(strstr(err, why[b]));
                assert_non_null(strstr(err, "outside 1..n_bars (20)"));
                size_t len;
                uint8_t *body = sweep_body(BARS, p, 2, &len);
                assert_accepted(body, len);                /* decoding checks shape only */
                assert_served_refused(body, len, err);
                free(body);
            }
        }
    }
}

static void windows_of_one_and_of_n_bars_are_accepted(void **state)
{
    (void)state;
    const struct combo_params p[2] = {{1, 1, 1, 1, 1, 1}, {20, 20, 20, 20, 20, 20}};
    char err[64] = "";
    assert_int_equal(request_check_windows(p, 2, 20, "n_bars", err, sizeof err), 0);
    size_t len;
    uint8_t *body = sweep_body(20, p, 2, &len);
    assert_accepted(body, len);
    assert_string_equal(served(body, len), "");
    free(body);
}

/* An echo's parameters are checked for length only: any values go. */
static void echo_ignores_parameter_values(void **state)
{
    (void)state;
    const double close[3] = {1, 2, 3};
    const struct combo_params p = {0, -5, 999, INT64_MIN, 4, 0};
    size_t len = (size_t)request_body_size(3, 1);
    uint8_t *body = malloc(len);
    request_encode(body, OP_ECHO, close, 3, &p, 1);
    assert_accepted(body, len);
    assert_string_equal(served(body, len), "");
    free(body);
}

static void echo_without_combos_is_accepted(void **state)
{
    (void)state;
    const double close[4] = {1, 2, 3, 4};
    size_t len = (size_t)request_body_size(4, 0);
    uint8_t body[9 + 32];
    assert_int_equal(len, sizeof body);
    request_encode(body, OP_ECHO, close, 4, NULL, 0);
    struct request_view req;
    char err[256] = "";
    assert_int_equal(request_decode(body, len, &req, err, sizeof err), 0);
    assert_int_equal(req.opcode, OP_ECHO);
    assert_int_equal(req.n_bars, 4);
    assert_int_equal(req.n_combos, 0);
    assert_memory_equal(req.close, body + 9, 32);
}

/* A small message buffer is filled, terminated, and not overrun. */
static void message_respects_the_buffer_size(void **state)
{
    (void)state;
    uint8_t body[9] = {7, 0, 0, 0, 0, 0, 0, 0, 0};
    struct request_view req;
    char err[16];
    memset(err, 'X', sizeof err);
    assert_int_equal(request_decode(body, 9, &req, err, 8), -1);
    assert_int_equal(strlen(err), 7);
    assert_memory_equal(err, "unknown", 7);
    for (size_t i = 8; i < sizeof err; i++)
        assert_int_equal(err[i], 'X');
}

/* Every message is printable ASCII, whatever it quotes, and errno survives. */
static void messages_are_printable_and_keep_errno(void **state)
{
    (void)state;
    char err[64];
    errno = EBUSY;
    assert_int_equal(set_error(err, sizeof err, "quoted: %s", "a\tb\x01" "c\xc3\xa9" "d\x7f"), -1);
    assert_int_equal(errno, EBUSY);
    assert_string_equal(err, "quoted: a?b?c??d?");
    assert_int_equal(set_error(err, 0, "nothing is written"), -1);
}

/* ---- Replies ------------------------------------------------------------ */

static void sweep_reply_round_trips_and_lays_out_two_arrays(void **state)
{
    (void)state;
    const struct combo_result results[3] = {{-0.0, 0}, {1.0, 7}, {-12.75, INT64_MAX}};
    uint8_t body[48];
    assert_true(sweep_reply_size(3) == sizeof body);
    sweep_reply_encode(body, results, 3);
    /* PnL array first (1.0 is combo 1's), then the trade counts (7 is combo 1's). */
    const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    const uint8_t neg_zero[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    assert_memory_equal(body, neg_zero, 8);
    assert_memory_equal(body + 8, one, 8);
    assert_int_equal(body[24 + 8], 7);
    assert_int_equal(body[40 + 7], 0x7f);

    struct combo_result back[3];
    assert_int_equal(sweep_reply_decode(body, sizeof body, back, 3), 0);
    for (int k = 0; k < 3; k++) {
        assert_same_double(back[k].pnl, results[k].pnl);
        assert_true(back[k].trades == results[k].trades);
    }
}

static void sweep_reply_of_the_wrong_size_is_refused(void **state)
{
    (void)state;
    uint8_t body[64] = {0};
    struct combo_result back[4];
    assert_int_equal(sweep_reply_decode(body, 48, back, 3), 0);
    assert_int_equal(sweep_reply_decode(body, 47, back, 3), -1);
    assert_int_equal(sweep_reply_decode(body, 49, back, 3), -1);
    assert_int_equal(sweep_reply_decode(body, 32, back, 3), -1);
    assert_int_equal(sweep_reply_decode(body, 64, back, 3), -1);
    assert_int_equal(sweep_reply_decode(body, 0, back, 0), 0);
    assert_int_equal(sweep_reply_decode(body, 16, back, 0), -1);
}

static void error_frame_header_sets_the_top_bit(void **state)
{
    (void)state;
    uint8_t h[4];
    assert_int_equal(error_frame_header(h, 5), 5);
    const uint8_t five[4] = {0x05, 0x00, 0x00, 0x80};
    assert_memory_equal(h, five, 4);
    assert_int_equal(error_frame_header(h, 0), 0);
    const uint8_t zero[4] = {0x00, 0x00, 0x00, 0x80};
    assert_memory_equal(h, zero, 4);
    assert_int_equal(error_frame_header(h, 300), 300);
    assert_int_equal(le_get_u32(h), ERROR_FRAME_FLAG | 300u);
    /* A length that would reach the flag bit is clamped, never wrapped to a small one. */
    assert_int_equal(error_frame_header(h, 0x7fffffffu), 0x7fffffffu);
    assert_int_equal(le_get_u32(h), 0xffffffffu);
    assert_int_equal(error_frame_header(h, (size_t)0x80000000u + 3), 0x7fffffffu);
    assert_int_equal(le_get_u32(h), 0xffffffffu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(u32_is_lowest_byte_first),
        cmocka_unit_test(f64_bytes_are_ieee_little_endian),
        cmocka_unit_test(i64_bytes_are_twos_complement_little_endian),
        cmocka_unit_test(body_size_is_exact_and_never_wraps),
        cmocka_unit_test(request_round_trips_bit_for_bit),
        cmocka_unit_test(request_layout_is_the_documented_one),
        cmocka_unit_test(shorter_than_the_header_is_refused),
        cmocka_unit_test(unknown_opcode_is_refused),
        cmocka_unit_test(length_disagreeing_with_the_counts_is_refused),
        cmocka_unit_test(sweep_without_bars_is_refused),
        cmocka_unit_test(each_opcode_has_its_shape),
        cmocka_unit_test(windows_outside_one_to_n_bars_are_refused),
        cmocka_unit_test(windows_of_one_and_of_n_bars_are_accepted),
        cmocka_unit_test(echo_ignores_parameter_values),
        cmocka_unit_test(echo_without_combos_is_accepted),
        cmocka_unit_test(message_respects_the_buffer_size),
        cmocka_unit_test(messages_are_printable_and_keep_errno),
        cmocka_unit_test(sweep_reply_round_trips_and_lays_out_two_arrays),
        cmocka_unit_test(sweep_reply_of_the_wrong_size_is_refused),
        cmocka_unit_test(error_frame_header_sets_the_top_bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
