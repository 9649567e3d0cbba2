/*
 * seeds.c - the fuzzers' seed corpora, written by a program rather than kept
 * as binary files, each seed named for what it exercises.
 *
 *   build/make-seeds TARGET DIR    writes one file per seed of TARGET into DIR
 *
 * request (tests/fuzz/fuzz_request.c): what a client could send on one
 * connection, built with the project's own encoder. The valid seeds walk
 * every opcode, timed and not, and the stateful sequences (load then sweep
 * loaded; open, bars, close; both interleaved); the broken ones are one of
 * each kind of bad input the engine must refuse.
 *
 * shm (tests/fuzz/fuzz_shm.c): operation lists (tests/fuzz/shm_ops.h): a
 * client's session, and each kind of damage a second process can do to a
 * segment (a header word changed, ring counters moved, the file cut short).
 *
 * options (tests/fuzz/fuzz_options.c): command lines, arguments separated by
 * NUL bytes: every option, good values and bad.
 *
 * The same seeds are replayed through each target by its regression test
 * (tests/test_fuzz_*regressions.c), which includes this file with
 * FUZZ_SEEDS_NO_MAIN defined.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "kernel/grid.h"
#include "wire/json_codec.h"
#include "wire/shm_ring.h"
#include "kernel/series.h"

#include "shm_ops.h"

typedef void (*seed_fn)(const char *name, const uint8_t *data, size_t len);

/* A connection's worth of frames, built up one frame at a time. */
struct stream_buf {
    uint8_t data[16384];
    size_t len;
};

/* Appends a frame whose length word is `word` and whose body is body[0..n). */
static void put_raw(struct stream_buf *s, uint32_t word, const uint8_t *body, size_t n)
{
    if (s->len + 4 + n > sizeof s->data)
        abort();
    le_put_u32(s->data + s->len, word);
    memcpy(s->data + s->len + 4, body, n);
    s->len += 4 + n;
}

/* Appends a well-formed request frame. */
static void put_request(struct stream_buf *s, enum opcode op, const double *close,
                        uint32_t n_bars, const struct combo_params *params, uint32_t n_combos)
{
    uint8_t body[16384];
    size_t n = (size_t)request_body_size(n_bars, n_combos);
    if (n > sizeof body)
        abort();
    request_encode(body, op, close, n_bars, params, n_combos);
    put_raw(s, (uint32_t)n, body, n);
}

enum { SEED_BARS = 120 };

