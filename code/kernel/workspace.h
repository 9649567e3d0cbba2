/*
 * workspace.h - the memory a sweep works in, laid out the same way in every
 * process that runs a kernel.
 *
 * Tangled from paper/30-kernel.md.
 */
#ifndef IPCTAX_WORKSPACE_H
#define IPCTAX_WORKSPACE_H

#include <stddef.h>
#include <stdint.h>

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

struct sweep_workspace {
    struct sweep_layout layout;
    void *block;                           /* one page-aligned allocation */
    size_t block_bytes;
    size_t capacity;                       /* doubles each region holds */
    double *series;                        /* the loaded series every kernel reads */
    double *fast, *middle, *slow, *mix, *hma, *hma3;
    struct sweep_workspace *helpers;       /* one per extra thread of the tuned kernel */
    int n_helpers;
};

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

/* Reads "SERIES,ARRAY,STAGGER" (bytes, each below 4096); 0, or -1. */
int sweep_layout_parse(const char *text, struct sweep_layout *layout);

#endif
