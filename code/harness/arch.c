/*
 * arch.c - one routine that runs any row of the architecture table.
 *
 * Tangled from paper/41-architectures.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arch.h"
#include "harness/placement.h"
#include "harness/worker.h"
#include "kernel/kernels.h"
#include "util/error.h"
#include "util/timing.h"
#include "wire/frame.h"

/* <<keep-a-call>>, paper/41-architectures.md */
void call_sink_put(struct call_sink *sink, size_t call, const struct call_record *t)
{
    if (t->has_engine || t->has_usage) {
        sink->engine_cpu_ns += (double)(t->has_engine ? t->engine_cpu_ns : t->process_cpu_ns);
        sink->engine_cpu_known = 1;
    }
    if (t->has_usage) {
        sink->spawned_faults += (long)t->process_minor_faults;
        sink->spawned = 1;
    }
    if (!sink->keep)
        return;
    if (sink->n == sink->cap) {
        size_t cap = sink->cap ? 2 * sink->cap : 256;
        struct kept_call *grown = realloc(sink->calls, cap * sizeof *grown);
        if (grown == NULL) {
            sink->lost = 1;
            return;
        }
        sink->calls = grown;
        sink->cap = cap;
    }
    sink->calls[sink->n++] = (struct kept_call){call, *t};
}

/* <<write-a-calls-row>>, paper/41-architectures.md */
void call_record_write(struct data_out *o, int first, const struct call_record *t)
{
#define AT(name) (first + RECORD_##name - RECORD_rtt_ns)
    data_int(o, AT(rtt_ns), (int64_t)t->rtt_ns);
    data_int(o, AT(encode_ns), (int64_t)t->encode_ns);
    data_int(o, AT(send_ns), (int64_t)t->send_ns);
    data_int(o, AT(wait_ns), (int64_t)t->wait_ns);
    data_int(o, AT(receive_ns), (int64_t)t->receive_ns);
    data_int(o, AT(decode_ns), (int64_t)t->decode_ns);
    data_known(o, AT(engine_ns), t->has_engine, (int64_t)t->engine_ns);
    data_known(o, AT(engine_decode_ns), t->has_engine, (int64_t)t->engine_decode_ns);
    data_known(o, AT(compute_ns), t->has_engine, (int64_t)t->compute_ns);
    data_known(o, AT(engine_encode_ns), t->has_engine, (int64_t)t->engine_encode_ns);
    data_known(o, AT(engine_cpu_ns), t->has_engine, (int64_t)t->engine_cpu_ns);
    data_known(o, AT(process_ns), t->has_process, (int64_t)t->process_ns);
    data_known(o, AT(process_cpu_ns), t->has_usage, (int64_t)t->process_cpu_ns);
    data_known(o, AT(process_minor_faults), t->has_usage, (int64_t)t->process_minor_faults);
    data_int(o, AT(request_bytes), (int64_t)t->request_bytes);
    data_int(o, AT(reply_bytes), (int64_t)t->reply_bytes);
    data_known(o, AT(request_ns), t->has_engine, (int64_t)t->request_ns);
    data_known(o, AT(reply_ns), t->has_engine, (int64_t)t->reply_ns);
    data_known(o, AT(engine_minor_faults), t->has_engine, (int64_t)t->engine_minor_faults);
    data_known(o, AT(client_minor_faults), t->has_client_faults,
               (int64_t)t->client_minor_faults);
#undef AT
}

/* <<forget-the-kept-calls>>, paper/41-architectures.md */
void call_sink_clear(struct call_sink *sink)
{
    sink->n = 0;
    sink->lost = 0;
    sink->engine_cpu_ns = 0;
    sink->engine_cpu_known = 0;
    sink->spawned_faults = 0;
    sink->spawned = 0;
    sink->n_witnesses = 0;
}

void call_sink_free(struct call_sink *sink)
{
    free(sink->calls);
    memset(sink, 0, sizeof *sink);
}

/* <<architecture-state>>, paper/41-architectures.md */
struct arch_state {
    const struct arch_row *row;
    struct sweep_workspace ws;         /* in-process rows */
    struct session session;            /* engine rows, C and Python */
    int has_session;
    struct session warm;               /* a spawning row's warm engine (@sec:witnesses) */
    int has_warm;
    struct worker *worker;             /* Python rows */
};

