/*
 * arch_in_process.c - the baseline: the kernel called directly.
 *
 * Tangled from paper/40-harness.md.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/arch.h"

static int in_process_setup(void **state, const struct arch_options *opts,
                            const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)opts;
    (void)job;
    struct sweep_workspace *ws = malloc(sizeof *ws);
    if (ws == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        return -1;
    }
    sweep_workspace_init(ws);
    *state = ws;
    return 0;
}

static int in_process_run(void *state, const struct sweep_job *job,
                          struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    if (sweep_naive_in(state, job->close, job->n_bars, job->params, job->n_combos,
                       results) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for the sweep workspace");
        return -1;
    }
    return 0;
}

static void in_process_teardown(void *state)
{
    sweep_workspace_free(state);
    free(state);
}

const struct architecture arch_in_process = {
    .name = "in_process",
    .description = "the kernel called directly, no boundary",
    .setup = in_process_setup,
    .run = in_process_run,
    .teardown = in_process_teardown,
};

const struct architecture arch_in_process_control = {
    .name = "in_process_control",
    .description = "in_process again, as a separate architecture: the A/A control",
    .setup = in_process_setup,
    .run = in_process_run,
    .teardown = in_process_teardown,
};
