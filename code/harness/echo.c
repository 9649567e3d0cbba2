/*
 * echo.c - the echo curve: lanes and sizes in randomized interleaved blocks.
 *
 * Tangled from paper/65-echo.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure.h"
#include "harness/placement.h"
#include "harness/session.h"
#include "harness/worker.h"
#include "kernel/series.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

/* <<echo-sizes-and-counts>>, paper/65-echo.md */
static const int ECHO_SIZES[] = {
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
    10000, 20000, 50000, 100000, 150000,
};
enum { N_ECHO_SIZES = sizeof ECHO_SIZES / sizeof ECHO_SIZES[0] };

enum {
    ECHO_WARMUP = 3,           /* untimed round trips per mode at the start of a block */
    ECHO_REPS_SMALL = 20,      /* timed per mode in a block, up to 20,000 doubles */
    ECHO_REPS_LARGE = 8,       /* beyond */
    ECHO_LARGE = 20000,
    ECHO_PASSES = 10,          /* every block this many times */
};

static int block_reps(const struct measure_context *ctx, int floats)
{
    return scaled(ctx, floats <= ECHO_LARGE ? ECHO_REPS_SMALL : ECHO_REPS_LARGE, 2);
}

/* <<echo-lanes>>, paper/65-echo.md */
enum echo_mode { MODE_PROTOCOL, MODE_PROTOCOL_TIMED, MODE_RAW, N_MODES };
static const char *const MODE_NAMES[N_MODES] = {"protocol", "protocol_timed", "raw"};

enum echo_placement { PLACE_SAME, PLACE_CROSS, N_PLACEMENTS };
static const char *const PLACEMENT_NAMES[N_PLACEMENTS] = {"same", "cross"};
#define BOTH (1u << PLACE_SAME | 1u << PLACE_CROSS)
#define CROSS_ONLY (1u << PLACE_CROSS)
#define SAME_ONLY (1u << PLACE_SAME)

struct echo_lane {
    const char *client;        /* "c", "python", or "python_copying" */
    enum transport transport;
    int modes[N_MODES];        /* which modes the lane measures */
    unsigned placements;       /* a bit per placement it is measured in */
    int copying;               /* a Python lane that calls the original's way */
};

/* The Python lanes come last: the worker drives them. */
static const struct echo_lane LANES[] = {
    {"c", TRANSPORT_UNIX, {1, 1, 1}, BOTH, 0},
    {"c", TRANSPORT_TCP, {1, 0, 1}, BOTH, 0},
    {"c", TRANSPORT_PIPE, {0, 0, 1}, BOTH, 0},
    {"c", TRANSPORT_SHM_FUTEX, {1, 0, 1}, BOTH, 0},
    {"c", TRANSPORT_SHM_SPIN, {1, 0, 1}, CROSS_ONLY, 0},
    {"python", TRANSPORT_UNIX, {1, 0, 0}, BOTH, 0},
    {"python_copying", TRANSPORT_UNIX, {1, 0, 0}, SAME_ONLY, 1},
};
enum { N_LANES = sizeof LANES / sizeof LANES[0], FIRST_PYTHON_LANE = N_LANES - 2 };

static int is_python(int lane)
{
    return lane >= FIRST_PYTHON_LANE;
}

/* <<echo-lane-state>>, paper/65-echo.md */
struct echo_run {
    const struct measure_context *ctx;
    struct session protocol[N_LANES], raw[N_LANES];
    int has_protocol[N_LANES], has_raw[N_LANES];
    struct worker worker;
    int has_worker;
    double *payload, *back;
    uint8_t *out_bytes, *in_bytes;
    struct data_out out;
    int cpus[2];                       /* the two CPUs the placements use */
    int placement;                     /* the block's */
    int client_cpu, engine_pin;        /* where the block put its two ends */
    int engine_cpu[N_MODES];           /* where each mode's engine was seen running */
};

static int is_shm(enum transport t)
{
    return t == TRANSPORT_SHM_FUTEX || t == TRANSPORT_SHM_SPIN;
}

/* Whether a lane's protocol client connects for each block (all but the pipe's). */
static int connects_per_block(enum transport t)
{
    return t != TRANSPORT_PIPE;
}