/* <<set-up-a-python-row>>, paper/41-architectures.md */
static int open_python_row(struct arch_state *st, const struct harness_env *env,
                           const struct sweep_job *job, char *err, size_t err_size)
{
    const struct arch_row *row = st->row;
    struct worker_part part = {job->n_bars, (size_t)(row->part.combo_step > 0
                                                         ? row->part.combo_step : 1)};
    if (st->worker == NULL)
        return set_error(err, err_size, "%s needs the Python worker, which is not running",
                         row->name);
    if (row->transport == TRANSPORT_SPAWN)
        return worker_prepare(st->worker, row->name, &part, "engine", env->engine, err,
                              err_size);
    if (row->transport == TRANSPORT_NONE)
        return worker_prepare(st->worker, row->name, &part, NULL, NULL, err, err_size);
    struct session_options o = {row->transport, row->name, row->kernel, NULL, 0, 0, NULL,
                                NULL};
    if (session_open(&st->session, env, &o, err, err_size) != 0)
        return -1;
    st->has_session = 1;
    return worker_prepare(st->worker, row->name, &part, "socket", st->session.socket_path, err,
                          err_size);
}

/* <<set-up-a-c-row>>, paper/41-architectures.md */
static int open_c_row(struct arch_state *st, const struct harness_env *env,
                      const struct sweep_job *job, char *err, size_t err_size)
{
    const struct arch_row *row = st->row;
    struct session_options o = {row->transport, row->name, row->kernel, NULL, 0, 1, NULL,
                                NULL};
    if (session_open(&st->session, env, &o, err, err_size) != 0)
        return -1;
    st->has_session = 1;
    if (row->grain == GRAIN_LOADED)
        return session_load(&st->session, job->close, job->n_bars, NULL, err, err_size);
    if (row->transport == TRANSPORT_SPAWN && row->grain != GRAIN_SWEEP) {
        char name[128];
        snprintf(name, sizeof name, "%s-warm", row->name);
        struct session_options w = {TRANSPORT_UNIX, name, row->kernel, NULL, 0, 1, NULL, NULL};
        if (session_open(&st->warm, env, &w, err, err_size) != 0)
            return -1;
        st->has_warm = 1;
    }
    return 0;
}

/* <<set-a-row-up>>, paper/41-architectures.md */
struct arch_state *arch_open(const struct arch_row *row, const struct harness_env *env,
                             struct worker *worker, const struct sweep_job *job,
                             char *err, size_t err_size)
{
    struct arch_state *st = calloc(1, sizeof *st);
    if (st == NULL) {
        set_error(err, err_size, "out of memory");
        return NULL;
    }
    st->row = row;
    st->worker = worker;
    sweep_workspace_init(&st->ws, NULL);
    int status = 0;
    if (row->client == CLIENT_PYTHON)
        status = open_python_row(st, env, job, err, err_size);
    else if (row->client == CLIENT_C)
        status = open_c_row(st, env, job, err, err_size);
    if (status != 0) {
        arch_close(st);
        return NULL;
    }
    return st;
}

void arch_close(struct arch_state *st)
{
    if (st == NULL)
        return;
    if (st->has_session)
        session_close(&st->session);
    if (st->has_warm)
        session_close(&st->warm);
    sweep_workspace_free(&st->ws);
    free(st);
}

/* <<run-in-the-process>>, paper/41-architectures.md */
static int run_in_process(struct arch_state *st, const struct sweep_job *job,
                          struct combo_result *results, char *err, size_t err_size)
{
    const struct kernel_entry *k = kernel_named(st->row->kernel);
    if (k == NULL || k->sweep == NULL)
        return set_error(err, err_size, "%s: no C kernel named %s", st->row->name,
                         st->row->kernel);
    int status = k->sweep(&st->ws, job->close, job->n_bars, job->params, job->n_combos, results);
    return status == 0 ? 0 : set_error(err, err_size, "out of memory for the kernel's workspace");
}

/* <<one-sweep-call>>, paper/41-architectures.md */
static int sweep_call(struct arch_state *st, const struct sweep_job *job, size_t first,
                      size_t count, struct combo_result *results, struct call_record *t,
                      char *err, size_t err_size)
{
    if (st->row->encoding == ENCODING_JSON)
        return session_json_sweep(&st->session, job->close, job->n_bars, job->params + first,
                                  count, results + first, t, err, err_size);
    return session_sweep(&st->session, job->close, job->n_bars, job->params + first, count,
                         results + first, t, err, err_size);
}