static void fuzz_seeds(seed_fn emit)
{
    double close[SEED_BARS];
    gbm_series(close, SEED_BARS, 42);
    /* Short windows, so that 120 bars give every combination some trades. */
    const struct combo_params small[3] = {
        {2, 4, 2, 3, 5, 10}, {3, 6, 2, 4, 6, 12}, {5, 10, 3, 6, 10, 20},
    };
    const struct combo_params grid = grid_params(GRID_MIN_LENGTH);
    struct stream_buf s;

#define SEED(name, ...) do { s.len = 0; __VA_ARGS__; emit(name, s.data, s.len); } while (0)

    /* ---- Valid requests -------------------------------------------------- */
    SEED("echo-one", put_request(&s, OP_ECHO, close, 1, NULL, 0));
    SEED("echo-empty", put_request(&s, OP_ECHO, close, 0, NULL, 0));
    SEED("echo-with-params", put_request(&s, OP_ECHO, close, 10, small, 2));
    SEED("sweep", put_request(&s, OP_SWEEP, close, SEED_BARS, small, 3));
    SEED("sweep-grid", put_request(&s, OP_SWEEP, close, SEED_BARS, &grid, 1));
    SEED("sweep-no-combos", put_request(&s, OP_SWEEP, close, SEED_BARS, NULL, 0));
    SEED("sweep-twice-then-echo",
         put_request(&s, OP_SWEEP, close, SEED_BARS, small, 2);
         put_request(&s, OP_SWEEP, close, 40, small, 1);
         put_request(&s, OP_ECHO, close, 5, NULL, 0));
    SEED("load-then-sweep-loaded",
         put_request(&s, OP_LOAD, close, SEED_BARS, NULL, 0);
         put_request(&s, OP_SWEEP_LOADED, NULL, 0, &small[0], 1);
         put_request(&s, OP_SWEEP_LOADED, NULL, 0, &small[1], 2);
         put_request(&s, OP_SWEEP_LOADED, NULL, 0, NULL, 0));
    SEED("stream", {
        put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 3);
        for (int t = 0; t < 40; t++)
            put_request(&s, OP_BAR, &close[t], 1, NULL, 0);
        put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0);
    });
    SEED("stream-interleaved", {
        put_request(&s, OP_LOAD, close, 60, NULL, 0);
        put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 2);
        for (int t = 0; t < 20; t++) {
            put_request(&s, OP_BAR, &close[t], 1, NULL, 0);
            if (t % 5 == 0)
                put_request(&s, OP_SWEEP_LOADED, NULL, 0, &small[t % 3], 1);
        }
        put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0);
        put_request(&s, OP_OPEN_STREAM, NULL, 0, &small[2], 1);
        put_request(&s, OP_OPEN_STREAM, NULL, 0, &small[1], 1);
        put_request(&s, OP_BAR, &close[0], 1, NULL, 0);
        put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0);
    });
    /* Every opcode timed (the top bit of the opcode byte, paper/50-protocol.md). */
    SEED("timed-every-opcode",
         put_request(&s, OP_SWEEP | OP_TIMED, close, SEED_BARS, small, 2);
         put_request(&s, OP_ECHO | OP_TIMED, close, 7, NULL, 0);
         put_request(&s, OP_LOAD | OP_TIMED, close, SEED_BARS, NULL, 0);
         put_request(&s, OP_SWEEP_LOADED | OP_TIMED, NULL, 0, small, 3);
         put_request(&s, OP_OPEN_STREAM | OP_TIMED, NULL, 0, small, 2);
         put_request(&s, OP_BAR | OP_TIMED, &close[0], 1, NULL, 0);
         put_request(&s, OP_BAR, &close[1], 1, NULL, 0);
         put_request(&s, OP_CLOSE_STREAM | OP_TIMED, NULL, 0, NULL, 0));
    SEED("timed-unknown-opcode", put_request(&s, (enum opcode)(OPCODE_COUNT | OP_TIMED), close,
                                              2, NULL, 0));
    SEED("stream-closed-empty",
         put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 1);
         put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0));

    /* The JSON endpoint: a body that starts with '{' (paper/83-json.md). */
    {
        size_t len;
        char *text = json_request_encode(close, 30, small, 2, &len);
        if (text == NULL)
            abort();
        SEED("json-sweep", put_raw(&s, (uint32_t)len, (const uint8_t *)text, len);
             put_request(&s, OP_ECHO, close, 2, NULL, 0));
        text[len - 1] = ',';                           /* ... ,"timing":true} */
        static const char timed[] = "\"timing\":true}";
        char *asks = malloc(len + sizeof timed);
        if (asks == NULL)
            abort();
        memcpy(asks, text, len);
        memcpy(asks + len, timed, sizeof timed);
        SEED("json-sweep-timed", put_raw(&s, (uint32_t)strlen(asks), (const uint8_t *)asks,
                                         strlen(asks));
             put_request(&s, OP_ECHO | OP_TIMED, close, 2, NULL, 0));
        free(asks);
        free(text);
    }
    static const char *const bad_json[][2] = {
        {"json-not-json", "{\"op\": \"sweep\", \"close\": [1, 2,"},
        {"json-unknown-key", "{\"op\":\"sweep\",\"close\":[1,2,3],\"params\":[],\"x\":1}"},
        {"json-unknown-op", "{\"op\":\"echo\",\"close\":[1,2,3],\"params\":[]}"},
        {"json-window-too-long",
         "{\"op\":\"sweep\",\"close\":[1,2,3],\"params\":[[1,1,1,1,1,4]]}"},
        {"json-window-not-whole",
         "{\"op\":\"sweep\",\"close\":[1,2,3],\"params\":[[1,1,1.5,1,1,1]]}"},
        {"json-leading-space", " \n{\"op\":\"sweep\",\"close\":[1,2,3],\"params\":[[1,1,1,1,1,1]]}"},
        {"json-byte-order-mark", "\xef\xbb\xbf{\"op\":\"sweep\",\"close\":[1,2],\"params\":[]}"},
        {"json-array", "[{\"op\":\"sweep\"}]"},
        {"json-duplicate-key", "{\"op\":\"sweep\",\"close\":[1],\"close\":[2],\"params\":[]}"},
        {"json-extreme-prices",
         "{\"op\":\"sweep\",\"close\":[1e-300,1e300,1e-300,1e300,1e-300,1e300],"
         "\"params\":[[1,1,1,1,1,1],[1,2,1,1,2,2]]}"},
    };
    for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++)
        SEED(bad_json[i][0], put_raw(&s, (uint32_t)strlen(bad_json[i][1]),
                                     (const uint8_t *)bad_json[i][1], strlen(bad_json[i][1])));

    /* ---- Bad input: each must get one error frame, then nothing ----------- */
    uint8_t body[64];
    memset(body, 0, sizeof body);
    SEED("empty-frame", put_raw(&s, 0, body, 0));
    SEED("short-body", put_raw(&s, 5, body, 5));
    body[0] = OPCODE_COUNT;
    SEED("unknown-opcode", put_raw(&s, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES));
    body[0] = OP_ECHO;
    le_put_u32(body + 1, 3);                           /* says 3 bars, carries none */
    SEED("counts-disagree", put_raw(&s, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES));
    le_put_u32(body + 1, 0xffffffffu);                 /* counts that overflow 32 bits */
    le_put_u32(body + 5, 0xffffffffu);
    SEED("huge-counts", put_raw(&s, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES));
    SEED("sweep-no-bars", put_request(&s, OP_SWEEP, close, 0, small, 1));
    {
        struct combo_params bad[2] = {small[0], small[1]};
        bad[1].t_len = 0;
        SEED("window-zero", put_request(&s, OP_SWEEP, close, 20, bad, 2));
        bad[1].t_len = -7;
        SEED("window-negative", put_request(&s, OP_SWEEP, close, 20, bad, 2));
        bad[1].t_len = 21;
        SEED("window-longer-than-series", put_request(&s, OP_SWEEP, close, 20, bad, 2));
        bad[1].t_len = (int64_t)MAX_STREAM_WINDOW + 1;
        SEED("stream-window-too-long", put_request(&s, OP_OPEN_STREAM, NULL, 0, bad, 2));
        bad[0].h_sqrt = bad[0].t_len = MAX_STREAM_WINDOW;
        bad[1].h_sqrt = bad[1].t_len = MAX_STREAM_WINDOW;
        SEED("stream-too-big", put_request(&s, OP_OPEN_STREAM, NULL, 0, bad, 2));
    }
    SEED("sweep-loaded-before-load", put_request(&s, OP_SWEEP_LOADED, NULL, 0, small, 1));
    SEED("sweep-loaded-window-too-long",
         put_request(&s, OP_LOAD, close, 8, NULL, 0);
         put_request(&s, OP_SWEEP_LOADED, NULL, 0, &small[2], 1));
    SEED("bar-before-open", put_request(&s, OP_BAR, close, 1, NULL, 0));
    SEED("close-before-open", put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0));
    SEED("bar-after-close",
         put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 1);
         put_request(&s, OP_CLOSE_STREAM, NULL, 0, NULL, 0);
         put_request(&s, OP_BAR, close, 1, NULL, 0));
    SEED("load-with-combos", put_request(&s, OP_LOAD, close, 4, small, 1));
    SEED("bar-with-two-closes",
         put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 1);
         put_request(&s, OP_BAR, close, 2, NULL, 0));
    {
        double odd[SEED_BARS];             /* a NaN and an infinity among the closes */
        memcpy(odd, close, sizeof odd);
        odd[17] = NAN;
        odd[40] = -INFINITY;
        SEED("sweep-nan-close", put_request(&s, OP_SWEEP, odd, SEED_BARS, small, 2));
        SEED("load-infinite-close", put_request(&s, OP_LOAD, odd + 20, 30, NULL, 0));
        SEED("echo-nan-close", put_request(&s, OP_ECHO, odd, 20, NULL, 0));
        SEED("bar-nan-close",
             put_request(&s, OP_OPEN_STREAM, NULL, 0, small, 1);
             put_request(&s, OP_BAR, close, 1, NULL, 0);
             put_request(&s, OP_BAR, &odd[17], 1, NULL, 0));
    }
    SEED("frame-too-long", put_raw(&s, 0x7fffffffu, body, 16));
    SEED("error-flag-as-length", put_raw(&s, 0x80000010u, body, 16));
    SEED("frame-cut-short", put_raw(&s, 400, body, 16));
    SEED("header-cut-short", s.data[0] = 9; s.data[1] = 0; s.len = 2);
    SEED("good-then-bad",
         put_request(&s, OP_ECHO, close, 3, NULL, 0);
         put_request(&s, OP_SWEEP, close, 30, small, 1);
         body[0] = 200;
         put_raw(&s, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES);
         put_request(&s, OP_ECHO, close, 3, NULL, 0));
