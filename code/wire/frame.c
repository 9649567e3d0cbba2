/*
 * frame.c - encoding and checking frames of the wire protocol.
 *
 * Tangled from paper/50-protocol.md.
 */
#include <stdio.h>
#include <string.h>

#include "wire/error.h"
#include "wire/frame.h"

void le_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

uint32_t le_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void le_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_IS_LITTLE_ENDIAN 1
#else
#define HOST_IS_LITTLE_ENDIAN 0
#endif

void le_put_f64s(uint8_t *dst, const double *src, size_t n)
{
    if (n == 0)
        return;
    if (HOST_IS_LITTLE_ENDIAN) {
        memcpy(dst, src, n * 8);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &src[i], 8);
        le_put_u64(dst + 8 * i, bits);
    }
}

void le_get_f64s(double *dst, const uint8_t *src, size_t n)
{
    if (n == 0)
        return;
    if (HOST_IS_LITTLE_ENDIAN) {
        memcpy(dst, src, n * 8);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = le_get_u64(src + 8 * i);
        memcpy(&dst[i], &bits, 8);
    }
}

void le_put_i64s(uint8_t *dst, const int64_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        le_put_u64(dst + 8 * i, (uint64_t)src[i]);
}

void le_get_i64s(int64_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (int64_t)le_get_u64(src + 8 * i);
}

uint64_t request_body_size(uint32_t n_bars, uint32_t n_combos)
{
    return REQUEST_HEADER_BYTES + (uint64_t)n_bars * 8 + (uint64_t)n_combos * PARAM_BYTES;
}

void request_encode(uint8_t *body, enum opcode op, const double *close, uint32_t n_bars,
                    const struct combo_params *params, uint32_t n_combos)
{
    body[0] = (uint8_t)op;
    le_put_u32(body + 1, n_bars);
    le_put_u32(body + 5, n_combos);
    uint8_t *p = body + REQUEST_HEADER_BYTES;
    le_put_f64s(p, close, n_bars);
    p += (size_t)n_bars * 8;
    for (uint32_t k = 0; k < n_combos; k++) {
        const int64_t six[PARAMS_PER_COMBO] = {params[k].h_half, params[k].h_len,
            params[k].h_sqrt, params[k].t_third, params[k].t_half, params[k].t_len};
        le_put_i64s(p + (size_t)k * PARAM_BYTES, six, PARAMS_PER_COMBO);
    }
}

