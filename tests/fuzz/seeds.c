/*
 * seeds.c - the fuzzer's seed corpus, written by a program rather than kept
 * as binary files: each seed is what a client could send on one connection,
 * built with the project's own encoder, and named for what it exercises.
 *
 *   build/fuzz/make-seeds DIR    writes one file per seed into DIR
 *
 * The valid seeds walk every opcode and the stateful sequences (load then
 * sweep loaded; open, bars, close; both interleaved); the broken ones are
 * one of each kind of bad input the engine must refuse. The same seeds are
 * replayed through the target by tests/test_fuzz_regressions.c, which
 * includes this file with FUZZ_SEEDS_NO_MAIN defined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "kernel/grid.h"
#include "wire/json_codec.h"
#include "kernel/series.h"

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
    if (argc != 2) {
        fprintf(stderr, "usage: make-seeds DIR\n");
        return 2;
    }
    seed_dir = argv[1];
    fuzz_seeds(write_seed);
    return seed_errors ? 1 : 0;
}
#endif
