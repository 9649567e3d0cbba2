/*
 * arch.h - the interface every architecture implements, and the registry.
 *
 * Tangled from paper/40-harness.md and the chapters that add architectures.
 */
#ifndef IPCTAX_ARCH_H
#define IPCTAX_ARCH_H

#include <stddef.h>

#include "kernel/kernel.h"

/* One sweep to perform: the series and the parameter sets. */
struct sweep_job {
    const double *close;
    size_t n_bars;
    const struct combo_params *params;
    size_t n_combos;
};

/* Settings an architecture may need beyond the job itself. */
struct arch_options {
    const char *engine_path;   /* the ipctax-engine binary */
    const char *work_dir;      /* where sockets and scratch files may go */
};

enum { ARCH_ERROR_SIZE = 512 };

struct architecture {
    const char *name;
    const char *description;
    /* Prepare; store private state in *state. Returns 0 or -1 with err set. */
    int (*setup)(void **state, const struct arch_options *opts, const struct sweep_job *job,
                 char err[ARCH_ERROR_SIZE]);
    /* One timed sweep into results[0 .. n_combos-1]. Returns 0 or -1 with err set. */
    int (*run)(void *state, const struct sweep_job *job, struct combo_result *results,
               char err[ARCH_ERROR_SIZE]);
    void (*teardown)(void *state);
};

/* All architectures, in the order the harness runs them; NULL-terminated. */
extern const struct architecture *const ARCHITECTURES[];
const struct architecture *architecture_named(const char *name);

extern const struct architecture arch_in_process_tuned;
extern const struct architecture arch_in_process_tuned_1core;
extern const struct architecture arch_in_process;
extern const struct architecture arch_in_process_control;
extern const struct architecture arch_batch_unix;
extern const struct architecture arch_batch_unix_tuned;
extern const struct architecture arch_chatty_unix;
extern const struct architecture arch_spawn_stdin;
extern const struct measurement measure_echo;
extern const struct measurement measure_serialization;
extern const struct measurement measure_spawn;
extern const struct architecture arch_stateful_unix;
extern const struct architecture arch_per_bar_unix;
extern const struct architecture arch_spawn_per_combo;
extern const struct architecture arch_batch_tcp;
extern const struct architecture arch_json_unix;
extern const struct architecture arch_json_chatty_unix;
extern const struct architecture arch_batch_shm;

struct measure_context {
    const struct sweep_job *job;       /* the study's series and grid */
    const struct arch_options *opts;   /* engine binary, scratch directory */
    const char *out_dir;               /* where the CSV files go */
    double scale;                      /* repetition multiplier (1 = the paper's) */
};

struct measurement {
    const char *name;
    const char *description;
    /* Runs and writes its CSV files; returns 0 or -1 with err set. */
    int (*run)(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE]);
};

extern const struct measurement *const MEASUREMENTS[];
const struct measurement *measurement_named(const char *name);

/* Repetitions for a measurement: `paper_count` scaled, never below `floor`. */
int scaled_count(const struct measure_context *ctx, int paper_count, int floor);

#endif
