/*
 * arch_shm.c - batch_shm: the persistent engine over shared memory.
 *
 * Tangled from paper/84-shm.md.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/arch.h"
#include "harness/client.h"

static int batch_shm_setup(void **state, const struct arch_options *opts,
                           const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    struct shm_engine *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        return -1;
    }
    if (shm_engine_start(s, opts->engine_path, args, "batch", SHM_WAIT_FUTEX, err) != 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int batch_shm_run(void *state, const struct sweep_job *job,
                         struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    struct shm_engine *s = state;
    return client_sweep(&s->client, job, 0, job->n_combos, results, err) == 0 ? 0 : -1;
}

static void batch_shm_teardown(void *state)
{
    shm_engine_stop(state);
    free(state);
}

const struct architecture arch_batch_shm = {
    .name = "batch_shm",
    .description = "persistent engine over shared memory (futex wait), one round trip per sweep",
    .setup = batch_shm_setup,
    .run = batch_shm_run,
    .teardown = batch_shm_teardown,
};
