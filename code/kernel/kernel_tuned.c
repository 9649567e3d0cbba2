/*
 * kernel_tuned.c - the sweep of kernel.c, bit for bit, in vector lanes and threads.
 *
 * Tangled from paper/35-tuned-kernel.md, which explains why every result is
 * the naive kernel's to the last bit. Built, like kernel.c, with
 * -ffp-contract=off and without -ffast-math. The loops are in
 * kernel_tuned_rows.h, included once per vector width.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kernel_tuned.h"
#include "util/timing.h"

/* <<the-tuned-loops-at-three-widths>>, paper/35-tuned-kernel.md */
/* Rows per block: as many sums as fit in the registers with the rows they read;
 * positions per round of loads (measured with GCC 12, @sec:tuned-bounds). */
enum { BLOCKS_512 = 8, BLOCKS_256 = 6, BLOCKS_128 = 6 };
enum { STEPS_512 = 2, STEPS_256 = 2, STEPS_128 = 2 };

/* A row in which some columns' bars may trade; bit i of lanes: column i. */
struct row_event {
    size_t row;
    unsigned lanes;
};

/* Rows 0..rows-1 (whole blocks) of out: the WMA of window n over in, halo filled. */
typedef void wma_rows_fn(const double *in, size_t rows, int64_t n, const double *weights,
                         double weight_sum, double *out);
/* fast = 2 fast - slow, or with middle (3 fast - middle) - slow, rows 0..rows-1. */
typedef void mix_rows_fn(double *fast, const double *middle, const double *slow, size_t rows);
/* The rows where the lines may cross into events (row -1 filled); returns how many. */
typedef size_t crossing_rows_fn(const double *hma, const double *hma3, size_t rows,
                                struct row_event *events);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TUNED_X86 1
#else
#define TUNED_X86 0
#endif

#if TUNED_X86
#define ROWS_BYTES 64
#define ROWS_BLOCKS BLOCKS_512
#define ROWS_STEPS STEPS_512
#define ROWS_TARGET __attribute__((target("avx512f")))
#define ROWS(name) name##_512
#include "kernel/kernel_tuned_rows.h"

#define ROWS_BYTES 32
#define ROWS_BLOCKS BLOCKS_256
#define ROWS_STEPS STEPS_256
#define ROWS_TARGET __attribute__((target("avx2")))
#define ROWS(name) name##_256
#include "kernel/kernel_tuned_rows.h"
#endif

#define ROWS_BYTES 16              /* SSE2 on x86-64, NEON on ARM, scalars elsewhere */
#define ROWS_BLOCKS BLOCKS_128
#define ROWS_STEPS STEPS_128
#define ROWS_TARGET
#define ROWS(name) name##_128
#include "kernel/kernel_tuned_rows.h"

/* <<what-the-processor-and-the-system-offer>>, paper/35-tuned-kernel.md */
#if TUNED_X86
#include <cpuid.h>
#endif

static struct cpu_simd cpu_simd_probe(void)
{
    struct cpu_simd cpu = {false, false, false, false, false};
#if TUNED_X86
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        cpu.avx = (c & bit_AVX) != 0;
        if (c & bit_OSXSAVE) {                         /* then XGETBV reads XCR0 */
            uint32_t low, high;
            __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
            cpu.os_saves_ymm = (low & 0x06) == 0x06;   /* SSE and AVX state */
            cpu.os_saves_zmm = (low & 0xe6) == 0xe6;   /* and opmask, ZMM_Hi256, Hi16_ZMM */
            (void)high;
        }
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        cpu.avx2 = (b & bit_AVX2) != 0;
        cpu.avx512f = (b & bit_AVX512F) != 0;
    }
#endif
    return cpu;
}

/* <<the-paths-and-what-each-needs>>, paper/35-tuned-kernel.md */
struct tuned_path {
    const char *name;
    int vector_bytes, blocks;
    const char *(*lacks)(const struct cpu_simd *cpu);   /* NULL when cpu runs it */
    wma_rows_fn *wma_rows;
    mix_rows_fn *mix_rows;
    crossing_rows_fn *crossing_rows;
};

#if TUNED_X86
static const char *lacks_for_avx512(const struct cpu_simd *cpu)
{
    return !cpu->avx512f ? "the processor has no AVX-512F"
         : !cpu->os_saves_zmm ? "the system does not enable AVX-512 (XCR0)" : NULL;
}

