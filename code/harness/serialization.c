/*
 * serialization.c - encode and decode times of the close series in each
 * format, C and Python, into reused and fresh buffers, with the page
 * faults of each, every decode checked bit for bit.
 *
 * Tangled from paper/70-serialization.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness/measure.h"
#include "harness/partner.h"
#include "harness/placement.h"
#include "harness/worker.h"
#include "kernel/kernel.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"
#include "wire/serialize.h"

/* <<serialization-buffers>>, paper/70-serialization.md */
struct serial_bench {
    const double *series;      /* the job's close series; never written */
    size_t n;
    double *back;              /* where every decoder, and the memcpy, write */
    uint8_t *raw;              /* the request body, reused */
    size_t raw_bytes;
    uint8_t *fresh;            /* a new mapping of raw_bytes, or NULL */
    char *text;                /* text_series_capacity(n) bytes */
    size_t text_bytes;
    char *json;                /* the encoding the decoder reads */
    size_t json_bytes;
    const struct combo_params *middle;     /* the kernel a cold codec follows ... */
    struct sweep_workspace ws;             /* ... and its workspace */
    int kernel_failed;                     /* it could not allocate: the codec fails */
    const struct sweep_job *job;           /* what a busy partner computes ... */
    struct partner partner;
    int cpus[2], two_cpus;                 /* ... on cpus[1], beside cpus[0] */
};

static void unmap_fresh(struct serial_bench *b)
{
    if (b->fresh != NULL)
        munmap(b->fresh, b->raw_bytes);
    b->fresh = NULL;
}

static int bench_init(struct serial_bench *b, const struct sweep_job *job)
{
    memset(b, 0, sizeof *b);
    b->series = job->close;
    b->n = job->n_bars;
    b->middle = &job->params[job->n_combos / 2];
    b->job = job;
    b->two_cpus = placement_duet_cpus(b->cpus) == 0;
    sweep_workspace_init(&b->ws, NULL);
    b->raw_bytes = raw_series_size(b->n);
    b->back = malloc(b->n * sizeof *b->back + 1);
    b->raw = malloc(b->raw_bytes);
    b->text = malloc(text_series_capacity(b->n));
    return b->back && b->raw && b->text ? 0 : -1;
}

static void bench_free(struct serial_bench *b)
{
    free(b->back);
    free(b->raw);
    free(b->text);
    free(b->json);
    unmap_fresh(b);
    sweep_workspace_free(&b->ws);
}

/* <<serialization-operations>>, paper/70-serialization.md */
static void poison_back(struct serial_bench *b) { memset(b->back, 0xff, b->n * sizeof *b->back); }
static void poison_raw(struct serial_bench *b) { memset(b->raw, 0xff, b->raw_bytes); }
static void poison_text(struct serial_bench *b) { memset(b->text, 0xff, text_series_capacity(b->n)); }
static void drop_json(struct serial_bench *b)
{
    free(b->json);
    b->json = NULL;
}

