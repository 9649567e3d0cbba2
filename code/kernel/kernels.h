/*
 * kernels.h - every kernel by name: the engine's --kernel, the architectures'
 * kernel and the tests read this one table.
 *
 * Tangled from paper/35-tuned-kernel.md.
 */
#ifndef IPCTAX_KERNELS_H
#define IPCTAX_KERNELS_H

#include <stddef.h>

#include "kernel/kernel.h"

/* A kernel as a sweep in a workspace, which it may use (and grow). */
typedef int (*sweep_fn)(struct sweep_workspace *ws, const double *close, size_t n_bars,
                        const struct combo_params *params, size_t n_combos,
                        struct combo_result *results);

struct kernel_entry {
    const char *name;          /* --kernel NAME; an architecture's kernel */
    sweep_fn sweep;            /* NULL: it runs in Python (numba) */
    int threads;               /* 1, or 0 for one per core */
    int engine;                /* the engine offers it */
    const char *description;
};

extern const struct kernel_entry KERNELS[];
extern const size_t N_KERNELS;

/* The entry of that name, or NULL. */
const struct kernel_entry *kernel_named(const char *name);

/* The kernel `name` asks of the engine: an entry it offers, or "tuned-PATH",
 * which forces that path of the tuned kernel (tuned_path_force) and is the
 * tuned entry. NULL with a one-line message in err, naming the choices. */
const struct kernel_entry *kernel_for_engine(const char *name, char *err, size_t err_size);

#endif
