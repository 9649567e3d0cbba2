/*
 * session.c - engines on transports, and timed protocol calls to them.
 *
 * Tangled from paper/57-client.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/placement.h"
#include "harness/session.h"
#include "util/error.h"
#include "util/timing.h"
#include "wire/frame.h"
#include "wire/json_codec.h"
#include "wire/launch.h"

/* <<session-limits>>, paper/57-client.md */
enum {
    READY_TIMEOUT_MS = 10000,          /* an engine that says nothing for this long failed */
    CALL_DEADLINE_S = 600,             /* no call of the study takes a tenth of this */
};

/* The harness may leave a connection idle between rounds for minutes. */
#define HARNESS_IDLE_TIMEOUT_MS "86400000"

static uint64_t call_deadline(void)
{
    return clock_ns() + (uint64_t)CALL_DEADLINE_S * 1000000000u;
}


/* <<start-a-process>>, paper/57-client.md */
/* The engine's command line: path, the harness's options, then `extra`. */
static void engine_argv(const struct session *s, char *argv[], size_t max,
                        char *const extra[])
{
    size_t n = 0;
    for (size_t i = 0; s->opt.wrapper != NULL && s->opt.wrapper[i] != NULL; i++)
        argv[n++] = s->opt.wrapper[i];
    argv[n++] = (char *)(s->opt.engine != NULL ? s->opt.engine : s->env->engine);
    argv[n++] = "--die-with-parent";
    argv[n++] = "--idle-timeout";
    argv[n++] = HARNESS_IDLE_TIMEOUT_MS;
    if (s->opt.kernel != NULL) {
        argv[n++] = "--kernel";
        argv[n++] = (char *)s->opt.kernel;
    }
    if (s->opt.layout != NULL) {
        argv[n++] = "--layout";
        argv[n++] = (char *)s->opt.layout;
    }
    if (s->opt.raw)
        argv[n++] = "--raw";
    for (size_t i = 0; extra[i] != NULL && n + 1 < max; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
}


/* <<start-the-engine-and-wait-until-it-listens>>, paper/57-client.md */
static int start_engine(struct session *s, char *const transport_args[], char *err,
                        size_t err_size)
{
    char *argv[32];
    engine_argv(s, argv, 32, transport_args);
    struct engine_launch l = {argv, 1, READY_TIMEOUT_MS, env_track_child, env_untrack_child};
    s->pid = engine_launch(&l, s->address, sizeof s->address, err, err_size);
    if (s->pid < 0) {
        s->pid = 0;
        return -1;
    }
    return 0;
}

/* <<connect-and-disconnect>>, paper/57-client.md */
static int connect_socket(struct session *s, char *err, size_t err_size)
{
    s->fd = s->opt.transport == TRANSPORT_TCP ? tcp_connect("127.0.0.1", s->tcp_port)
                                              : unix_connect(s->socket_path);
    if (s->fd < 0)
        return set_error(err, err_size, "connecting to %s: %s", s->address, strerror(errno));
    if (s->opt.transport == TRANSPORT_TCP)
        tcp_no_delay(s->fd);
    client_set_fds(&s->client, s->fd, s->fd);
    s->connected = 1;
    return 0;
}

static enum shm_wait shm_wait_of(const struct session *s)
{
    return s->opt.transport == TRANSPORT_SHM_SPIN ? SHM_WAIT_SPIN : SHM_WAIT_FUTEX;
}

static int connect_shm(struct session *s, char *err, size_t err_size)
{
    if (shm_channel_attach(&s->shm, s->shm_name, shm_wait_of(s), READY_TIMEOUT_MS, err,
                           err_size) != 0)
        return -1;
    s->attached = 1;
    client_set_link(&s->client, shm_link(&s->shm));
    s->connected = 1;
    return 0;
}

int session_connect(struct session *s, char *err, size_t err_size)
{
    if (s->opt.transport == TRANSPORT_SHM_FUTEX || s->opt.transport == TRANSPORT_SHM_SPIN)
        return connect_shm(s, err, err_size);
    return connect_socket(s, err, err_size);
}

void session_disconnect(struct session *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (s->attached)
        shm_channel_detach(&s->shm);
    s->attached = 0;
    s->connected = 0;
}

/* <<open-and-close-a-session>>, paper/57-client.md */
int session_open(struct session *s, const struct harness_env *env,
                 const struct session_options *o, char *err, size_t err_size)
{
    char *args[6] = {NULL};
    memset(s, 0, sizeof *s);
    s->opt = *o;
    s->env = env;
    s->fd = -1;
    client_init(&s->client);
    switch (o->transport) {
    case TRANSPORT_NONE:
        return set_error(err, err_size, "an in-process architecture has no session");
    case TRANSPORT_SPAWN:
    case TRANSPORT_PIPE:
        return 0;                      /* each call, or each raw size, starts an engine */
    case TRANSPORT_UNIX:
        env_scratch_path(env, o->name, s->socket_path, sizeof s->socket_path);
        snprintf(s->socket_path + strlen(s->socket_path),
                 sizeof s->socket_path - strlen(s->socket_path), ".sock");
        args[0] = "--unix", args[1] = s->socket_path;
        break;
    case TRANSPORT_TCP:
        args[0] = "--tcp", args[1] = "127.0.0.1:0";
        break;
    case TRANSPORT_SHM_FUTEX:
    case TRANSPORT_SHM_SPIN:
        snprintf(s->shm_name, sizeof s->shm_name, "/ipctax-%d-%08x%08x-%s", (int)getpid(),
                 arc4random(), arc4random(), o->name);     /* unguessable: no squatting */
        args[0] = "--shm", args[1] = s->shm_name, args[2] = "--shm-wait";
        args[3] = o->transport == TRANSPORT_SHM_SPIN ? "spin" : "futex";
        break;
    }
    if (start_engine(s, args, err, err_size) != 0)
        return -1;
    if (o->transport == TRANSPORT_TCP) {
        const char *colon = strrchr(s->address, ':');
        snprintf(s->tcp_port, sizeof s->tcp_port, "%s", colon != NULL ? colon + 1 : "");
    }
    if (o->connect && !o->raw && session_connect(s, err, err_size) != 0) {
        session_close(s);
        return -1;
    }
    return 0;
}

void session_close(struct session *s)
{
    session_raw_end(s);
    session_disconnect(s);
    env_stop_child(s->pid);
    s->pid = 0;
    client_free(&s->client);
}

/* <<one-exchange-over-a-link>>, paper/57-client.md */
/* The engine's account, from a timed reply's trailer or a JSON reply's member. */
static void take_engine_timing(struct call_record *t, const struct call_timing *e)
{
    t->has_engine = 1;
    t->engine_ns = e->engine_ns;
    t->engine_decode_ns = e->decode_ns;
    t->compute_ns = e->compute_ns;
    t->engine_encode_ns = e->encode_ns;
    t->engine_cpu_ns = e->cpu_ns;
    t->engine_minor_faults = e->faults;
    /* One clock on both sides: each crossing is a difference of two readings
     * (never negative unless the engine's reading is not of this machine). */
    uint64_t engine_end = e->received_ns + e->engine_ns;
    t->request_ns = e->received_ns > t->exchange_ns ? e->received_ns - t->exchange_ns : 0;
    t->reply_ns = t->arrived_ns > engine_end ? t->arrived_ns - engine_end : 0;
}

/* Sends the request (len bytes) over the client's link; with `trailer`
 * set, a timed binary reply's trailer is taken off the reply. */
static int exchange_on(struct session *s, size_t len, struct call_record *t, int trailer,
                       char *err, size_t err_size)
{
    struct round_trip_times times;
    uint64_t start = clock_ns();
    if (client_round_trip(&s->client, len, call_deadline(), &times, err, err_size) != 0)
        return -1;
    if (t == NULL)
        return 0;
    t->exchange_ns = start;
    t->arrived_ns = times.received;
    t->send_ns = times.sent - start;
    t->wait_ns = times.arrived - times.sent;
    t->receive_ns = times.received - times.arrived;
    t->request_bytes = FRAME_HEADER_BYTES + len;
    t->reply_bytes = FRAME_HEADER_BYTES + s->client.reply_len;
    if (!trailer)
        return 0;
    struct call_timing e;
    if (timing_trailer_decode(s->client.reply.data, s->client.reply_len, &e) != 0)
        return set_error(err, err_size, "a timed reply of %zu bytes has no timing",
                         s->client.reply_len);
    take_engine_timing(t, &e);
    s->client.reply_len -= TIMING_TRAILER_BYTES;
    return 0;
}

/* <<one-exchange-with-a-fresh-process>>, paper/57-client.md */
/* Starts `engine --stdin` on two new pipes: *to and *from are the harness's ends. */
static pid_t spawn_on_pipes(struct session *s, int *to, int *from, char *err, size_t err_size)
{
    int to_child[2], from_child[2];
    char *argv[32];
    static char *const stdin_args[] = {"--stdin", NULL};
    if (pipe2(to_child, O_CLOEXEC) != 0)
        return set_error(err, err_size, "pipe: %s", strerror(errno));
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]);
        close(to_child[1]);
        return set_error(err, err_size, "pipe: %s", strerror(errno));
    }
    engine_argv(s, argv, 32, stdin_args);
    pid_t pid = env_spawn(argv, to_child[0], from_child[1], err, err_size);
    close(to_child[0]);
    close(from_child[1]);
    if (pid < 0) {
        close(to_child[1]);
        close(from_child[0]);
        return -1;
    }
    *to = to_child[1];
    *from = from_child[0];
    return pid;
}

