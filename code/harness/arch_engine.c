/*
 * arch_engine.c - architectures that talk to a persistent engine.
 *
 * Tangled from paper/60-architectures.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/arch.h"
#include "harness/client.h"
#include "wire/json_codec.h"
#include "wire/netio.h"

struct engine_state {
    struct engine_process engine;
    struct engine_client client;
};

/* Starts the engine with `args` on a Unix socket named after `tag`, or on
 * a free loopback TCP port when `tcp` is set, and connects to it. */
static int start_engine(void **state, const struct arch_options *opts, char *const args[],
                        const char *tag, int tcp, char err[ARCH_ERROR_SIZE])
{
    char path[108], port[16];
    struct engine_state *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        return -1;
    }
    snprintf(path, sizeof path, "%s/ipctax-%d-%s.sock", opts->work_dir, (int)getpid(), tag);
    if (tcp && free_tcp_port(port) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "no free loopback TCP port");
        free(s);
        return -1;
    }
    int fd = engine_start(&s->engine, opts->engine_path, args, path, tcp ? port : NULL, err);
    if (fd < 0) {
        free(s);
        return -1;
    }
    client_init(&s->client, fd, fd);
    *state = s;
    return 0;
}

static void stop_engine(void *state)
{
    struct engine_state *s = state;
    client_close(&s->client);
    engine_stop(&s->engine);
    free(s);
}

static int batch_run(void *state, const struct sweep_job *job, struct combo_result *results,
                     char err[ARCH_ERROR_SIZE])
{
    struct engine_state *s = state;
    return client_sweep(&s->client, job, 0, job->n_combos, results, err) == 0 ? 0 : -1;
}

static int batch_unix_setup(void **state, const struct arch_options *opts,
                            const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    return start_engine(state, opts, args, "batch", 0, err);
}

const struct architecture arch_batch_unix = {
    .name = "batch_unix",
    .description = "persistent engine on a Unix socket, one round trip per sweep",
    .setup = batch_unix_setup,
    .run = batch_run,
    .teardown = stop_engine,
};

static int batch_unix_tuned_setup(void **state, const struct arch_options *opts,
                                  const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "tuned", NULL};
    return start_engine(state, opts, args, "tuned", 0, err);
}

const struct architecture arch_batch_unix_tuned = {
    .name = "batch_unix_tuned",
    .description = "batch_unix with the bit-identical tuned kernel (one thread) behind it",
    .setup = batch_unix_tuned_setup,
    .run = batch_run,
    .teardown = stop_engine,
};

static int chatty_run(void *state, const struct sweep_job *job, struct combo_result *results,
                      char err[ARCH_ERROR_SIZE])
{
    struct engine_state *s = state;
    for (size_t k = 0; k < job->n_combos; k++)
        if (client_sweep(&s->client, job, k, 1, results, err) != 0)
            return -1;
    return 0;
}

static int chatty_unix_setup(void **state, const struct arch_options *opts,
                             const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    return start_engine(state, opts, args, "chatty", 0, err);
}

const struct architecture arch_chatty_unix = {
    .name = "chatty_unix",
    .description = "same engine, one round trip per combo, series re-sent each time",
    .setup = chatty_unix_setup,
    .run = chatty_run,
    .teardown = stop_engine,
};

static int batch_tcp_setup(void **state, const struct arch_options *opts,
                           const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    return start_engine(state, opts, args, "tcp", 1, err);
}

const struct architecture arch_batch_tcp = {
    .name = "batch_tcp",
    .description = "persistent engine on TCP loopback (TCP_NODELAY), one round trip per sweep",
    .setup = batch_tcp_setup,
    .run = batch_run,
    .teardown = stop_engine,
};

/* One JSON round trip for combos [first, first+count). */
static int json_call(struct engine_client *c, const struct sweep_job *job, size_t first,
                     size_t count, struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    size_t len;
    char *text = json_request_encode(job->close, job->n_bars, job->params + first, count, &len);
    if (text == NULL || client_request_buffer(c, len) == NULL) {
        free(text);
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for a JSON request");
        return -1;
    }
    memcpy(c->request, text, len);
    free(text);
    if (client_round_trip(c, len, err) != 0)
        return -1;
    return json_reply_decode((const char *)c->reply, c->reply_len, results + first, count,
                             err, ARCH_ERROR_SIZE);
}

static int json_batch_run(void *state, const struct sweep_job *job,
                          struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    struct engine_state *s = state;
    return json_call(&s->client, job, 0, job->n_combos, results, err);
}

static int json_chatty_run(void *state, const struct sweep_job *job,
                           struct combo_result *results, char err[ARCH_ERROR_SIZE])
{
    struct engine_state *s = state;
    for (size_t k = 0; k < job->n_combos; k++)
        if (json_call(&s->client, job, k, 1, results, err) != 0)
            return -1;
    return 0;
}

static int json_setup(void **state, const struct arch_options *opts,
                      const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    return start_engine(state, opts, args, "json", 0, err);
}

/* An engine of its own: the harness keeps every architecture's engine alive
 * at once, so each needs its own socket name. */
static int json_chatty_setup(void **state, const struct arch_options *opts,
                             const struct sweep_job *job, char err[ARCH_ERROR_SIZE])
{
    (void)job;
    static char *const args[] = {"--kernel", "naive", NULL};
    return start_engine(state, opts, args, "jsonchatty", 0, err);
}

const struct architecture arch_json_unix = {
    .name = "json_unix",
    .description = "persistent engine, JSON request and reply, one round trip per sweep",
    .setup = json_setup,
    .run = json_batch_run,
    .teardown = stop_engine,
};

const struct architecture arch_json_chatty_unix = {
    .name = "json_chatty_unix",
    .description = "persistent engine, JSON, one round trip per combo with the series",
    .setup = json_chatty_setup,
    .run = json_chatty_run,
    .teardown = stop_engine,
};
