/*
 * roofline.c - the clock of each CPU, the peak rate of independent
 * multiply-and-add chains on registers and from memory, and the tuned
 * kernel's parts beside them.
 *
 * Tangled from paper/77-roofline.md. Built with -ffp-contract=off like the
 * kernels: a multiplication and an addition stay two operations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/measure.h"
#include "harness/placement.h"
#include "kernel/kernel_tuned.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

/* <<peak-loop-sizes>>, paper/77-roofline.md */
enum {
    PEAK_CHAINS = 12,
    PEAK_STEPS = 32,           /* terms per chain per pass over the array */
    PEAK_SPAN = PEAK_CHAINS * PEAK_STEPS * 8,   /* doubles: enough for 8 lanes */
    PEAK_ITERATIONS = 600000,  /* passes over the array per timed call */
    PEAK_PASSES = 5,
    PEAK_TRIES = 4,            /* timings of one row at most, while a CPU is lost */
    FIRST_OFFSET = 32,         /* bytes past a cache line: where the first loop's array lay */
    MAX_PEAK_THREADS = 64,
};
#define CLOCK_ADDITIONS 48000000ULL    /* a timed chain: some 15 ms at 3 GHz */
#define KEPT_SHARE 0.9         /* a thread that ran for less of its time lost its CPU */

/* Defeats dead-code elimination: every loop's sums end up here. */
static volatile double peak_sink;

/* <<the-clock>>, paper/77-roofline.md */
uint64_t clock_chain(uint64_t additions)
{
    uint64_t sum = 0, one = 1;
    __asm__("" : "+r"(one));                   /* a register, not a constant */
    for (uint64_t i = 0; i < additions / 8; i++) {
        _Pragma("GCC unroll 8")
        for (int k = 0; k < 8; k++) {
            sum += one;
            __asm__ volatile("" : "+r"(sum));  /* each addition stays one instruction */
        }
    }
    for (uint64_t i = 0; i < additions % 8; i++) {
        sum += one;
        __asm__ volatile("" : "+r"(sum));
    }
    return sum;
}

/* The chain as a timed loop of the table below: `iterations` additions. */
static double clock_loop(const double *x, long iterations)
{
    (void)x;
    return (double)clock_chain((uint64_t)iterations);
}

/* <<peak-loops>>, paper/77-roofline.md */
/* weights[j] = j + 1, filled before the first timing. */
static double peak_weights[PEAK_STEPS];

/* Every loop's chains start at zero and end added up, lane 0 returned, so
 * that the compiler can leave no work out. */
#define PEAK_CHAINS_START                                                                 \
    const lanes zero = {0};                                                             \
    lanes s[PEAK_CHAINS];                                                               \
    _Pragma("GCC unroll 16")                                                            \
    for (int c = 0; c < PEAK_CHAINS; c++)                                               \
        s[c] = zero
#define PEAK_CHAINS_END                                                                   \
    lanes sum = zero;                                                                   \
    _Pragma("GCC unroll 16")                                                            \
    for (int c = 0; c < PEAK_CHAINS; c++)                                               \
        sum = sum + s[c];                                                               \
    double lane[LANES];                                                                 \
    memcpy(lane, &sum, sizeof lane);                                                    \
    return lane[0]

#define PEAK_LOOP(NAME, ATTRIBUTE, WIDTH_BYTES, LANES_TYPE, WEIGHT)                        \
    ATTRIBUTE static double NAME(const double *x, long iterations)                      \
    {                                                                                   \
        typedef LANES_TYPE lanes;                                                       \
        enum { LANES = WIDTH_BYTES / 8 };                                               \
        PEAK_CHAINS_START;                                                              \
        for (long it = 0; it < iterations; it++)                                        \
            for (int j = 0; j < PEAK_STEPS; j++) {                                      \
                const double weight = WEIGHT;                                           \
                _Pragma("GCC unroll 16")                                                \
                for (int c = 0; c < PEAK_CHAINS; c++) {                                 \
                    lanes terms;                                                        \
                    memcpy(&terms, x + ((size_t)j * PEAK_CHAINS + c) * LANES, sizeof terms);\
                    s[c] = s[c] + terms * weight;                                       \
                }                                                                       \
            }                                                                           \
        PEAK_CHAINS_END;                                                                \
    }

