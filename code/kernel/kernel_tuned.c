/*
 * kernel_tuned.c - the sweep of kernel.c, bit for bit, in vector lanes and threads.
 *
 * Tangled from paper/35-tuned-kernel.md, which explains why every result is
 * the naive kernel's to the last bit. Built, like kernel.c, with
 * -ffp-contract=off and without -ffast-math. The functions of each kind at
 * the three widths share one body: the chapter writes it once.
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

/*
 * Rows per block, the independent vector sums in flight at each window
 * position: as many as fit in the registers with the rows they share
 * (measured with GCC 12; see the end of the chapter).
 */
enum { BLOCKS_512 = 8, BLOCKS_256 = 6, BLOCKS_128 = 6 };

/* A row in which some columns' bars may trade, and which columns (bit i: lane i). */
struct row_event {
    size_t row;
    unsigned lanes;
};

/*
 * Rows 0..rows-1 of out: the WMA of window n over the columns in, whose
 * n-1 rows above row 0 are filled. rows is a multiple of the path's blocks.
 */
typedef void wma_rows_fn(const double *in, size_t rows, int64_t n, double weight_sum,
                         double *out);

/* The mixes of @sec:kernel over rows 0..rows-1: fast = 2 fast - slow, or with middle,
 * fast = (3 fast - middle) - slow, in that order. */
typedef void mix_rows_fn(double *fast, const double *middle, const double *slow, size_t rows);

/* The rows, row -1 readable, where the lines may cross; returns how many went to events. */
typedef size_t crossing_rows_fn(const double *hma, const double *hma3, size_t rows,
                                struct row_event *events);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TUNED_X86 1
#else
#define TUNED_X86 0
#endif

#if TUNED_X86
#include <cpuid.h>
#endif

#if TUNED_X86
__attribute__((target("avx512f")))
static void wma_rows_512(const double *in, size_t rows, int64_t n, double weight_sum,
                         double *out)
{
    typedef double lanes __attribute__((vector_size(64)));
    enum { BLOCKS = BLOCKS_512 };
    /* Lane i of s[b] holds the running sum of row m + b of column i. */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t m = 0; m < rows; m += BLOCKS) {
        const double *window = in + ((ptrdiff_t)m - (ptrdiff_t)(n - 1)) * LANES;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 16
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + (j + b) * LANES, sizeof terms);   /* one whole row */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 16
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + (m + b) * LANES, &mean, sizeof mean);
        }
    }
}

__attribute__((target("avx512f")))
static void mix_rows_512(double *fast, const double *middle, const double *slow, size_t rows)
{
    typedef double lanes __attribute__((vector_size(64)));
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t r = 0; r < rows; r++) {
        lanes a, b, c;
        memcpy(&a, fast + r * LANES, sizeof a);
        memcpy(&c, slow + r * LANES, sizeof c);
        if (middle == NULL) {
            a = 2.0 * a - c;
        } else {
            memcpy(&b, middle + r * LANES, sizeof b);
            a = (3.0 * a - b) - c;
        }
        memcpy(fast + r * LANES, &a, sizeof a);
    }
}

__attribute__((target("avx512f")))
static size_t crossing_rows_512(const double *hma, const double *hma3, size_t rows,
                                struct row_event *events)
{
    typedef double lanes __attribute__((vector_size(64)));
    typedef int64_t truth __attribute__((vector_size(sizeof(lanes))));   /* -1 true, 0 false */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        lanes before, before3, now, now3;
        memcpy(&before, hma + ((ptrdiff_t)r - 1) * LANES, sizeof before);
        memcpy(&before3, hma3 + ((ptrdiff_t)r - 1) * LANES, sizeof before3);
        memcpy(&now, hma + r * LANES, sizeof now);
        memcpy(&now3, hma3 + r * LANES, sizeof now3);
        truth cross = ((before <= before3) & (now > now3)) | ((before >= before3) & (now < now3));
        truth lane_bit, picked;
        for (int i = 0; i < LANES; i++)
            lane_bit[i] = (int64_t)1 << i;
        picked = cross & lane_bit;
        int64_t bits = 0;
        for (int i = 0; i < LANES; i++)
            bits |= picked[i];
        events[count] = (struct row_event){r, (unsigned)bits};   /* kept only if some bit is set */
        count += bits != 0;
    }
    return count;
}

