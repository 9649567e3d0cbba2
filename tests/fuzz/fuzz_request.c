/*
 * fuzz_request.c - a libFuzzer target for the engine's request path.
 *
 * One input is what a client could send on one connection: any bytes, read
 * as the wire protocol reads them, [u32 length][body] after [u32 length][body]
 * (paper/50-protocol.md). Each input goes three ways:
 *
 *   1. request_decode alone, on every frame's body and on the whole input
 *      taken as one body: it must accept or refuse without touching a byte
 *      outside the body, and what it accepts must re-encode to the same bytes.
 *   2. handle_request on ONE struct connection, frame after frame, as the
 *      engine would (a refused request ends the connection), so the state of
 *      the stateful opcodes 2-6 carries from frame to frame (a body that
 *      starts with '{' goes to the JSON endpoint, paper/83-json.md, as in the
 *      engine, and its answer must decode to the same results). Every reply is
 *      checked against a model of the protocol: its size, and for sweeps,
 *      loaded sweeps and closed streams its results, bit for bit, against
 *      sweep_naive on the same numbers. Every refusal is checked too: the
 *      model says which requests must be refused, and no refusal may claim
 *      that the engine ran out of memory on an input this small, or be
 *      anything but UTF-8 text. After each
 *      request the connection's memory must be within the bound that
 *      paper/92-appendix-robustness.md states.
 *   3. serve_connection, the engine's own loop, reading the input from a
 *      memfd and writing to another: what it writes must be exactly the
 *      reply frames of pass 2, then at most one error frame, then nothing.
 *
 * Any difference is reported on stderr and ends the process with abort(),
 * which libFuzzer records as a crash; the sanitizers catch the rest.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined; the
 * same file, without libFuzzer, replays the seeds and tests/fuzz/regressions/
 * in tests/test_fuzz_regressions.c (FUZZ_NO_MAIN_NEEDED: libFuzzer supplies
 * main, the replay supplies its own).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wire/frame.h"
#include "wire/json_codec.h"
#include "kernel/kernel.h"
#include "kernel/kernel_stream.h"
#include "engine/service.h"

/*
 * The engine under fuzzing is configured as the real one, except that its
 * maximum frame is 64 KiB instead of 16 MiB and its --max-work 2^22 steps
 * instead of 5e10, so that every limit is within reach of inputs of a few
 * kilobytes (and no input asks for more than a few milliseconds of work).
 */
enum { FUZZ_MAX_FRAME = 64 * 1024 };
#define FUZZ_MAX_WORK (1ull << 22)

static const struct engine_config FUZZ_CONFIG = {
    .max_frame = FUZZ_MAX_FRAME,
    .max_work = FUZZ_MAX_WORK,
    .sweep = sweep_naive_in,
    .idle_timeout_ms = 0,          /* memfds never block: no deadline is needed */
    .frame_timeout_ms = 0,
};

/* ---- Reporting ------------------------------------------------------------ */

/* The replay names the input it is running, so a failure says which. */
static const char *fuzz_input_name = "";

