/*
 * mechanisms.c - what a crossing meets: round trips right after a stretch
 * of compute or of waiting, and the price of touching a page first.
 *
 * Tangled from paper/67-mechanisms.md.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "harness/measure.h"
#include "harness/partner.h"
#include "harness/placement.h"
#include "harness/session.h"
#include "harness/worker.h"
#include "kernel/kernel.h"
#include "kernel/kernel_stream.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

/* <<mechanisms-constants>>, paper/67-mechanisms.md */
enum {
    AWAY_PASSES = 6,           /* the passes (rounds) that also make the away and sweep cells */
    CHAIN_CALLS = 4,           /* an engine stretch's calls, back to back, before a double's echo */
    FAULT_PAGES = 2048,        /* 8 MiB per fault probe */
    PAGE_BYTES = 4096,
};

enum state { STATE_HOT, STATE_ENGINE, STATE_CLIENT, STATE_IDLE, N_STATES };
enum stretch { STRETCH_NONE, STRETCH_SHORT, STRETCH_LONG, STRETCH_AWAY, STRETCH_SWEEP,
               N_STRETCHES };
static const uint64_t AWAY_NS = 1000000000u;  /* a sweep's order: the away probes' pause */
static const char *const STATE_NAMES[N_STATES] = {"hot", "engine", "client", "idle"};
static const char *const STRETCH_NAMES[N_STRETCHES] = {"none", "short", "long", "away",
                                                        "sweep"};

/* What a probe echoes each way: one double, the series, or its first fifth. */
enum payload { PAYLOAD_ONE, PAYLOAD_SERIES, PAYLOAD_FIFTH };

struct cell {
    int python;                /* the Python worker's client, not the C one */
    enum state state;
    enum stretch stretch;
    enum payload payload;
};

static const struct cell CELLS[] = {
    {0, STATE_HOT, STRETCH_NONE, 0},      {0, STATE_HOT, STRETCH_NONE, 1},
    {0, STATE_ENGINE, STRETCH_SHORT, 0},  {0, STATE_ENGINE, STRETCH_SHORT, 1},
    {0, STATE_ENGINE, STRETCH_LONG, 0},   {0, STATE_ENGINE, STRETCH_LONG, 1},
    {0, STATE_CLIENT, STRETCH_SHORT, 0},  {0, STATE_CLIENT, STRETCH_SHORT, 1},
    {0, STATE_CLIENT, STRETCH_LONG, 0},   {0, STATE_CLIENT, STRETCH_LONG, 1},
    {0, STATE_IDLE, STRETCH_SHORT, 0},    {0, STATE_IDLE, STRETCH_SHORT, 1},
    {0, STATE_IDLE, STRETCH_LONG, 0},     {0, STATE_IDLE, STRETCH_LONG, 1},
    {1, STATE_HOT, STRETCH_NONE, 0},      {1, STATE_HOT, STRETCH_NONE, 1},
    {1, STATE_ENGINE, STRETCH_LONG, 0},   {1, STATE_ENGINE, STRETCH_LONG, 1},
    {1, STATE_CLIENT, STRETCH_LONG, 0},   {1, STATE_CLIENT, STRETCH_LONG, 1},
    {0, STATE_IDLE, STRETCH_AWAY, 1},     {1, STATE_IDLE, STRETCH_AWAY, 1},
    {0, STATE_HOT, STRETCH_NONE, PAYLOAD_FIFTH}, {0, STATE_ENGINE, STRETCH_LONG, PAYLOAD_FIFTH},
    {0, STATE_IDLE, STRETCH_AWAY, PAYLOAD_FIFTH},
    {0, STATE_ENGINE, STRETCH_SWEEP, 0},  {0, STATE_ENGINE, STRETCH_SWEEP, 1},
    {0, STATE_ENGINE, STRETCH_SWEEP, PAYLOAD_FIFTH},
};
enum { N_CELLS = sizeof CELLS / sizeof CELLS[0] };

