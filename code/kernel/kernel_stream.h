/*
 * kernel_stream.h - the sweep, one bar at a time, bit-identical to the batch.
 *
 * Tangled from paper/80-stateful.md.
 */
#ifndef IPCTAX_KERNEL_STREAM_H
#define IPCTAX_KERNEL_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* The last `cap` values pushed, each stored twice so windows are contiguous. */
struct ring {
    double *values;            /* 2 * cap doubles */
    size_t cap;
    size_t next;               /* where the next value goes, in 0 .. cap-1 */
    size_t count;              /* values pushed so far (not capped) */
};

struct stream_combo {
    struct combo_params p;
    struct ring mix_h, mix_3;  /* the HMA and HMA3 inputs, before smoothing */
    double hma_prev, hma3_prev;
    struct position position;
};

struct sweep_stream {
    struct ring close;         /* as many closes as the longest window needs */
    double last_close;
    size_t n_combos;
    struct stream_combo *combos;
    atomic_int stop;           /* raised by another thread: end the bar (see stream_bar) */
};

/* A bar looks at its stream's stop flag before every this many
 * combinations: at most some tens of milliseconds of work each. */
enum { STREAM_STOP_CHECK_COMBOS = 64 };

/* Bytes a stream over these parameter sets allocates: its state and rings. */
uint64_t stream_memory(const struct combo_params *params, size_t n_combos);
/* Bars a stream takes until every combination's rule has stepped once: a
 * bar after them does the whole of a bar's work. */
size_t stream_warmup_bars(const struct combo_params *params, size_t n_combos);
int stream_open(struct sweep_stream *s, const struct combo_params *params, size_t n_combos);
/* Advances every combination by one bar; positions[k] gets its side. 0, or
 * SWEEP_STOPPED when s->stop was raised meanwhile: the bar is then half
 * made, and the stream good only for stream_free. */
int stream_bar(struct sweep_stream *s, double close, int8_t *positions);
/* Closes open positions at the last bar and writes each combination's result. */
void stream_close(struct sweep_stream *s, struct combo_result *results);
void stream_free(struct sweep_stream *s);

#endif
