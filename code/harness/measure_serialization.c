/*
 * measure_serialization.c - encode and decode times of the close series in
 * each format, every decode checked bit for bit.
 *
 * Tangled from paper/70-serialization.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arch.h"
#include "harness/csvout.h"
#include "wire/serialize.h"
#include "wire/timing.h"

struct serial_bench {
    const double *series;      /* the job's close series; never written */
    size_t n;
    double *back;              /* where every decoder, and the memcpy, write */
    uint8_t *raw;              /* the request body */
    size_t raw_bytes;
    char *text;                /* text_series_capacity(n) bytes */
    size_t text_bytes;
    char *json;                /* the JSON the decoder reads, from jansson */
    size_t json_bytes;
    char *json_fresh;          /* an encoding just made, until it replaces json */
    size_t json_fresh_bytes;
};

static int serial_bench_init(struct serial_bench *b, const double *series, size_t n)
{
    memset(b, 0, sizeof *b);
    b->series = series;
    b->n = n;
    b->raw_bytes = raw_series_size(n);
    b->back = malloc(n * sizeof *b->back + 1);
    b->raw = malloc(b->raw_bytes);
    b->text = malloc(text_series_capacity(n));
    return b->back && b->raw && b->text ? 0 : -1;
}

static void serial_bench_free(struct serial_bench *b)
{
    free(b->back);
    free(b->raw);
    free(b->text);
    free(b->json);
    free(b->json_fresh);
}

static void poison_back(struct serial_bench *b)
{
    memset(b->back, 0xff, b->n * sizeof *b->back);
}

static void poison_raw(struct serial_bench *b)
{
    memset(b->raw, 0xff, b->raw_bytes);
}

static void poison_text(struct serial_bench *b)
{
    memset(b->text, 0xff, text_series_capacity(b->n));
}

static int back_is_series(struct serial_bench *b)
{
    return memcmp(b->back, b->series, b->n * sizeof *b->back) == 0 ? 0 : -1;
}

static int keep_json(struct serial_bench *b)
{
    free(b->json);
    b->json = b->json_fresh;
    b->json_bytes = b->json_fresh_bytes;
    b->json_fresh = NULL;
    return 0;
}
static long raw_encode(struct serial_bench *b)
{
    raw_series_encode(b->raw, b->series, b->n);
    return (long)b->raw_bytes;
}

static long raw_decode(struct serial_bench *b)
{
    return raw_series_decode(b->raw, b->raw_bytes, b->back, b->n) == 0 ? (long)b->raw_bytes : -1;
}

static long one_memcpy(struct serial_bench *b)
{
    memcpy(b->back, b->series, b->n * sizeof *b->back);
    return (long)(b->n * sizeof *b->back);
}

static long json_encode(struct serial_bench *b)
{
    b->json_fresh = json_series_encode(b->series, b->n, &b->json_fresh_bytes);
    return b->json_fresh != NULL ? (long)b->json_fresh_bytes : -1;
}

static long json_decode(struct serial_bench *b)
{
    return json_series_decode(b->json, b->json_bytes, b->back, b->n) == 0 ? (long)b->json_bytes
                                                                            : -1;
}

static long text_encode(struct serial_bench *b)
{
    b->text_bytes = text_series_encode(b->text, b->series, b->n);
    return (long)b->text_bytes;
}

static long text_decode(struct serial_bench *b)
{
    return text_series_decode(b->text, b->back, b->n) == 0 ? (long)b->text_bytes : -1;
}

enum {
    FAST_REPS = 300,           /* raw and memcpy: well under a millisecond each */
    SLOW_REPS = 30,            /* JSON and text: tens of milliseconds each */
    MIN_REPS = 5,              /* whatever --scale says, at least this many */
};

struct serial_op {
    const char *format;
    const char *operation;
    int paper_reps;
    void (*prepare)(struct serial_bench *b);   /* untimed; may be NULL */
    long (*run)(struct serial_bench *b);       /* timed: bytes moved, or -1 */
    int (*finish)(struct serial_bench *b);     /* untimed; 0 if the result is right */
};

