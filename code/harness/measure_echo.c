/*
 * measure_echo.c - the echo curve: protocol echo and raw ping-pong, per size.
 *
 * Tangled from paper/65-echo.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/arch.h"
#include "harness/client.h"
#include "harness/csvout.h"
#include "wire/netio.h"
#include "kernel/series.h"
#include "wire/timing.h"

/* 1-2-5 steps from one double to the study's series, both ends included. */
static const int ECHO_SIZES[] = {
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
    10000, 20000, 50000, 100000, 150000,
};
enum { N_ECHO_SIZES = sizeof ECHO_SIZES / sizeof ECHO_SIZES[0] };

enum {
    ECHO_WARMUP = 50,          /* round trips discarded at each size */
    REPS_SMALL = 2000,         /* up to 1,000 doubles: tails need many samples */
    REPS_MEDIUM = 500,         /* up to 20,000 doubles */
    REPS_LARGE = 100,          /* beyond: each takes a millisecond or more */
};

static int paper_reps(int floats)
{
    return floats <= 1000 ? REPS_SMALL : floats <= 20000 ? REPS_MEDIUM : REPS_LARGE;
}

struct echo_transport {
    const char *name;
    const char *description;
    /* Starts whatever server the transport needs; returns private state. */
    void *(*start)(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE]);
    /* Prepares round trips of n doubles. */
    int (*open)(void *state, size_t n, char err[ARCH_ERROR_SIZE]);
    /* One timed round trip: values out, back in. */
    int (*round_trip)(void *state, const double *values, double *back, size_t n,
                      char err[ARCH_ERROR_SIZE]);
    void (*stop)(void *state);
    /* Ends one size's round trips, for transports that agree on a size (or NULL). */
    void (*close_size)(void *state);
};

struct protocol_echo {
    struct engine_process engine;
    struct engine_client client;
};

static void *protocol_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE],
                            char *const args[], const char *tag, int tcp)
{
    char path[108];
    struct protocol_echo *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    char port[16];
    snprintf(path, sizeof path, "%s/ipctax-%d-%s.sock", ctx->opts->work_dir, (int)getpid(), tag);
    int fd = tcp && free_tcp_port(port) != 0 ? -1
           : engine_start(&s->engine, ctx->opts->engine_path, args, path, tcp ? port : NULL, err);
    if (fd < 0) {
        free(s);
        return NULL;
    }
    client_init(&s->client, fd, fd);
    return s;
}

static void *unix_echo_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static char *const args[] = {NULL};
    return protocol_start(ctx, err, args, "echo", 0);
}

static int protocol_open(void *state, size_t n, char err[ARCH_ERROR_SIZE])
{
    (void)state, (void)n, (void)err;
    return 0;                  /* one connection serves every size */
}

static int protocol_round_trip(void *state, const double *values, double *back, size_t n,
                               char err[ARCH_ERROR_SIZE])
{
    struct protocol_echo *s = state;
    return client_echo(&s->client, values, n, back, err) == 0 ? 0 : -1;
}

static void protocol_stop(void *state)
{
    struct protocol_echo *s = state;
    client_close(&s->client);
    engine_stop(&s->engine);
    free(s);
}

struct raw_pong {
    struct engine_process engine;
    int fd;
    uint8_t *buf;
    int tcp;
};

static void *raw_start_with(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE],
                            const char *tag, int tcp)
{
    static char *const args[] = {"--raw", NULL};
    char path[108];
    struct raw_pong *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    char port[16];
    s->tcp = tcp;
    s->buf = malloc((size_t)ECHO_SIZES[N_ECHO_SIZES - 1] * 8);
    snprintf(path, sizeof path, "%s/ipctax-%d-%s.sock", ctx->opts->work_dir, (int)getpid(), tag);
    int fd = s->buf == NULL || (tcp && free_tcp_port(port) != 0) ? -1
           : engine_start(&s->engine, ctx->opts->engine_path, args, path, tcp ? port : NULL, err);
    if (fd < 0) {
        free(s->buf);
        free(s);
        return NULL;
    }
    s->fd = fd;
    return s;
}

static void *unix_raw_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    return raw_start_with(ctx, err, "raw", 0);
}