/* <<register-loops>>, paper/77-roofline.md */
#if defined(__x86_64__) || defined(__i386__)
#define IN_A_REGISTER "+v"             /* an SSE or AVX register */
#elif defined(__aarch64__)
#define IN_A_REGISTER "+w"             /* a SIMD register */
#else
#define IN_A_REGISTER "+r"
#endif

#define REGISTER_LOOP(NAME, ATTRIBUTE, WIDTH_BYTES, LANES_TYPE)                            \
    ATTRIBUTE static double NAME(const double *x, long iterations)                      \
    {                                                                                   \
        typedef LANES_TYPE lanes;                                                       \
        enum { LANES = WIDTH_BYTES / 8 };                                               \
        PEAK_CHAINS_START;                                                              \
        lanes term = zero + x[0], weight = zero + x[1];                                 \
        for (long it = 0; it < iterations; it++)                                        \
            for (int j = 0; j < PEAK_STEPS; j++) {                                      \
                _Pragma("GCC unroll 16")                                                \
                for (int c = 0; c < PEAK_CHAINS; c++) {                                 \
                    s[c] = s[c] + term * weight;                                        \
                    __asm__ volatile("" : IN_A_REGISTER(term));                         \
                }                                                                       \
            }                                                                           \
        PEAK_CHAINS_END;                                                                \
    }

/* <<the-kinds-of-peak-loop>>, paper/77-roofline.md */
typedef double v2 __attribute__((vector_size(16)));
typedef double v4 __attribute__((vector_size(32)));
typedef double v8 __attribute__((vector_size(64)));
#define SCALAR __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#define CONVERTED (double)(j + 1)
#define FROM_TABLE peak_weights[j]
PEAK_LOOP(loads_scalar, SCALAR, 8, double, FROM_TABLE)
PEAK_LOOP(loads_128, , 16, v2, FROM_TABLE)
PEAK_LOOP(converting_scalar, SCALAR, 8, double, CONVERTED)
PEAK_LOOP(converting_128, , 16, v2, CONVERTED)
REGISTER_LOOP(registers_scalar, SCALAR, 8, double)
REGISTER_LOOP(registers_128, , 16, v2)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define X86_PEAKS 1
PEAK_LOOP(loads_256, __attribute__((target("avx2"))), 32, v4, FROM_TABLE)
PEAK_LOOP(loads_512, __attribute__((target("avx512f"))), 64, v8, FROM_TABLE)
PEAK_LOOP(converting_256, __attribute__((target("avx2"))), 32, v4, CONVERTED)
PEAK_LOOP(converting_512, __attribute__((target("avx512f"))), 64, v8, CONVERTED)
REGISTER_LOOP(registers_256, __attribute__((target("avx2"))), 32, v4)
REGISTER_LOOP(registers_512, __attribute__((target("avx512f"))), 64, v8)
#endif

enum peak_form { LOADS, REGISTERS, FIRST, CONVERTING, CLOCK };

struct peak_kind {
    const char *name;
    int bytes;                 /* vector width */
    enum peak_form form;
    double (*loop)(const double *x, long iterations);
    long iterations;           /* per timed call */
};

#define WIDTH(name, bytes, loads, converting, registers)                             \
    {name, bytes, LOADS, loads, PEAK_ITERATIONS},                                        \
    {"reg_" name, bytes, REGISTERS, registers, PEAK_ITERATIONS},                         \
    {"first_" name, bytes, FIRST, converting, PEAK_ITERATIONS},                          \
    {"convert_" name, bytes, CONVERTING, converting, PEAK_ITERATIONS}
static const struct peak_kind KINDS[] = {
    WIDTH("scalar", 8, loads_scalar, converting_scalar, registers_scalar),
    WIDTH("sse2", 16, loads_128, converting_128, registers_128),
#ifdef X86_PEAKS
    WIDTH("avx2", 32, loads_256, converting_256, registers_256),
    WIDTH("avx512", 64, loads_512, converting_512, registers_512),
#endif
    {"clock", 8, CLOCK, clock_loop, (long)CLOCK_ADDITIONS},
};
enum { N_KINDS = sizeof KINDS / sizeof KINDS[0] };