static int exchange_spawned(struct session *s, size_t len, struct call_record *t, int trailer,
                            char *err, size_t err_size)
{
    int to, from;
    uint64_t started = clock_ns();
    pid_t pid = spawn_on_pipes(s, &to, &from, err, err_size);
    if (pid < 0)
        return -1;
    uint64_t spawned = clock_ns();
    client_set_fds(&s->client, from, to);
    int status = exchange_on(s, len, t, trailer, err, err_size);
    if (t != NULL)
        t->spawn_ns = spawned - started;
    close(to);
    close(from);
    struct rusage usage;
    if (wait4(pid, NULL, 0, &usage) == pid && t != NULL) {
        t->has_process = 1;
        t->has_usage = 1;
        t->process_ns = clock_ns() - started;
        t->process_cpu_ns = (uint64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) *
                                1000000000u +
                            (uint64_t)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000u;
        t->process_minor_faults = usage.ru_minflt;
    }
    env_untrack_child(pid);
    return status;
}

/* <<encode-send-and-decode>>, paper/57-client.md */
struct request {
    enum opcode op;
    const double *close;
    uint32_t n_bars;
    const struct combo_params *params;
    uint32_t n_combos;
};

static int exchange(struct session *s, size_t len, struct call_record *t, int trailer,
                    char *err, size_t err_size)
{
    if (s->opt.transport == TRANSPORT_SPAWN)
        return exchange_spawned(s, len, t, trailer, err, err_size);
    if (!s->connected)
        return set_error(err, err_size, "the session is not connected");
    return exchange_on(s, len, t, trailer, err, err_size);
}

