/*
 * arch_in_process.c - the baseline: the kernel called directly.
 *
 * Tangled from paper/40-harness.md.
 */
#include <stdio.h>

#include "arch.h"

static int in_process_run(void *state, const struct sweep_job *job,
                          struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    (void)state;
    if (sweep_naive(job->close, job->n_bars, job->params, job->n_combos, results) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for the sweep workspace");
        return -1;
    }
    return 0;
}

const struct architecture arch_in_process = {
    .name = "in_process",
    .description = "the kernel called directly, no boundary",
    .run = in_process_run,
};
