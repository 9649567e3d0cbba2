/*
 * pairs.h - one run of a row, alone or beside another run at the same time.
 *
 * Tangled from paper/42-pairs.md.
 */
#ifndef IPCTAX_PAIRS_H
#define IPCTAX_PAIRS_H

#include <stdint.h>

#include "harness/arch.h"
#include "harness/placement.h"
#include "util/error.h"

/* <<a-side>>, paper/42-pairs.md */
struct side {
    struct arch_state *state;          /* the row that runs */
    const struct sweep_job *job;       /* the part of the job it runs */
    struct combo_result *results;      /* job->n_combos of them */
    struct call_sink *sink;            /* its calls */
    int cpu;                           /* its CPU, or CPU_ANY */
    /* what the run measured */
    struct run_measure m;
    uint64_t start_ns;                 /* clock_ns() when it started */
    char allowed[CPUS_TEXT_SIZE];      /* the CPUs it was allowed */
    int failed;                        /* err says why */
    char err[ERR_SIZE];
};

/* Runs s in the calling thread (pinned to s->cpu, or anywhere). */
void side_run_alone(struct side *s);
/* Runs a in a new thread and b in the calling thread, each pinned to its
 * CPU, starting together. 0, or -1 with err set when the thread could not
 * start (nothing ran). */
int side_run_duet(struct side *a, struct side *b, char *err, size_t err_size);

#endif
