/*
 * measure_spawn.c - the cost of one engine process, isolated.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <stdio.h>

#include "harness/arch.h"
#include "harness/client.h"
#include "harness/csvout.h"
#include "wire/timing.h"

enum {
    SPAWN_REPS = 100,          /* each takes about a millisecond: cheap enough */
    SPAWN_WARMUP = 5,          /* the first spawns also warm the page cache */
};

/* One spawned call: an echo of one double ("echo"), or a sweep of one
 * combination over the whole series ("sweep"), the work of one call of
 * spawn_per_combo. Successive sweeps take successive combinations, because
 * a combination's compute grows with its windows: the samples of one pass
 * over the grid cost, on average, what spawn_per_combo's calls cost. */
static int spawn_once(struct engine_client *c, const char *engine, const struct sweep_job *job,
                      int sweep, int rep, char err[ARCH_ERROR_SIZE])
{
    static char *const args[] = {NULL};
    size_t n_bars = sweep ? job->n_bars : 1;
    const struct combo_params *combo = &job->params[(size_t)rep % job->n_combos];
    uint64_t size = request_body_size((uint32_t)n_bars, (uint32_t)sweep);
    if (client_request_buffer(c, size) == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory for a request");
        return -1;
    }
    request_encode(c->request, sweep ? OP_SWEEP : OP_ECHO, job->close, (uint32_t)n_bars,
                   combo, (uint32_t)sweep);
    return engine_spawn_call(c, engine, args, (size_t)size, err);
}

static int sample_spawns(struct engine_client *c, const struct measure_context *ctx, int sweep,
                         struct csv_out *out, char err[ARCH_ERROR_SIZE])
{
    int reps = sweep ? (int)ctx->job->n_combos : scaled_count(ctx, SPAWN_REPS, 10), status = 0;
    for (int i = 0; status == 0 && i < SPAWN_WARMUP; i++)
        status = spawn_once(c, ctx->opts->engine_path, ctx->job, sweep, i, err);
    for (int i = 0; status == 0 && i < reps; i++) {
        uint64_t t0 = clock_ns();
        status = spawn_once(c, ctx->opts->engine_path, ctx->job, sweep, i, err);
        csv_out_text(out, sweep ? "sweep" : "echo");
        csv_out_int(out, i + 1);
        csv_out_fixed(out, seconds_between(t0, clock_ns()), 9);
        csv_out_int(out, c->child_faults);
        csv_out_end_row(out);
    }
    return status;
}

static int run_spawn(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static const char *const header[] = {"kind", "rep", "seconds", "minor_faults"};
    struct engine_client c;
    struct csv_out out;
    char path[4096];
    client_init(&c, -1, -1);
    snprintf(path, sizeof path, "%s/spawn.csv", ctx->out_dir);
    if (csv_out_open(&out, path) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "cannot prepare %.400s", path);
        return -1;
    }
    csv_out_header(&out, header, 4);
    int status = sample_spawns(&c, ctx, 0, &out, err);
    if (status == 0)
        status = sample_spawns(&c, ctx, 1, &out, err);
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