static int raw_open(void *state, size_t n, char err[ARCH_ERROR_SIZE])
{
    struct raw_pong *s = state;
    uint8_t word[4];
    if (s->fd < 0) {
        s->fd = s->tcp ? tcp_connect("127.0.0.1", s->engine.tcp_port)
                       : unix_connect(s->engine.socket_path);
        if (s->fd < 0) {
            snprintf(err, ARCH_ERROR_SIZE, "connecting to the raw server: %s", strerror(errno));
            return -1;
        }
    }
    le_put_u32(word, (uint32_t)(n * 8));
    struct iovec iov = {word, 4};
    return write_all(s->fd, &iov, 1, NO_DEADLINE);
}

static int raw_round_trip(void *state, const double *values, double *back, size_t n,
                          char err[ARCH_ERROR_SIZE])
{
    struct raw_pong *s = state;
    memcpy(s->buf, values, n * 8);
    struct iovec iov = {s->buf, n * 8};
    if (write_all(s->fd, &iov, 1, NO_DEADLINE) != 0 ||
        read_exact(s->fd, s->buf, n * 8, NO_DEADLINE) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "raw round trip: %s", strerror(errno));
        return -1;
    }
    memcpy(back, s->buf, n * 8);
    return 0;
}

/* After each size the connection is closed; the next size opens another. */
static void raw_close_size(void *state)
{
    struct raw_pong *s = state;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

static void raw_stop(void *state)
{
    struct raw_pong *s = state;
    raw_close_size(s);
    engine_stop(&s->engine);
    free(s->buf);
    free(s);
}

static void *tcp_echo_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static char *const args[] = {NULL};
    return protocol_start(ctx, err, args, "tcpecho", 1);
}

static void *tcp_raw_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    return raw_start_with(ctx, err, "tcpraw", 1);
}
struct pipe_pong {
    const char *engine_path;
    pid_t pid;
    int to_child, from_child;
    uint8_t *buf;
};

static void *pipe_raw_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    struct pipe_pong *s = calloc(1, sizeof *s);
    if (s == NULL || (s->buf = malloc((size_t)ECHO_SIZES[N_ECHO_SIZES - 1] * 8)) == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        free(s);
        return NULL;
    }
    s->engine_path = ctx->opts->engine_path;
    s->pid = -1;
    return s;
}

static int pipe_raw_open(void *state, size_t n, char err[ARCH_ERROR_SIZE])
{
    struct pipe_pong *s = state;
    static char *const args[] = {NULL};
    uint8_t word[4];
    s->pid = engine_spawn_piped(s->engine_path, args, "--raw", &s->to_child, &s->from_child,
                                err);
    if (s->pid < 0)
        return -1;
    le_put_u32(word, (uint32_t)(n * 8));
    struct iovec iov = {word, 4};
    return write_all(s->to_child, &iov, 1, NO_DEADLINE);
}

static int pipe_raw_round_trip(void *state, const double *values, double *back, size_t n,
                               char err[ARCH_ERROR_SIZE])
{
    struct pipe_pong *s = state;
    memcpy(s->buf, values, n * 8);
    struct iovec iov = {s->buf, n * 8};
    if (write_all(s->to_child, &iov, 1, NO_DEADLINE) != 0 ||
        read_exact(s->from_child, s->buf, n * 8, NO_DEADLINE) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "pipe round trip: %s", strerror(errno));
        return -1;
    }
    memcpy(back, s->buf, n * 8);
    return 0;
}

static void pipe_raw_close_size(void *state)
{
    struct pipe_pong *s = state;
    if (s->pid < 0)
        return;
    close(s->to_child);                /* the child sees the end of its input */
    close(s->from_child);
    waitpid(s->pid, NULL, 0);
    s->pid = -1;
}

static void pipe_raw_stop(void *state)
{
    struct pipe_pong *s = state;
    pipe_raw_close_size(s);
    free(s->buf);
    free(s);
}
struct shm_echo {
    struct shm_engine shm;
    enum shm_wait wait;
    uint8_t *buf;                      /* the raw ping-pong's bytes */
};

