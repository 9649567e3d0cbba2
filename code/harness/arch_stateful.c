/*
 * arch_stateful.c - load once and call per combination; call per bar.
 *
 * Tangled from paper/80-stateful.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/arch.h"
#include "harness/client.h"

struct session {
    struct engine_process engine;
    struct engine_client client;
};

static int open_session(void **state, const struct arch_options *opts, const char *tag,
                        char err[ARCH_ERROR_SIZE])
{
    static char *const args[] = {NULL};
    char path[108];
    struct session *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/ipctax-%d-%s.sock", opts->work_dir, (int)getpid(), tag);
    int fd = engine_start(&s->engine, opts->engine_path, args, path, NULL, err);
    if (fd < 0) {
        free(s);
        return -1;
    }
    client_init(&s->client, fd, fd);
    *state = s;
    return 0;
}

static void close_session(void *state)
{
    struct session *s = state;
    client_close(&s->client);
    engine_stop(&s->engine);
    free(s);
}

static int stateful_setup(void **state, const struct arch_options *opts,
                          const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    if (open_session(state, opts, "stateful", err) != 0)
        return -1;
    struct session *s = *state;
    if (client_request(&s->client, OP_LOAD, job->close, job->n_bars, NULL, 0, err) != 0) {
        close_session(s);
        return -1;
    }
    return 0;
}

static int stateful_run(void *state, const struct sweep_job *job, struct combo_result *results,
                        char err[ARCH_ERROR_SIZE])
{
    struct session *s = state;
    for (size_t k = 0; k < job->n_combos; k++) {
        if (client_request(&s->client, OP_SWEEP_LOADED, NULL, 0, &job->params[k], 1, err) != 0)
            return -1;
        if (sweep_reply_decode(s->client.reply, s->client.reply_len, &results[k], 1) != 0) {
            snprintf(err, ARCH_ERROR_SIZE, "malformed reply to a loaded sweep");
            return -1;
        }
    }
    return 0;
}

const struct architecture arch_stateful_unix = {
    .name = "stateful_unix",
    .description = "series loaded once per connection, one 48-byte call per combo",
    .setup = stateful_setup,
    .run = stateful_run,
    .teardown = close_session,
};

static int per_bar_setup(void **state, const struct arch_options *opts,
                         const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    return open_session(state, opts, "perbar", err);
}

static int per_bar_run(void *state, const struct sweep_job *job, struct combo_result *results,
                       char err[ARCH_ERROR_SIZE])
{
    struct session *s = state;
    struct engine_client *c = &s->client;
    if (client_request(c, OP_OPEN_STREAM, NULL, 0, job->params, job->n_combos, err) != 0)
        return -1;
    for (size_t t = 0; t < job->n_bars; t++) {
        if (client_request(c, OP_BAR, &job->close[t], 1, NULL, 0, err) != 0)
            return -1;
        if (c->reply_len != job->n_combos) {
            snprintf(err, ARCH_ERROR_SIZE, "bar %zu: %zu position bytes for %zu combos",
                     t, c->reply_len, job->n_combos);
            return -1;
        }
    }
    if (client_request(c, OP_CLOSE_STREAM, NULL, 0, NULL, 0, err) != 0)
        return -1;
    if (sweep_reply_decode(c->reply, c->reply_len, results, (uint32_t)job->n_combos) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "malformed reply closing the stream");
        return -1;
    }
    return 0;
}

const struct architecture arch_per_bar_unix = {
    .name = "per_bar_unix",
    .description = "one round trip per bar: one close out, every position back",
    .setup = per_bar_setup,
    .run = per_bar_run,
    .teardown = close_session,
};