static const struct serial_op OPS[] = {
    {"raw", "encode", FAST_REPS, poison_raw, raw_encode, NULL},
    {"raw", "decode", FAST_REPS, poison_back, raw_decode, back_is_series},
    {"memcpy", "copy", FAST_REPS, poison_back, one_memcpy, back_is_series},
    {"json", "encode", SLOW_REPS, NULL, json_encode, keep_json},
    {"json", "decode", SLOW_REPS, poison_back, json_decode, back_is_series},
    {"text", "encode", SLOW_REPS, poison_text, text_encode, NULL},
    {"text", "decode", SLOW_REPS, poison_back, text_decode, back_is_series},
};
enum { N_OPS = sizeof OPS / sizeof OPS[0] };

/* Prepares, times and checks one operation; 0, or -1 with err set. */
static int time_operation(const struct serial_op *op, struct serial_bench *b, double *seconds,
                          long *bytes, char err[ARCH_ERROR_SIZE])
{
    if (op->prepare != NULL)
        op->prepare(b);
    uint64_t t0 = clock_ns();
    long moved = op->run(b);
    uint64_t t1 = clock_ns();
    if (moved < 0) {
        snprintf(err, ARCH_ERROR_SIZE, "%s %s failed on the series", op->format, op->operation);
        return -1;
    }
    if (op->finish != NULL && op->finish(b) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "%s %s did not give back the series bit for bit",
                 op->format, op->operation);
        return -1;
    }
    *seconds = seconds_between(t0, t1);
    *bytes = moved;
    return 0;
}

static int run_rounds(const struct measure_context *ctx, struct serial_bench *b,
                      struct csv_out *out, char err[ARCH_ERROR_SIZE])
{
    int reps[N_OPS], rounds = 0;
    double seconds;
    long bytes;
    for (int i = 0; i < N_OPS; i++) {
        reps[i] = scaled_count(ctx, OPS[i].paper_reps, MIN_REPS);
        rounds = reps[i] > rounds ? reps[i] : rounds;
    }
    for (int i = 0; i < N_OPS; i++)                    /* the warm-up round */
        if (time_operation(&OPS[i], b, &seconds, &bytes, err) != 0)
            return -1;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < N_OPS; i++) {
            if (r >= reps[i])
                continue;
            if (time_operation(&OPS[i], b, &seconds, &bytes, err) != 0)
                return -1;
            csv_out_text(out, OPS[i].format);
            csv_out_text(out, OPS[i].operation);
            csv_out_int(out, r + 1);
            csv_out_fixed(out, seconds, 9);
            csv_out_int(out, bytes);
            csv_out_end_row(out);
        }
    }
    return 0;
}
static int write_serialization_settings(const struct measure_context *ctx)
{
    static const char *const header[] = {"key", "value"};
    char path[4096];
    struct csv_out out;
    snprintf(path, sizeof path, "%s/serialization_settings.csv", ctx->out_dir);
    if (csv_out_open(&out, path) != 0)
        return -1;
    csv_out_header(&out, header, 2);
    csv_out_text(&out, "jansson");
    csv_out_text(&out, JANSSON_VERSION);
    csv_out_end_row(&out);
    return csv_out_close(&out);
}

static int run_serialization(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static const char *const header[] = {"format", "operation", "rep", "seconds", "bytes"};
    char path[4096];
    struct serial_bench b;
    struct csv_out out;
    if (serial_bench_init(&b, ctx->job->close, ctx->job->n_bars) != 0) {
        serial_bench_free(&b);
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for the serialization buffers");
        return -1;
    }
    snprintf(path, sizeof path, "%s/serialization.csv", ctx->out_dir);
    if (csv_out_open(&out, path) != 0) {
        serial_bench_free(&b);
        snprintf(err, ARCH_ERROR_SIZE, "cannot write %.400s", path);
        return -1;
    }
    csv_out_header(&out, header, 5);
    int status = run_rounds(ctx, &b, &out, err);
    serial_bench_free(&b);
    if (status != 0)
        out.failed = 1;                /* discard the partial file */
    if (csv_out_close(&out) != 0 && status == 0) {
        snprintf(err, ARCH_ERROR_SIZE, "cannot write %.400s", path);
        status = -1;
    }
    if (status == 0 && write_serialization_settings(ctx) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "cannot write serialization_settings.csv");
        status = -1;
    }
    return status;
}

const struct measurement measure_serialization = {
    .name = "serialization",
    .description = "encode and decode times of the series: raw, memcpy, JSON, text",
    .run = run_serialization,
};
