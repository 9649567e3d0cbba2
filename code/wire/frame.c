/*
 * frame.c - encoding and checking frames of the wire protocol.
 *
 * Tangled from paper/50-protocol.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "wire/frame.h"

/* <<little-endian-scalars>>, paper/50-protocol.md */
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

/* <<little-endian-arrays>>, paper/50-protocol.md */
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

/* <<request-size>>, paper/50-protocol.md */
uint64_t request_body_size(uint32_t n_bars, uint32_t n_combos)
{
    return REQUEST_HEADER_BYTES + (uint64_t)n_bars * 8 + (uint64_t)n_combos * PARAM_BYTES;
}

/* <<request-encode>>, paper/50-protocol.md */
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

/* <<request-decode>>, paper/50-protocol.md */
int request_decode(const uint8_t *body, size_t len, struct request_view *req,
                   char *err, size_t err_size)
{
    if (len < REQUEST_HEADER_BYTES)
        return set_error(err, err_size, "request body of %zu bytes is shorter than its "
                         "%d-byte header", len, REQUEST_HEADER_BYTES);
    req->opcode = body[0] & ~OP_TIMED;         /* the one place the bit is stripped */
    req->timed = (body[0] & OP_TIMED) != 0;
    req->n_bars = le_get_u32(body + 1);
    req->n_combos = le_get_u32(body + 5);
    if (req->opcode >= OPCODE_COUNT)
        return set_error(err, err_size, "unknown opcode %u (opcodes are 0 to %d, or %u to %u "
                         "with the timing bit)", body[0], OPCODE_COUNT - 1, OP_TIMED,
                         OP_TIMED + OPCODE_COUNT - 1);
    uint64_t expected = request_body_size(req->n_bars, req->n_combos);
    if (expected != len)
        return set_error(err, err_size, "body is %zu bytes but n_bars = %u and n_combos = %u "
                         "require %llu", len, req->n_bars, req->n_combos,
                         (unsigned long long)expected);
    req->close = body + REQUEST_HEADER_BYTES;
    req->params = req->close + (size_t)req->n_bars * 8;
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

/* <<request-check-windows>>, paper/50-protocol.md */
int request_check_windows(const struct combo_params *params, size_t n_combos,
                          int64_t max_window, const char *limit, char *err, size_t err_size)
{
    for (size_t k = 0; k < n_combos; k++) {
        const struct combo_params *p = &params[k];
        const int64_t six[PARAMS_PER_COMBO] = {p->h_half, p->h_len, p->h_sqrt, p->t_third,
                                               p->t_half, p->t_len};
        for (int i = 0; i < PARAMS_PER_COMBO; i++)
            if (six[i] < 1 || six[i] > max_window)
                return set_error(err, err_size, "combo %zu, parameter %d: window %lld is "
                                 "outside 1..%s (%lld)", k, i, (long long)six[i], limit,
                                 (long long)max_window);
    }
    return 0;
}

/* <<request-check-closes>>, paper/50-protocol.md */
int request_check_closes(const double *close, size_t n, char *err, size_t err_size)
{
    for (size_t t = 0; t < n; t++)
        if (!isfinite(close[t]))
            return set_error(err, err_size, "close[%zu] is %g; every close must be a finite "
                             "number", t, close[t]);
    return 0;
}

/* <<reply-codec>>, paper/50-protocol.md */
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

void timing_trailer_encode(uint8_t out[TIMING_TRAILER_BYTES], const struct call_timing *t)
{
    const uint64_t v[TIMING_TRAILER_FIELDS] = {t->engine_ns, t->decode_ns, t->compute_ns,
                                               t->encode_ns, t->cpu_ns, t->received_ns,
                                               t->faults};
    for (int i = 0; i < TIMING_TRAILER_FIELDS; i++)
        le_put_u64(out + 8 * i, v[i]);
}

int timing_trailer_decode(const uint8_t *body, size_t len, struct call_timing *t)
{
    if (len < TIMING_TRAILER_BYTES)
        return -1;
    const uint8_t *p = body + len - TIMING_TRAILER_BYTES;
    uint64_t v[TIMING_TRAILER_FIELDS];
    for (int i = 0; i < TIMING_TRAILER_FIELDS; i++)
        v[i] = le_get_u64(p + 8 * i);
    *t = (struct call_timing){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    return 0;
}