/* <<open-and-close-the-lanes>>, paper/65-echo.md */
static int open_lanes(struct echo_run *er, char *err, size_t err_size)
{
    for (int l = 0; l < FIRST_PYTHON_LANE; l++) {
        const struct echo_lane *lane = &LANES[l];
        char name[64];
        snprintf(name, sizeof name, "echo-%s", transport_name(lane->transport));
        struct session_options o = {lane->transport, name, NULL, NULL, 0,
                                    !connects_per_block(lane->transport), NULL, NULL};
        if (lane->modes[MODE_PROTOCOL]) {
            if (session_open(&er->protocol[l], er->ctx->env, &o, err, err_size) != 0)
                return -1;
            er->has_protocol[l] = 1;
        }
        snprintf(name, sizeof name, "echo-%s-raw", transport_name(lane->transport));
        o.raw = 1;
        o.connect = 0;
        if (lane->modes[MODE_RAW]) {
            if (session_open(&er->raw[l], er->ctx->env, &o, err, err_size) != 0)
                return -1;
            er->has_raw[l] = 1;
        }
    }
    if (worker_start(&er->worker, er->ctx->env, er->ctx->job, err, err_size) != 0)
        return -1;
    er->has_worker = 1;
    placement_init();
    if (placement_duet_cpus(er->cpus) != 0)
        er->cpus[0] = er->cpus[1] = current_cpu();     /* one CPU: both placements are one */
    return 0;
}

static void close_lanes(struct echo_run *er)
{
    pin_this_thread(CPU_ANY);
    for (int l = 0; l < N_LANES; l++) {
        if (er->has_protocol[l])
            session_close(&er->protocol[l]);
        if (er->has_raw[l])
            session_close(&er->raw[l]);
    }
    if (er->has_worker)
        worker_stop(&er->worker);
}

/* <<echo-place-a-block>>, paper/65-echo.md */
static int pin_engine(pid_t pid, int cpu, char *err, size_t err_size)
{
    return pid <= 0 || pin_process(pid, cpu) == 0 ? 0
                                                  : set_error(err, err_size,
                                                              "cannot pin engine %d", (int)pid);
}

static int place_block(struct echo_run *er, int lane, int placement, int pass,
                       char *err, size_t err_size)
{
    er->placement = placement;
    er->client_cpu = er->cpus[pass % 2];
    er->engine_pin = placement == PLACE_SAME ? er->client_cpu : er->cpus[(pass + 1) % 2];
    if (pin_this_thread(er->client_cpu) != 0)
        return set_error(err, err_size, "cannot pin the echo's client to CPU %d", er->client_cpu);
    if (is_python(lane))
        return pin_engine(er->worker.pid, er->client_cpu, err, err_size) != 0
                   ? -1 : pin_engine(er->protocol[0].pid, er->engine_pin, err, err_size);
    if (er->has_protocol[lane] && pin_engine(er->protocol[lane].pid, er->engine_pin, err,
                                             err_size) != 0)
        return -1;
    return er->has_raw[lane] ? pin_engine(er->raw[lane].pid, er->engine_pin, err, err_size) : 0;
}

/* The CPU a mode's engine last ran on (-1 if it cannot be seen). */
static int engine_seen(const struct echo_run *er, int lane, int mode)
{
    const struct session *s = mode == MODE_RAW ? &er->raw[lane] : &er->protocol[lane];
    pid_t pid = mode == MODE_RAW && s->raw_child > 0 ? s->raw_child : s->pid;
    struct proc_place p;
    return pid > 0 && proc_place(pid, &p) == 0 ? p.cpu : -1;
}

/* <<write-a-sample>>, paper/65-echo.md */
static void write_sample(struct echo_run *er, int lane, int mode, int floats, int pass,
                         int block, int rep, uint64_t rtt, int has_engine, uint64_t engine,
                         int client_cpu, int engine_cpu)
{
    struct data_out *o = &er->out;
    data_text(o, ECHO_client, LANES[lane].client);
    data_text(o, ECHO_transport, transport_name(LANES[lane].transport));
    data_text(o, ECHO_placement, PLACEMENT_NAMES[er->placement]);
    data_int(o, ECHO_client_cpu, client_cpu);
    data_int(o, ECHO_engine_cpu, engine_cpu);
    data_text(o, ECHO_mode, MODE_NAMES[mode]);
    data_int(o, ECHO_floats, floats);
    data_int(o, ECHO_bytes, (int64_t)floats * 8);
    data_int(o, ECHO_pass, pass);
    data_int(o, ECHO_block, block);
    data_int(o, ECHO_rep, rep);
    data_int(o, ECHO_rtt_ns, (int64_t)rtt);
    data_known(o, ECHO_engine_ns, has_engine, (int64_t)engine);
    data_end_row(o);
}