int request_decode(const uint8_t *body, size_t len, struct request_view *req,
                   char *err, size_t err_size)
{
    if (len < REQUEST_HEADER_BYTES)
        return set_error(err, err_size, "request body of %zu bytes is shorter than its "
                      "%d-byte header", len, REQUEST_HEADER_BYTES);
    req->opcode = body[0];
    req->n_bars = le_get_u32(body + 1);
    req->n_combos = le_get_u32(body + 5);
    if (req->opcode >= OPCODE_COUNT)
        return set_error(err, err_size, "unknown opcode %u (opcodes are 0 to %d)",
                      req->opcode, OPCODE_COUNT - 1);
    uint64_t expected = request_body_size(req->n_bars, req->n_combos);
    if (expected != len)
        return set_error(err, err_size, "body is %zu bytes but n_bars = %u and n_combos = %u "
                      "require %llu", len, req->n_bars, req->n_combos,
                      (unsigned long long)expected);
    req->close = body + REQUEST_HEADER_BYTES;
    req->params = req->close + (size_t)req->n_bars * 8;
    {
        static const struct { uint8_t op; int bars, combos; const char *shape; } SHAPES[] = {
            {OP_LOAD, 1, 0, "n_bars >= 1 and n_combos = 0"},
            {OP_SWEEP_LOADED, 0, -1, "n_bars = 0"},
            {OP_OPEN_STREAM, 0, 1, "n_bars = 0 and n_combos >= 1"},
            {OP_BAR, 2, 0, "n_bars = 1 and n_combos = 0"},
            {OP_CLOSE_STREAM, 0, 0, "n_bars = 0 and n_combos = 0"},
        };
        for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
            if (req->opcode != SHAPES[i].op)
                continue;
            /* bars: 0 none, 1 at least one, 2 exactly one; combos: 0 none, 1 some, -1 any */
            int bars_ok = SHAPES[i].bars == 0 ? req->n_bars == 0
                        : SHAPES[i].bars == 1 ? req->n_bars >= 1 : req->n_bars == 1;
            int combos_ok = SHAPES[i].combos == 0 ? req->n_combos == 0
                          : SHAPES[i].combos == 1 ? req->n_combos >= 1 : 1;
            if (!bars_ok || !combos_ok)
                return set_error(err, err_size, "opcode %u needs %s (got n_bars = %u, "
                                 "n_combos = %u)", req->opcode, SHAPES[i].shape, req->n_bars,
                                 req->n_combos);
        }
    }
    if (req->opcode == OP_OPEN_STREAM) {
        for (uint64_t i = 0; i < (uint64_t)req->n_combos * PARAMS_PER_COMBO; i++) {
            int64_t window = (int64_t)le_get_u64(req->params + 8 * i);
            if (window < 1 || window > MAX_STREAM_WINDOW)
                return set_error(err, err_size, "combo %llu: window %lld is outside 1..%d",
                                 (unsigned long long)(i / PARAMS_PER_COMBO), (long long)window,
                                 MAX_STREAM_WINDOW);
        }
    }
    if (req->opcode == OP_SWEEP && req->n_bars == 0)
        return set_error(err, err_size, "a sweep needs at least one bar (n_bars is 0)");
    if (req->opcode == OP_SWEEP) {
        for (uint64_t i = 0; i < (uint64_t)req->n_combos * PARAMS_PER_COMBO; i++) {
            int64_t window = (int64_t)le_get_u64(req->params + 8 * i);
            if (window < 1 || window > (int64_t)req->n_bars)
                return set_error(err, err_size, "combo %llu, parameter %d: window %lld is "
                              "outside 1..n_bars (%u)", (unsigned long long)(i / PARAMS_PER_COMBO),
                              (int)(i % PARAMS_PER_COMBO), (long long)window, req->n_bars);
        }
    }
    return 0;
}
void request_params(const struct request_view *req, struct combo_params *params)
{
    for (uint32_t k = 0; k < req->n_combos; k++) {
        int64_t six[PARAMS_PER_COMBO];
        le_get_i64s(six, req->params + (size_t)k * PARAM_BYTES, PARAMS_PER_COMBO);
        params[k] = (struct combo_params){six[0], six[1], six[2], six[3], six[4], six[5]};
    }
}

uint64_t sweep_reply_size(uint32_t n_combos)
{
    return (uint64_t)n_combos * RESULT_BYTES;
}

void sweep_reply_encode(uint8_t *body, const struct combo_result *results, uint32_t n_combos)
{
    for (uint32_t k = 0; k < n_combos; k++) {
        le_put_f64s(body + 8 * (size_t)k, &results[k].pnl, 1);
        le_put_i64s(body + 8 * ((size_t)n_combos + k), &results[k].trades, 1);
    }
}

int sweep_reply_decode(const uint8_t *body, size_t len, struct combo_result *results,
                       uint32_t n_combos)
{
    if (len != sweep_reply_size(n_combos))
        return -1;
    for (uint32_t k = 0; k < n_combos; k++) {
        le_get_f64s(&results[k].pnl, body + 8 * (size_t)k, 1);
        le_get_i64s(&results[k].trades, body + 8 * ((size_t)n_combos + k), 1);
    }
    return 0;
}

uint32_t error_frame_header(uint8_t header[FRAME_HEADER_BYTES], size_t message_len)
{
    uint32_t n = message_len > FRAME_LENGTH_MASK ? FRAME_LENGTH_MASK : (uint32_t)message_len;
    le_put_u32(header, ERROR_FRAME_FLAG | n);
    return n;
}