static void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_request: %s%sproperty violated: ", fuzz_input_name,
            *fuzz_input_name ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* Length of the UTF-8 character at s[0..n), or 0 if it is not one. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
               : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    uint32_t cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* An error message: non-empty, NUL-terminated within err_size, UTF-8 text
 * without control characters (the protocol's error frames are UTF-8). */
static void check_message(const char *err, size_t err_size, const char *where)
{
    size_t n = strnlen(err, err_size);
    if (n == 0 || n == err_size)
        fuzz_fail("%s: error message empty or unterminated", where);
    for (size_t i = 0; i < n;) {
        size_t len = utf8_char((const unsigned char *)err + i, n - i);
        if (len == 0 || (len == 1 && (err[i] < 0x20 || err[i] == 0x7f)))
            fuzz_fail("%s: error message is not UTF-8 text (byte 0x%02x at %zu)", where,
                      (unsigned char)err[i], i);
        i += len;
    }
    if (strncmp(err, "engine out of memory", 20) == 0)
        fuzz_fail("%s: \"%s\" on an input of a few kilobytes", where, err);
}

/* ---- Pass 1: the decoder alone ----------------------------------------------- */

static void check_decode(const uint8_t *body, size_t len)
{
    struct request_view req;
    char err[512];
    memset(err, 0, sizeof err);
    if (request_decode(body, len, &req, err, sizeof err) != 0) {
        check_message(err, sizeof err, "request_decode");
        return;
    }
    if (req.opcode >= OPCODE_COUNT || request_body_size(req.n_bars, req.n_combos) != len)
        fuzz_fail("request_decode accepted opcode %u, %u bars, %u combos in %zu bytes",
                  req.opcode, req.n_bars, req.n_combos, len);
    /* Decoding then encoding gives back the same bytes. */
    double *close = malloc((size_t)req.n_bars * sizeof *close + 1);
    struct combo_params *params = malloc((size_t)req.n_combos * sizeof *params + 1);
    uint8_t *again = malloc(len);
    if (close == NULL || params == NULL || again == NULL)
        abort();
    le_get_f64s(close, req.close, req.n_bars);
    request_params(&req, params);
    if (req.opcode != (body[0] & ~OP_TIMED) || req.timed != ((body[0] & OP_TIMED) != 0))
        fuzz_fail("opcode byte 0x%02x decoded as %u, timed %d", body[0], req.opcode, req.timed);
    request_encode(again, (enum opcode)(req.opcode | (req.timed ? OP_TIMED : 0)), close,
                   req.n_bars, params, req.n_combos);
    if (memcmp(again, body, len) != 0)
        fuzz_fail("a decoded request of %zu bytes re-encodes differently", len);
    free(close);
    free(params);
    free(again);
}

/* ---- Pass 2: handle_request against a model of the protocol ----------------- */

/* What a connection should know, kept independently of struct connection. */
struct model {
    double *loaded;                /* opcode 2's series */
    uint32_t loaded_bars;
    int has_loaded;
    struct combo_params *stream_params;    /* opcode 4's parameter sets */
    uint32_t stream_combos;
    double *bars;                  /* the closes fed to the stream so far */
    size_t n_bars, bars_cap;
    int streaming;
    size_t largest_body;           /* the largest binary request body seen */
    size_t largest_json;           /* the largest JSON request body seen */
};

static void model_free(struct model *m)
{
    free(m->loaded);
    free(m->stream_params);
    free(m->bars);
    memset(m, 0, sizeof *m);
}

static int windows_within(const struct combo_params *p, uint32_t n, int64_t max)
{
    for (uint32_t k = 0; k < n; k++) {
        const int64_t w[PARAMS_PER_COMBO] = {p[k].h_half, p[k].h_len, p[k].h_sqrt,
                                             p[k].t_third, p[k].t_half, p[k].t_len};
        for (int i = 0; i < PARAMS_PER_COMBO; i++)
            if (w[i] < 1 || w[i] > max)
                return 0;
    }
    return 1;
}

/*
 * The memory a stream over these parameter sets holds, computed here from
 * the definition of kernel_stream.c rather than taken from it: the state of
 * every combination, a close ring as long as the longest window, and per
 * combination two rings of h_sqrt and t_len values, each ring stored twice.
 */
static uint64_t model_stream_bytes(const struct combo_params *p, uint32_t n)
{
    int64_t longest = 1;
    uint64_t bytes = (uint64_t)(n ? n : 1) * sizeof(struct stream_combo);
    for (uint32_t k = 0; k < n; k++) {
        const int64_t w[] = {p[k].h_half, p[k].h_len, p[k].t_third, p[k].t_half, p[k].t_len};
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
            longest = w[i] > longest ? w[i] : longest;
        bytes += 2 * sizeof(double) * (uint64_t)(p[k].h_sqrt + p[k].t_len);
    }
    return bytes + 2 * sizeof(double) * (uint64_t)longest;
}

/* The most a stream may hold: one maximum frame (see paper/80-stateful.md). */
static uint64_t stream_budget(void)
{
    return FUZZ_CONFIG.max_frame;
}

/*
 * The bound of paper/92-appendix-robustness.md on what a connection holds outside
 * its stream, for a largest request body of L bytes: the body and the
 * parameter sets (each at most L), the results and the reply (each at most
 * L/3), and two workspaces of seven regions, each region at most L plus
 * two pages (rounding and offset); every buffer also has at least one byte.
 */
static uint64_t connection_bound(size_t largest_body)
{
    uint64_t L = largest_body;
    return 2 * L + 2 * (L / 3 + 1) + 2 * 7 * (L + 2 * 4096) + 16;
}

/*
 * A JSON body packs more into a byte than a binary one: a bar can be two
 * bytes ("1,"), a combination fourteen ("[1,1,1,1,1,1],"). For the bound it
 * therefore counts as a binary body four times its size, plus the reply
 * text kept on the connection (under four bytes per byte of request).
 */
static uint64_t connection_bound_with_json(size_t largest_body, size_t largest_json)
{
    size_t as_binary = 4 * largest_json > largest_body ? 4 * largest_json : largest_body;
    return connection_bound(as_binary) + 4 * (uint64_t)largest_json + 64;
}

static uint64_t connection_bytes(const struct connection *c)
{
    const struct buffer *all[] = {&c->body, &c->params, &c->results, &c->out};
    uint64_t bytes = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bytes += all[i]->cap;
    bytes += c->workspace.block_bytes + c->loaded.block_bytes;
    if (c->json_reply != NULL)
        bytes += strlen(c->json_reply) + 1;
    return bytes;
}

/* The reply as one buffer (pieces joined). */
static size_t reply_bytes(const struct connection *c, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < c->n_reply; i++) {
        if (n + c->reply_len[i] > cap)
            fuzz_fail("a reply of more than %zu bytes", cap);
        memcpy(out + n, c->reply[i], c->reply_len[i]);
        n += c->reply_len[i];
    }
    return n;
}