static const char *lacks_for_avx2(const struct cpu_simd *cpu)
{
    return !cpu->avx || !cpu->avx2 ? "the processor has no AVX2"
         : !cpu->os_saves_ymm ? "the system does not enable AVX (XCR0)" : NULL;
}
#endif

static const char *lacks_nothing(const struct cpu_simd *cpu)
{
    (void)cpu;
    return NULL;
}

static const struct tuned_path PATHS[] = {     /* widest first */
#if TUNED_X86
    {"avx512", 64, BLOCKS_512, lacks_for_avx512, wma_rows_512, mix_rows_512, crossing_rows_512},
    {"avx2", 32, BLOCKS_256, lacks_for_avx2, wma_rows_256, mix_rows_256, crossing_rows_256},
    {"sse2", 16, BLOCKS_128, lacks_nothing, wma_rows_128, mix_rows_128, crossing_rows_128},
#define PATH_NAMES "avx512, avx2, sse2"
#else
    {"vector128", 16, BLOCKS_128, lacks_nothing, wma_rows_128, mix_rows_128, crossing_rows_128},
#define PATH_NAMES "vector128"
#endif
};
enum { N_PATHS = sizeof PATHS / sizeof PATHS[0] };

/* <<name-and-choose-a-path>>, paper/35-tuned-kernel.md */
int tuned_path_count(void) { return N_PATHS; }

const char *tuned_path_name(int p) { return p >= 0 && p < N_PATHS ? PATHS[p].name : "none"; }
int tuned_path_bytes(int p) { return p >= 0 && p < N_PATHS ? PATHS[p].vector_bytes : 0; }

const char *tuned_path_lacks(int path, const struct cpu_simd *cpu)
{
    return path >= 0 && path < N_PATHS ? PATHS[path].lacks(cpu) : "there is no such path";
}

int tuned_path_best(const struct cpu_simd *cpu)
{
    int p = 0;
    while (p < N_PATHS - 1 && PATHS[p].lacks(cpu) != NULL)
        p++;
    return p;
}

int tuned_path_choose(const char *name, const struct cpu_simd *cpu, char *err,
                      size_t err_size)
{
    if (name == NULL || name[0] == '\0')
        return tuned_path_best(cpu);
    int p = N_PATHS - 1;
    while (p >= 0 && strcmp(PATHS[p].name, name) != 0)
        p--;
    const char *lack = p < 0 ? NULL : PATHS[p].lacks(cpu);
    if (p < 0)
        snprintf(err, err_size, "'%s' is not a path of the tuned kernel (%s)", name, PATH_NAMES);
    else if (lack != NULL)
        snprintf(err, err_size, "the tuned kernel's %s path cannot run here: %s", name, lack);
    return p < 0 || lack != NULL ? -1 : p;
}

/* <<choose-a-path-once-per-process>>, paper/35-tuned-kernel.md */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static struct cpu_simd this_machine;
static atomic_int forced_path = -1;            /* -1: the best this machine runs */

static void probe_this_machine(void)
{
    this_machine = cpu_simd_probe();
}

const struct cpu_simd *cpu_simd_here(void)
{
    pthread_once(&probe_once, probe_this_machine);
    return &this_machine;
}

int tuned_path_force(const char *name, char *err, size_t err_size)
{
    int p = tuned_path_choose(name, cpu_simd_here(), err, err_size);
    if (p >= 0)
        atomic_store(&forced_path, name == NULL || name[0] == '\0' ? -1 : p);
    return p < 0 ? -1 : 0;
}

int tuned_path_force_from_environment(char *err, size_t err_size)
{
    char why[256];
    if (tuned_path_force(getenv(TUNED_PATH_VARIABLE), why, sizeof why) == 0)
        return 0;
    snprintf(err, err_size, "%s: %s", TUNED_PATH_VARIABLE, why);
    return -1;
}

int tuned_path_in_use(void)
{
    int p = atomic_load(&forced_path);
    return p >= 0 ? p : tuned_path_best(cpu_simd_here());
}

/* The path by index, if this machine runs it; NULL otherwise. */
static const struct tuned_path *runnable_path(int path)
{
    return tuned_path_lacks(path, cpu_simd_here()) == NULL ? &PATHS[path] : NULL;
}

