/*
 * kernel_tuned.h - the tuned kernel: sweep_naive's results, bit for bit, faster.
 *
 * Tangled from paper/35-tuned-kernel.md.
 */
#ifndef IPCTAX_KERNEL_TUNED_H
#define IPCTAX_KERNEL_TUNED_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/*
 * Runs every combination over the series, exactly as sweep_naive_in, on
 * n_threads threads (1 = the calling thread only, 0 = one per online core),
 * in the given workspace: it loads the series there and keeps one helper
 * workspace per extra thread. Returns 0, -1 when out of memory, or
 * SWEEP_STOPPED when ws's stop flag was raised (the results are then
 * incomplete).
 */
int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads);

/* The same with a workspace of its own, allocated and freed per call. */
int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads);

/* The widest vectors this processor gives the tuned kernel, in bytes: 64, 32 or 16. */
int tuned_vector_bytes(void);

/* sweep_tuned with vectors of at most vector_bytes (0 = the widest); for the tests. */
int sweep_tuned_lanes(const double *close, size_t n_bars, const struct combo_params *params,
                      size_t n_combos, struct combo_result *results, int n_threads,
                      int vector_bytes);

/* The pieces, exposed for the tests like kernel_wma and kernel_lines. */
void kernel_tuned_wma(const double *x, size_t n_bars, int64_t n, double *out, int vector_bytes);
int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *p,
                       double *hma, double *hma3, int vector_bytes);

#endif
