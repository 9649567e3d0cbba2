/*
 * cold.c - the first call on a fresh engine, and the second.
 *
 * Tangled from paper/66-cold.md.
 */
#include <stdio.h>

#include "harness/measure.h"
#include "harness/placement.h"
#include "harness/session.h"
#include "util/error.h"

enum {
    COLD_CALLS = 2,            /* the cold call, then a warm one */
};

/* <<write-a-cold-or-warm-call>>, paper/66-cold.md */

struct cold_call {
    struct call_record t;
    int cpu, engine_cpu;
    long client_faults, engine_faults;
};

static void write_cold(struct data_out *o, int rep, int call, const struct cold_call *c)
{
    data_text(o, COLD_client, "c");
    data_int(o, COLD_rep, rep);
    data_text(o, COLD_warmth, call == 0 ? "cold" : "warm");
    data_int(o, COLD_cpu, c->cpu);
    data_int(o, COLD_engine_cpu, c->engine_cpu);
    data_int(o, COLD_rtt_ns, (int64_t)c->t.rtt_ns);
    data_int(o, COLD_encode_ns, (int64_t)c->t.encode_ns);
    data_int(o, COLD_send_ns, (int64_t)c->t.send_ns);
    data_int(o, COLD_wait_ns, (int64_t)c->t.wait_ns);
    data_int(o, COLD_receive_ns, (int64_t)c->t.receive_ns);
    data_int(o, COLD_decode_ns, (int64_t)c->t.decode_ns);
    data_int(o, COLD_engine_ns, (int64_t)c->t.engine_ns);
    data_int(o, COLD_engine_decode_ns, (int64_t)c->t.engine_decode_ns);
    data_int(o, COLD_compute_ns, (int64_t)c->t.compute_ns);
    data_int(o, COLD_engine_encode_ns, (int64_t)c->t.engine_encode_ns);
    data_int(o, COLD_client_minor_faults, c->client_faults);
    data_int(o, COLD_engine_minor_faults, c->engine_faults);
    data_int(o, COLD_request_bytes, (int64_t)c->t.request_bytes);
    data_int(o, COLD_reply_bytes, (int64_t)c->t.reply_bytes);
    data_end_row(o);
}

/* <<one-fresh-engine>>, paper/66-cold.md */
static int time_one_call(struct session *s, const struct sweep_job *job,
                         struct cold_call *c, char *err, size_t err_size)
{
    struct proc_place before, after;
    struct combo_result result;
    if (proc_place(s->pid, &before) != 0)
        return set_error(err, err_size, "the engine %d is gone", (int)s->pid);
    long faults = thread_minor_faults();
    if (session_sweep(s, job->close, job->n_bars, job->params, 1, &result, &c->t, err,
                      err_size) != 0)
        return -1;
    c->client_faults = thread_minor_faults() - faults;
    if (proc_place(s->pid, &after) != 0)
        return set_error(err, err_size, "the engine %d is gone", (int)s->pid);
    c->engine_faults = after.minor_faults - before.minor_faults;
    c->cpu = current_cpu();
    c->engine_cpu = after.cpu;
    return 0;
}

static int fresh_engine(const struct measure_context *ctx, int rep, int cpu,
                        struct data_out *out, char *err, size_t err_size)
{
    struct session s;
    struct session_options o = {TRANSPORT_UNIX, "cold", NULL, NULL, 0, 1, NULL, NULL};
    if (pin_this_thread(cpu) != 0)
        return set_error(err, err_size, "cannot pin the client to CPU %d", cpu);
    if (session_open(&s, ctx->env, &o, err, err_size) != 0)
        return -1;
    int status = 0;
    if (pin_process(s.pid, cpu) != 0)
        status = set_error(err, err_size, "cannot pin the engine to CPU %d", cpu);
    for (int call = 0; status == 0 && call < COLD_CALLS; call++) {
        struct cold_call c;
        status = time_one_call(&s, ctx->job, &c, err, err_size);
        if (status == 0)
            write_cold(out, rep, call, &c);
    }
    session_close(&s);
    return status;
}

/* <<measure-cold-calls>>, paper/66-cold.md */
int measure_cold(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct data_out out;
    int cpus[2];
    placement_init();
    if (placement_duet_cpus(cpus) != 0)
        cpus[0] = cpus[1] = current_cpu();
    if (measure_open(ctx, "cold.csv", &out, err, err_size) != 0)
        return -1;
    int status = 0, reps = repetitions_at(REPEAT_COLD, ctx->scale);
    for (int rep = 1; status == 0 && rep <= reps; rep++)
        status = fresh_engine(ctx, rep, cpus[rep % 2], &out, err, err_size);
    pin_this_thread(CPU_ANY);
    if (status == 0 && data_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write cold.csv");
    else if (status != 0)
        data_out_abandon(&out);
    return status;
}