/* <<cut-the-series-into-columns>>, paper/35-tuned-kernel.md */
/* How a sweep lays a series out: `lanes` columns of `rows` bars, row by row. */
struct column_shape {
    int lanes;                 /* doubles in a row: one vector of the path */
    size_t rows;               /* bars per column: whole blocks of the path */
    size_t halo;               /* rows above row 0: the longest window less one, at least 1 */
};

enum { COLUMN_ALIGN = 64 };    /* bytes: the widest vector, and a cache line */

static struct column_shape column_shape(const struct tuned_path *path, size_t n_bars,
                                        int64_t longest_window)
{
    size_t lanes = (size_t)path->vector_bytes / sizeof(double);
    size_t per_column = (n_bars + lanes - 1) / lanes, blocks = (size_t)path->blocks;
    return (struct column_shape){(int)lanes, (per_column + blocks - 1) / blocks * blocks,
                                 longest_window > 1 ? (size_t)longest_window - 1 : 1};
}

/* Doubles a workspace region must hold for one array of this shape. */
static size_t column_doubles(const struct column_shape *c)
{
    return (c->halo + c->rows) * (size_t)c->lanes + COLUMN_ALIGN / sizeof(double);
}

/* Row 0 of the array that lives in a region: aligned, with the halo above it. */
static double *column_row0(double *region, const struct column_shape *c)
{
    uintptr_t at = ((uintptr_t)region + COLUMN_ALIGN - 1) & ~(uintptr_t)(COLUMN_ALIGN - 1);
    return (double *)at + c->halo * (size_t)c->lanes;
}

/* The series into columns, halo included: NaN before the series, zeros after it. */
static void columns_from_bars(const struct column_shape *c, const double *x, size_t n_bars,
                              double *row0)
{
    for (ptrdiff_t r = -(ptrdiff_t)c->halo; r < (ptrdiff_t)c->rows; r++)
        for (int i = 0; i < c->lanes; i++) {
            ptrdiff_t t = (ptrdiff_t)((size_t)i * c->rows) + r;
            row0[r * c->lanes + i] = t < 0 ? NAN : (size_t)t < n_bars ? x[t] : 0.0;
        }
}

/* The halo from the array's own rows: row -q of column i is bar i*rows - q. */
static void fill_halo(const struct column_shape *c, double *row0)
{
    for (size_t q = 1; q <= c->halo; q++) {
        size_t back = c->rows > 0 ? (q + c->rows - 1) / c->rows : (size_t)c->lanes;
        const double *from = row0 + (ptrdiff_t)(back * c->rows - q) * c->lanes;
        double *to = row0 - (ptrdiff_t)q * c->lanes;
        for (size_t i = 0; i < (size_t)c->lanes; i++)
            to[i] = i < back ? NAN : from[i - back];
    }
}

/* <<wma-bit-for-bit-in-columns>>, paper/35-tuned-kernel.md */
/* What every combination of a sweep reads: the path, the series both ways, the
 * weights 1, 2, ... up to the longest window. */
struct tuned_input {
    const struct tuned_path *path;
    struct column_shape shape;
    const double *close, *columns;     /* bar by bar, and in columns with the halo */
    size_t n_bars;
    const double *weights;             /* weights[j] = j + 1 */
    const atomic_int *stop;            /* the caller's workspace's flag */
    double *part_seconds;              /* NULL, or each part's time (@sec:tuned-bounds) */
};

/* wma() of kernel.c on every row of every column, to the bit; x has its halo
 * filled. In slices of whole blocks, with a look at the stop flag before each. */
static void wma_columns(const struct tuned_input *in, const double *x, int64_t n, double *out)
{
    const struct column_shape *c = &in->shape;
    if (n < 1 || (uint64_t)n > in->n_bars) {   /* no bar has a full window */
        for (size_t k = 0; k < c->rows * (size_t)c->lanes; k++)
            out[k] = NAN;
        return;
    }
    const size_t lanes = (size_t)c->lanes, blocks = (size_t)in->path->blocks;
    const size_t slice = sweep_slice_bars(n, blocks * lanes) / (blocks * lanes) * blocks;
    const double weight_sum = (double)n * (double)(n + 1) / 2.0;
    for (size_t m = 0; m < c->rows && !sweep_stop_asked(in->stop); m += slice) {
        const size_t rows = c->rows - m < slice ? c->rows - m : slice;
        in->path->wma_rows(x + m * lanes, rows, n, in->weights, weight_sum, out + m * lanes);
    }
}