#undef SEED
}

/* ---- Shared-memory operation lists ---------------------------------------- */

static void put_op(struct stream_buf *s, enum shm_op op, uint32_t operand, int operand_bytes)
{
    if (s->len + 1 + (size_t)operand_bytes > sizeof s->data)
        abort();
    s->data[s->len++] = (uint8_t)op;
    for (int i = 0; i < operand_bytes; i++)
        s->data[s->len++] = (uint8_t)(operand >> (8 * i));
}

/* A poke: u16 offset, u8 n, then n bytes. */
static void put_poke(struct stream_buf *s, enum shm_op op, size_t at, const void *bytes, size_t n)
{
    put_op(s, op, (uint32_t)at, 2);
    if (s->len + 1 + n > sizeof s->data)
        abort();
    s->data[s->len++] = (uint8_t)n;
    memcpy(s->data + s->len, bytes, n);
    s->len += n;
}

/* The client sends one whole echo request of the target's stream (29 bytes). */
static void put_client_frame(struct stream_buf *s)
{
    put_op(s, SHM_OP_CLIENT_WRITE, SHM_FUZZ_ECHO_FRAME, 2);
}

static void fuzz_shm_seeds(seed_fn emit)
{
    struct stream_buf s;
    const int32_t one = 1, zero = 0, left = SHM_CLIENT_LEFT;
    const uint64_t far = 1ull << 40;
#define SEED(name, ...) do { s.len = 0; __VA_ARGS__; emit(name, s.data, s.len); } while (0)
    SEED("session",
         put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1); put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0);
         put_client_frame(&s); put_op(&s, SHM_OP_ENGINE_SERVE, 0, 0);
         put_op(&s, SHM_OP_CLIENT_READ, 29, 2); put_op(&s, SHM_OP_CLIENT_DETACH, 0, 0);
         put_op(&s, SHM_OP_ENGINE_RELEASE, 0, 0));
    SEED("session-spin", put_op(&s, SHM_OP_CLIENT_ATTACH, 1, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0); put_op(&s, SHM_OP_ENGINE_WRITE, 300, 2);
         put_op(&s, SHM_OP_CLIENT_READ, 300, 2); put_op(&s, SHM_OP_ENGINE_READ, 10, 2));
    SEED("client-word-one", put_poke(&s, SHM_OP_POKE_HEADER,
                                     offsetof(struct shm_segment, client), &one, 4);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0); put_op(&s, SHM_OP_ENGINE_RELEASE, 0, 0));
    SEED("client-word-left", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, client), &left, 4);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0));
    SEED("engine-pid-zero", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0);
         put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, engine_pid), &zero, 4);
         put_op(&s, SHM_OP_CLIENT_WRITE, 8, 2); put_op(&s, SHM_OP_ENGINE_READ, 8, 2));
    SEED("head-far-ahead", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0);
         put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, requests.head), &far, 8);
         put_op(&s, SHM_OP_ENGINE_READ, 1000, 2); put_op(&s, SHM_OP_ENGINE_SERVE, 0, 0));
    SEED("tail-far-ahead", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0);
         put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, replies.tail), &far, 8);
         put_op(&s, SHM_OP_ENGINE_WRITE, 500, 2));
    {
        const uint32_t bad_ring = 100;
        SEED("ring-size-wrong",
             put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, ring_bytes),
                      &bad_ring, 4);
             put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1));
    }
    {
        uint8_t garbage[64];
        memset(garbage, 0xff, sizeof garbage);
        SEED("rings-garbage", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
             put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0);
             put_poke(&s, SHM_OP_POKE_RINGS, 0, garbage, sizeof garbage);
             put_poke(&s, SHM_OP_POKE_HEADER, offsetof(struct shm_segment, requests.head),
                      &(uint64_t){64}, 8);
             put_op(&s, SHM_OP_ENGINE_SERVE, 0, 0));
        SEED("header-garbage", put_poke(&s, SHM_OP_POKE_HEADER, 0, garbage, sizeof garbage);
             put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1); put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0));
    }
    SEED("truncated-idle", put_op(&s, SHM_OP_TRUNCATE, 0, 4);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0));
    SEED("truncated-serving", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0); put_op(&s, SHM_OP_TRUNCATE, 4096, 4);
         put_client_frame(&s); put_op(&s, SHM_OP_ENGINE_READ, 29, 2));
    SEED("truncated-header", put_op(&s, SHM_OP_TRUNCATE, 100, 4);
         put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1));
    SEED("silent-client", put_op(&s, SHM_OP_CLIENT_ATTACH, 0, 1);
         put_op(&s, SHM_OP_ENGINE_ACCEPT, 0, 0); put_op(&s, SHM_OP_ENGINE_SERVE, 0, 0);
         put_op(&s, SHM_OP_ENGINE_RELEASE, 0, 0); put_op(&s, SHM_OP_CLIENT_WRITE, 4, 2));
