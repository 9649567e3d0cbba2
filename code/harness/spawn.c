/*
 * spawn.c - the cost of one engine process per call, isolated.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <stdio.h>

#include "harness/measure.h"
#include "harness/session.h"
#include "util/error.h"
#include "util/random.h"

enum {
    SPAWN_WARMUP = 5,          /* the first spawns also warm the page cache */
};

static void write_spawn(struct data_out *out, const char *kind, int rep, size_t combo,
                        const struct call_record *t)
{
    data_text(out, SPAWN_kind, kind);
    data_int(out, SPAWN_rep, rep);
    data_int(out, SPAWN_combo, (int64_t)combo);
    data_int(out, SPAWN_rtt_ns, (int64_t)t->rtt_ns);
    data_int(out, SPAWN_process_ns, (int64_t)t->process_ns);
    data_int(out, SPAWN_process_cpu_ns, (int64_t)t->process_cpu_ns);
    data_int(out, SPAWN_minor_faults, t->process_minor_faults);
    data_known(out, SPAWN_compute_ns, t->has_engine, (int64_t)t->compute_ns);
    data_end_row(out);
}

/* One spawned call of either kind; rep <= 0 is a warm-up, not written. */
static int spawn_call(struct session *s, const struct sweep_job *job, int sweep, int rep,
                      struct data_out *out, char *err, size_t err_size)
{
    struct call_record t;
    struct combo_result result;
    double back;
    size_t combo = (size_t)(rep > 0 ? rep - 1 : 0) % job->n_combos;
    int status = sweep ? session_sweep(s, job->close, job->n_bars, &job->params[combo], 1,
                                       &result, &t, err, err_size)
                       : session_echo(s, job->close, 1, &back, &t, err, err_size);
    if (status == 0 && rep > 0)
        write_spawn(out, sweep ? "sweep" : "echo", rep, sweep ? combo : 0, &t);
    return status;
}

int measure_spawn(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct session s;
    struct data_out out;
    struct session_options o = {TRANSPORT_SPAWN, "spawn", NULL, NULL, 0, 0, NULL, NULL};
    if (session_open(&s, ctx->env, &o, err, err_size) != 0)
        return -1;
    int status = measure_open(ctx, "spawn.csv", &out, err, err_size);
    for (int w = 0; status == 0 && w < SPAWN_WARMUP; w++)
        status = spawn_call(&s, ctx->job, w % 2, 0, &out, err, err_size);
    struct mt19937 mt;
    mt19937_seed(&mt, round_seed(ctx->seed ^ 0x73706177u, 0));          /* "spaw" */
    int reps = repetitions_at(REPEAT_SPAWN, ctx->scale);
    for (int rep = 1; status == 0 && rep <= reps; rep++) {
        int first = (int)random_below(&mt, 2);
        for (int k = 0; status == 0 && k < 2; k++)
            status = spawn_call(&s, ctx->job, (first + k) % 2, rep, &out, err, err_size);
    }
    if (status == 0 && data_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write spawn.csv");
    else if (status != 0)
        data_out_abandon(&out);
    session_close(&s);
    return status;
}