/* <<time-the-parts-of-a-sweep>>, paper/35-tuned-kernel.md */
/* The clock, when the sweep is timed part by part; 0 otherwise. */
static uint64_t part_start(const struct tuned_input *in)
{
    return in->part_seconds != NULL ? clock_ns() : 0;
}

/* Adds the time since *t to `part`, where the next part's time starts. */
static void part_end(const struct tuned_input *in, int part, uint64_t *t)
{
    if (in->part_seconds == NULL)
        return;
    uint64_t now = clock_ns();
    in->part_seconds[part] += seconds_between(*t, now);
    *t = now;
}

/* <<one-combination-tuned>>, paper/35-tuned-kernel.md */
/* A thread's arrays in columns; the event loop's lists overwrite middle and slow. */
struct tuned_arrays {
    double *fast, *middle, *slow, *hma, *hma3;
    struct row_event *events;          /* rows where some column may cross */
    size_t *crossings;                 /* those rows again, column by column */
};

static struct tuned_arrays tuned_arrays(struct sweep_workspace *ws, const struct column_shape *c)
{
    return (struct tuned_arrays){column_row0(ws->fast, c), column_row0(ws->middle, c),
                                 column_row0(ws->slow, c), column_row0(ws->hma, c),
                                 column_row0(ws->hma3, c), (struct row_event *)ws->middle,
                                 (size_t *)ws->slow};
}

/* The two lines of @sec:kernel into a->hma and a->hma3. */
static void tuned_lines(const struct tuned_input *in, const struct combo_params *p,
                        const struct tuned_arrays *a)
{
    uint64_t t = part_start(in);
    /* hma = wma(2*wma(close, h_half) - wma(close, h_len), h_sqrt) */
    wma_columns(in, in->columns, p->h_half, a->fast);
    wma_columns(in, in->columns, p->h_len, a->slow);
    part_end(in, TUNED_AVERAGES, &t);
    in->path->mix_rows(a->fast, NULL, a->slow, in->shape.rows);
    fill_halo(&in->shape, a->fast);
    part_end(in, TUNED_MIXES, &t);
    wma_columns(in, a->fast, p->h_sqrt, a->hma);
    /* hma3 = wma((3*wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len) */
    wma_columns(in, in->columns, p->t_third, a->fast);
    wma_columns(in, in->columns, p->t_half, a->middle);
    wma_columns(in, in->columns, p->t_len, a->slow);
    part_end(in, TUNED_AVERAGES, &t);
    in->path->mix_rows(a->fast, a->middle, a->slow, in->shape.rows);
    fill_halo(&in->shape, a->fast);
    part_end(in, TUNED_MIXES, &t);
    wma_columns(in, a->fast, p->t_len, a->hma3);
    part_end(in, TUNED_AVERAGES, &t);
}

/* <<trade-only-where-the-lines-cross>>, paper/35-tuned-kernel.md */
enum { MAX_LANES = COLUMN_ALIGN / sizeof(double) };

/* stop_and_reverse() of kernel.c over the lines in columns, stepping only where they cross. */
static struct combo_result trade_columns(const struct tuned_input *in,
                                         const struct tuned_arrays *a)
{
    const struct column_shape *c = &in->shape;
    size_t count[MAX_LANES] = {0};
    uint64_t t0 = part_start(in);
    fill_halo(c, a->hma);                      /* row -1: each column's bar before its first */
    fill_halo(c, a->hma3);
    size_t n_events = in->path->crossing_rows(a->hma, a->hma3, c->rows, a->events);
    for (size_t e = 0; e < n_events; e++)      /* column i's rows at crossings + i*rows */
        for (int i = 0; i < c->lanes; i++) {
            a->crossings[(size_t)i * c->rows + count[i]] = a->events[e].row;   /* count <= e */
            count[i] += a->events[e].lanes >> i & 1u;
        }
    part_end(in, TUNED_CROSSINGS, &t0);
    struct position p = {0, 0.0, {0.0, 0}};
    for (int i = 0; i < c->lanes; i++)
        for (size_t e = 0; e < count[i]; e++) {
            size_t r = a->crossings[(size_t)i * c->rows + e], t = (size_t)i * c->rows + r;
            if (t < 1 || t >= in->n_bars)      /* bar 0 has no previous; past the series */
                continue;
            ptrdiff_t now = (ptrdiff_t)(r * (size_t)c->lanes) + i, before = now - c->lanes;
            position_step(&p, a->hma[before], a->hma3[before], a->hma[now], a->hma3[now],
                          in->close[t]);
        }
    if (in->n_bars > 0)
        position_finish(&p, in->close[in->n_bars - 1]);
    part_end(in, TUNED_STEPS, &t0);
    return p.result;
}