#undef SEED
}

/* ---- Command lines -------------------------------------------------------------- */

static void fuzz_options_seeds(seed_fn emit)
{
    /* sizeof a literal counts the NUL bytes inside it, and one at its end. */
#define LINE(name, text) {name, text, sizeof text - 1}
    static const struct {
        const char *name, *text;
        size_t len;
    } lines[] = {
        LINE("unix", "--unix\0/tmp/engine.sock"),
        LINE("tcp", "--tcp\0127.0.0.1:0\0--kernel\0tuned"),
        LINE("tcp-ipv6", "--tcp\0[::1]:5000"),
        LINE("tcp-port-range", "--tcp\070000"),
        LINE("tcp-not-a-number", "--tcp\0abc"),
        LINE("stdin-raw", "--stdin\0--raw\0--max-frame\01000"),
        LINE("shm", "--shm\0/name\0--shm-wait\0spin\0--die-with-parent"),
        LINE("limits", "--unix\0p\0--max-clients\032\0--max-work\01000\0--idle-timeout\01"
                       "\0--frame-timeout\086400000"),
        LINE("limits-out", "--unix\0p\0--max-clients\0999999999\0--max-frame\08"),
        LINE("two-transports", "--unix\0p\0--stdin"),
        LINE("unknown", "--frobnicate\0--unix\0p"),
        LINE("missing-value", "--unix"),
        LINE("extra", "--stdin\0extra"),
        LINE("help", "-h"),
        LINE("version", "--version\0--unix\0p"),
        LINE("short-and-equals", "-x\0--tcp=1234\0--max-work=-1"),
    };
#undef LINE
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        emit(lines[i].name, (const uint8_t *)lines[i].text, lines[i].len);
}

/* ---- Every target's seeds -------------------------------------------------------- */

static const struct {
    const char *target;
    void (*seeds)(seed_fn emit);
} SEED_SETS[] = {
    {"request", fuzz_seeds},
    {"shm", fuzz_shm_seeds},
    {"options", fuzz_options_seeds},
};

#ifndef FUZZ_SEEDS_NO_MAIN
static const char *seed_dir;
static int seed_errors;

static void write_seed(const char *name, const uint8_t *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", seed_dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "make-seeds: cannot write %s\n", path);
        seed_errors++;
    }
}

int main(int argc, char **argv)
{
    size_t i = 0, n = sizeof SEED_SETS / sizeof SEED_SETS[0];
    while (argc == 3 && i < n && strcmp(SEED_SETS[i].target, argv[1]) != 0)
        i++;
    if (argc != 3 || i == n) {
        fprintf(stderr, "usage: make-seeds (request | shm | options) DIR\n");
        return 2;
    }
    seed_dir = argv[2];
    SEED_SETS[i].seeds(write_seed);
    return seed_errors ? 1 : 0;
}
#endif
