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
    COLD_REPS = 20,            /* fresh engines */
    COLD_CALLS = 2,            /* the cold call, then a warm one */
};

static const char *const COLD_HEADER[] = {
    "client", "rep", "warmth", "cpu", "engine_cpu", "rtt_ns", "encode_ns", "send_ns",
    "wait_ns", "receive_ns", "decode_ns", "engine_ns", "engine_decode_ns", "compute_ns",
    "engine_encode_ns", "client_minor_faults", "engine_minor_faults", "request_bytes",
    "reply_bytes"};
enum { COLD_COLUMNS = sizeof COLD_HEADER / sizeof COLD_HEADER[0] };

struct cold_call {
    struct call_record t;
    int cpu, engine_cpu;
    long client_faults, engine_faults;
};

static void write_cold(struct csv_out *o, int rep, int call, const struct cold_call *c)
{
    const uint64_t fields[] = {c->t.rtt_ns, c->t.encode_ns, c->t.send_ns, c->t.wait_ns,
                               c->t.receive_ns, c->t.decode_ns, c->t.engine_ns,
                               c->t.engine_decode_ns, c->t.compute_ns, c->t.engine_encode_ns};
    csv_out_text(o, "c");
    csv_out_int(o, rep);
    csv_out_text(o, call == 0 ? "cold" : "warm");
    csv_out_int(o, c->cpu);
    csv_out_int(o, c->engine_cpu);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        csv_out_int(o, (int64_t)fields[i]);
    csv_out_int(o, c->client_faults);
    csv_out_int(o, c->engine_faults);
    csv_out_int(o, (int64_t)c->t.request_bytes);
    csv_out_int(o, (int64_t)c->t.reply_bytes);
    csv_out_end_row(o);
}

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
                        struct csv_out *out, char *err, size_t err_size)
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

int measure_cold(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct csv_out out;
    int cpus[2];
    placement_init();
    if (placement_duet_cpus(cpus) != 0)
        cpus[0] = cpus[1] = current_cpu();
    if (measure_open(ctx, "cold.csv", &out, COLD_HEADER, COLD_COLUMNS, err, err_size) != 0)
        return -1;
    int status = 0, reps = scaled(ctx, COLD_REPS, 6);
    for (int rep = 1; status == 0 && rep <= reps; rep++)
        status = fresh_engine(ctx, rep, cpus[rep % 2], &out, err, err_size);
    pin_this_thread(CPU_ANY);
    if (status == 0 && csv_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write cold.csv");
    else if (status != 0)
        csv_out_abandon(&out);
    return status;
}