static void *shm_echo_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE],
                            enum shm_wait wait, int raw)
{
    static char *const protocol_args[] = {NULL};
    static char *const raw_args[] = {"--raw", NULL};
    struct shm_echo *s = calloc(1, sizeof *s);
    if (s == NULL || (s->buf = malloc((size_t)ECHO_SIZES[N_ECHO_SIZES - 1] * 8)) == NULL) {
        snprintf(err, ARCH_ERROR_SIZE, "out of memory");
        free(s);
        return NULL;
    }
    s->wait = wait;
    const char *tag = raw ? "echoraw" : wait == SHM_WAIT_SPIN ? "echospin" : "echofutex";
    if (shm_engine_start(&s->shm, ctx->opts->engine_path, raw ? raw_args : protocol_args,
                         tag, wait, err) != 0) {
        free(s->buf);
        free(s);
        return NULL;
    }
    return s;
}

static void *shm_spin_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    return shm_echo_start(ctx, err, SHM_WAIT_SPIN, 0);
}

static void *shm_futex_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    return shm_echo_start(ctx, err, SHM_WAIT_FUTEX, 0);
}

static void *shm_spin_raw_start(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    return shm_echo_start(ctx, err, SHM_WAIT_SPIN, 1);
}

static int shm_echo_round_trip(void *state, const double *values, double *back, size_t n,
                               char err[ARCH_ERROR_SIZE])
{
    struct shm_echo *s = state;
    return client_echo(&s->shm.client, values, n, back, err) == 0 ? 0 : -1;
}

static void shm_echo_stop(void *state)
{
    struct shm_echo *s = state;
    shm_engine_stop(&s->shm);
    free(s->buf);
    free(s);
}
static int shm_raw_open(void *state, size_t n, char err[ARCH_ERROR_SIZE])
{
    struct shm_echo *s = state;
    struct shm_channel *ch = &s->shm.channel;
    uint8_t word[4];
    if (ch->seg == NULL && shm_channel_attach(ch, s->shm.name, s->wait, 5000, err,
                                              ARCH_ERROR_SIZE) != 0)
        return -1;
    le_put_u32(word, (uint32_t)(n * 8));
    struct iovec iov = {word, 4};
    return shm_write_all(ch, &iov, 1, NO_DEADLINE);
}

static int shm_raw_round_trip(void *state, const double *values, double *back, size_t n,
                              char err[ARCH_ERROR_SIZE])
{
    struct shm_echo *s = state;
    memcpy(s->buf, values, n * 8);
    struct iovec iov = {s->buf, n * 8};
    if (shm_write_all(&s->shm.channel, &iov, 1, NO_DEADLINE) != 0 ||
        shm_read_exact(&s->shm.channel, s->buf, n * 8, NO_DEADLINE) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "raw round trip over shared memory: %s",
                 strerror(errno));
        return -1;
    }
    memcpy(back, s->buf, n * 8);
    return 0;
}

/* After each size the client leaves; the engine empties the rings for the next. */
static void shm_raw_close_size(void *state)
{
    struct shm_echo *s = state;
    shm_channel_detach(&s->shm.channel);
}

static const struct echo_transport TRANSPORTS[] = {
    {"unix", "protocol echo over a Unix socket", unix_echo_start, protocol_open,
     protocol_round_trip, protocol_stop, NULL},
    {"unix_raw", "raw ping-pong over a Unix socket", unix_raw_start, raw_open,
     raw_round_trip, raw_stop, raw_close_size},
    {"tcp", "protocol echo over TCP loopback", tcp_echo_start, protocol_open,
     protocol_round_trip, protocol_stop, NULL},
    {"tcp_raw", "raw ping-pong over TCP loopback", tcp_raw_start, raw_open,
     raw_round_trip, raw_stop, raw_close_size},
    {"pipe_raw", "raw ping-pong over a pair of pipes", pipe_raw_start, pipe_raw_open,
     pipe_raw_round_trip, pipe_raw_stop, pipe_raw_close_size},
    {"shm_futex", "protocol echo over shared memory, both sides sleep in futex",
     shm_futex_start, protocol_open, shm_echo_round_trip, shm_echo_stop, NULL},
    {"shm_spin", "protocol echo over shared memory, both sides spin", shm_spin_start,
     protocol_open, shm_echo_round_trip, shm_echo_stop, NULL},
    {"shm_spin_raw", "raw ping-pong over shared memory, both sides spin", shm_spin_raw_start,
     shm_raw_open, shm_raw_round_trip, shm_echo_stop, shm_raw_close_size},
};
enum { N_TRANSPORTS = sizeof TRANSPORTS / sizeof TRANSPORTS[0] };