/* Operations one timed call performs: a multiplication and an addition per lane. */
static double peak_operations(const struct peak_kind *k)
{
    return k->form == CLOCK ? (double)k->iterations
                            : 2.0 * (k->bytes / 8) * PEAK_CHAINS * PEAK_STEPS *
                                  (double)k->iterations;
}

/* Where a kind's loop reads: the array, or the first loop's place 32 bytes on. */
static const double *peak_array(const struct peak_kind *k, const double *x)
{
    return k->form == FIRST ? x + FIRST_OFFSET / sizeof(double) : x;
}

/* <<peak-threads>>, paper/77-roofline.md */
struct peak_thread {
    const struct peak_kind *kind;
    const double *x;
    int cpu;                   /* pinned there, or CPU_ANY */
    double result;
    double wall_s, cpu_s;      /* its own time, and the processor time it had */
};

static void *peak_thread_main(void *arg)
{
    struct peak_thread *t = arg;
    if (t->cpu != CPU_ANY)
        pin_this_thread(t->cpu);
    uint64_t wall = clock_ns(), cpu = thread_cpu_ns();
    t->result = t->kind->loop(t->x, t->kind->iterations);
    t->cpu_s = seconds_between(cpu, thread_cpu_ns());
    t->wall_s = seconds_between(wall, clock_ns());
    return NULL;
}

/* Runs kind on n threads, pinned to cpus[0..n) (NULL: one thread, anywhere);
 * returns the wall time in seconds, and in *lost whether a thread lost its CPU. */
static double run_peak(const struct peak_kind *k, const double *x, int n, const int *cpus,
                       int *lost)
{
    pthread_t threads[MAX_PEAK_THREADS];
    struct peak_thread t[MAX_PEAK_THREADS];
    n = n > MAX_PEAK_THREADS ? MAX_PEAK_THREADS : n < 1 ? 1 : n;
    uint64_t t0 = clock_ns();
    int started = 1;
    for (int i = 1; i < n; i++) {
        t[started] = (struct peak_thread){k, x, cpus[i], 0, 0, 0};
        if (pthread_create(&threads[started], NULL, peak_thread_main, &t[started]) == 0)
            started++;
    }
    t[0] = (struct peak_thread){k, x, cpus != NULL ? cpus[0] : CPU_ANY, 0, 0, 0};
    peak_thread_main(&t[0]);
    for (int i = 1; i < started; i++)
        pthread_join(threads[i], NULL);
    double seconds = seconds_between(t0, clock_ns()), sum = 0;
    if (cpus != NULL)
        pin_this_thread(CPU_ANY);
    *lost = started < n;
    for (int i = 0; i < started; i++) {
        sum += t[i].result;
        *lost |= t[i].cpu_s < KEPT_SHARE * t[i].wall_s;
    }
    peak_sink = sum;
    return seconds;
}

/* <<a-timing-that-lost-a-cpu>>, paper/77-roofline.md */
/* How many timings lost a CPU, how many rows were kept though every try did (or
 * the budget of repeats was spent), and how many repeats are left. */
struct lost_cpus {
    int timings, kept, budget;
};

typedef double timed_fn(void *arg, int *lost);

/* A timing of fn that kept its CPUs, or the fastest of PEAK_TRIES that did not. */
static double time_keeping_cpus(timed_fn *fn, void *arg, struct lost_cpus *lost_cpus)
{
    double fastest = 0;
    for (int try = 0; try < PEAK_TRIES; try++) {
        int lost;
        double seconds = fn(arg, &lost);
        if (!lost)
            return seconds;
        lost_cpus->timings++;
        fastest = try == 0 || seconds < fastest ? seconds : fastest;
        if (lost_cpus->budget-- <= 0)
            break;
    }
    lost_cpus->kept++;
    return fastest;
}

/* A kind on some threads, as a timed_fn. */
struct peak_call {
    const struct peak_kind *kind;
    const double *x;
    int threads;
    const int *cpus;           /* NULL: one thread, anywhere */
};

static double peak_call(void *arg, int *lost)
{
    const struct peak_call *c = arg;
    return run_peak(c->kind, peak_array(c->kind, c->x), c->threads, c->cpus, lost);
}

