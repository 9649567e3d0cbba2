/*
 * arch.h - the architectures, as rows of one table, and the routine that
 * runs a row once.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_ARCH_H
#define IPCTAX_ARCH_H

#include <stddef.h>

#include "harness/csvout.h"
#include "harness/env.h"
#include "harness/session.h"
#include "kernel/kernel.h"

/* One sweep to perform: the series and the parameter sets. */
struct sweep_job {
    const double *close;
    size_t n_bars;
    const struct combo_params *params;
    size_t n_combos;
};

enum arch_client { CLIENT_NONE, CLIENT_C, CLIENT_PYTHON };
enum arch_kernel { KERNEL_NAIVE, KERNEL_TUNED_ONE_CORE, KERNEL_TUNED_ALL_CORES, KERNEL_NUMBA };
enum arch_encoding { ENCODING_BINARY, ENCODING_JSON };
enum arch_grain { GRAIN_SWEEP, GRAIN_COMBO, GRAIN_LOADED, GRAIN_BAR };

struct arch_row {
    const char *name;          /* as in data/ and the paper */
    enum arch_client client;
    enum transport transport;
    enum arch_kernel kernel;
    enum arch_encoding encoding;
    enum arch_grain grain;
    int headline;              /* its interval decides when the rounds may stop */
    const char *description;
};

extern const struct arch_row ARCH_ROWS[];
extern const size_t N_ARCH_ROWS;

/* The row's index, or -1. */
int arch_row_named(const char *name);

enum { PER_BAR_SAMPLE = 1000 };

struct run_measure {
    double seconds;            /* the sweep's wall time */
    double client_cpu_s;       /* processor time of the process that drove it */
    double engine_cpu_s;       /* of the engine (or the spawned engines); NAN if unknown */
};

/* Where a run's boundary calls go: calls.csv (or nowhere, for a warm-up). */
struct call_sink {
    struct csv_out *out;
    const char *arch;
    int round;
    double engine_cpu_ns;      /* summed over the calls that reported it */
    int engine_cpu_known;
};

void call_sink_put(struct call_sink *sink, size_t call, const struct call_record *t);

struct worker;                 /* the Python worker, @sec:python-client */
struct arch_state;

/* Sets a row up: its workspace, session, engine, or worker row. NULL with
 * err set on failure. */
struct arch_state *arch_open(const struct arch_row *row, const struct harness_env *env,
                             struct worker *worker, const struct sweep_job *job,
                             char err[ERR_SIZE]);
/* One sweep: results[0..n_combos), the run's measures, its calls into sink. */
int arch_run(struct arch_state *st, const struct sweep_job *job, struct combo_result *results,
             struct run_measure *m, struct call_sink *sink, char err[ERR_SIZE]);
void arch_close(struct arch_state *st);

#endif