/* The reply must be the sweep of these parameter sets over this series. */
static void check_sweep_reply(const uint8_t *reply, size_t len, const double *close,
                              size_t n_bars, const struct combo_params *params, uint32_t n,
                              const char *what)
{
    struct combo_result *want = calloc(n ? n : 1, sizeof *want);
    struct combo_result *got = calloc(n ? n : 1, sizeof *got);
    if (want == NULL || got == NULL)
        abort();
    if (sweep_reply_decode(reply, len, got, n) != 0)
        fuzz_fail("%s: a reply of %zu bytes for %u combos", what, len, n);
    if (sweep_naive(close, n_bars, params, n, want) != 0)
        abort();
    for (uint32_t k = 0; k < n; k++)
        if (memcmp(&want[k].pnl, &got[k].pnl, sizeof(double)) != 0 ||
            want[k].trades != got[k].trades)
            fuzz_fail("%s: combo %u is (%.17g, %lld), sweep_naive says (%.17g, %lld)", what,
                      k, got[k].pnl, (long long)got[k].trades, want[k].pnl,
                      (long long)want[k].trades);
    free(want);
    free(got);
}

/* Whether a request of this opcode may carry these counts (the listing of
 * paper/50-protocol.md and paper/80-stateful.md); an unknown opcode may not. */
static int model_shape_ok(const struct request_view *req)
{
    uint32_t bars = req->n_bars, combos = req->n_combos;
    switch (req->opcode) {
    case OP_SWEEP: return bars >= 1;
    case OP_ECHO: return 1;
    case OP_LOAD: return bars >= 1 && combos == 0;
    case OP_SWEEP_LOADED: return bars == 0;
    case OP_OPEN_STREAM: return bars == 0 && combos >= 1;
    case OP_BAR: return bars == 1 && combos == 0;
    case OP_CLOSE_STREAM: return bars == 0 && combos == 0;
    default: return 0;
    }
}

/* Window-bar steps of a sweep, from the definition of paper/55-engine.md:
 * n_bars times each combination's seven windows (saturating). */
static uint64_t model_work(const struct combo_params *p, uint32_t n, uint64_t n_bars)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t w = (uint64_t)(p[k].h_half + p[k].h_len + p[k].h_sqrt + p[k].t_third +
                                p[k].t_half + 2 * p[k].t_len) * n_bars;
        total = w > UINT64_MAX - total ? UINT64_MAX : total + w;
    }
    return total;
}

/* Whether every close of the request is a finite number (paper/50-protocol.md):
 * the exponent bits of each are not all ones. */
static int closes_finite(const struct request_view *req)
{
    for (uint32_t t = 0; t < req->n_bars; t++) {
        uint64_t bits = 0;
        for (int b = 7; b >= 0; b--)
            bits = bits << 8 | req->close[8 * (size_t)t + (size_t)b];
        if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
            return 0;
    }
    return 1;
}

