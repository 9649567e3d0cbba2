/*
 * workspace.c - one page-aligned block cut into the regions of a sweep.
 *
 * Tangled from paper/30-kernel.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/workspace.h"
#include "util/error.h"
#include "util/options.h"

const struct sweep_layout SWEEP_LAYOUT_DEFAULT = {0, 576, 576};

int option_layout(const char *name, const char *text, struct sweep_layout *layout,
                  char *err, size_t err_size)
{
    long v[3];
    if (option_longs(name, text, 3, 0, WORKSPACE_PAGE - 1, v, err, err_size) != 0)
        return -1;
    if (v[0] % 8 != 0 || v[1] % 8 != 0 || v[2] % 8 != 0)
        return set_error(err, err_size, "%s: '%s': every offset must be a multiple of 8 bytes",
                         name, text);
    *layout = (struct sweep_layout){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    return 0;
}

/* <<workspace-regions>>, paper/30-kernel.md */
enum { REGIONS = 1 + WORKSPACE_ARRAYS };

static size_t region_bytes(size_t n)
{
    size_t bytes = (n > 0 ? n : 1) * sizeof(double);
    return (bytes + WORKSPACE_PAGE - 1) / WORKSPACE_PAGE * WORKSPACE_PAGE + WORKSPACE_PAGE;
}

/* The start of region r (0 the series, then the arrays) in a block. */
static double *region(const struct sweep_workspace *ws, char *block, size_t n, int r)
{
    const struct sweep_layout *l = &ws->layout;
    size_t offset = r == 0 ? l->series_offset
                           : (l->array_offset + (size_t)(r - 1) * l->array_stagger) % WORKSPACE_PAGE;
    return (double *)(block + (size_t)r * region_bytes(n) + offset);
}

/* <<make-and-free-a-workspace>>, paper/30-kernel.md */
void sweep_workspace_init(struct sweep_workspace *ws, const struct sweep_layout *layout)
{
    memset(ws, 0, sizeof *ws);
    ws->layout = layout != NULL ? *layout : SWEEP_LAYOUT_DEFAULT;
}

void sweep_workspace_free(struct sweep_workspace *ws)
{
    for (int i = 0; i < ws->n_helpers; i++)
        sweep_workspace_free(&ws->helpers[i]);
    free(ws->helpers);
    free(ws->block);
    sweep_workspace_init(ws, &ws->layout);
}

/* <<reserve-and-load-a-workspace>>, paper/30-kernel.md */
int sweep_workspace_reserve(struct sweep_workspace *ws, size_t n)
{
    if (ws->block != NULL && n <= ws->capacity)
        return 0;
    size_t bytes = REGIONS * region_bytes(n);
    char *block = aligned_alloc(WORKSPACE_PAGE, bytes);
    if (block == NULL)
        return -1;
    double *series = region(ws, block, n, 0);
    if (ws->block != NULL)
        memcpy(series, ws->series, ws->capacity * sizeof(double));
    free(ws->block);
    ws->block = block;
    ws->block_bytes = bytes;
    ws->capacity = n;
    double **arrays[REGIONS] = {&ws->series, &ws->fast, &ws->middle, &ws->slow,
                                &ws->mix, &ws->hma, &ws->hma3};
    for (int r = 0; r < REGIONS; r++)
        *arrays[r] = region(ws, block, n, r);
    return 0;
}

int sweep_workspace_load(struct sweep_workspace *ws, const double *close, size_t n)
{
    if (close == ws->series && ws->block != NULL && n <= ws->capacity)
        return 0;
    if (sweep_workspace_reserve(ws, n) != 0)
        return -1;
    if (n > 0)
        memcpy(ws->series, close, n * sizeof(double));
    return 0;
}

/* <<give-a-workspace-its-helpers>>, paper/30-kernel.md */
int sweep_workspace_helpers(struct sweep_workspace *ws, int count, size_t n)
{
    if (count > ws->n_helpers) {
        struct sweep_workspace *more = realloc(ws->helpers, (size_t)count * sizeof *more);
        if (more == NULL)
            return -1;
        ws->helpers = more;
        for (int i = ws->n_helpers; i < count; i++)
            sweep_workspace_init(&ws->helpers[i], &ws->layout);
        ws->n_helpers = count;
    }
    for (int i = 0; i < count; i++)
        if (sweep_workspace_reserve(&ws->helpers[i], n) != 0)
            return -1;
    return 0;
}

/* <<workspace-stop>>, paper/30-kernel.md */
void sweep_workspace_stop(struct sweep_workspace *ws)
{
    atomic_store_explicit(&ws->stop, 1, memory_order_relaxed);
}

void sweep_workspace_resume(struct sweep_workspace *ws)
{
    atomic_store_explicit(&ws->stop, 0, memory_order_relaxed);
}
