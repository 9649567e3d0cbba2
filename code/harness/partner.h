/*
 * partner.h - the in-process kernel on another CPU, as a duet's baseline
 * side computes beside a row, for measurements made beside it.
 *
 * Tangled from paper/67-mechanisms.md.
 */
#ifndef IPCTAX_PARTNER_H
#define IPCTAX_PARTNER_H

#include <pthread.h>
#include <stdatomic.h>

#include "harness/arch.h"

struct partner {
    pthread_t thread;
    atomic_int stop;
    int cpu;
    const struct sweep_job *job;
};

/* Starts the job's combinations, one after another, on cpu; 0, or -1 if
 * no thread could be made. */
int partner_start(struct partner *p, int cpu, const struct sweep_job *job);
/* Stops it at the end of its combination, and waits for it. */
void partner_stop(struct partner *p);

#endif
