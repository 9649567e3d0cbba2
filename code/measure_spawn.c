/*
 * measure_spawn.c - the cost of one engine process, isolated.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <stdio.h>

#include "arch.h"
#include "client.h"
#include "csvout.h"
#include "timing.h"

enum {
    SPAWN_REPS = 100,          /* each takes about a millisecond: cheap enough */
    SPAWN_WARMUP = 5,          /* the first spawns also warm the page cache */
};

static int spawn_once(struct engine_client *c, const char *engine, const double *one,
                      char err[ARCH_ERROR_SIZE])
{
    static char *const args[] = {NULL};
    request_encode(c->request, OP_ECHO, one, 1, NULL, 0);
    return engine_spawn_call(c, engine, args, (size_t)request_body_size(1, 0), err);
}

static int run_spawn(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static const char *const header[] = {"rep", "seconds"};
    struct engine_client c;
    struct csv_out out;
    char path[4096];
    int reps = scaled_count(ctx, SPAWN_REPS, 10), status = 0;
    client_init(&c, -1, -1);
    snprintf(path, sizeof path, "%s/spawn.csv", ctx->out_dir);
    if (client_request_buffer(&c, (size_t)request_body_size(1, 0)) == NULL ||
        csv_out_open(&out, path) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "cannot prepare %.400s", path);
        client_close(&c);
        return -1;
    }
    csv_out_header(&out, header, 2);
    for (int i = 0; status == 0 && i < SPAWN_WARMUP; i++)
        status = spawn_once(&c, ctx->opts->engine_path, ctx->job->close, err);
    for (int i = 0; status == 0 && i < reps; i++) {
        uint64_t t0 = clock_ns();
        status = spawn_once(&c, ctx->opts->engine_path, ctx->job->close, err);
        csv_out_int(&out, i + 1);
        csv_out_fixed(&out, seconds_between(t0, clock_ns()), 9);
        csv_out_end_row(&out);
    }
    client_close(&c);
    if (csv_out_close(&out) != 0 && status == 0) {
        snprintf(err, ARCH_ERROR_SIZE, "cannot write %.400s", path);
        return -1;
    }
    return status == 0 ? 0 : -1;
}

const struct measurement measure_spawn = {
    .name = "spawn",
    .description = "one engine process per call, alone: spawn, one-double echo, exit",
    .run = run_spawn,
};