/* <<run-a-stream-of-bars>>, paper/41-architectures.md */
static int run_per_bar(struct arch_state *st, const struct sweep_job *job,
                       struct combo_result *results, struct call_sink *sink,
                       char *err, size_t err_size)
{
    struct session *s = &st->session;
    struct call_record t;
    if (session_stream_open(s, job->params, job->n_combos, &t, err, err_size) != 0)
        return -1;
    call_sink_put(sink, 0, &t);
    for (size_t b = 0; b < job->n_bars; b++) {
        int timed = b % PER_BAR_SAMPLE == 0;
        if (session_stream_bar(s, job->close[b], job->n_combos, timed ? &t : NULL, err,
                               err_size) != 0)
            return -1;
        if (timed)
            call_sink_put(sink, 1 + b, &t);
    }
    if (session_stream_close(s, results, job->n_combos, &t, err, err_size) != 0)
        return -1;
    call_sink_put(sink, 1 + job->n_bars, &t);
    return 0;
}

/* <<run-through-a-session>>, paper/41-architectures.md */
static int run_c_client(struct arch_state *st, const struct sweep_job *job,
                        struct combo_result *results, struct call_sink *sink,
                        char *err, size_t err_size)
{
    struct call_record t;
    switch (st->row->grain) {
    case GRAIN_SWEEP:
        if (sweep_call(st, job, 0, job->n_combos, results, &t, err, err_size) != 0)
            return -1;
        call_sink_put(sink, 0, &t);
        return 0;
    case GRAIN_COMBO:
        for (size_t k = 0; k < job->n_combos; k++) {
            if (sweep_call(st, job, k, 1, results, &t, err, err_size) != 0)
                return -1;
            call_sink_put(sink, k, &t);
        }
        return 0;
    case GRAIN_LOADED:
        for (size_t k = 0; k < job->n_combos; k++) {
            if (session_sweep_loaded(&st->session, &job->params[k], 1, &results[k], &t,
                                     err, err_size) != 0)
                return -1;
            call_sink_put(sink, k, &t);
        }
        return 0;
    case GRAIN_BAR:
        return run_per_bar(st, job, results, sink, err, err_size);
    }
    return set_error(err, err_size, "%s: unknown grain", st->row->name);
}

/* <<run-the-row-in-its-client>>, paper/41-architectures.md */
static int run_in_client(struct arch_state *st, const struct sweep_job *job,
                         struct combo_result *results, struct run_measure *m,
                         struct call_sink *sink, char *err, size_t err_size)
{
    if (st->row->client == CLIENT_PYTHON)
        return worker_run(st->worker, st->row->name, job->n_combos, results, m, sink, err,
                          err_size);
    /* One thread drives the run, except the kernel on every core, which only
     * ever runs alone (@sec:pairs): count that one's whole process. */
    const struct kernel_entry *k = kernel_named(st->row->kernel);
    uint64_t (*cpu_clock)(void) = k != NULL && k->threads == 0 ? cpu_ns : thread_cpu_ns;
    long faults = thread_minor_faults();
    m->cpu_start = current_cpu();
    uint64_t cpu0 = cpu_clock(), t0 = clock_ns();
    int status = st->row->client == CLIENT_NONE ? run_in_process(st, job, results, err, err_size)
                                                 : run_c_client(st, job, results, sink, err,
                                                                err_size);
    m->seconds = seconds_between(t0, clock_ns());
    m->client_cpu_s = (double)(cpu_clock() - cpu0) * 1e-9;
    m->cpu_end = current_cpu();
    m->client_minor_faults = faults >= 0 ? thread_minor_faults() - faults : -1;
    return status;
}

/* <<witness-the-run>>, paper/41-architectures.md */
const char *witness_kind_name(enum witness_kind kind)
{
    static const char *const names[N_WITNESS_KINDS] = {"floor", "payload", "warm"};
    return (unsigned)kind < N_WITNESS_KINDS ? names[kind] : "unknown";
}

static int by_size(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The doubles an echo carries each way to ship, both ways together, the
 * payload of the run's median call (its frames' headers aside). */