/* Whether the model expects the engine to answer (1) or refuse (0). */
static int model_expects_answer(const struct model *m, const struct request_view *req,
                                const struct combo_params *params)
{
    if (!model_shape_ok(req))
        return 0;
    switch (req->opcode) {
    case OP_SWEEP:
        return closes_finite(req) && windows_within(params, req->n_combos, req->n_bars) &&
               model_work(params, req->n_combos, req->n_bars) <= FUZZ_MAX_WORK;
    case OP_LOAD:
        return closes_finite(req);
    case OP_SWEEP_LOADED:
        return m->has_loaded && windows_within(params, req->n_combos, m->loaded_bars) &&
               model_work(params, req->n_combos, m->loaded_bars) <= FUZZ_MAX_WORK;
    case OP_OPEN_STREAM:
        return windows_within(params, req->n_combos, MAX_STREAM_WINDOW) &&
               model_stream_bytes(params, req->n_combos) <= stream_budget() &&
               model_work(params, req->n_combos, 1) <= FUZZ_MAX_WORK;
    case OP_BAR:
        return m->streaming && closes_finite(req);
    case OP_CLOSE_STREAM:
        return m->streaming;
    default:
        return 1;
    }
}

/* Checks one answered request and brings the model up to date. */
static void model_answered(struct model *m, const struct request_view *req,
                           const struct combo_params *params, const uint8_t *reply, size_t len)
{
    double *close = malloc((size_t)req->n_bars * sizeof *close + 1);
    if (close == NULL)
        abort();
    le_get_f64s(close, req->close, req->n_bars);
    switch (req->opcode) {
    case OP_SWEEP:
        check_sweep_reply(reply, len, close, req->n_bars, params, req->n_combos, "sweep");
        break;
    case OP_ECHO:
        if (len != (size_t)req->n_bars * 8 || memcmp(reply, req->close, len) != 0)
            fuzz_fail("echo of %u doubles came back as %zu different bytes", req->n_bars, len);
        break;
    case OP_LOAD:
        if (len != 0)
            fuzz_fail("load replied with %zu bytes", len);
        free(m->loaded);
        m->loaded = close;
        m->loaded_bars = req->n_bars;
        m->has_loaded = 1;
        close = NULL;
        break;
    case OP_SWEEP_LOADED:
        check_sweep_reply(reply, len, m->loaded, m->loaded_bars, params, req->n_combos,
                          "sweep loaded");
        break;
    case OP_OPEN_STREAM:
        if (len != 0)
            fuzz_fail("open stream replied with %zu bytes", len);
        free(m->stream_params);
        m->stream_params = malloc((size_t)req->n_combos * sizeof *params);
        if (m->stream_params == NULL)
            abort();
        memcpy(m->stream_params, params, (size_t)req->n_combos * sizeof *params);
        m->stream_combos = req->n_combos;
        m->n_bars = 0;
        m->streaming = 1;
        break;
    case OP_BAR:
        if (len != m->stream_combos)
            fuzz_fail("a bar answered %zu positions for %u combos", len, m->stream_combos);
        for (size_t k = 0; k < len; k++)
            if ((int8_t)reply[k] < -1 || (int8_t)reply[k] > 1)
                fuzz_fail("position %d is not -1, 0 or +1", (int8_t)reply[k]);
        if (m->n_bars == m->bars_cap) {
            m->bars_cap = m->bars_cap ? 2 * m->bars_cap : 64;
            m->bars = realloc(m->bars, m->bars_cap * sizeof *m->bars);
            if (m->bars == NULL)
                abort();
        }
        m->bars[m->n_bars++] = close[0];
        break;
    case OP_CLOSE_STREAM:
        /* The stream's results are the batch kernel's over the bars it was fed. */
        check_sweep_reply(reply, len, m->bars, m->n_bars, m->stream_params, m->stream_combos,
                          "close stream");
        m->streaming = 0;
        break;
    default:
        fuzz_fail("opcode %u answered but unknown to the model", req->opcode);
    }
    free(close);
}

/* An answered JSON request: its reply must be the sweep it asked for; the
 * connection must know whether it asked to be timed. Returns that. */