/* Opens a timed call's record: empty, with the client's faults so far. */
static void begin_call(struct call_record *t)
{
    if (t == NULL)
        return;
    memset(t, 0, sizeof *t);
    t->client_minor_faults = (uint64_t)thread_minor_faults();
}

/* Encodes and exchanges one request; *started is when the call began. */
static int call_binary(struct session *s, const struct request *rq, struct call_record *t,
                       uint64_t *started, char *err, size_t err_size)
{
    begin_call(t);
    *started = clock_ns();
    uint64_t size = request_body_size(rq->n_bars, rq->n_combos);
    uint8_t *body = client_request_buffer(&s->client, (size_t)size);
    if (body == NULL)
        return set_error(err, err_size, "out of memory for a %llu-byte request",
                         (unsigned long long)size);
    request_encode(body, rq->op, rq->close, rq->n_bars, rq->params, rq->n_combos);
    if (t != NULL) {
        body[0] |= OP_TIMED;
        t->encode_ns = clock_ns() - *started;
    }
    return exchange(s, (size_t)size, t, t != NULL, err, err_size);
}

/* Closes the call's clock after the caller decoded its reply at `decoded`. */
static void finish_call(struct call_record *t, uint64_t started, uint64_t decode_start)
{
    if (t == NULL)
        return;
    uint64_t now = clock_ns();
    t->decode_ns = now - decode_start;
    t->rtt_ns = now - started;
    long faults = thread_minor_faults();
    t->has_client_faults = faults >= 0 && (uint64_t)faults >= t->client_minor_faults;
    t->client_minor_faults = t->has_client_faults ? (uint64_t)faults - t->client_minor_faults : 0;
}

