/*
 * schedule.h - the architectures in rounds of paired units, until the A/A
 * control is narrow enough or the budget is spent.
 *
 * Tangled from paper/42-pairs.md.
 */
#ifndef IPCTAX_SCHEDULE_H
#define IPCTAX_SCHEDULE_H

#include <stdint.h>

#include "harness/arch.h"

/* <<schedule-limits>>, paper/42-pairs.md */
/* What else the rounds make: called after each round's units, with the
 * round's number (rounds_measurements_pass, @sec:measurements). */
struct round_hook {
    void (*after_round)(void *arg, int round);
    void *arg;
};

struct schedule_limits {
    int min_rounds, max_rounds;
    double budget_s;           /* seconds of rounds at most, once min_rounds are made */
    double target;             /* the A/A control's goal, reported: no longer a stop rule */
    const char *units;         /* the plan: "row=N,...", NULL for every row's default */
    struct round_hook hook;    /* none by default */
};

/* The budget covers the rounds with the serialization's repetitions made
 * in them (@sec:serialization); it and the minimum are the schema's, which
 * the plan reads too. */
#define SCHEDULE_DEFAULT_LIMITS \
    ((struct schedule_limits){MIN_ROUNDS, 40, ROUNDS_BUDGET_S, 0.015, NULL, {NULL, NULL}})

struct schedule_outcome {
    int rounds;
    const char *stop_reason;   /* "resolved", "budget", "max_rounds", or "failed" (no round) */
    double seconds;            /* spent in rounds */
    int gate_failures;         /* architectures whose results differed */
    int failures;              /* architectures that could not run */
    int duet_cpus[2];          /* the CPUs of the duets; -1 when there were none */
    double reach;              /* how far the duet's A/A interval reached from 1 */
};

/* Runs the selected rows (NULL: all) and writes architectures.csv,
 * calls.csv and gate.csv into out_dir. Returns 0, or -1 with err set
 * (nothing was measured); how says what happened. */
int schedule_run(const struct harness_env *env, const struct sweep_job *job,
                 const struct combo_result *reference, const char *rows, uint32_t seed,
                 const struct schedule_limits *limits, const char *out_dir,
                 struct schedule_outcome *how, char *err, size_t err_size);

#endif