static int check_json_answer(const uint8_t *body, size_t len, const uint8_t *reply,
                             size_t reply_len, const struct connection *c)
{
    struct json_request req;
    char err[512];
    if (json_request_decode((const char *)body, len, &req, err, sizeof err) != 0)
        fuzz_fail("a JSON request was answered but does not decode: %s", err);
    if (c->timed != req.timed || !c->reply_is_json)
        fuzz_fail("a JSON request that %s asked for timing was taken for one that %s",
                  req.timed ? "" : "has not", c->timed ? "did" : "did not");
    int timed = req.timed;
    struct combo_result *want = calloc(req.n_combos + 1, sizeof *want);
    struct combo_result *got = calloc(req.n_combos + 1, sizeof *got);
    if (want == NULL || got == NULL || sweep_naive(req.close, req.n_bars, req.params,
                                                   req.n_combos, want) != 0)
        abort();
    if (json_reply_decode((const char *)reply, reply_len, got, req.n_combos, err,
                          sizeof err) != 0)
        fuzz_fail("a JSON reply for %zu combos does not decode: %s", req.n_combos, err);
    for (size_t k = 0; k < req.n_combos; k++)
        if (memcmp(&want[k].pnl, &got[k].pnl, sizeof(double)) != 0 ||
            want[k].trades != got[k].trades)
            fuzz_fail("JSON sweep: combo %zu is (%.17g, %lld), sweep_naive says (%.17g, %lld)",
                      k, got[k].pnl, (long long)got[k].trades, want[k].pnl,
                      (long long)want[k].trades);
    free(want);
    free(got);
    json_request_free(&req);
    return timed;
}

/* The engine's rule (paper/83-json.md): JSON white space, a byte-order
 * mark's first byte, '{' or '[' first makes a body JSON text. */
static int starts_as_json(const uint8_t *body, size_t len)
{
    static const uint8_t FIRST[] = {' ', '\t', '\n', '\r', 0xef, '{', '['};
    return len > 0 && memchr(FIRST, body[0], sizeof FIRST) != NULL;
}

/* Replies of pass 2, as serve_connection must write them in pass 3: the
 * bodies one after another, and for each its place and how it was asked
 * (a timed reply carries the engine's timing as well). */
struct expected_frame {
    size_t at, len;                /* its body in bytes[] */
    int timed, json;
    uint8_t opcode;                /* binary: the opcode served */
};

struct expected {
    uint8_t *bytes;
    size_t len, cap;
    struct expected_frame *frames;
    size_t n_frames, frames_cap;
    int ends_in_error;             /* an error frame follows the replies */
    const char *error;             /* its exact message, when pass 2 knows it */
    char error_text[512];
};

static void expect_frame(struct expected *x, const uint8_t *body, size_t len, int timed,
                         int json, uint8_t opcode)
{
    if (x->bytes == NULL || x->len + len > x->cap) {
        x->cap = 2 * (x->len + len) + 64;
        x->bytes = realloc(x->bytes, x->cap);
    }
    if (x->n_frames == x->frames_cap) {
        x->frames_cap = x->frames_cap ? 2 * x->frames_cap : 16;
        x->frames = realloc(x->frames, x->frames_cap * sizeof *x->frames);
    }
    if (x->bytes == NULL || x->frames == NULL)
        abort();
    memcpy(x->bytes + x->len, body, len);
    x->frames[x->n_frames++] = (struct expected_frame){x->len, len, timed, json, opcode};
    x->len += len;
}