static size_t payload_floats(const struct call_sink *sink)
{
    uint64_t *bytes = malloc((sink->n ? sink->n : 1) * sizeof *bytes), median = 0;
    for (size_t i = 0; bytes != NULL && i < sink->n; i++)
        bytes[i] = sink->calls[i].t.request_bytes + sink->calls[i].t.reply_bytes;
    if (bytes != NULL && sink->n > 0) {
        qsort(bytes, sink->n, sizeof *bytes, by_size);
        median = bytes[sink->n / 2];
    }
    free(bytes);
    uint64_t headers = 2 * FRAME_HEADER_BYTES + REQUEST_HEADER_BYTES;
    return median >= headers + 32 ? (size_t)(median - headers + 15) / 16 : 1;
}

static int witness_one(struct arch_state *st, const struct sweep_job *job, struct call_sink *sink,
                       enum witness_kind kind, int seq, size_t floats, double *back,
                       char *err, size_t err_size)
{
    struct witness *w = &sink->witnesses[sink->n_witnesses];
    struct combo_result result;
    *w = (struct witness){kind, seq, floats, clock_ns(), {0}};
    size_t last = job->n_combos - 1;
    int status = kind == WITNESS_WARM
                     ? session_sweep(&st->warm, job->close, job->n_bars, &job->params[last], 1,
                                     &result, &w->t, err, err_size)
                     : session_echo(&st->session, job->close, floats, back, &w->t, err,
                                    err_size);
    if (status == 0)
        sink->n_witnesses++;
    return status;
}

static int witness_the_run(struct arch_state *st, const struct sweep_job *job,
                           struct call_sink *sink, char *err, size_t err_size)
{
    int spawns = st->row->transport == TRANSPORT_SPAWN;
    size_t floats[N_WITNESS_KINDS] = {1, spawns ? 0 : payload_floats(sink), 0};
    if (floats[WITNESS_PAYLOAD] > job->n_bars)
        floats[WITNESS_PAYLOAD] = job->n_bars;     /* a JSON text: its series, as doubles */
    double *back = malloc((floats[WITNESS_PAYLOAD] > 1 ? floats[WITNESS_PAYLOAD] : 1) *
                          sizeof *back);
    int status = back != NULL ? 0 : set_error(err, err_size, "out of memory for a witness");
    for (int k = 0; status == 0 && k < N_WITNESS_KINDS; k++) {
        if (k == WITNESS_WARM ? !st->has_warm : floats[k] == 0)
            continue;
        for (int seq = 1; status == 0 && seq <= WITNESS_REPS; seq++)
            status = witness_one(st, job, sink, (enum witness_kind)k, seq, floats[k], back, err,
                                 err_size);
    }
    free(back);
    return status;
}

/* <<run-a-row-once>>, paper/41-architectures.md */
static pid_t engine_pid(const struct arch_state *st)
{
    return st->has_session ? st->session.pid : 0;
}

int arch_run(struct arch_state *st, const struct sweep_job *job, struct combo_result *results,
             struct run_measure *m, struct call_sink *sink, char *err, size_t err_size)
{
    struct proc_place before, after;
    pid_t engine = engine_pid(st);
    int looked = engine > 0 && proc_place(engine, &before) == 0;
    *m = (struct run_measure){NAN, NAN, NAN, -1, -1, -1, -1, -1};
    call_sink_clear(sink);
    if (run_in_client(st, job, results, m, sink, err, err_size) != 0)
        return -1;
    m->engine_cpu_s = sink->engine_cpu_known ? sink->engine_cpu_ns * 1e-9 : NAN;
    if (looked && proc_place(engine, &after) == 0) {
        m->engine_cpu = after.cpu;
        m->engine_minor_faults = after.minor_faults - before.minor_faults;
    } else if (sink->spawned) {
        m->engine_minor_faults = sink->spawned_faults;
    }
    if (sink->keep && st->row->client == CLIENT_C)
        return witness_the_run(st, job, sink, err, err_size);
    return 0;                          /* a Python row's worker witnessed its own run */
}

int arch_pin(struct arch_state *st, int cpu)
{
    int status = 0;
    if (engine_pid(st) > 0)
        status |= pin_process(engine_pid(st), cpu);
    if (st->has_warm && st->warm.pid > 0)
        status |= pin_process(st->warm.pid, cpu);  /* its witness is set against the run */
    if (st->row->client == CLIENT_PYTHON && st->worker != NULL)
        status |= pin_process(st->worker->pid, cpu);
    return status;
}
