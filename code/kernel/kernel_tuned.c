/*
 * kernel_tuned.c - the sweep of kernel.c, bit for bit, in vector lanes and threads.
 *
 * Tangled from paper/35-tuned-kernel.md, which explains why every result is
 * the naive kernel's to the last bit. Built, like kernel.c, with
 * -ffp-contract=off and without -ffast-math. The three wma_blocks_*
 * functions share one body: the chapter writes it once, at three widths.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kernel_tuned.h"

/*
 * Fills out[t] for whole spans of bars from t = n-1 on, and returns the
 * first bar it left for the caller. 1 <= n <= n_bars.
 */
typedef size_t wma_blocks_fn(const double *x, size_t n_bars, int64_t n, double weight_sum,
                             double *out);

/* Independent vector sums in flight at each window position. */
enum { BLOCKS = 6 };

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TUNED_X86 1
#else
#define TUNED_X86 0
#endif

#if TUNED_X86
__attribute__((target("avx512f")))
static size_t wma_blocks_512(const double *x, size_t n_bars, int64_t n, double weight_sum,
                             double *out)
{
    typedef double lanes __attribute__((vector_size(64)));
    /* Lane i of s[b] holds the running sum of bar t + b*LANES + i. */
    enum { LANES = sizeof(lanes) / sizeof(double), SPAN = BLOCKS * LANES };
    const size_t first = (size_t)n - 1;
    size_t t = first;
    for (; t + SPAN <= n_bars; t += SPAN) {
        const double *window = x + t - first;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 8
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + j + b * LANES, sizeof terms);   /* unaligned load */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 8
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + t + b * LANES, &mean, sizeof mean);
        }
    }
    return t;
}

__attribute__((target("avx2")))
static size_t wma_blocks_256(const double *x, size_t n_bars, int64_t n, double weight_sum,
                             double *out)
{
    typedef double lanes __attribute__((vector_size(32)));
    /* Lane i of s[b] holds the running sum of bar t + b*LANES + i. */
    enum { LANES = sizeof(lanes) / sizeof(double), SPAN = BLOCKS * LANES };
    const size_t first = (size_t)n - 1;
    size_t t = first;
    for (; t + SPAN <= n_bars; t += SPAN) {
        const double *window = x + t - first;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 8
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + j + b * LANES, sizeof terms);   /* unaligned load */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 8
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + t + b * LANES, &mean, sizeof mean);
        }
    }
    return t;
}
#endif

/* SSE2 on x86-64, NEON on ARM; elsewhere the compiler splits it into scalars. */
static size_t wma_blocks_128(const double *x, size_t n_bars, int64_t n, double weight_sum,
                             double *out)
{
    typedef double lanes __attribute__((vector_size(16)));
    /* Lane i of s[b] holds the running sum of bar t + b*LANES + i. */
    enum { LANES = sizeof(lanes) / sizeof(double), SPAN = BLOCKS * LANES };
    const size_t first = (size_t)n - 1;
    size_t t = first;
    for (; t + SPAN <= n_bars; t += SPAN) {
        const double *window = x + t - first;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 8
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + j + b * LANES, sizeof terms);   /* unaligned load */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 8
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + t + b * LANES, &mean, sizeof mean);
        }
    }
    return t;
}

int tuned_vector_bytes(void)
{
#if TUNED_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 64;
    if (__builtin_cpu_supports("avx2"))
        return 32;
#endif
    return 16;
}

/* The widest loop no wider than vector_bytes (0 = the widest there is). */
static wma_blocks_fn *wma_blocks_for(int vector_bytes)
{
    int widest = tuned_vector_bytes();
    int bytes = vector_bytes > 0 && vector_bytes < widest ? vector_bytes : widest;
#if TUNED_X86
    if (bytes >= 64)
        return wma_blocks_512;
    if (bytes >= 32)
        return wma_blocks_256;
#endif
    (void)bytes;
    return wma_blocks_128;
}

enum { TUNED_MIN_SLICE_BARS = 1024 };          /* many spans of any width */

/* blocks() over [n-1, n_bars) in slices, with a look at *stop before each;
 * returns the first bar left for the scalar tail, or n_bars once stopped. */
static size_t wma_blocks_sliced(const double *x, size_t n_bars, int64_t n, double weight_sum,
                                double *out, wma_blocks_fn *blocks, const atomic_int *stop)
{
    const size_t first = (size_t)n - 1, slice = sweep_slice_bars(n, TUNED_MIN_SLICE_BARS);
    for (size_t t = first;;) {
        if (sweep_stop_asked(stop))
            return n_bars;
        const size_t end = n_bars - t > slice ? t + slice : n_bars, from = t - first;
        const size_t left = from + blocks(x + from, end - from, n, weight_sum, out + from);
        if (end == n_bars)
            return left;
        t = left;
    }
}

/* wma() of kernel.c, to the bit: whole spans in vectors, the tail as kernel.c does it. */
static void wma_tuned(const double *x, size_t n_bars, int64_t n, double *out,
                      wma_blocks_fn *blocks, const atomic_int *stop)
{
    if (n < 1 || (uint64_t)n > n_bars) {       /* no bar has a full window */
        for (size_t t = 0; t < n_bars; t++)
            out[t] = NAN;
        return;
    }
    const double weight_sum = (double)n * (double)(n + 1) / 2.0;
    const size_t first = (size_t)n - 1;
    for (size_t t = 0; t < first; t++)
        out[t] = NAN;
    for (size_t t = wma_blocks_sliced(x, n_bars, n, weight_sum, out, blocks, stop); t < n_bars;
         t++) {
        const double *window = x + t - first;
        double s = 0.0;
        for (int64_t j = 0; j < n; j++)
            s = s + window[j] * (double)(j + 1);
        out[t] = s / weight_sum;
    }
}