__attribute__((target("avx2")))
static void wma_rows_256(const double *in, size_t rows, int64_t n, double weight_sum,
                         double *out)
{
    typedef double lanes __attribute__((vector_size(32)));
    enum { BLOCKS = BLOCKS_256 };
    /* Lane i of s[b] holds the running sum of row m + b of column i. */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t m = 0; m < rows; m += BLOCKS) {
        const double *window = in + ((ptrdiff_t)m - (ptrdiff_t)(n - 1)) * LANES;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 16
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + (j + b) * LANES, sizeof terms);   /* one whole row */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 16
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + (m + b) * LANES, &mean, sizeof mean);
        }
    }
}

__attribute__((target("avx2")))
static void mix_rows_256(double *fast, const double *middle, const double *slow, size_t rows)
{
    typedef double lanes __attribute__((vector_size(32)));
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t r = 0; r < rows; r++) {
        lanes a, b, c;
        memcpy(&a, fast + r * LANES, sizeof a);
        memcpy(&c, slow + r * LANES, sizeof c);
        if (middle == NULL) {
            a = 2.0 * a - c;
        } else {
            memcpy(&b, middle + r * LANES, sizeof b);
            a = (3.0 * a - b) - c;
        }
        memcpy(fast + r * LANES, &a, sizeof a);
    }
}

__attribute__((target("avx2")))
static size_t crossing_rows_256(const double *hma, const double *hma3, size_t rows,
                                struct row_event *events)
{
    typedef double lanes __attribute__((vector_size(32)));
    typedef int64_t truth __attribute__((vector_size(sizeof(lanes))));   /* -1 true, 0 false */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        lanes before, before3, now, now3;
        memcpy(&before, hma + ((ptrdiff_t)r - 1) * LANES, sizeof before);
        memcpy(&before3, hma3 + ((ptrdiff_t)r - 1) * LANES, sizeof before3);
        memcpy(&now, hma + r * LANES, sizeof now);
        memcpy(&now3, hma3 + r * LANES, sizeof now3);
        truth cross = ((before <= before3) & (now > now3)) | ((before >= before3) & (now < now3));
        truth lane_bit, picked;
        for (int i = 0; i < LANES; i++)
            lane_bit[i] = (int64_t)1 << i;
        picked = cross & lane_bit;
        int64_t bits = 0;
        for (int i = 0; i < LANES; i++)
            bits |= picked[i];
        events[count] = (struct row_event){r, (unsigned)bits};   /* kept only if some bit is set */
        count += bits != 0;
    }
    return count;
}
#endif

/* SSE2 on x86-64, NEON on ARM; elsewhere the compiler splits it into scalars. */
static void wma_rows_128(const double *in, size_t rows, int64_t n, double weight_sum,
                         double *out)
{
    typedef double lanes __attribute__((vector_size(16)));
    enum { BLOCKS = BLOCKS_128 };
    /* Lane i of s[b] holds the running sum of row m + b of column i. */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t m = 0; m < rows; m += BLOCKS) {
        const double *window = in + ((ptrdiff_t)m - (ptrdiff_t)(n - 1)) * LANES;
        lanes s[BLOCKS] = {0};
        for (int64_t j = 0; j < n; j++) {
            const double weight = (double)(j + 1);
    #pragma GCC unroll 16
            for (int b = 0; b < BLOCKS; b++) {
                lanes terms;
                memcpy(&terms, window + (j + b) * LANES, sizeof terms);   /* one whole row */
                s[b] = s[b] + terms * weight;
            }
        }
    #pragma GCC unroll 16
        for (int b = 0; b < BLOCKS; b++) {
            lanes mean = s[b] / weight_sum;
            memcpy(out + (m + b) * LANES, &mean, sizeof mean);
        }
    }
}

static void mix_rows_128(double *fast, const double *middle, const double *slow, size_t rows)
{
    typedef double lanes __attribute__((vector_size(16)));
    enum { LANES = sizeof(lanes) / sizeof(double) };
    for (size_t r = 0; r < rows; r++) {
        lanes a, b, c;
        memcpy(&a, fast + r * LANES, sizeof a);
        memcpy(&c, slow + r * LANES, sizeof c);
        if (middle == NULL) {
            a = 2.0 * a - c;
        } else {
            memcpy(&b, middle + r * LANES, sizeof b);
            a = (3.0 * a - b) - c;
        }
        memcpy(fast + r * LANES, &a, sizeof a);
    }
}