static struct combo_result tuned_combo(const struct tuned_input *in,
                                       const struct combo_params *p,
                                       const struct tuned_arrays *a)
{
    tuned_lines(in, p, a);
    return trade_columns(in, a);
}

/* <<hand-out-combinations-most-work-first>>, paper/35-tuned-kernel.md */
/* A combination and its estimated work: the sum of its seven WMA windows. */
struct combo_order {
    int64_t work;
    size_t k;
};

static int most_work_first(const void *a, const void *b)
{
    const struct combo_order *x = a, *y = b;
    if (x->work != y->work)
        return x->work > y->work ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static int64_t combo_work(const struct combo_params *p)
{
    return p->h_half + p->h_len + p->h_sqrt + p->t_third + p->t_half + 2 * p->t_len;
}

/* What the threads of one sweep share. Only `next` changes. */
struct tuned_sweep {
    const struct tuned_input *input;
    const struct combo_params *params;
    struct combo_result *results;
    const struct combo_order *order;   /* the combinations, most work first */
    size_t n_combos;
    atomic_size_t next;                /* position in order[] of the next one to take */
    atomic_int stopped;                /* a thread saw the stop flag: results incomplete */
};

/* One thread: its work arrays, and the sweep it shares with the others. */
struct tuned_thread {
    struct tuned_sweep *sweep;
    struct sweep_workspace *ws;
};

static void *tuned_worker(void *arg)
{
    struct tuned_thread *me = arg;
    struct tuned_sweep *sw = me->sweep;
    struct tuned_arrays a = tuned_arrays(me->ws, &sw->input->shape);
    for (;;) {
        size_t i = atomic_fetch_add(&sw->next, 1);
        if (i >= sw->n_combos)
            break;
        size_t k = sw->order[i].k;
        struct combo_result r = tuned_combo(sw->input, &sw->params[k], &a);
        if (sweep_stop_asked(sw->input->stop)) {   /* its lines may be unfinished */
            atomic_store(&sw->stopped, 1);
            break;
        }
        sw->results[k] = r;
    }
    return NULL;
}

/* <<how-many-threads-and-how-deep-a-halo>>, paper/35-tuned-kernel.md */
enum { MAX_THREADS = 256 };

static int thread_count(int n_threads, size_t n_combos)
{
    long n = n_threads > 0 ? n_threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n > (long)n_combos)
        n = (long)n_combos;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    return n < 1 ? 1 : (int)n;
}

/* The longest window of the sweep that fits the series: how deep the halo must be. */
static int64_t longest_window(const struct combo_params *params, size_t n_combos, size_t n_bars)
{
    int64_t longest = 1;
    for (size_t k = 0; k < n_combos; k++) {
        const struct combo_params *p = &params[k];
        const int64_t w[PARAMS_PER_COMBO] = {p->h_half, p->h_len, p->h_sqrt, p->t_third,
                                             p->t_half, p->t_len};
        for (int i = 0; i < PARAMS_PER_COMBO; i++)
            if (w[i] > longest && (uint64_t)w[i] <= n_bars)
                longest = w[i];
    }
    return longest;
}

/* weights[j] = j + 1 for every window of up to `longest` bars; NULL when out of memory. */
static double *weights_up_to(int64_t longest)
{
    double *weights = malloc((size_t)longest * sizeof *weights);
    for (int64_t j = 0; weights != NULL && j < longest; j++)
        weights[j] = (double)(j + 1);
    return weights;
}