/* Decodes a sweep reply for n combinations into results. */
static int decode_results(const struct session *s, struct combo_result *results,
                          size_t n_combos, char *err, size_t err_size)
{
    if (sweep_reply_decode(s->client.reply.data, s->client.reply_len, results,
                           (uint32_t)n_combos) != 0)
        return set_error(err, err_size,
                         "a reply of %zu bytes is not the results of %zu combinations",
                         s->client.reply_len, n_combos);
    return 0;
}

/* <<two-kinds-of-reply>>, paper/57-client.md */
static int call_for_results(struct session *s, const struct request *rq,
                            struct combo_result *results, size_t n_combos,
                            struct call_record *t, char *err, size_t err_size)
{
    uint64_t started;
    if (call_binary(s, rq, t, &started, err, err_size) != 0)
        return -1;
    uint64_t decoding = clock_ns();
    if (decode_results(s, results, n_combos, err, err_size) != 0)
        return -1;
    finish_call(t, started, decoding);
    return 0;
}

/* A call whose reply must be exactly `expect` bytes (nothing to decode). */
static int call_for_bytes(struct session *s, const struct request *rq, size_t expect,
                          struct call_record *t, char *err, size_t err_size)
{
    uint64_t started;
    if (call_binary(s, rq, t, &started, err, err_size) != 0)
        return -1;
    if (s->client.reply_len != expect)
        return set_error(err, err_size, "opcode %d: a reply of %zu bytes, not %zu", (int)rq->op,
                         s->client.reply_len, expect);
    finish_call(t, started, clock_ns());
    return 0;
}

/* <<the-protocol-calls>>, paper/57-client.md */
int session_sweep(struct session *s, const double *close, size_t n_bars,
                  const struct combo_params *params, size_t n_combos,
                  struct combo_result *results, struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_SWEEP, close, (uint32_t)n_bars, params, (uint32_t)n_combos};
    return call_for_results(s, &rq, results, n_combos, t, err, err_size);
}

int session_echo(struct session *s, const double *values, size_t n, double *back,
                 struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_ECHO, values, (uint32_t)n, NULL, 0};
    uint64_t started;
    if (call_binary(s, &rq, t, &started, err, err_size) != 0)
        return -1;
    if (s->client.reply_len != n * sizeof(double))
        return set_error(err, err_size, "an echo of %zu values came back as %zu bytes", n,
                    s->client.reply_len);
    uint64_t decoding = clock_ns();
    le_get_f64s(back, s->client.reply.data, n);
    finish_call(t, started, decoding);
    return 0;
}

int session_load(struct session *s, const double *close, size_t n_bars,
                 struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_LOAD, close, (uint32_t)n_bars, NULL, 0};
    return call_for_bytes(s, &rq, 0, t, err, err_size);
}

int session_sweep_loaded(struct session *s, const struct combo_params *params,
                         size_t n_combos, struct combo_result *results,
                         struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_SWEEP_LOADED, NULL, 0, params, (uint32_t)n_combos};
    return call_for_results(s, &rq, results, n_combos, t, err, err_size);
}