static size_t crossing_rows_128(const double *hma, const double *hma3, size_t rows,
                                struct row_event *events)
{
    typedef double lanes __attribute__((vector_size(16)));
    typedef int64_t truth __attribute__((vector_size(sizeof(lanes))));   /* -1 true, 0 false */
    enum { LANES = sizeof(lanes) / sizeof(double) };
    size_t count = 0;
    for (size_t r = 0; r < rows; r++) {
        lanes before, before3, now, now3;
        memcpy(&before, hma + ((ptrdiff_t)r - 1) * LANES, sizeof before);
        memcpy(&before3, hma3 + ((ptrdiff_t)r - 1) * LANES, sizeof before3);
        memcpy(&now, hma + r * LANES, sizeof now);
        memcpy(&now3, hma3 + r * LANES, sizeof now3);
        truth cross = ((before <= before3) & (now > now3)) | ((before >= before3) & (now < now3));
        truth lane_bit, picked;
        for (int i = 0; i < LANES; i++)
            lane_bit[i] = (int64_t)1 << i;
        picked = cross & lane_bit;
        int64_t bits = 0;
        for (int i = 0; i < LANES; i++)
            bits |= picked[i];
        events[count] = (struct row_event){r, (unsigned)bits};   /* kept only if some bit is set */
        count += bits != 0;
    }
    return count;
}

#if TUNED_X86
/* XCR0: which register state the operating system saves (only after OSXSAVE). */
static uint64_t read_xcr0(void)
{
    uint32_t low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return (uint64_t)high << 32 | low;
}
#endif

struct cpu_simd cpu_simd_probe(void)
{
    struct cpu_simd cpu = {false, false, false, false, false};
#if TUNED_X86
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        cpu.avx = (c & bit_AVX) != 0;
        if (c & bit_OSXSAVE) {
            uint64_t xcr0 = read_xcr0();
            cpu.os_saves_ymm = (xcr0 & 0x06) == 0x06;     /* SSE and AVX state */
            cpu.os_saves_zmm = (xcr0 & 0xe6) == 0xe6;     /* and opmask, ZMM_Hi256, Hi16_ZMM */
        }
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        cpu.avx2 = (b & bit_AVX2) != 0;
        cpu.avx512f = (b & bit_AVX512F) != 0;
    }
#endif
    return cpu;
}

struct tuned_path {
    const char *name;
    int vector_bytes;
    int blocks;                                         /* rows per block of wma_rows */
    const char *(*lacks)(const struct cpu_simd *cpu);   /* NULL when cpu runs it */
    wma_rows_fn *wma_rows;
    mix_rows_fn *mix_rows;
    crossing_rows_fn *crossing_rows;
};

#if TUNED_X86
static const char *lacks_for_avx512(const struct cpu_simd *cpu)
{
    if (!cpu->avx512f)
        return "the processor has no AVX-512F";
    if (!cpu->os_saves_zmm)
        return "the operating system does not enable the AVX-512 registers (XCR0)";
    return NULL;
}

static const char *lacks_for_avx2(const struct cpu_simd *cpu)
{
    if (!cpu->avx || !cpu->avx2)
        return "the processor has no AVX2";
    if (!cpu->os_saves_ymm)
        return "the operating system does not enable the AVX registers (XCR0)";
    return NULL;
}
#endif

static const char *lacks_nothing(const struct cpu_simd *cpu)
{
    (void)cpu;
    return NULL;
}

/* Widest first: the first one a machine runs is its best. */
static const struct tuned_path PATHS[] = {
#if TUNED_X86
    {"avx512", 64, BLOCKS_512, lacks_for_avx512, wma_rows_512, mix_rows_512,
     crossing_rows_512},
    {"avx2", 32, BLOCKS_256, lacks_for_avx2, wma_rows_256, mix_rows_256,
     crossing_rows_256},
    {"sse2", 16, BLOCKS_128, lacks_nothing, wma_rows_128, mix_rows_128,
     crossing_rows_128},
#else
    {"vector128", 16, BLOCKS_128, lacks_nothing, wma_rows_128, mix_rows_128,
     crossing_rows_128},
#endif
};
enum { N_PATHS = sizeof PATHS / sizeof PATHS[0] };

