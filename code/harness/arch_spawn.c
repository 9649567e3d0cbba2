/*
 * arch_spawn.c - one engine process per sweep (or per combination), over
 * stdin and stdout.
 *
 * Tangled from paper/60-architectures.md and paper/80-stateful.md.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness/arch.h"
#include "harness/client.h"

struct spawn_state {
    struct engine_client client;   /* its buffers; the fds are the child's pipes */
    const char *engine_path;
};

static int spawn_setup(void **state, const struct arch_options *opts,
                       const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    struct spawn_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        return -1;
    }
    client_init(&s->client, -1, -1);
    s->engine_path = opts->engine_path;
    *state = s;
    return 0;
}

static int spawn_run(void *state, const struct sweep_job *job, struct combo_result *results,
                     char err[ARCH_ERROR_SIZE])
{
    struct spawn_state *s = state;
    static char *const args[] = {"--kernel", "naive", NULL};
    uint64_t size = request_body_size((uint32_t)job->n_bars, (uint32_t)job->n_combos);
    if (client_request_buffer(&s->client, size) == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for a request");
        return -1;
    }
    request_encode(s->client.request, OP_SWEEP, job->close, (uint32_t)job->n_bars,
                   job->params, (uint32_t)job->n_combos);
    if (engine_spawn_call(&s->client, s->engine_path, args, size, err) != 0)
        return -1;
    if (sweep_reply_decode(s->client.reply, s->client.reply_len, results,
                           (uint32_t)job->n_combos) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "malformed sweep reply from a spawned engine");
        return -1;
    }
    return 0;
}

static void spawn_teardown(void *state)
{
    struct spawn_state *s = state;
    client_close(&s->client);
    free(s);
}

const struct architecture arch_spawn_stdin = {
    .name = "spawn_stdin",
    .description = "spawn the engine per sweep, request on stdin, reply on stdout",
    .setup = spawn_setup,
    .run = spawn_run,
    .teardown = spawn_teardown,
};

static int spawn_per_combo_run(void *state, const struct sweep_job *job,
                               struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    struct spawn_state *s = state;
    static char *const args[] = {NULL};
    for (size_t k = 0; k < job->n_combos; k++) {
        uint64_t size = request_body_size((uint32_t)job->n_bars, 1);
        if (client_request_buffer(&s->client, size) == NULL) {
            snprintf(err, ARCH_ERROR_SIZE, "out of memory for a request");
            return -1;
        }
        request_encode(s->client.request, OP_SWEEP, job->close, (uint32_t)job->n_bars,
                       &job->params[k], 1);
        if (engine_spawn_call(&s->client, s->engine_path, args, size, err) != 0)
            return -1;
        if (sweep_reply_decode(s->client.reply, s->client.reply_len, &results[k], 1) != 0) {
            snprintf(err, ARCH_ERROR_SIZE, "malformed sweep reply from a spawned engine");
            return -1;
        }
    }
    return 0;
}

const struct architecture arch_spawn_per_combo = {
    .name = "spawn_per_combo",
    .description = "one engine process per combo, over stdin and stdout",
    .setup = spawn_setup,
    .run = spawn_per_combo_run,
    .teardown = spawn_teardown,
};