int session_stream_open(struct session *s, const struct combo_params *params,
                        size_t n_combos, struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_OPEN_STREAM, NULL, 0, params, (uint32_t)n_combos};
    return call_for_bytes(s, &rq, 0, t, err, err_size);
}

int session_stream_bar(struct session *s, double close, size_t n_combos,
                       struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_BAR, &close, 1, NULL, 0};
    return call_for_bytes(s, &rq, n_combos, t, err, err_size);
}

int session_stream_close(struct session *s, struct combo_result *results, size_t n_combos,
                         struct call_record *t, char *err, size_t err_size)
{
    struct request rq = {OP_CLOSE_STREAM, NULL, 0, NULL, 0};
    return call_for_results(s, &rq, results, n_combos, t, err, err_size);
}

int session_json_sweep(struct session *s, const double *close, size_t n_bars,
                       const struct combo_params *params, size_t n_combos,
                       struct combo_result *results, struct call_record *t,
                       char *err, size_t err_size)
{
    begin_call(t);
    uint64_t started = clock_ns();
    size_t len;
    char *text = json_request_encode_timed(close, n_bars, params, n_combos, t != NULL, &len);
    uint8_t *body = text != NULL ? client_request_buffer(&s->client, len) : NULL;
    if (body == NULL) {
        free(text);
        return set_error(err, err_size, "out of memory for a JSON request");
    }
    memcpy(body, text, len);
    free(text);
    if (t != NULL)
        t->encode_ns = clock_ns() - started;
    /* A JSON reply carries its timing as a member, not a trailer. */
    if (exchange(s, len, t, 0, err, err_size) != 0)
        return -1;
    uint64_t decoding = clock_ns();
    const char *reply = s->client.reply.data;
    if (json_reply_decode(reply, s->client.reply_len, results, n_combos, err, err_size) != 0)
        return -1;
    if (t != NULL) {
        struct call_timing e;
        if (json_reply_timing(reply, s->client.reply_len, &e, err, err_size) != 0)
            return -1;
        take_engine_timing(t, &e);
    }
    finish_call(t, started, decoding);
    return 0;
}

/* <<the-raw-ping-pong>>, paper/57-client.md */
int session_raw_begin(struct session *s, size_t bytes, char *err, size_t err_size)
{
    uint8_t word[4];
    le_put_u32(word, (uint32_t)bytes);
    if (s->opt.transport == TRANSPORT_PIPE) {
        int to, from;
        s->raw_child = spawn_on_pipes(s, &to, &from, err, err_size);
        if (s->raw_child < 0) {
            s->raw_child = 0;
            return -1;
        }
        client_set_fds(&s->client, from, to);
        s->connected = 1;
    } else if (session_connect(s, err, err_size) != 0) {
        return -1;
    }
    struct iovec iov = {word, sizeof word};
    if (s->client.link.write_all(s->client.link.ctx, &iov, 1, call_deadline()) != 0)
        return set_error(err, err_size, "sending the raw size: %s", strerror(errno));
    return 0;
}

int session_raw_round_trip(struct session *s, const void *out, void *in, size_t bytes,
                           char *err, size_t err_size)
{
    const struct byte_link *link = &s->client.link;
    uint64_t deadline = call_deadline();
    struct iovec iov = {(void *)out, bytes};
    if (link->write_all(link->ctx, &iov, 1, deadline) != 0 ||
        link->read_exact(link->ctx, in, bytes, deadline) != 0)
        return set_error(err, err_size, "raw round trip over %s: %s",
                         transport_name(s->opt.transport),
                         strerror(errno));
    return 0;
}

void session_raw_end(struct session *s)
{
    if (s->raw_child > 0) {
        close(s->client.fds.in);
        close(s->client.fds.out);      /* the engine sees the end of its input */
        waitpid(s->raw_child, NULL, 0);
        env_untrack_child(s->raw_child);
        s->raw_child = 0;
        s->connected = 0;
        return;
    }
    if (s->opt.raw)
        session_disconnect(s);
}