int tuned_path_count(void)
{
    return N_PATHS;
}

const char *tuned_path_name(int path)
{
    return path >= 0 && path < N_PATHS ? PATHS[path].name : "none";
}

int tuned_path_bytes(int path)
{
    return path >= 0 && path < N_PATHS ? PATHS[path].vector_bytes : 0;
}

int tuned_path_find(const char *name)
{
    for (int p = 0; p < N_PATHS; p++)
        if (strcmp(PATHS[p].name, name) == 0)
            return p;
    return -1;
}

const char *tuned_path_lacks(int path, const struct cpu_simd *cpu)
{
    if (path < 0 || path >= N_PATHS)
        return "there is no such path";
    return PATHS[path].lacks(cpu);
}

int tuned_path_best(const struct cpu_simd *cpu)
{
    int p = 0;
    while (p < N_PATHS - 1 && PATHS[p].lacks(cpu) != NULL)
        p++;
    return p;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static struct cpu_simd this_machine;

static void probe_this_machine(void)
{
    this_machine = cpu_simd_probe();
}

const struct cpu_simd *cpu_simd_here(void)
{
    pthread_once(&probe_once, probe_this_machine);
    return &this_machine;
}

int tuned_path_choose(const char *name, const struct cpu_simd *cpu, char *err,
                      size_t err_size)
{
    if (name == NULL || name[0] == '\0')
        return tuned_path_best(cpu);
    int p = tuned_path_find(name);
    if (p < 0) {
        int n = snprintf(err, err_size, "'%s' is not a path of the tuned kernel (", name);
        for (int q = 0; q < N_PATHS && n >= 0 && (size_t)n < err_size; q++)
            n += snprintf(err + n, err_size - (size_t)n, "%s%s", q ? ", " : "", PATHS[q].name);
        if (n >= 0 && (size_t)n < err_size)
            snprintf(err + n, err_size - (size_t)n, ")");
        return -1;
    }
    const char *lack = PATHS[p].lacks(cpu);
    if (lack != NULL) {
        snprintf(err, err_size, "the tuned kernel's %s path cannot run here: %s", name, lack);
        return -1;
    }
    return p;
}

static atomic_int forced_path = -1;            /* -1: the best this machine runs */

int tuned_path_force(const char *name, char *err, size_t err_size)
{
    int p = tuned_path_choose(name, cpu_simd_here(), err, err_size);
    if (p < 0)
        return -1;
    atomic_store(&forced_path, name == NULL || name[0] == '\0' ? -1 : p);
    return 0;
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

int tuned_vector_bytes(void)
{
    return PATHS[tuned_path_best(cpu_simd_here())].vector_bytes;
}

/* The path given by index, if this machine runs it; NULL otherwise. */
static const struct tuned_path *runnable_path(int path)
{
    return path >= 0 && path < N_PATHS && PATHS[path].lacks(cpu_simd_here()) == NULL
               ? &PATHS[path] : NULL;
}

/* How a sweep lays its series out: `lanes` columns of `rows` bars, row by row. */
struct column_shape {
    int lanes;                 /* doubles in a row: one vector of the path */
    size_t rows;               /* bars per column: a whole number of the path's blocks */
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

/*
 * Rows -halo..-1 of an array from its own rows: row -q of column i is bar
 * i*rows - q, which is row back*rows - q of the column `back` places to the
 * left, or before the series (NaN) when there is no such column.
 */
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

/* wma() of kernel.c on every row of every column, to the bit; `in` has its halo filled. */
static void wma_columns(const struct column_shape *c, const double *in, size_t n_bars,
                        int64_t n, double *out, const struct tuned_path *path)
{
    if (n < 1 || (uint64_t)n > n_bars) {       /* no bar has a full window */
        for (size_t k = 0; k < c->rows * (size_t)c->lanes; k++)
            out[k] = NAN;
        return;
    }
    const double weight_sum = (double)n * (double)(n + 1) / 2.0;
    path->wma_rows(in, c->rows, n, weight_sum, out);
}

/* What every combination of a sweep reads: the path, and the series both ways. */
struct tuned_input {
    const struct tuned_path *path;
    struct column_shape shape;
    const double *close;               /* bar by bar: the prices the event loop trades at */
    const double *columns;             /* in columns, halo filled: what the averages read */
    size_t n_bars;
};

/* A thread's arrays, in columns; the event loop's lists overwrite the middle and slow averages. */
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

/* The two lines of @sec:kernel into a->hma and a->hma3; the mixes overwrite a->fast. */
static void tuned_lines(const struct tuned_input *in, const struct combo_params *p,
                        const struct tuned_arrays *a)
{
    const struct column_shape *c = &in->shape;
    /* hma = wma(2*wma(close, h_half) - wma(close, h_len), h_sqrt) */
    wma_columns(c, in->columns, in->n_bars, p->h_half, a->fast, in->path);
    wma_columns(c, in->columns, in->n_bars, p->h_len, a->slow, in->path);
    in->path->mix_rows(a->fast, NULL, a->slow, c->rows);
    fill_halo(c, a->fast);
    wma_columns(c, a->fast, in->n_bars, p->h_sqrt, a->hma, in->path);

    /* hma3 = wma((3*wma(close, t_third) - wma(close, t_half)) - wma(close, t_len), t_len) */
    wma_columns(c, in->columns, in->n_bars, p->t_third, a->fast, in->path);
    wma_columns(c, in->columns, in->n_bars, p->t_half, a->middle, in->path);
    wma_columns(c, in->columns, in->n_bars, p->t_len, a->slow, in->path);
    in->path->mix_rows(a->fast, a->middle, a->slow, c->rows);
    fill_halo(c, a->fast);
    wma_columns(c, a->fast, in->n_bars, p->t_len, a->hma3, in->path);
}

enum { MAX_LANES = COLUMN_ALIGN / sizeof(double) };

/* The rows of the events, one list per column: column i's at crossings + i*rows. */
static void crossings_by_column(const struct column_shape *c, const struct row_event *events,
                                size_t n_events, size_t *crossings, size_t count[MAX_LANES])
{
    for (int i = 0; i < c->lanes; i++)
        count[i] = 0;
    for (size_t e = 0; e < n_events; e++)
        for (int i = 0; i < c->lanes; i++) {
            crossings[(size_t)i * c->rows + count[i]] = events[e].row;   /* count[i] <= e */
            count[i] += events[e].lanes >> i & 1u;
        }
}

/* stop_and_reverse() of kernel.c over the lines in columns, stepping only where they cross. */
static struct combo_result trade_columns(const struct tuned_input *in,
                                         const struct tuned_arrays *a)
{
    const struct column_shape *c = &in->shape;
    size_t count[MAX_LANES];
    fill_halo(c, a->hma);                      /* row -1: each column's bar before its first */
    fill_halo(c, a->hma3);
    size_t n_events = in->path->crossing_rows(a->hma, a->hma3, c->rows, a->events);
    crossings_by_column(c, a->events, n_events, a->crossings, count);
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
    return p.result;
}

static struct combo_result tuned_combo(const struct tuned_input *in,
                                       const struct combo_params *p,
                                       const struct tuned_arrays *a)
{
    tuned_lines(in, p, a);
    return trade_columns(in, a);
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

/* What the threads of one sweep share. Only `next` changes. */
struct tuned_sweep {
    const struct tuned_input *input;
    const struct combo_params *params;
    struct combo_result *results;
    const struct combo_order *order;   /* the combinations, most work first */
    size_t n_combos;
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
    struct tuned_arrays a = tuned_arrays(me->ws, &sw->input->shape);
    for (;;) {
        size_t i = atomic_fetch_add(&sw->next, 1);
        if (i >= sw->n_combos)
            break;
        size_t k = sw->order[i].k;
        sw->results[k] = tuned_combo(sw->input, &sw->params[k], &a);
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

/* The longest window of the sweep that fits the series: how deep the halo must be. */
static int64_t longest_window(const struct combo_params *params, size_t n_combos, size_t n_bars)
{
    int64_t longest = 1;
    for (size_t k = 0; k < n_combos; k++) {
        const struct combo_params *p = &params[k];
        const int64_t windows[] = {p->h_half, p->h_len, p->h_sqrt, p->t_third, p->t_half,
                                   p->t_len};
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
            if (windows[w] > longest && (uint64_t)windows[w] <= n_bars)
                longest = windows[w];
    }
    return longest;
}

/* Every combination's order and the threads that take them; the input is ready. */
static int run_sweep(struct sweep_workspace *ws, const struct tuned_input *in,
                     const struct combo_params *params, size_t n_combos,
                     struct combo_result *results, int n)
{
    struct combo_order *order = malloc((n_combos > 0 ? n_combos : 1) * sizeof *order);
    if (order == NULL)
        return -1;
    for (size_t k = 0; k < n_combos; k++)
        order[k] = (struct combo_order){combo_work(&params[k]), k};
    qsort(order, n_combos, sizeof *order, most_work_first);

    struct tuned_sweep sw = {.input = in, .params = params, .results = results,
                             .order = order, .n_combos = n_combos};
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
    return 0;
}

static int sweep_tuned_with(struct sweep_workspace *ws, const double *close, size_t n_bars,
                            const struct combo_params *params, size_t n_combos,
                            struct combo_result *results, int n_threads,
                            const struct tuned_path *path)
{
    int n = thread_count(n_threads, n_combos);
    struct column_shape shape = column_shape(path, n_bars,
                                             longest_window(params, n_combos, n_bars));
    size_t doubles = column_doubles(&shape);
    if (sweep_workspace_load(ws, close, n_bars) != 0 ||
        sweep_workspace_reserve(ws, doubles) != 0 ||
        sweep_workspace_helpers(ws, n - 1, doubles) != 0)
        return -1;
    double *columns = column_row0(ws->mix, &shape);
    columns_from_bars(&shape, ws->series, n_bars, columns);
    struct tuned_input in = {path, shape, ws->series, columns, n_bars};
    return run_sweep(ws, &in, params, n_combos, results, n);
}

int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads)
{
    return sweep_tuned_with(ws, close, n_bars, params, n_combos, results, n_threads,
                            &PATHS[tuned_path_in_use()]);
}

int sweep_tuned_path(const double *close, size_t n_bars, const struct combo_params *params,
                     size_t n_combos, struct combo_result *results, int n_threads, int path)
{
    const struct tuned_path *p = runnable_path(path);
    if (p == NULL)
        return -1;
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_tuned_with(&ws, close, n_bars, params, n_combos, results, n_threads, p);
    sweep_workspace_free(&ws);
    return status;
}

int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads)
{
    return sweep_tuned_path(close, n_bars, params, n_combos, results, n_threads,
                            tuned_path_in_use());
}

/* The columns back into bars: bar t from row t mod rows, lane t div rows. */
static void bars_from_columns(const struct column_shape *c, const double *row0, size_t n_bars,
                              double *x)
{
    for (size_t t = 0; t < n_bars; t++)
        x[t] = row0[t % c->rows * (size_t)c->lanes + t / c->rows];
}

int kernel_tuned_wma(const double *x, size_t n_bars, int64_t n, double *out, int path)
{
    const struct tuned_path *p = runnable_path(path);
    if (p == NULL)
        return -1;
    struct combo_params only = {n, n, n, n, n, n};
    struct column_shape c = column_shape(p, n_bars, longest_window(&only, 1, n_bars));
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_workspace_reserve(&ws, column_doubles(&c));
    if (status == 0) {
        double *in = column_row0(ws.mix, &c), *average = column_row0(ws.fast, &c);
        columns_from_bars(&c, x, n_bars, in);
        wma_columns(&c, in, n_bars, n, average, p);
        bars_from_columns(&c, average, n_bars, out);
    }
    sweep_workspace_free(&ws);
    return status;
}

int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *params,
                       double *hma, double *hma3, int path)
{
    const struct tuned_path *p = runnable_path(path);
    if (p == NULL)
        return -1;
    struct column_shape c = column_shape(p, n_bars, longest_window(params, 1, n_bars));
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    int status = sweep_workspace_reserve(&ws, column_doubles(&c));
    if (status == 0) {
        double *columns = column_row0(ws.mix, &c);
        columns_from_bars(&c, close, n_bars, columns);
        struct tuned_input in = {p, c, close, columns, n_bars};
        struct tuned_arrays a = tuned_arrays(&ws, &c);
        tuned_lines(&in, params, &a);
        bars_from_columns(&c, a.hma, n_bars, hma);
        bars_from_columns(&c, a.hma3, n_bars, hma3);
    }
    sweep_workspace_free(&ws);
    return status;
}