/* <<the-tuned-kernels-parts>>, paper/77-roofline.md */
struct tuned_call {
    const struct sweep_job *job;
    struct sweep_workspace *ws;
    struct combo_result *results;
    double part_s[TUNED_PARTS];
};

static double tuned_call(void *arg, int *lost)
{
    struct tuned_call *c = arg;
    memset(c->part_s, 0, sizeof c->part_s);
    uint64_t wall = clock_ns(), cpu = thread_cpu_ns();
    int status = sweep_tuned_parts(c->ws, c->job->close, c->job->n_bars, c->job->params,
                                   c->job->n_combos, c->results, c->part_s);
    double cpu_s = seconds_between(cpu, thread_cpu_ns()), wall_s = seconds_between(wall, clock_ns());
    *lost = status != 0 || cpu_s < KEPT_SHARE * wall_s;
    return wall_s;
}

static void tuned_rows(struct data_out *out, const struct tuned_call *c, double seconds,
                       int pass)
{
    char kind[32];
    for (int p = -1; p < TUNED_PARTS; p++) {
        snprintf(kind, sizeof kind, "tuned_%s", p < 0 ? "sweep" : tuned_part_name(p));
        data_text(out, ROOF_kind, kind);
        data_int(out, ROOF_lanes, tuned_path_bytes(tuned_path_in_use()) / 8);
        data_int(out, ROOF_threads, 1);
        data_int(out, ROOF_pass, pass);
        data_double(out, ROOF_flops, 0);
        data_fixed(out, ROOF_seconds, p < 0 ? seconds : c->part_s[p], 9);
        data_end_row(out);
    }
}

/* <<the-roofline-settings>>, paper/77-roofline.md */
static int write_roof_settings(const struct measure_context *ctx, const struct lost_cpus *lost,
                               char *err, size_t err_size)
{
    struct data_out out;
    if (measure_open(ctx, "roofline_settings.csv", &out, err, err_size) != 0)
        return -1;
    data_key_int(&out, "chains", PEAK_CHAINS);
    data_key_int(&out, "passes", scaled(ctx, PEAK_PASSES, 2));
    data_key_text(&out, "tuned_path", tuned_path_name(tuned_path_in_use()));
    data_key_int(&out, "tuned_bytes", tuned_path_bytes(tuned_path_in_use()));
    data_key_int(&out, "steps", PEAK_STEPS);
    data_key_int(&out, "iterations", PEAK_ITERATIONS);
    data_key_int(&out, "clock_additions", (int64_t)CLOCK_ADDITIONS);
    data_key_int(&out, "first_offset_bytes", FIRST_OFFSET);
    data_key_int(&out, "tries", PEAK_TRIES);
    data_key_int(&out, "lost_timings", lost->timings);
    data_key_int(&out, "lost_kept", lost->kept);
    return data_out_close(&out) == 0 ? 0 : set_error(err, err_size,
                                                    "cannot write roofline_settings.csv");
}

/* <<measure-roofline>>, paper/77-roofline.md */
/* One timing of a pass: a kind on some threads, the clock of one CPU, or the tuned sweep. */
struct roof_config {
    int kind;                  /* in KINDS, or -1 for the tuned kernel's parts */
    int threads, cpu;          /* the clock's CPU, or CPU_ANY */
};

static size_t roof_configs(struct roof_config *configs, const int *cpus, int n_cpus)
{
    int widest = tuned_path_bytes(tuned_path_best(cpu_simd_here()));
    size_t n = 0;
    for (int k = 0; k < N_KINDS; k++) {
        const struct peak_kind *kind = &KINDS[k];
        if (kind->form == CLOCK) {
            for (int c = 0; c < n_cpus; c++)
                configs[n++] = (struct roof_config){k, 1, cpus[c]};
        } else if (kind->form == LOADS || kind->form == REGISTERS) {
            if (kind->bytes > widest)
                continue;
            configs[n++] = (struct roof_config){k, 1, CPU_ANY};
            if (n_cpus > 1)
                configs[n++] = (struct roof_config){k, n_cpus, CPU_ANY};
        } else if (kind->bytes == widest) {
            configs[n++] = (struct roof_config){k, 1, CPU_ANY};
        }
    }
    configs[n++] = (struct roof_config){-1, 1, CPU_ANY};
    return n;
}

