/*
 * workspace.h - the memory a sweep works in, laid out the same way in every
 * process that runs a kernel.
 *
 * Tangled from paper/30-kernel.md.
 */
#ifndef IPCTAX_WORKSPACE_H
#define IPCTAX_WORKSPACE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* <<workspace-layout>>, paper/30-kernel.md */
/* Byte offsets within a 4 KiB page at which a workspace's regions start. */
struct sweep_layout {
    uint32_t series_offset;    /* the kernel's copy of the close series */
    uint32_t array_offset;     /* the first work array */
    uint32_t array_stagger;    /* added for each further array */
};

enum {
    WORKSPACE_PAGE = 4096,
    WORKSPACE_ARRAYS = 6,      /* fast, middle, slow, mix, hma, hma3 */
};

/* 0, 576, 576: the seven regions nine cache lines apart within a page. */
extern const struct sweep_layout SWEEP_LAYOUT_DEFAULT;

/* A layout as an option's value, "SERIES,ARRAY,STAGGER": byte offsets within
 * a page, each a multiple of 8 (the command-line convention of
 * @sec:harness). 0, or -1 with a message in err naming the option. */
int option_layout(const char *name, const char *text, struct sweep_layout *layout,
                  char *err, size_t err_size);

/* <<workspace-type>>, paper/30-kernel.md */
struct sweep_workspace {
    struct sweep_layout layout;
    void *block;                           /* one page-aligned allocation */
    size_t block_bytes;
    size_t capacity;                       /* doubles each region holds */
    double *series;                        /* the loaded series every kernel reads */
    double *fast, *middle, *slow, *mix, *hma, *hma3;
    struct sweep_workspace *helpers;       /* one per extra thread of the tuned kernel */
    int n_helpers;
    atomic_int stop;                       /* raised by another thread: end the sweep */
};

/* <<workspace-interface>>, paper/30-kernel.md */
/* An empty workspace with the given layout (NULL: the default). */
void sweep_workspace_init(struct sweep_workspace *ws, const struct sweep_layout *layout);
void sweep_workspace_free(struct sweep_workspace *ws);

/* Makes every region hold n doubles, keeping the loaded series when it
 * grows; returns 0, or -1 when out of memory. */
int sweep_workspace_reserve(struct sweep_workspace *ws, size_t n);

/* Copies close[0..n) into the workspace's series region (nothing is copied
 * when close already is that region); returns 0, or -1 when out of memory. */
int sweep_workspace_load(struct sweep_workspace *ws, const double *close, size_t n);

/* At least `count` helper workspaces, with this one's layout; 0 or -1. */
int sweep_workspace_helpers(struct sweep_workspace *ws, int count, size_t n);

/* <<workspace-stop-flag>>, paper/30-kernel.md */
/* A kernel looks at its workspace's stop flag every this many window-bar
 * steps: 2^22, a few milliseconds of the naive kernel's work. */
#define SWEEP_STOP_CHECK_STEPS ((uint64_t)1 << 22)

/* What a kernel returns when it ended early because the flag was raised. */
enum { SWEEP_STOPPED = 1 };

/* Raises the flag, from any thread: a sweep running in ws soon returns
 * SWEEP_STOPPED. It stays raised, for every later sweep too, until
 * sweep_workspace_resume. */
void sweep_workspace_stop(struct sweep_workspace *ws);
void sweep_workspace_resume(struct sweep_workspace *ws);

/* Whether *stop is raised: the kernels' look. */
static inline int sweep_stop_asked(const atomic_int *stop)
{
    return atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

/* Bars of a window-n average between two looks: about
 * SWEEP_STOP_CHECK_STEPS steps, and at least min_bars. */
static inline size_t sweep_slice_bars(int64_t n, size_t min_bars)
{
    uint64_t bars = SWEEP_STOP_CHECK_STEPS / (uint64_t)(n > 0 ? n : 1);
    return bars > min_bars ? (size_t)bars : min_bars;
}

#endif