/* The two lines of @sec:kernel into hma and hma3; the mixes overwrite ws->fast. */
static void tuned_lines(const double *close, size_t n_bars, const struct combo_params *p,
                        struct sweep_workspace *ws, wma_blocks_fn *blocks,
                        const atomic_int *stop, double *hma, double *hma3)
{
    /* hma = wma(2*wma(close, h_half) - wma(close, h_len), h_sqrt) */
    wma_tuned(close, n_bars, p->h_half, ws->fast, blocks, stop);
    wma_tuned(close, n_bars, p->h_len, ws->slow, blocks, stop);
    for (size_t t = 0; t < n_bars; t++)
        ws->fast[t] = 2.0 * ws->fast[t] - ws->slow[t];
    wma_tuned(ws->fast, n_bars, p->h_sqrt, hma, blocks, stop);

    /* hma3 = wma((3*wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len) */
    wma_tuned(close, n_bars, p->t_third, ws->fast, blocks, stop);
    wma_tuned(close, n_bars, p->t_half, ws->middle, blocks, stop);
    wma_tuned(close, n_bars, p->t_len, ws->slow, blocks, stop);
    for (size_t t = 0; t < n_bars; t++)
        ws->fast[t] = (3.0 * ws->fast[t] - ws->middle[t]) - ws->slow[t];
    wma_tuned(ws->fast, n_bars, p->t_len, hma3, blocks, stop);
}

/* One combination into *result; 0, or SWEEP_STOPPED (no result) once *stop is raised. */
static int tuned_combo(const double *close, size_t n_bars, const struct combo_params *p,
                       struct sweep_workspace *ws, wma_blocks_fn *blocks,
                       const atomic_int *stop, struct combo_result *result)
{
    tuned_lines(close, n_bars, p, ws, blocks, stop, ws->hma, ws->hma3);
    if (sweep_stop_asked(stop))
        return SWEEP_STOPPED;                  /* the lines are unfinished */
    *result = stop_and_reverse(close, ws->hma, ws->hma3, n_bars);
    return 0;
}

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

/* What the threads of one sweep share. Only `next` changes, and the
 * caller's stop flag, which every thread looks at. */
struct tuned_sweep {
    const double *close;
    size_t n_bars;
    const struct combo_params *params;
    struct combo_result *results;
    const struct combo_order *order;   /* the combinations, most work first */
    size_t n_combos;
    wma_blocks_fn *blocks;
    const atomic_int *stop;            /* the caller's workspace's flag */
    atomic_size_t next;                /* position in order[] of the next one to take */
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
    for (;;) {
        size_t i = atomic_fetch_add(&sw->next, 1);
        if (i >= sw->n_combos)
            break;
        size_t k = sw->order[i].k;
        if (tuned_combo(sw->close, sw->n_bars, &sw->params[k], me->ws, sw->blocks, sw->stop,
                        &sw->results[k]) != 0)
            break;
    }
    return NULL;
}

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

static int sweep_tuned_with(struct sweep_workspace *ws, const double *close, size_t n_bars,
                            const struct combo_params *params, size_t n_combos,
                            struct combo_result *results, int n_threads, int vector_bytes)
{
    int n = thread_count(n_threads, n_combos);
    if (sweep_workspace_load(ws, close, n_bars) != 0 ||
        sweep_workspace_helpers(ws, n - 1, n_bars) != 0)
        return -1;
    struct combo_order *order = malloc((n_combos > 0 ? n_combos : 1) * sizeof *order);
    if (order == NULL)
        return -1;
    for (size_t k = 0; k < n_combos; k++)
        order[k] = (struct combo_order){combo_work(&params[k]), k};
    qsort(order, n_combos, sizeof *order, most_work_first);

    struct tuned_sweep sw = {
        .close = ws->series, .n_bars = n_bars, .params = params, .results = results,
        .order = order, .n_combos = n_combos, .blocks = wma_blocks_for(vector_bytes),
        .stop = &ws->stop,
    };
    atomic_init(&sw.next, 0);

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
    return sweep_stop_asked(&ws->stop) ? SWEEP_STOPPED : 0;
}

int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads)
{
    return sweep_tuned_with(ws, close, n_bars, params, n_combos, results, n_threads, 0);
}

int sweep_tuned_lanes(const double *close, size_t n_bars, const struct combo_params *params,
                      size_t n_combos, struct combo_result *results, int n_threads,
                      int vector_bytes)
{
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_tuned_with(&ws, close, n_bars, params, n_combos, results, n_threads,
                                  vector_bytes);
    sweep_workspace_free(&ws);
    return status;
}

int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads)
{
    return sweep_tuned_lanes(close, n_bars, params, n_combos, results, n_threads, 0);
}

void kernel_tuned_wma(const double *x, size_t n_bars, int64_t n, double *out, int vector_bytes)
{
    static const atomic_int never = 0;
    wma_tuned(x, n_bars, n, out, wma_blocks_for(vector_bytes), &never);
}

int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *p,
                       double *hma, double *hma3, int vector_bytes)
{
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_workspace_reserve(&ws, n_bars);
    if (status == 0)
        tuned_lines(close, n_bars, p, &ws, wma_blocks_for(vector_bytes), &ws.stop, hma, hma3);
    sweep_workspace_free(&ws);
    return status;
}