/* One timing of a configuration, the first loop's sums and the clock's CPU included. */
static double time_config(const struct roof_config *c, const double *x, const int *cpus,
                          struct tuned_call *tuned, struct lost_cpus *lost)
{
    if (c->kind < 0)
        return time_keeping_cpus(tuned_call, tuned, lost);
    struct peak_call call = {&KINDS[c->kind], x, c->threads,
                             c->cpu != CPU_ANY ? &c->cpu : c->threads > 1 ? cpus : NULL};
    if (KINDS[c->kind].form == CLOCK) {        /* the CPU up to speed, untimed, first */
        int lost_here;
        peak_call(&call, &lost_here);
    }
    return time_keeping_cpus(peak_call, &call, lost);
}

static void peak_row(struct data_out *out, const struct roof_config *c, double seconds, int pass)
{
    const struct peak_kind *k = &KINDS[c->kind];
    char name[32];
    snprintf(name, sizeof name, k->form == CLOCK ? "%s_cpu%d" : "%s", k->name, c->cpu);
    data_text(out, ROOF_kind, name);
    data_int(out, ROOF_lanes, k->bytes / 8);
    data_int(out, ROOF_threads, c->threads);
    data_int(out, ROOF_pass, pass);
    data_double(out, ROOF_flops, peak_operations(k) * c->threads);
    data_fixed(out, ROOF_seconds, seconds, 9);
    data_end_row(out);
}

int measure_roofline(const struct measure_context *ctx, char *err, size_t err_size)
{
    static double x[PEAK_SPAN + FIRST_OFFSET / sizeof(double)] __attribute__((aligned(64)));
    enum { MAX_CONFIGS = 2 * N_KINDS + MAX_PEAK_THREADS + 1 };
    struct roof_config configs[MAX_CONFIGS];
    size_t order[MAX_CONFIGS];
    int cpus[MAX_PEAK_THREADS], n_cpus = placement_cpus(cpus, MAX_PEAK_THREADS);
    size_t n = roof_configs(configs, cpus, n_cpus);
    struct lost_cpus lost = {0, 0, (int)n / 2};
    struct sweep_workspace ws;
    struct tuned_call tuned = {ctx->job, &ws, malloc(ctx->job->n_combos * sizeof *tuned.results),
                               {0}};
    struct data_out out;
    /* <<prepare-the-roofline-inputs>>, paper/77-roofline.md */
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        x[i] = 1.0 + 1e-9 * (double)i;
    for (int j = 0; j < PEAK_STEPS; j++)
        peak_weights[j] = (double)(j + 1);
    sweep_workspace_init(&ws, NULL);
    int status = tuned.results == NULL ? set_error(err, err_size, "out of memory") :
                 measure_open(ctx, "roofline.csv", &out, err, err_size);
    /* <<time-the-configurations-pass-by-pass>>, paper/77-roofline.md */
    for (size_t i = 0; status == 0 && i < n; i++)
        time_config(&configs[i], x, cpus, &tuned, &(struct lost_cpus){0, 0, 0});   /* warm-up */
    int passes = scaled(ctx, PEAK_PASSES, 2);
    for (int pass = 1; status == 0 && pass <= passes; pass++) {
        struct mt19937 mt;
        mt19937_seed(&mt, round_seed(ctx->seed ^ 0x726f6f66u, pass));      /* "roof" */
        random_order(&mt, order, n);
        for (size_t i = 0; i < n; i++) {
            const struct roof_config *c = &configs[order[i]];
            double seconds = time_config(c, x, cpus, &tuned, &lost);
            if (c->kind < 0)
                tuned_rows(&out, &tuned, seconds, pass);
            else
                peak_row(&out, c, seconds, pass);
        }
    }
    /* <<free-and-write-the-roofline-settings>>, paper/77-roofline.md */
    sweep_workspace_free(&ws);
    free(tuned.results);
    if (status != 0)
        return -1;
    if (data_out_close(&out) != 0)
        return set_error(err, err_size, "cannot write roofline.csv");
    return write_roof_settings(ctx, &lost, err, err_size);
}