/* <<one-round-trip-in-one-mode>>, paper/65-echo.md */
/* One round trip in one mode: its time, and the engine's when it said. */
static int round_trip(struct echo_run *er, int lane, int mode, size_t n, uint64_t *rtt,
                      struct call_record *t, char *err, size_t err_size)
{
    uint64_t t0 = clock_ns();
    int status;
    if (mode == MODE_RAW) {
        memcpy(er->out_bytes, er->payload, n * 8);
        status = session_raw_round_trip(&er->raw[lane], er->out_bytes, er->in_bytes, n * 8, err,
                                        err_size);
        memcpy(er->back, er->in_bytes, n * 8);
    } else {
        status = session_echo(&er->protocol[lane], er->payload, n, er->back,
                              mode == MODE_PROTOCOL_TIMED ? t : NULL, err, err_size);
    }
    *rtt = clock_ns() - t0;
    if (mode == MODE_PROTOCOL_TIMED && status == 0)
        *rtt = t->rtt_ns;
    return status;
}

/* <<a-python-block>>, paper/65-echo.md */
static int python_block(struct echo_run *er, int lane, int floats, int pass, int block,
                        int reps, char *err, size_t err_size)
{
    json_t *answer = worker_command(
        &er->worker, json_pack("{s:s,s:s,s:i,s:i,s:i,s:b,s:b}", "cmd", "echo", "socket",
                               er->protocol[0].socket_path, "floats", floats, "reps", reps,
                               "warmup", ECHO_WARMUP, "timing", 0, "copying",
                               LANES[lane].copying), err, err_size);
    if (answer == NULL)
        return -1;
    const json_t *rtts = json_object_get(answer, "rtt_ns");
    const json_t *cpu = json_object_get(answer, "client_cpu");
    int client_cpu = json_is_integer(cpu) ? (int)json_integer_value(cpu) : -1;
    int engine_cpu = er->engine_pin;   /* its connection's thread has ended: see above */
    for (size_t r = 0; r < json_array_size(rtts); r++)
        write_sample(er, lane, MODE_PROTOCOL, floats, pass, block, (int)r + 1,
                     (uint64_t)json_integer_value(json_array_get(rtts, r)), 0, 0, client_cpu,
                     engine_cpu);
    json_decref(answer);
    return 0;
}

/* <<attach-and-detach-a-lanes-modes>>, paper/65-echo.md */
/* Attaches the modes in `which` (a bit per mode) of a lane to their engines. */
static int attach_modes(struct echo_run *er, int lane, unsigned which, size_t n,
                        char *err, size_t err_size)
{
    const struct echo_lane *ln = &LANES[lane];
    if ((which & (1u << MODE_PROTOCOL | 1u << MODE_PROTOCOL_TIMED)) &&
        connects_per_block(ln->transport) && session_connect(&er->protocol[lane], err, err_size) != 0)
        return -1;
    if ((which & 1u << MODE_RAW) && session_raw_begin(&er->raw[lane], n * 8, err, err_size) != 0)
        return -1;
    return (which & 1u << MODE_RAW) ? pin_engine(er->raw[lane].raw_child, er->engine_pin, err,
                                                 err_size)
                                    : 0;
}

static void detach_modes(struct echo_run *er, int lane, unsigned which)
{
    const struct echo_lane *ln = &LANES[lane];
    if (which & 1u << MODE_RAW)
        session_raw_end(&er->raw[lane]);
    if ((which & (1u << MODE_PROTOCOL | 1u << MODE_PROTOCOL_TIMED)) &&
        connects_per_block(ln->transport))
        session_disconnect(&er->protocol[lane]);
}

/* <<measure-modes-taking-turns>>, paper/65-echo.md */
/* The modes in `which`, attached together: warm-up and a check of each, then
 * `reps` timed round trips of each, the modes taking turns. */
static int measure_modes(struct echo_run *er, int lane, unsigned which, int floats, int pass,
                         int block, int reps, char *err, size_t err_size)
{
    size_t n = (size_t)floats;
    struct call_record t;
    uint64_t rtt;
    if (attach_modes(er, lane, which, n, err, err_size) != 0)
        return -1;
    int status = 0;
    for (int m = 0; status == 0 && m < N_MODES; m++) {
        if (!(which & 1u << m))
            continue;
        for (int w = 0; status == 0 && w < ECHO_WARMUP; w++)
            status = round_trip(er, lane, m, n, &rtt, &t, err, err_size);
        if (status == 0 && memcmp(er->payload, er->back, n * 8) != 0)
            status = set_error(err, err_size, "%s %s: an echo of %d doubles came back different",
                               transport_name(LANES[lane].transport), MODE_NAMES[m], floats);
        er->engine_cpu[m] = engine_seen(er, lane, m);
    }
    for (int r = 0; status == 0 && r < reps; r++)
        for (int k = 0; status == 0 && k < N_MODES; k++) {
            int m = (r + k) % N_MODES;         /* the modes take turns leading */
            if (!(which & 1u << m))
                continue;
            status = round_trip(er, lane, m, n, &rtt, &t, err, err_size);
            if (status == 0)
                write_sample(er, lane, m, floats, pass, block, r + 1, rtt,
                             m == MODE_PROTOCOL_TIMED, t.engine_ns, current_cpu(),
                             er->engine_cpu[m]);
        }
    detach_modes(er, lane, which);
    return status;
}