/* Serves the frames of data[0..size) on one connection; fills *x. */
static void handle_frames(const uint8_t *data, size_t size, struct expected *x)
{
    struct connection c;
    struct model m;
    static uint8_t *reply;                     /* allocated once: it is large */
    if (reply == NULL && (reply = malloc(8 * FUZZ_MAX_FRAME)) == NULL)
        abort();
    memset(&m, 0, sizeof m);
    connection_init(&c, &FUZZ_CONFIG);
    size_t at = 0;
    while (at < size) {
        if (size - at < FRAME_HEADER_BYTES) {
            x->ends_in_error = 1;              /* a partial header, then the end */
            break;
        }
        uint32_t len = le_get_u32(data + at);
        at += FRAME_HEADER_BYTES;
        if (len > FUZZ_CONFIG.max_frame || len > size - at) {
            x->ends_in_error = 1;              /* too long, or cut short */
            break;
        }
        const uint8_t *body = data + at;
        at += len;
        check_decode(body, len);
        int json = starts_as_json(body, len);
        if (json && len > m.largest_json)
            m.largest_json = len;
        else if (!json && len > m.largest_body)
            m.largest_body = len;

        struct request_view req;
        char decode_err[512], err[512];
        memset(err, 0, sizeof err);
        int decoded = !json && request_decode(body, len, &req, decode_err,
                                              sizeof decode_err) == 0;
        struct combo_params *params = NULL;
        if (decoded) {
            params = malloc((size_t)req.n_combos * sizeof *params + 1);
            if (params == NULL)
                abort();
            request_params(&req, params);
        }
        int expect = decoded && model_expects_answer(&m, &req, params);
        int status = handle_request(&c, body, len, err, sizeof err);
        if (status != 0 && status != -1)
            fuzz_fail("handle_request returned %d", status);
        if (!json && (status == 0) != expect)
            fuzz_fail("opcode %u (%u bars, %u combos): the engine %s, the model %s (%s)",
                      len ? body[0] : 0, decoded ? req.n_bars : 0, decoded ? req.n_combos : 0,
                      status == 0 ? "answered" : "refused",
                      expect ? "expected an answer" : "expected a refusal",
                      status == 0 ? "" : err);
        if (status != 0) {
            check_message(err, sizeof err, "handle_request");
            if (!json && !decoded && strcmp(err, decode_err) != 0)
                fuzz_fail("handle_request said \"%s\", request_decode \"%s\"", err, decode_err);
            x->ends_in_error = 1;
            snprintf(x->error_text, sizeof x->error_text, "%s", err);
            x->error = x->error_text;
            free(params);
            break;                             /* the engine closes the connection */
        }
        size_t n = reply_bytes(&c, reply, 8 * FUZZ_MAX_FRAME);
        int timed;
        if (json) {
            timed = check_json_answer(body, len, reply, n, &c);
        } else {
            model_answered(&m, &req, params, reply, n);
            timed = (body[0] & OP_TIMED) != 0;
            if (c.timed != timed || c.reply_is_json)
                fuzz_fail("opcode byte 0x%02x: the connection's timing flag is %d", body[0],
                          c.timed);
        }
        expect_frame(x, reply, n, timed, json, json ? 0 : req.opcode);
        free(params);

        uint64_t held = connection_bytes(&c);
        uint64_t bound = connection_bound_with_json(m.largest_body, m.largest_json);
        if (held > bound)
            fuzz_fail("the connection holds %llu bytes, above the bound %llu for largest "
                      "bodies of %zu bytes (binary) and %zu (JSON)", (unsigned long long)held,
                      (unsigned long long)bound, m.largest_body, m.largest_json);
        if (c.streaming) {
            uint64_t stream = model_stream_bytes(m.stream_params, m.stream_combos);
            if (stream > stream_budget())
                fuzz_fail("an open stream holds %llu bytes, above its budget of %llu",
                          (unsigned long long)stream, (unsigned long long)stream_budget());
        }
    }
    connection_free(&c);
    model_free(&m);
}

/* ---- Pass 3: the engine's own loop over memfds --------------------------------- */

/* The engine's timing must be consistent (paper/50-protocol.md): the three
 * phases within the span, and nothing computed for an echo or a load. */
static void check_timing(const struct call_timing *t, const struct expected_frame *f, size_t i)
{
    if (t->decode_ns + t->compute_ns + t->encode_ns > t->engine_ns || t->engine_ns == 0)
        fuzz_fail("reply %zu: engine %llu ns holds decode %llu, compute %llu, encode %llu", i,
                  (unsigned long long)t->engine_ns, (unsigned long long)t->decode_ns,
                  (unsigned long long)t->compute_ns, (unsigned long long)t->encode_ns);
    if (!f->json && (f->opcode == OP_ECHO || f->opcode == OP_LOAD) && t->compute_ns != 0)
        fuzz_fail("reply %zu: opcode %u computed for %llu ns", i, f->opcode,
                  (unsigned long long)t->compute_ns);
}

/* The frame at out[at..n) must be pass 2's reply f, with the engine's
 * timing when it was asked for; returns where the next frame starts. */