/* <<run-the-sweep-on-every-core>>, paper/35-tuned-kernel.md */
static int sweep_tuned_with(struct sweep_workspace *ws, const double *close, size_t n_bars,
                            const struct combo_params *params, size_t n_combos,
                            struct combo_result *results, int n_threads,
                            const struct tuned_path *path, double *part_seconds)
{
    int n = thread_count(n_threads, n_combos);
    int64_t longest = longest_window(params, n_combos, n_bars);
    struct column_shape shape = column_shape(path, n_bars, longest);
    size_t doubles = column_doubles(&shape);
    struct combo_order *order = malloc((n_combos > 0 ? n_combos : 1) * sizeof *order);
    double *weights = weights_up_to(longest);
    if (order == NULL || weights == NULL || sweep_workspace_load(ws, close, n_bars) != 0 ||
        sweep_workspace_reserve(ws, doubles) != 0 ||
        sweep_workspace_helpers(ws, n - 1, doubles) != 0) {
        free(order);
        free(weights);
        return -1;
    }
    for (size_t k = 0; k < n_combos; k++)
        order[k] = (struct combo_order){combo_work(&params[k]), k};
    qsort(order, n_combos, sizeof *order, most_work_first);
    double *columns = column_row0(ws->mix, &shape);
    columns_from_bars(&shape, ws->series, n_bars, columns);
    struct tuned_input in = {path, shape, ws->series, columns, n_bars, weights, &ws->stop,
                             part_seconds};
    struct tuned_sweep sw = {.input = &in, .params = params, .results = results,
                             .order = order, .n_combos = n_combos};
    atomic_init(&sw.next, 0);
    atomic_init(&sw.stopped, 0);

    pthread_t threads[MAX_THREADS];
    struct tuned_thread workers[MAX_THREADS];
    int started = 0;
    for (int i = 1; i < n; i++) {
        workers[started] = (struct tuned_thread){&sw, &ws->helpers[i - 1]};
        if (pthread_create(&threads[started], NULL, tuned_worker, &workers[started]) == 0)
            started++;
    }
    struct tuned_thread caller = {&sw, ws};
    tuned_worker(&caller);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(order);
    free(weights);
    return atomic_load(&sw.stopped) ? SWEEP_STOPPED : 0;
}

/* <<the-tuned-kernels-entry-points>>, paper/35-tuned-kernel.md */
int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads)
{
    return sweep_tuned_with(ws, close, n_bars, params, n_combos, results, n_threads,
                            &PATHS[tuned_path_in_use()], NULL);
}

int sweep_tuned_path(const double *close, size_t n_bars, const struct combo_params *params,
                     size_t n_combos, struct combo_result *results, int n_threads, int path)
{
    const struct tuned_path *p = runnable_path(path);
    if (p == NULL)
        return -1;
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_tuned_with(&ws, close, n_bars, params, n_combos, results, n_threads, p,
                                  NULL);
    sweep_workspace_free(&ws);
    return status;
}

int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads)
{
    return sweep_tuned_path(close, n_bars, params, n_combos, results, n_threads,
                            tuned_path_in_use());
}

/* <<a-sweep-timed-part-by-part>>, paper/35-tuned-kernel.md */
const char *tuned_part_name(int part)
{
    static const char *const names[TUNED_PARTS] = {"averages", "mixes", "crossings", "steps"};
    return part >= 0 && part < TUNED_PARTS ? names[part] : "none";
}

int sweep_tuned_parts(struct sweep_workspace *ws, const double *close, size_t n_bars,
                      const struct combo_params *params, size_t n_combos,
                      struct combo_result *results, double part_seconds[TUNED_PARTS])
{
    return sweep_tuned_with(ws, close, n_bars, params, n_combos, results, 1,
                            &PATHS[tuned_path_in_use()], part_seconds);
}

/* <<tuned-kernel-test-entry-points>>, paper/35-tuned-kernel.md */
int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *params,
                       double *hma, double *hma3, int path)
{
    const struct tuned_path *p = runnable_path(path);
    if (p == NULL)
        return -1;
    int64_t longest = longest_window(params, 1, n_bars);
    struct column_shape c = column_shape(p, n_bars, longest);
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    double *weights = weights_up_to(longest);
    int status = weights == NULL ? -1 : sweep_workspace_reserve(&ws, column_doubles(&c));
    if (status == 0) {
        double *columns = column_row0(ws.mix, &c);
        columns_from_bars(&c, close, n_bars, columns);
        static const atomic_int never = 0;
        struct tuned_input in = {p, c, close, columns, n_bars, weights, &never, NULL};
        struct tuned_arrays a = tuned_arrays(&ws, &c);
        tuned_lines(&in, params, &a);
        for (size_t t = 0; t < n_bars; t++) {  /* bar t: row t mod rows, lane t div rows */
            hma[t] = a.hma[t % c.rows * (size_t)c.lanes + t / c.rows];
            hma3[t] = a.hma3[t % c.rows * (size_t)c.lanes + t / c.rows];
        }
    }
    free(weights);
    sweep_workspace_free(&ws);
    return status;
}