/* <<mechanisms-state>>, paper/67-mechanisms.md */
struct mech {
    const struct measure_context *ctx;
    struct data_out states, faults;
    struct session engine[N_STRETCHES];    /* [SHORT] and [LONG]; the others unused */
    int has_engine[N_STRETCHES];
    struct session python_engine;          /* the Python worker's, connected by it */
    int has_python_engine;
    struct sweep_workspace ws;             /* the client's, for its long stretches */
    struct sweep_stream stream;            /* ... and its stream, for its short ones */
    int8_t *positions;                     /* where the stream writes a bar's positions */
    int has_stream;
    size_t bar;                            /* the next bar either stream takes */
    uint64_t last_stretch_ns[N_STRETCHES]; /* how long an idle probe sleeps */
    struct worker worker;
    int has_worker;
    struct partner partner;
    int cpus[2];
    double *back;
    struct combo_result *results;          /* an engine stretch's, one a combination */
    struct mt19937 mt;                     /* the passes' orders */
    struct call_record kernel_call;        /* the last engine stretch's own call */
    struct call_record chain[CHAIN_CALLS - 1];   /* ... and the calls that followed it */
    size_t n_chain;
};

/* <<mechanisms-stretch>>, paper/67-mechanisms.md */
/* The doubles a cell echoes each way. */
static size_t payload_floats(const struct mech *m, const struct cell *c)
{
    size_t bars = m->ctx->job->n_bars;
    return c->payload == PAYLOAD_SERIES ? bars : c->payload == PAYLOAD_FIFTH ? bars / 5 : 1;
}

/* The next bar of a stream: the series from its start, round and round. */
static double next_close(struct mech *m)
{
    return m->ctx->job->close[m->bar++ % m->ctx->job->n_bars];
}

/* The engine that makes stretch s: the short and the sweep's their own,
 * the others the long one. */
static struct session *engine_of(struct mech *m, enum stretch s)
{
    return &m->engine[s == STRETCH_SHORT || s == STRETCH_SWEEP ? s : STRETCH_LONG];
}

/* One call carrying an engine stretch: the long engine's middle
 * combination over its series, the sweep engine's every combination over
 * the first fifth of the bars (the kernel of a call of a row that runs a
 * fifth), or the short one's next bar. */
static int engine_stretch(struct mech *m, enum stretch s, struct call_record *t, char *err,
                          size_t err_size)
{
    const struct sweep_job *job = m->ctx->job;
    if (s == STRETCH_SWEEP)
        return session_sweep_loaded(engine_of(m, s), job->params, job->n_combos, m->results, t,
                                    err, err_size);
    return s == STRETCH_LONG
               ? session_sweep_loaded(engine_of(m, s), &job->params[job->n_combos / 2], 1,
                                      m->results, t, err, err_size)
               : session_stream_bar(engine_of(m, s), next_close(m), job->n_combos, t, err,
                                    err_size);
}

static int stretch(struct mech *m, const struct cell *c, uint64_t *ns, char *err,
                   size_t err_size)
{
    const struct sweep_job *job = m->ctx->job;
    const struct combo_params *middle = &job->params[job->n_combos / 2];
    struct combo_result result;
    struct call_record t;
    uint64_t t0 = clock_ns();
    *ns = 0;
    switch (c->state) {
    case STATE_HOT:                    /* the same echo just before: the curve's condition */
        return session_echo(&m->engine[STRETCH_LONG], job->close, payload_floats(m, c),
                            m->back, NULL, err, err_size);
    case STATE_ENGINE:                 /* its engine just served: only the stretch comes between */
        /* <<an-engine-stretch-after-its-echo>>, paper/67-mechanisms.md */
        if (session_echo(engine_of(m, c->stretch), job->close, payload_floats(m, c),
                         m->back, NULL, err, err_size) != 0)
            return -1;
        m->n_chain = 0;
        for (int k = 0; k < (c->payload != PAYLOAD_ONE || c->stretch == STRETCH_SWEEP ? 1 : CHAIN_CALLS);
             k++) {
            if (engine_stretch(m, c->stretch, &t, err, err_size) != 0)
                return -1;
            if (k == 0)
                m->kernel_call = t;
            else
                m->chain[m->n_chain++] = t;
        }
        *ns = m->last_stretch_ns[c->stretch] = t.compute_ns;
        return 0;
    case STATE_CLIENT:
    case STATE_IDLE:                   /* the engine just served: only the stretch comes between */
        /* <<a-client-or-idle-stretch-after-an-echo>>, paper/67-mechanisms.md */
        if (session_echo(&m->engine[STRETCH_LONG], job->close, payload_floats(m, c),
                         m->back, NULL, err, err_size) != 0)
            return -1;
        t0 = clock_ns();
        if (c->state == STATE_IDLE) {
            uint64_t want = c->stretch == STRETCH_AWAY ? AWAY_NS : m->last_stretch_ns[c->stretch];
            struct timespec sleep = {(time_t)(want / 1000000000u), (long)(want % 1000000000u)};
            nanosleep(&sleep, NULL);
        } else if (c->stretch == STRETCH_SHORT)
            stream_bar(&m->stream, next_close(m), m->positions);
        else if (sweep_naive_in(&m->ws, job->close, job->n_bars, middle, 1, &result) != 0)
            return set_error(err, err_size, "out of memory for the client's stretch");
        break;
    default:
        break;
    }
    *ns = clock_ns() - t0;
    return 0;
}