static size_t check_served_frame(const uint8_t *out, size_t n, size_t at,
                                 const struct expected_frame *f, const uint8_t *bodies, size_t i)
{
    if (n - at < 4)
        fuzz_fail("serve_connection stopped before reply %zu", i);
    uint32_t word = le_get_u32(out + at);
    const uint8_t *got = out + at + 4, *want = bodies + f->at;
    if ((word & ERROR_FRAME_FLAG) || word > n - at - 4)
        fuzz_fail("reply %zu: a word of 0x%08x where pass 2 answered", i, word);
    struct call_timing t;
    char err[256];
    if (!f->timed) {
        if (word != f->len || (f->len > 0 && memcmp(got, want, f->len) != 0))
            fuzz_fail("reply %zu: %u bytes that are not pass 2's %zu", i, word, f->len);
    } else if (!f->json) {
        if (word != f->len + TIMING_TRAILER_BYTES || (f->len > 0 && memcmp(got, want, f->len)))
            fuzz_fail("timed reply %zu: %u bytes, not pass 2's %zu and a trailer", i, word,
                      f->len);
        timing_trailer_decode(got, word, &t);
        check_timing(&t, f, i);
    } else {
        static const char member[] = ",\"timing\":{";
        if (f->len == 0 || word < f->len + sizeof member || memcmp(got, want, f->len - 1) != 0 ||
            memcmp(got + f->len - 1, member, sizeof member - 1) != 0)
            fuzz_fail("timed JSON reply %zu is not pass 2's text with a timing member", i);
        if (json_reply_timing((const char *)got, word, &t, err, sizeof err) != 0)
            fuzz_fail("timed JSON reply %zu: %s", i, err);
        check_timing(&t, f, i);
    }
    return at + 4 + word;
}

static int memfd_in = -1, memfd_out = -1;

static void serve_frames(const uint8_t *data, size_t size, const struct expected *x)
{
    if (memfd_in < 0) {
        memfd_in = memfd_create("fuzz-in", 0);
        memfd_out = memfd_create("fuzz-out", 0);
        if (memfd_in < 0 || memfd_out < 0)
            abort();
    }
    if (ftruncate(memfd_in, 0) != 0 || ftruncate(memfd_out, 0) != 0 ||
        pwrite(memfd_in, data, size, 0) != (ssize_t)size ||
        lseek(memfd_in, 0, SEEK_SET) != 0 || lseek(memfd_out, 0, SEEK_SET) != 0)
        abort();
    struct connection c;
    connection_init(&c, &FUZZ_CONFIG);
    int status = serve_connection(&c, memfd_in, memfd_out, 0);
    connection_free(&c);

    off_t written = lseek(memfd_out, 0, SEEK_CUR);
    uint8_t *out = malloc((size_t)written + 1);
    if (written < 0 || out == NULL || pread(memfd_out, out, (size_t)written, 0) != written)
        abort();
    size_t n = (size_t)written;
    if (status != (x->ends_in_error ? -1 : 0))
        fuzz_fail("serve_connection returned %d, pass 2 expected %d", status,
                  x->ends_in_error ? -1 : 0);
    size_t at = 0;
    for (size_t i = 0; i < x->n_frames; i++)
        at = check_served_frame(out, n, at, &x->frames[i], x->bytes, i);
    size_t rest = n - at;
    if (!x->ends_in_error && rest != 0)
        fuzz_fail("serve_connection wrote %zu bytes after the last reply", rest);
    if (x->ends_in_error) {
        uint32_t word = rest >= 4 ? le_get_u32(out + at) : 0;
        size_t len = word & FRAME_LENGTH_MASK;
        if (rest < 4 || !(word & ERROR_FRAME_FLAG) || rest != 4 + len)
            fuzz_fail("after the replies, %zu bytes that are not one error frame", rest);
        char message[1024];
        if (len >= sizeof message)
            fuzz_fail("an error message of %zu bytes", len);
        memcpy(message, out + at + 4, len);
        message[len] = '\0';
        check_message(message, sizeof message, "serve_connection");
        if (x->error != NULL && strcmp(message, x->error) != 0)
            fuzz_fail("serve_connection said \"%s\", handle_request \"%s\"", message, x->error);
    }
    free(out);
}

/* ---- The entry point --------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct expected x;
    memset(&x, 0, sizeof x);
    check_decode(data, size);
    handle_frames(data, size, &x);
    serve_frames(data, size, &x);
    free(x.bytes);
    free(x.frames);
    return 0;
}