static int sample_size(const struct echo_transport *tr, void *state, size_t n, int reps,
                       const double *values, double *back, struct csv_out *out,
                       char err[ARCH_ERROR_SIZE])
{
    if (tr->open(state, n, err) != 0)
        return -1;
    if (tr->round_trip(state, values, back, n, err) != 0)
        return -1;
    if (memcmp(values, back, n * 8) != 0) {
        snprintf(err, ARCH_ERROR_SIZE, "%s: the echo of %zu doubles came back different",
                 tr->name, n);
        return -1;
    }
    for (int i = 0; i < ECHO_WARMUP; i++)
        if (tr->round_trip(state, values, back, n, err) != 0)
            return -1;
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = clock_ns();
        if (tr->round_trip(state, values, back, n, err) != 0)
            return -1;
        uint64_t rtt = clock_ns() - t0;
        csv_out_text(out, tr->name);
        csv_out_int(out, (int64_t)n);
        csv_out_int(out, (int64_t)(n * 8));
        csv_out_int(out, i + 1);
        csv_out_int(out, (int64_t)rtt);
        csv_out_end_row(out);
    }
    return 0;
}

static int sample_transport(const struct echo_transport *tr, const struct measure_context *ctx,
                            struct csv_out *out, const double *payload, double *back,
                            char err[ARCH_ERROR_SIZE])
{
    void *state = tr->start(ctx, err);
    if (state == NULL)
        return -1;
    int status = 0;
    for (int i = 0; status == 0 && i < N_ECHO_SIZES; i++) {
        size_t n = (size_t)ECHO_SIZES[i];
        status = sample_size(tr, state, n, scaled_count(ctx, paper_reps((int)n), 20),
                             payload, back, out, err);
        if (tr->close_size != NULL)
            tr->close_size(state);
    }
    fprintf(stderr, "  echo %-10s done\n", tr->name);
    tr->stop(state);
    return status;
}

static int run_echo(const struct measure_context *ctx, char err[ARCH_ERROR_SIZE])
{
    static const char *const header[] = {"transport", "floats", "bytes", "rep", "rtt_ns"};
    const size_t largest = (size_t)ECHO_SIZES[N_ECHO_SIZES - 1];
    char path[4096];
    struct csv_out out;
    double *payload = malloc(largest * sizeof *payload);
    double *back = malloc(largest * sizeof *back);
    snprintf(path, sizeof path, "%s/echo.csv", ctx->out_dir);
    if (payload == NULL || back == NULL || csv_out_open(&out, path) != 0) {
        free(payload);
        free(back);
        snprintf(err, ARCH_ERROR_SIZE, "cannot write %.400s", path);
        return -1;
    }
    csv_out_header(&out, header, 5);
    gbm_series(payload, largest, DEFAULT_SEED);
    int status = 0;
    for (int t = 0; status == 0 && t < N_TRANSPORTS; t++)
        status = sample_transport(&TRANSPORTS[t], ctx, &out, payload, back, err);
    free(payload);
    free(back);
    if (status != 0) {
        csv_out_close(&out);
        return -1;
    }
    struct csv_out settings;
    static const char *const kv[] = {"key", "value"};
    snprintf(path, sizeof path, "%s/echo_settings.csv", ctx->out_dir);
    if (csv_out_open(&settings, path) == 0) {
        const struct { const char *key; int value; } rows[] = {
            {"warmup", ECHO_WARMUP}, {"sizes", N_ECHO_SIZES},
            {"reps_small", scaled_count(ctx, REPS_SMALL, 20)},
            {"reps_medium", scaled_count(ctx, REPS_MEDIUM, 20)},
            {"reps_large", scaled_count(ctx, REPS_LARGE, 20)},
        };
        csv_out_header(&settings, kv, 2);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            csv_out_text(&settings, rows[i].key);
            csv_out_int(&settings, rows[i].value);
            csv_out_end_row(&settings);
        }
        csv_out_close(&settings);
    }
    return csv_out_close(&out);
}

const struct measurement measure_echo = {
    .name = "echo",
    .description = "round-trip time per payload size, protocol and raw transports",
    .run = run_echo,
};
