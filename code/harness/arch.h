/*
 * arch.h - the routine that runs a row of the architecture table once.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_ARCH_H
#define IPCTAX_ARCH_H

#include <stddef.h>

#include "harness/env.h"
#include "harness/session.h"
#include "kernel/kernel.h"
#include "schema/architectures.h"
#include "schema/data_out.h"

/* <<sweep-job>>, paper/41-architectures.md */
/* One sweep to perform: the series and the parameter sets. */
struct sweep_job {
    const double *close;
    size_t n_bars;
    const struct combo_params *params;
    size_t n_combos;
};

/* <<what-a-run-measures>>, paper/41-architectures.md */
struct run_measure {
    double seconds;            /* the sweep's wall time */
    double client_cpu_s;       /* processor time of the process that drove it */
    double engine_cpu_s;       /* of the engine (or the spawned engines); NAN if unknown */
    int cpu_start, cpu_end;    /* the CPU the client ran on at each end; -1 unknown */
    int engine_cpu;            /* the CPU the engine last ran on; -1 if none */
    long client_minor_faults;  /* pages the client touched first during the run; -1 */
    long engine_minor_faults;  /* ... and the engine, or its spawned copies; -1 */
};

/* A run's boundary calls, kept in memory until the schedule writes them
 * beside the run's row (a warm-up keeps only the sums). */
struct kept_call {
    size_t call;               /* its index within the sweep */
    struct call_record t;
};

/* <<witness-record>>, paper/41-architectures.md */
enum witness_kind { WITNESS_FLOOR, WITNESS_PAYLOAD, WITNESS_WARM, N_WITNESS_KINDS };
enum { WITNESS_REPS = 3, MAX_WITNESSES = N_WITNESS_KINDS * WITNESS_REPS };

/* An echo, or a warm engine's call, timed right after a run's last call. */
struct witness {
    enum witness_kind kind;
    int seq;                   /* 1 right after the last call, then 2, 3 */
    size_t floats;             /* an echo's payload; 0 for a warm call */
    uint64_t at_ns;            /* clock_ns() when it began */
    struct call_record t;
};

/* "floor", "payload" or "warm", as witnesses.csv names the kinds. */
const char *witness_kind_name(enum witness_kind kind);

struct call_sink {
    int keep;                  /* 1: keep every call; 0: only the sums below */
    struct kept_call *calls;
    size_t n, cap;
    int lost;                  /* a call could not be kept: the run is void */
    double engine_cpu_ns;      /* summed over the calls that reported it */
    int engine_cpu_known;
    long spawned_faults;       /* minor faults of the engines spawned for the run */
    int spawned;
    struct witness witnesses[MAX_WITNESSES];   /* timed after the run's last call */
    size_t n_witnesses;
};

void call_sink_put(struct call_sink *sink, size_t call, const struct call_record *t);
/* Writes a call's record into a row's columns from `first` (the column of
 * rtt_ns: calls.csv and witnesses.csv hold the same record). */
void call_record_write(struct data_out *out, int first, const struct call_record *t);
/* Forgets the kept calls (the sink can be used again). */
void call_sink_clear(struct call_sink *sink);
void call_sink_free(struct call_sink *sink);

/* <<architecture-interface>>, paper/41-architectures.md */
struct worker;                 /* the Python worker, @sec:python-client */
struct arch_state;

/* Sets a row up: its workspace, session, engine, or worker row. NULL with
 * err set on failure. */
struct arch_state *arch_open(const struct arch_row *row, const struct harness_env *env,
                             struct worker *worker, const struct sweep_job *job,
                             char *err, size_t err_size);
/* Pins the processes that serve the row (its engine, a spawning row's warm
 * engine, the Python worker) to cpu, or lets them run anywhere again (CPU_ANY, @sec:placement). 0 or -1. */
int arch_pin(struct arch_state *st, int cpu);
/* One sweep: results[0..n_combos), the run's measures, its calls into sink. */
int arch_run(struct arch_state *st, const struct sweep_job *job, struct combo_result *results,
             struct run_measure *m, struct call_sink *sink, char *err, size_t err_size);
void arch_close(struct arch_state *st);

#endif
