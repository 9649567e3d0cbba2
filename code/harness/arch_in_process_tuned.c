/*
 * arch_in_process_tuned.c - the tuned kernel called directly, on every core
 * and on one.
 *
 * Tangled from paper/35-tuned-kernel.md.
 */
#include <stdio.h>

#include "harness/arch.h"
#include "kernel/kernel_tuned.h"

static int run_tuned(int n_threads, const struct sweep_job *job,
                     struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    if (sweep_tuned(job->close, job->n_bars, job->params, job->n_combos, results,
                    n_threads) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for the tuned kernel's workspaces");
        return -1;
    }
    return 0;
}

static int tuned_every_core_run(void *state, const struct sweep_job *job,
                                struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    (void)state;
    return run_tuned(0, job, results, err);
}

static int tuned_one_core_run(void *state, const struct sweep_job *job,
                              struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    (void)state;
    return run_tuned(1, job, results, err);
}

const struct architecture arch_in_process_tuned = {
    .name = "in_process_tuned",
    .description = "the tuned kernel (vector lanes, one thread per core), no boundary",
    .run = tuned_every_core_run,
};

const struct architecture arch_in_process_tuned_1core = {
    .name = "in_process_tuned_1core",
    .description = "the tuned kernel on one thread, no boundary",
    .run = tuned_one_core_run,
};