/* A new mapping for the fresh encode; the last one is unmapped first. */
static void map_fresh(struct serial_bench *b)
{
    unmap_fresh(b);
    void *p = mmap(NULL, b->raw_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    b->fresh = p != MAP_FAILED ? p : NULL;
}

static int back_is_series(struct serial_bench *b)
{
    return memcmp(b->back, b->series, b->n * sizeof *b->back) == 0 ? 0 : -1;
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

static long raw_encode_fresh(struct serial_bench *b)
{
    if (b->fresh == NULL)
        return -1;                 /* the mapping failed */
    raw_series_encode(b->fresh, b->series, b->n);
    return (long)b->raw_bytes;
}

static long raw_decode_fresh(struct serial_bench *b)
{
    return raw_series_decode(b->fresh, b->raw_bytes, b->back, b->n) == 0 ? (long)b->raw_bytes
                                                                           : -1;
}

static long one_memcpy(struct serial_bench *b)
{
    memcpy(b->back, b->series, b->n * sizeof *b->back);
    return (long)(b->n * sizeof *b->back);
}

static long json_encode(struct serial_bench *b)
{
    b->json = json_series_encode(b->series, b->n, &b->json_bytes);
    return b->json != NULL ? (long)b->json_bytes : -1;
}

static long json_decode(struct serial_bench *b)
{
    return json_series_decode(b->json, b->json_bytes, b->back, b->n) == 0 ? (long)b->json_bytes
                                                                            : -1;
}

/* The grid's middle combination over the series, as a call per
 * combination's kernel computes it, after what a prepare step wrote. */
static void kernel_stretch(struct serial_bench *b)
{
    struct combo_result result;
    b->kernel_failed = sweep_naive_in(&b->ws, b->series, b->n, b->middle, 1, &result) != 0;
}

static void drop_json_then_kernel(struct serial_bench *b)
{
    drop_json(b);
    kernel_stretch(b);
}

static void poison_back_then_kernel(struct serial_bench *b)
{
    poison_back(b);
    kernel_stretch(b);
}

static long json_encode_cold(struct serial_bench *b)
{
    return b->kernel_failed ? -1 : json_encode(b);
}

static long json_decode_cold(struct serial_bench *b)
{
    return b->kernel_failed ? -1 : json_decode(b);
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

/* <<serialization-operation-table>>, paper/70-serialization.md */
struct serial_op {
    const char *format;
    const char *operation;
    const char *buffer;                        /* reused, fresh, codec; "" for a decode */
    void (*prepare)(struct serial_bench *b);   /* untimed; may be NULL */
    long (*run)(struct serial_bench *b);       /* timed: bytes moved, or -1 */
    int (*finish)(struct serial_bench *b);     /* untimed; 0 if the result is right */
};

static const struct serial_op PAIRS[][2] = {
    {{"raw", "encode", "reused", poison_raw, raw_encode, NULL},
     {"raw", "decode", "", poison_back, raw_decode, back_is_series}},
    {{"raw_fresh", "encode", "fresh", map_fresh, raw_encode_fresh, NULL},
     {"raw_fresh", "decode", "", poison_back, raw_decode_fresh, back_is_series}},
    {{"memcpy", "copy", "reused", poison_back, one_memcpy, back_is_series},
     {NULL, NULL, NULL, NULL, NULL, NULL}},
    {{"json", "encode", "codec", drop_json, json_encode, NULL},
     {"json", "decode", "", poison_back, json_decode, back_is_series}},
    {{"text", "encode", "reused", poison_text, text_encode, NULL},
     {"text", "decode", "", poison_back, text_decode, back_is_series}},
};
enum { N_PAIRS = sizeof PAIRS / sizeof PAIRS[0] };

/* The JSON pair again: each after a kernel, and back to back beside a
 * busy partner */
static const struct serial_op AFTER_KERNEL[2] = {
    {"json_cold", "encode", "codec", drop_json_then_kernel, json_encode_cold, NULL},
    {"json_cold", "decode", "", poison_back_then_kernel, json_decode_cold, back_is_series},
};
static const struct serial_op BESIDE_PARTNER[2] = {
    {"json_busy", "encode", "codec", drop_json, json_encode, NULL},
    {"json_busy", "decode", "", poison_back, json_decode, back_is_series},
};

/* <<serialization-one-repetition>>, paper/70-serialization.md */
/* One row of serialization.csv: what an operation was, and what it cost. */
struct serial_sample {
    const char *language, *format, *operation, *buffer;
    int rep, position;
    uint64_t ns;
    long bytes, faults;        /* faults -1 when they could not be read */
};

static void write_row(struct data_out *out, const struct serial_sample *x)
{
    data_text(out, SERIAL_language, x->language);
    data_text(out, SERIAL_format, x->format);
    data_text(out, SERIAL_operation, x->operation);
    data_int(out, SERIAL_rep, x->rep);
    data_int(out, SERIAL_ns, (int64_t)x->ns);
    data_int(out, SERIAL_bytes, x->bytes);
    data_int(out, SERIAL_position, x->position);
    data_text(out, SERIAL_buffer, x->buffer);
    data_known(out, SERIAL_minor_faults, x->faults >= 0, x->faults);
    data_end_row(out);
}

static int time_op(const struct serial_op *op, struct serial_bench *b, struct data_out *out,
                   int rep, int position, char *err, size_t err_size)
{
    if (op->prepare != NULL)
        op->prepare(b);
    long f0 = thread_minor_faults();
    uint64_t t0 = clock_ns();
    long moved = op->run(b);
    uint64_t ns = clock_ns() - t0;
    long f1 = thread_minor_faults();
    if (moved < 0)
        return set_error(err, err_size, "%s %s failed on the series", op->format, op->operation);
    if (op->finish != NULL && op->finish(b) != 0)
        return set_error(err, err_size, "%s %s did not give back the series bit for bit",
                         op->format,
                         op->operation);
    struct serial_sample x = {"c", op->format, op->operation, op->buffer, rep, position, ns,
                              moved, f0 >= 0 && f1 >= 0 ? f1 - f0 : -1};
    if (rep > 0)
        write_row(out, &x);
    return 0;
}

/* <<a-repetition-in-c-and-in-python>>, paper/70-serialization.md */
static int beside_partner(struct serial_bench *b, struct data_out *out, int rep, char *err,
                          size_t err_size)
{
    if (pin_this_thread(b->cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin the serialization to CPU %d", b->cpus[0]);
    if (partner_start(&b->partner, b->cpus[1], b->job) != 0)
        return set_error(err, err_size, "cannot start the partner on CPU %d", b->cpus[1]);
    int status = 0;
    for (int k = 0; k < 2 && status == 0; k++)
        status = time_op(&BESIDE_PARTNER[k], b, out, rep, N_PAIRS + 2, err, err_size);
    partner_stop(&b->partner);
    pin_this_thread(CPU_ANY);
    return status;
}
static int c_repetition(struct serial_bench *b, struct mt19937 *mt, struct data_out *out,
                        int rep, char *err, size_t err_size)
{
    size_t order[N_PAIRS];
    random_order(mt, order, N_PAIRS);
    for (size_t i = 0; i < N_PAIRS; i++)
        for (int k = 0; k < 2 && PAIRS[order[i]][k].run != NULL; k++)
            if (time_op(&PAIRS[order[i]][k], b, out, rep, (int)i + 1, err, err_size) != 0)
                return -1;
    /* the pair after a kernel last, outside the draw: a kernel between
     * them and what came before leaves the same caches whatever it was */
    for (int k = 0; k < 2; k++)
        if (time_op(&AFTER_KERNEL[k], b, out, rep, N_PAIRS + 1, err, err_size) != 0)
            return -1;
    unmap_fresh(b);
    return b->two_cpus ? beside_partner(b, out, rep, err, err_size) : 0;
}
/* The answer's sample of key (encode_ns, ...) for an encoding; -1 if it has none. */
static long long sample_of(const json_t *answer, const char *key, const char *name)
{
    const json_t *v = json_array_get(json_object_get(json_object_get(answer, key), name), 0);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static int place_in(const json_t *answer, const char *name)
{
    const json_t *order = json_array_get(json_object_get(answer, "order"), 0);
    for (size_t i = 0; i < json_array_size(order); i++)
        if (strcmp(json_string_value(json_array_get(order, i)), name) == 0)
            return (int)i + 1;
    return 0;
}

static void python_rows(struct data_out *out, const json_t *answer, const char *name, int rep)
{
    static const char *const ops[] = {"encode", "decode", "release"};
    const char *buffer = json_string_value(json_object_get(json_object_get(answer, "buffers"),
                                                           name));
    long bytes = (long)json_integer_value(json_object_get(json_object_get(answer, "bytes"), name));
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_ns", ops[k]);
        long long ns = sample_of(answer, key, name);
        snprintf(key, sizeof key, "%s_faults", ops[k]);
        struct serial_sample x = {"python", name, ops[k], k == 0 && buffer ? buffer : "", rep,
                                  place_in(answer, name), (uint64_t)ns, bytes,
                                  (long)sample_of(answer, key, name)};
        if (ns >= 0)
            write_row(out, &x);
    }
}

/* One repetition of the worker's encodings; rep 0 is its warm-up. */
static int python_repetition(struct worker *w, struct data_out *out, int rep, char *err,
                             size_t err_size)
{
    json_t *answer = worker_command(w, json_pack("{s:s,s:i,s:i}", "cmd", "serialize", "reps",
                                                 1, "seed", rep), err, err_size);
    if (answer == NULL)
        return -1;
    const json_t *names = json_object_get(answer, "encodings");
    for (size_t i = 0; rep > 0 && i < json_array_size(names); i++)
        python_rows(out, answer, json_string_value(json_array_get(names, i)), rep);
    json_decref(answer);
    return 0;
}

/* <<measure-serialization>>, paper/70-serialization.md */
struct serial_rounds {
    const struct measure_context *ctx;
    struct serial_bench b;
    struct worker w;
    struct data_out out;
    struct mt19937 mt;
    int reps, done;            /* repetitions to make (and the warm-up); made */
};

static void *serial_begin(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct serial_rounds *r = calloc(1, sizeof *r);
    if (r == NULL || bench_init(&r->b, ctx->job) != 0) {
        if (r != NULL)
            bench_free(&r->b);
        free(r);
        set_error(err, err_size, "out of memory for the serialization buffers");
        return NULL;
    }
    r->ctx = ctx;
    if (worker_start(&r->w, ctx->env, ctx->job, err, err_size) != 0) {
        bench_free(&r->b);
        free(r);
        return NULL;
    }
    if (measure_open(ctx, "serialization.csv", &r->out, err, err_size) != 0) {
        worker_stop(&r->w);
        bench_free(&r->b);
        free(r);
        return NULL;
    }
    mt19937_seed(&r->mt, round_seed(ctx->seed ^ 0x73657269u, 0));       /* "seri" */
    r->reps = repetitions_at(REPEAT_SERIAL, ctx->scale);
    return r;
}

/* After round `round`: its share of the repetitions, the warm-up (rep 0)
 * first; after the last of the minimum rounds, every one not yet made. */
static int serial_round(void *state, int round, char *err, size_t err_size)
{
    struct serial_rounds *r = state;
    int rounds = r->ctx->min_rounds > 0 ? r->ctx->min_rounds : 1;
    if (round > rounds)
        return 0;
    int share = (r->reps + rounds - 1) / rounds;
    int last = round == rounds ? r->reps : round * share;
    for (int rep = r->done; rep <= last && rep <= r->reps; rep++, r->done++)
        if (c_repetition(&r->b, &r->mt, &r->out, rep, err, err_size) != 0 ||
            python_repetition(&r->w, &r->out, rep, err, err_size) != 0)
            return -1;
    return 0;
}

static int serial_end(void *state, int ok, char *err, size_t err_size)
{
    struct serial_rounds *r = state;
    int status = 0;
    if (ok && r->done <= r->reps)
        status = set_error(err, err_size, "the rounds ended before the serialization's "
                                          "repetitions were made");
    if (ok && status == 0 && data_out_close(&r->out) != 0)
        status = set_error(err, err_size, "cannot write serialization.csv");
    else if (!ok || status != 0)
        data_out_abandon(&r->out);
    worker_stop(&r->w);
    bench_free(&r->b);
    free(r);
    return status;
}

const struct in_rounds serialization_in_rounds = {serial_begin, serial_round, serial_end};
