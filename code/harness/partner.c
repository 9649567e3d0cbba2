/*
 * partner.c - the in-process kernel on another CPU until told to stop.
 *
 * Tangled from paper/67-mechanisms.md.
 */
#include "harness/partner.h"
#include "harness/placement.h"
#include "kernel/kernel.h"

static void *partner_loop(void *arg)
{
    struct partner *p = arg;
    struct sweep_workspace ws;
    struct combo_result result;
    sweep_workspace_init(&ws, NULL);
    pin_this_thread(p->cpu);
    for (size_t k = 0; !atomic_load(&p->stop); k = (k + 1) % p->job->n_combos)
        sweep_naive_in(&ws, p->job->close, p->job->n_bars, &p->job->params[k], 1, &result);
    sweep_workspace_free(&ws);
    return NULL;
}

int partner_start(struct partner *p, int cpu, const struct sweep_job *job)
{
    atomic_init(&p->stop, 0);
    p->cpu = cpu;
    p->job = job;
    return pthread_create(&p->thread, NULL, partner_loop, p) == 0 ? 0 : -1;
}

void partner_stop(struct partner *p)
{
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
}