/* <<a-c-block>>, paper/65-echo.md */
static int c_block(struct echo_run *er, int lane, int floats, int pass, int block, int reps,
                   char *err, size_t err_size)
{
    const struct echo_lane *ln = &LANES[lane];
    unsigned all = 0;
    for (int m = 0; m < N_MODES; m++)
        all |= ln->modes[m] ? 1u << m : 0;
    if (!is_shm(ln->transport))
        return measure_modes(er, lane, all, floats, pass, block, reps, err, err_size);
    for (int m = 0; m < N_MODES; m++)                 /* one engine attached at a time */
        if ((all & 1u << m) &&
            measure_modes(er, lane, 1u << m, floats, pass, block, reps, err, err_size) != 0)
            return -1;
    return 0;
}

/* <<run-the-passes>>, paper/65-echo.md */
static int run_passes(struct echo_run *er, char *err, size_t err_size)
{
    enum { PER_LANE = N_PLACEMENTS * N_ECHO_SIZES, N_BLOCKS = N_LANES * PER_LANE };
    size_t order[N_BLOCKS];
    int passes = scaled(er->ctx, ECHO_PASSES, 2), block = 0;
    for (int pass = 1; pass <= passes; pass++) {
        struct mt19937 mt;
        mt19937_seed(&mt, round_seed(er->ctx->seed ^ 0x6563686fu, pass));   /* "echo" */
        random_order(&mt, order, N_BLOCKS);
        for (size_t i = 0; i < N_BLOCKS; i++) {
            int lane = (int)(order[i] / PER_LANE), placement = (int)(order[i] % PER_LANE) /
                                                                N_ECHO_SIZES;
            int floats = ECHO_SIZES[order[i] % N_ECHO_SIZES];
            int reps = block_reps(er->ctx, floats), status;
            if (!(LANES[lane].placements & 1u << placement))
                continue;
            block++;
            if (place_block(er, lane, placement, pass, err, err_size) != 0)
                return -1;
            status = is_python(lane) ? python_block(er, lane, floats, pass, block, reps, err,
                                                    err_size)
                                     : c_block(er, lane, floats, pass, block, reps, err,
                                               err_size);
            if (status != 0)
                return -1;
        }
        fprintf(stderr, "  echo pass %d of %d done\n", pass, passes);
    }
    return 0;
}

/* <<write-the-echos-settings>>, paper/65-echo.md */
static int write_settings(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct data_out out;
    if (measure_open(ctx, "echo_settings.csv", &out, err, err_size) != 0)
        return -1;
    const struct { const char *key; int value; } rows[] = {
        {"warmup", ECHO_WARMUP}, {"passes", scaled(ctx, ECHO_PASSES, 2)},
        {"reps_small", block_reps(ctx, 1)}, {"reps_large", block_reps(ctx, ECHO_LARGE + 1)},
        {"large_from", ECHO_LARGE + 1}, {"sizes", N_ECHO_SIZES},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        data_key_int(&out, rows[i].key, rows[i].value);
    return data_out_close(&out) == 0 ? 0 : set_error(err, err_size,
                                                    "cannot write echo_settings.csv");
}

/* <<measure-echo>>, paper/65-echo.md */
int measure_echo(const struct measure_context *ctx, char *err, size_t err_size)
{
    const size_t largest = (size_t)ECHO_SIZES[N_ECHO_SIZES - 1];
    struct echo_run er = {.ctx = ctx};
    er.payload = malloc(largest * sizeof(double));
    er.back = malloc(largest * sizeof(double));
    er.out_bytes = malloc(largest * sizeof(double));
    er.in_bytes = malloc(largest * sizeof(double));
    int status = -1;
    if (er.payload == NULL || er.back == NULL || er.out_bytes == NULL || er.in_bytes == NULL)
        set_error(err, err_size, "out of memory for the echo payloads");
    else if (measure_open(ctx, "echo.csv", &er.out, err, err_size) == 0) {
        gbm_series(er.payload, largest, DEFAULT_SEED);
        status = open_lanes(&er, err, err_size) == 0 ? run_passes(&er, err, err_size) : -1;
        if (status == 0 && data_out_close(&er.out) != 0)
            status = set_error(err, err_size, "cannot write echo.csv");
        else if (status != 0)
            data_out_abandon(&er.out);
    }
    close_lanes(&er);
    free(er.payload);
    free(er.back);
    free(er.out_bytes);
    free(er.in_bytes);
    return status == 0 ? write_settings(ctx, err, err_size) : -1;
}