/* <<warm-the-streams>>, paper/67-mechanisms.md */
static int warm_streams(struct mech *m, char *err, size_t err_size)
{
    const struct sweep_job *job = m->ctx->job;
    size_t bars = stream_warmup_bars(job->params, job->n_combos);
    struct call_record t;
    for (size_t i = 0; i < bars; i++) {
        double close = next_close(m);
        stream_bar(&m->stream, close, m->positions);
        if (session_stream_bar(&m->engine[STRETCH_SHORT], close, job->n_combos, &t, err,
                               err_size) != 0)
            return -1;
    }
    return 0;
}

static int open_engine(struct mech *m, enum stretch s, char *err, size_t err_size)
{
    const struct sweep_job *job = m->ctx->job;
    static const char *const names[N_STRETCHES] = {[STRETCH_SHORT] = "mech-short",
                                                   [STRETCH_LONG] = "mech-long",
                                                   [STRETCH_SWEEP] = "mech-sweep"};
    struct session_options o = {TRANSPORT_UNIX, names[s], NULL, NULL, 0, 1, NULL, NULL};
    if (session_open(&m->engine[s], m->ctx->env, &o, err, err_size) != 0)
        return -1;
    m->has_engine[s] = 1;
    if (pin_process(m->engine[s].pid, m->cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin an engine to CPU %d", m->cpus[0]);
    /* the long engine holds the series, the sweep's its first fifth */
    int status = s != STRETCH_SHORT
                     ? session_load(&m->engine[s], job->close,
                                    s == STRETCH_LONG ? job->n_bars : job->n_bars / 5, NULL, err,
                                    err_size)
                     : session_stream_open(&m->engine[s], job->params, job->n_combos, NULL, err,
                                           err_size);
    if (status == 0 && s == STRETCH_SHORT)
        status = warm_streams(m, err, err_size);
    uint64_t ns;
    struct cell first = {0, STATE_ENGINE, s, 0};
    return status == 0 ? stretch(m, &first, &ns, err, err_size) : -1;
}

static int mech_open(struct mech *m, char *err, size_t err_size)
{
    const struct sweep_job *job = m->ctx->job;
    sweep_workspace_init(&m->ws, NULL);
    placement_init();
    if (placement_duet_cpus(m->cpus) != 0)
        m->cpus[0] = m->cpus[1] = current_cpu();    /* one CPU: the partner shares it */
    m->back = malloc(job->n_bars * sizeof *m->back);
    m->results = malloc(job->n_combos * sizeof *m->results);
    if (m->back == NULL || m->results == NULL)
        return set_error(err, err_size, "out of memory for an echo");
    m->positions = malloc(job->n_combos * sizeof *m->positions);
    if (m->positions == NULL || stream_open(&m->stream, job->params, job->n_combos) != 0)
        return set_error(err, err_size, "out of memory for the client's stream");
    m->has_stream = 1;
    if (pin_this_thread(m->cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin the client to CPU %d", m->cpus[0]);
    if (open_engine(m, STRETCH_SHORT, err, err_size) != 0 ||
        open_engine(m, STRETCH_LONG, err, err_size) != 0 ||
        open_engine(m, STRETCH_SWEEP, err, err_size) != 0)
        return -1;
    if (worker_start(&m->worker, m->ctx->env, job, err, err_size) != 0)
        return -1;
    m->has_worker = 1;
    struct session_options py = {TRANSPORT_UNIX, "mech-python", NULL, NULL, 0, 0, NULL, NULL};
    if (session_open(&m->python_engine, m->ctx->env, &py, err, err_size) != 0)
        return -1;
    m->has_python_engine = 1;
    if (pin_process(m->worker.pid, m->cpus[0]) != 0 ||
        pin_process(m->python_engine.pid, m->cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin the Python worker or its engine to CPU %d",
                         m->cpus[0]);
    if (measure_open(m->ctx, "states.csv", &m->states, err, err_size) != 0)
        return -1;
    return measure_open(m->ctx, "faults.csv", &m->faults, err, err_size);
}

static void mech_close(struct mech *m)
{
    for (int s = 0; s < N_STRETCHES; s++)
        if (m->has_engine[s])
            session_close(&m->engine[s]);
    if (m->has_worker)
        worker_stop(&m->worker);
    if (m->has_python_engine)
        session_close(&m->python_engine);
    if (m->has_stream)
        stream_free(&m->stream);
    free(m->positions);
    sweep_workspace_free(&m->ws);
    free(m->back);
    free(m->results);
    pin_this_thread(CPU_ANY);
}

/* <<mechanisms-state-probe>>, paper/67-mechanisms.md */
static int python_probe(struct mech *m, const struct cell *c, size_t floats,
                        struct call_record *t, uint64_t *stretch_ns, char *err, size_t err_size)
{
    json_t *answer = worker_command(
        &m->worker,
        json_pack("{s:s,s:s,s:s,s:I,s:I,s:i}", "cmd", "state", "socket",
                  m->python_engine.socket_path, "state", STATE_NAMES[c->state], "floats",
                  (json_int_t)floats, "stretch_ns",
                  (json_int_t)(c->stretch == STRETCH_AWAY ? AWAY_NS
                                                          : m->last_stretch_ns[STRETCH_LONG]),
                  "chain", c->state == STATE_ENGINE && c->payload == PAYLOAD_ONE
                               ? CHAIN_CALLS - 1 : 0),
        err, err_size);
    if (answer == NULL)
        return -1;
    *t = worker_call_record(json_object_get(answer, "call"));
    *stretch_ns = (uint64_t)json_integer_value(json_object_get(answer, "stretch_ns"));
    int timed = t->has_engine;
    m->n_chain = 0;
    if (c->state == STATE_ENGINE) {
        const json_t *chain = json_object_get(answer, "chain_calls");
        m->kernel_call = worker_call_record(json_object_get(answer, "kernel_call"));
        timed &= m->kernel_call.has_engine;
        for (size_t k = 0; k < json_array_size(chain) && k < CHAIN_CALLS - 1; k++) {
            m->chain[m->n_chain] = worker_call_record(json_array_get(chain, k));
            timed &= m->chain[m->n_chain++].has_engine;
        }
    }
    json_decref(answer);
    return timed ? 0 : set_error(err, err_size, "the Python worker's probe has no timing");
}

struct state_place {
    const char *client, *state, *stretch, *partner;
    int pass, order;
    int link;                  /* a chained stretch call's place after the first; else 0 */
};

static void write_state(struct mech *m, const struct state_place *at, size_t floats,
                        uint64_t stretch_ns, const struct call_record *t)
{
    struct data_out *o = &m->states;
    data_text(o, STATES_client, at->client);
    data_text(o, STATES_state, at->state);
    data_text(o, STATES_stretch, at->stretch);
    data_text(o, STATES_partner, at->partner);
    data_int(o, STATES_cpu, current_cpu());
    data_int(o, STATES_pass, at->pass);
    data_int(o, STATES_order, at->order);
    data_int(o, STATES_floats, (int64_t)floats);
    data_int(o, STATES_stretch_ns, (int64_t)stretch_ns);
    call_record_write(o, STATES_rtt_ns, t);
    data_int(o, STATES_link, at->link);
    data_end_row(o);
}

static int state_probe(struct mech *m, const struct cell *c, int busy, int pass, int order,
                       char *err, size_t err_size)
{
    struct call_record t;
    uint64_t stretch_ns;
    size_t floats = payload_floats(m, c);
    struct session *s = engine_of(m, c->state == STATE_ENGINE ? c->stretch : STRETCH_LONG);
    if (c->python ? python_probe(m, c, floats, &t, &stretch_ns, err, err_size) != 0
                  : stretch(m, c, &stretch_ns, err, err_size) != 0 ||
                        session_echo(s, m->ctx->job->close, floats, m->back, &t, err,
                                     err_size) != 0)
        return -1;
    const char *client = c->python ? "python" : "c", *partner = busy ? "busy" : "idle";
    struct state_place at = {client, STATE_NAMES[c->state], STRETCH_NAMES[c->stretch], partner,
                             pass, order, 0};
    write_state(m, &at, floats, stretch_ns, &t);
    if (c->state == STATE_ENGINE && c->payload == PAYLOAD_ONE) {
        at.state = "kernel";
        write_state(m, &at, 0, m->kernel_call.compute_ns, &m->kernel_call);
        at.state = "chain";
        for (size_t k = 0; k < m->n_chain; k++) {
            at.link = (int)k + 1;
            write_state(m, &at, 0, m->chain[k].compute_ns, &m->chain[k]);
        }
    }
    return 0;
}

/* <<mechanisms-fault-probe>>, paper/67-mechanisms.md */
static void write_fault(struct mech *m, const char *role, int pass, int order, const char *touch,
                        uint64_t ns, long faults)
{
    struct data_out *o = &m->faults;
    data_text(o, FAULTS_role, role);
    data_int(o, FAULTS_pass, pass);
    data_int(o, FAULTS_order, order);
    data_text(o, FAULTS_touch, touch);
    data_int(o, FAULTS_pages, FAULT_PAGES);
    data_int(o, FAULTS_ns, (int64_t)ns);
    data_int(o, FAULTS_minor_faults, faults);
    data_end_row(o);
}

enum handing { TOUCH, COPY_OUT, COPY_IN, READ_IN };

/* One timed step of the C probe over pages p (and the file fd): a byte
 * written to each page, the pages copied out into the file or in from it,
 * or a byte of each read; with the thread's faults around it. */
static void c_step(struct mech *m, int pass, int order, const char *touch, enum handing how,
                   volatile char *p, int fd)
{
    size_t bytes = (size_t)FAULT_PAGES * PAGE_BYTES;
    long f0 = thread_minor_faults();
    uint64_t t0 = clock_ns();
    if (how == TOUCH)                  /* written, never read first: one fault a page */
        for (size_t at = 0; at < bytes; at += PAGE_BYTES)
            p[at] = (char)(at / PAGE_BYTES + 1);
    else if (how == READ_IN)
        for (size_t at = 0; at < bytes; at += PAGE_BYTES)
            (void)p[at];                   /* volatile: the read is made */
    else
        for (size_t done = 0; done < bytes;) {
            ssize_t k = how == COPY_OUT ? pwrite(fd, (char *)p + done, bytes - done, (off_t)done)
                                        : pread(fd, (char *)p + done, bytes - done, (off_t)done);
            if (k <= 0)
                break;                     /* a short file: the row says how long it took */
            done += (size_t)k;
        }
    uint64_t ns = clock_ns() - t0;
    write_fault(m, "c", pass, order, touch, ns, thread_minor_faults() - f0);
}

static volatile char *fresh_pages(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int c_touch(struct mech *m, int pass, int order, char *err, size_t err_size)
{
    size_t bytes = (size_t)FAULT_PAGES * PAGE_BYTES;
    volatile char *p = fresh_pages(bytes), *q = fresh_pages(bytes);
    int fd = memfd_create("ipctax-handover", MFD_CLOEXEC);
    int status = 0;
    if (p == NULL || q == NULL || fd < 0 || fallocate(fd, 0, 0, (off_t)bytes) != 0)
        status = set_error(err, err_size, "cannot map %zu bytes twice and a file of as many "
                           "for a fault probe", bytes);
    else {
        /* <<touch-and-hand-over>>, paper/67-mechanisms.md */
        c_step(m, pass, order, "first", TOUCH, p, fd);
        c_step(m, pass, order, "again", TOUCH, p, fd);
        c_step(m, pass, order, "copy-out", COPY_OUT, p, fd);        /* the kernel reads them first */
        c_step(m, pass, order, "copy-out-again", COPY_OUT, p, fd);
        c_step(m, pass, order, "copy-in", COPY_IN, q, fd);          /* the kernel faults q in */
        c_step(m, pass, order, "read-in", READ_IN, q, fd);          /* the process reads them first */
        c_step(m, pass, order, "read-in-again", READ_IN, q, fd);
    }
    if (fd >= 0)
        close(fd);
    if (p != NULL)
        munmap((void *)p, bytes);
    if (q != NULL)
        munmap((void *)q, bytes);
    return status;
}
static int python_touch(struct mech *m, int pass, int order, char *err, size_t err_size)
{
    json_t *answer = worker_command(&m->worker, json_pack("{s:s,s:i,s:i}", "cmd", "touch",
                                                          "pages", FAULT_PAGES, "page_bytes",
                                                          PAGE_BYTES), err, err_size);
    if (answer == NULL)
        return -1;
    static const char *const touches[] = {"first", "again"};
    for (int k = 0; k < 2; k++) {
        char ns_key[16], faults_key[24];
        snprintf(ns_key, sizeof ns_key, "%s_ns", touches[k]);
        snprintf(faults_key, sizeof faults_key, "%s_faults", touches[k]);
        write_fault(m, "python", pass, order, touches[k],
                    (uint64_t)json_integer_value(json_object_get(answer, ns_key)),
                    (long)json_integer_value(json_object_get(answer, faults_key)));
    }
    json_decref(answer);
    return 0;
}

static int fault_probe(struct mech *m, int python, int pass, int order, char *err,
                       size_t err_size)
{
    return python ? python_touch(m, pass, order, err, err_size)
                  : c_touch(m, pass, order, err, err_size);
}

/* <<mechanisms-pass>>, paper/67-mechanisms.md */
/* Whether cell c is made in this pass beside this partner: the long
 * cells only in the first passes, beside a busy one. */
static int made_now(const struct cell *c, int busy, int pass)
{
    int long_cell = c->stretch == STRETCH_AWAY || c->stretch == STRETCH_SWEEP;
    return !long_cell || (busy && pass <= AWAY_PASSES);
}

static int mech_pass(struct mech *m, struct mt19937 *mt, int pass, char *err, size_t err_size)
{
    int first_partner = (int)random_below(mt, 2), status = 0;
    for (int k = 0; status == 0 && k < 2; k++) {
        int busy = (first_partner + k) % 2;
        if (busy && partner_start(&m->partner, m->cpus[1], m->ctx->job) != 0)
            return set_error(err, err_size, "cannot start the partner on CPU %d", m->cpus[1]);
        size_t order[N_CELLS];
        random_order(mt, order, N_CELLS);
        for (size_t i = 0; status == 0 && i < N_CELLS; i++)
            if (made_now(&CELLS[order[i]], busy, pass))
                status = state_probe(m, &CELLS[order[i]], busy, pass, (int)i + 1, err,
                                     err_size);
        if (busy)
            partner_stop(&m->partner);
    }
    int first_role = (int)random_below(mt, 2);
    for (int k = 0; status == 0 && k < 2; k++)
        status = fault_probe(m, (first_role + k) % 2, pass, k + 1, err, err_size);
    return status;
}

/* <<mechanisms-measure>>, paper/67-mechanisms.md */
static void *mech_begin(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct mech *m = calloc(1, sizeof *m);
    if (m == NULL) {
        set_error(err, err_size, "out of memory for the mechanisms");
        return NULL;
    }
    m->ctx = ctx;
    mt19937_seed(&m->mt, round_seed(ctx->seed ^ 0x6d656368u, 0));     /* "mech" */
    int status = mech_open(m, err, err_size);
    pin_this_thread(CPU_ANY);
    if (status != 0) {
        data_out_abandon(&m->states);
        data_out_abandon(&m->faults);
        mech_close(m);
        free(m);
        return NULL;
    }
    return m;
}

static int mech_round(void *state, int round, char *err, size_t err_size)
{
    struct mech *m = state;
    if (round > m->ctx->min_rounds)
        return 0;                      /* past the rounds every row runs in */
    if (pin_this_thread(m->cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin the client to CPU %d", m->cpus[0]);
    int status = mech_pass(m, &m->mt, round, err, err_size);
    pin_this_thread(CPU_ANY);
    return status;
}

static int mech_end(void *state, int ok, char *err, size_t err_size)
{
    struct mech *m = state;
    int status = 0;
    if (ok && (data_out_close(&m->states) != 0 || data_out_close(&m->faults) != 0))
        status = set_error(err, err_size, "cannot write states.csv or faults.csv");
    else if (!ok) {
        data_out_abandon(&m->states);
        data_out_abandon(&m->faults);
    }
    mech_close(m);
    free(m);
    return status;
}

const struct in_rounds mechanisms_in_rounds = {mech_begin, mech_round, mech_end};
