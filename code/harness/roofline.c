/*
 * roofline.c - the peak rate of independent multiply-and-add chains.
 *
 * Tangled from paper/77-roofline.md. Built with -ffp-contract=off like the
 * kernels: a multiplication and an addition stay two operations.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/measure.h"
#include "kernel/kernel_tuned.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

enum {
    PEAK_CHAINS = 12,
    PEAK_STEPS = 32,           /* terms per chain per pass over the array */
    PEAK_SPAN = PEAK_CHAINS * PEAK_STEPS * 8,   /* doubles: enough for 8 lanes */
    PEAK_ITERATIONS = 1500000, /* passes over the array per timed call */
    PEAK_PASSES = 5,
};

/* Defeats dead-code elimination: every loop's sums end up here. */
static volatile double peak_sink;

#define PEAK_LOOP(NAME, ATTRIBUTE, WIDTH_BYTES, LANES_TYPE)                               \
    ATTRIBUTE static double NAME(const double *x, long iterations)                      \
    {                                                                                   \
        typedef LANES_TYPE lanes;                                                       \
        enum { LANES = WIDTH_BYTES / 8 };                                               \
        const lanes zero = {0};                                                         \
        lanes s[PEAK_CHAINS];                                                           \
        _Pragma("GCC unroll 16")                                                        \
        for (int c = 0; c < PEAK_CHAINS; c++)                                           \
            s[c] = zero;                                                                \
        for (long it = 0; it < iterations; it++)                                        \
            for (int j = 0; j < PEAK_STEPS; j++) {                                      \
                const double weight = (double)(j + 1);                                  \
                _Pragma("GCC unroll 16")                                                \
                for (int c = 0; c < PEAK_CHAINS; c++) {                                 \
                    lanes terms;                                                        \
                    memcpy(&terms, x + ((size_t)j * PEAK_CHAINS + c) * LANES, sizeof terms);\
                    s[c] = s[c] + terms * weight;                                       \
                }                                                                       \
            }                                                                           \
        lanes sum = zero;                                                               \
        _Pragma("GCC unroll 16")                                                        \
        for (int c = 0; c < PEAK_CHAINS; c++)                                           \
            sum = sum + s[c];                                                           \
        double lane[LANES];                                                             \
        memcpy(lane, &sum, sizeof lane);                                                \
        return lane[0];                                                                 \
    }

typedef double v2 __attribute__((vector_size(16)));
typedef double v4 __attribute__((vector_size(32)));
typedef double v8 __attribute__((vector_size(64)));
PEAK_LOOP(peak_scalar, __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize"))),
          8, double)
PEAK_LOOP(peak_128, , 16, v2)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
PEAK_LOOP(peak_256, __attribute__((target("avx2"))), 32, v4)
PEAK_LOOP(peak_512, __attribute__((target("avx512f"))), 64, v8)
#endif

struct peak_kind {
    const char *name;
    int bytes;                 /* vector width */
    double (*loop)(const double *x, long iterations);
};

static const struct peak_kind KINDS[] = {
    {"scalar", 8, peak_scalar},
    {"sse2", 16, peak_128},
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    {"avx2", 32, peak_256},
    {"avx512", 64, peak_512},
#endif
};
enum { N_KINDS = sizeof KINDS / sizeof KINDS[0] };

/* Operations one timed call performs: a multiplication and an addition per lane. */
static double peak_flops(const struct peak_kind *k, long iterations)
{
    return 2.0 * (k->bytes / 8) * PEAK_CHAINS * PEAK_STEPS * (double)iterations;
}

struct peak_thread {
    const struct peak_kind *kind;
    const double *x;
    long iterations;
    double result;
};

static void *peak_thread_main(void *arg)
{
    struct peak_thread *t = arg;
    t->result = t->kind->loop(t->x, t->iterations);
    return NULL;
}

/* Runs the loop on n threads; returns the wall time in seconds. */
static double run_peak(const struct peak_kind *k, const double *x, int n)
{
    enum { MAX_PEAK_THREADS = 64 };
    pthread_t threads[MAX_PEAK_THREADS];
    struct peak_thread args[MAX_PEAK_THREADS];
    n = n > MAX_PEAK_THREADS ? MAX_PEAK_THREADS : n;
    uint64_t t0 = clock_ns();
    int started = 0;
    for (int i = 1; i < n; i++) {
        args[started] = (struct peak_thread){k, x, PEAK_ITERATIONS, 0};
        if (pthread_create(&threads[started], NULL, peak_thread_main, &args[started]) == 0)
            started++;
    }
    double mine = k->loop(x, PEAK_ITERATIONS);
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        mine += args[i].result;
    }
    peak_sink = mine;
    return seconds_between(t0, clock_ns());
}

static int write_roof_settings(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct data_out out;
    if (measure_open(ctx, "roofline_settings.csv", &out, err, err_size) != 0)
        return -1;
    data_key_int(&out, "chains", PEAK_CHAINS);
    data_key_int(&out, "passes", scaled(ctx, PEAK_PASSES, 2));
    data_key_text(&out, "tuned_path", tuned_path_name(tuned_path_in_use()));
    data_key_int(&out, "tuned_bytes", tuned_path_bytes(tuned_path_in_use()));
    return data_out_close(&out) == 0 ? 0 : set_error(err, err_size,
                                                    "cannot write roofline_settings.csv");
}

int measure_roofline(const struct measure_context *ctx, char *err, size_t err_size)
{
    static double x[PEAK_SPAN];
    int widest = tuned_path_bytes(tuned_path_best(cpu_simd_here()));
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct data_out out;
    struct { int kind, threads; } configs[2 * N_KINDS];
    size_t n = 0, order[2 * N_KINDS];
    for (int i = 0; i < PEAK_SPAN; i++)
        x[i] = 1.0 + 1e-9 * i;
    for (int k = 0; k < N_KINDS; k++)
        if (KINDS[k].bytes <= widest) {
            configs[n].kind = k, configs[n++].threads = 1;
            if (cores > 1)
                configs[n].kind = k, configs[n++].threads = cores;
        }
    if (measure_open(ctx, "roofline.csv", &out, err, err_size) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        run_peak(&KINDS[configs[i].kind], x, configs[i].threads);          /* warm-up */
    int passes = scaled(ctx, PEAK_PASSES, 2);
    for (int pass = 1; pass <= passes; pass++) {
        struct mt19937 mt;
        mt19937_seed(&mt, round_seed(ctx->seed ^ 0x726f6f66u, pass));      /* "roof" */
        random_order(&mt, order, n);
        for (size_t i = 0; i < n; i++) {
            const struct peak_kind *k = &KINDS[configs[order[i]].kind];
            int threads = configs[order[i]].threads;
            double seconds = run_peak(k, x, threads);
            data_text(&out, ROOF_kind, k->name);
            data_int(&out, ROOF_lanes, k->bytes / 8);
            data_int(&out, ROOF_threads, threads);
            data_int(&out, ROOF_pass, pass);
            data_double(&out, ROOF_flops, peak_flops(k, PEAK_ITERATIONS) * threads);
            data_fixed(&out, ROOF_seconds, seconds, 9);
            data_end_row(&out);
        }
    }
    if (data_out_close(&out) != 0)
        return set_error(err, err_size, "cannot write roofline.csv");
    return write_roof_settings(ctx, err, err_size);
}
