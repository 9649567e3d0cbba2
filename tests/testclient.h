/*
 * testclient.h - the engine tests' client: the protocol's one round trip
 * (wire/client.h) in the shape the tests are written in, and engines
 * started as children (on a socket, on pipes, over shared memory).
 *
 * The harness has its own engine session (harness/session.h); the tests
 * need less of it and more control: a request buffer they may fill with
 * any bytes, a reply they may read whole, and engines started with any
 * options. Everything that crosses the wire still goes through
 * client_round_trip, the one the session uses.
 */
#ifndef IPCTAX_TESTCLIENT_H
#define IPCTAX_TESTCLIENT_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "wire/client.h"
#include "wire/frame.h"
#include "wire/launch.h"
#include "wire/netio.h"
#include "wire/shm_ring.h"
#include "util/timing.h"

enum { CLIENT_ERROR_SIZE = 512 };

/* One sweep to perform: the series and the parameter sets. */
struct test_job {
    const double *close;
    size_t n_bars;
    const struct combo_params *params;
    size_t n_combos;
};

struct test_client {
    int in_fd, out_fd;             /* where replies come from, where requests go */
    uint8_t *request;              /* the request buffer, once reserved */
    uint8_t *reply;                /* the last reply's body */
    size_t reply_len;
    struct shm_channel *shm;       /* if set, round trips go through shared memory */
    long child_faults;             /* minor page faults of the last spawned engine */
    struct client wire;            /* the buffers and the round trip */
};

static inline void tclient_init(struct test_client *c, int in_fd, int out_fd)
{
    memset(c, 0, sizeof *c);
    c->in_fd = in_fd;
    c->out_fd = out_fd;
    client_init(&c->wire);
}

/* Closes the descriptors (not a shared-memory channel) and frees the buffers. */
static inline void tclient_close(struct test_client *c)
{
    if (c->out_fd >= 0 && c->out_fd != c->in_fd)
        close(c->out_fd);
    if (c->in_fd >= 0)
        close(c->in_fd);
    client_free(&c->wire);
    memset(c, 0, sizeof *c);
    c->in_fd = c->out_fd = -1;
}

static inline uint8_t *tclient_request_buffer(struct test_client *c, size_t size)
{
    c->request = client_request_buffer(&c->wire, size ? size : 1);
    return c->request;
}

/* Sends request[0..len) and reads the reply: 0; -1 on I/O failure; -2 for an
 * error frame (its message in err). */
static inline int tclient_round_trip(struct test_client *c, size_t len,
                                     char err[CLIENT_ERROR_SIZE])
{
    if (c->shm != NULL)
        client_set_link(&c->wire, shm_link(c->shm));
    else
        client_set_fds(&c->wire, c->in_fd, c->out_fd);
    int status = client_round_trip(&c->wire, len, NO_DEADLINE, NULL, err, CLIENT_ERROR_SIZE);
    c->request = c->wire.request.data;
    c->reply = c->wire.reply.data;
    c->reply_len = status == 0 ? c->wire.reply_len : 0;
    return status;
}

static inline int tclient_request(struct test_client *c, enum opcode op, const double *close,
                                  size_t n_bars, const struct combo_params *params,
                                  size_t n_combos, char err[CLIENT_ERROR_SIZE])
{
    uint64_t size = request_body_size((uint32_t)n_bars, (uint32_t)n_combos);
    if (tclient_request_buffer(c, (size_t)size) == NULL) {
        snprintf(err, CLIENT_ERROR_SIZE, "out of memory for a request");
        return -1;
    }
    request_encode(c->request, op, close, (uint32_t)n_bars, params, (uint32_t)n_combos);
    return tclient_round_trip(c, (size_t)size, err);
}

/* Sweeps combos [first, first+count) of the job; results go to results[first..]. */
static inline int tclient_sweep(struct test_client *c, const struct test_job *job, size_t first,
                                size_t count, struct combo_result *results,
                                char err[CLIENT_ERROR_SIZE])
{
    int status = tclient_request(c, OP_SWEEP, job->close, job->n_bars, job->params + first,
                                 count, err);
    if (status != 0)
        return status;
    if (sweep_reply_decode(c->reply, c->reply_len, results + first, (uint32_t)count) != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "a sweep reply of %zu bytes for %zu combos",
                 c->reply_len, count);
        return -1;
    }
    return 0;
}

static inline int tclient_echo(struct test_client *c, const double *values, size_t n,
                               double *back, char err[CLIENT_ERROR_SIZE])
{
    int status = tclient_request(c, OP_ECHO, values, n, NULL, 0, err);
    if (status != 0)
        return status;
    if (c->reply_len != n * 8) {
        snprintf(err, CLIENT_ERROR_SIZE, "an echo of %zu values came back as %zu bytes", n,
                 c->reply_len);
        return -1;
    }
    le_get_f64s(back, c->reply, n);
    return 0;
}

/* ---- Engines as children --------------------------------------------------- */

extern char **environ;

struct engine_process {
    pid_t pid;
    char socket_path[108];
    char tcp_port[16];
};

/* The engine's command line: path, a long idle timeout (tests may pause),
 * the test's args up to their NULL, then up to four extras. */
static inline void engine_argv(char *argv[], size_t max, const char *path, char *const args[],
                               const char *e1, const char *e2, const char *e3, const char *e4)
{
    size_t n = 0;
    argv[n++] = (char *)path;
    argv[n++] = "--idle-timeout";
    argv[n++] = "86400000";
    for (size_t i = 0; args != NULL && args[i] != NULL && n < max - 6; i++)
        argv[n++] = args[i];
    const char *extra[] = {e1, e2, e3, e4};
    for (size_t i = 0; i < 4; i++)
        if (extra[i] != NULL)
            argv[n++] = (char *)extra[i];
    argv[n] = NULL;
}

/* Starts argv with its stdout on a pipe and reads the engine's ready line
 * into line (without "listening "), through the wire layer's launcher, the
 * harness's own; the pid, or -1 with err set. */
static inline pid_t engine_spawn_ready(char *const argv[], char *line, size_t size,
                                       char err[CLIENT_ERROR_SIZE])
{
    struct engine_launch l = {argv, 0, 5000, NULL, NULL};
    return engine_launch(&l, line, size, err, CLIENT_ERROR_SIZE);
}

/* Starts `engine_path args...` on a Unix socket at socket_path, or on TCP
 * loopback when tcp_port is set ("0": any free port, then e->tcp_port holds
 * the one it got), and connects. Returns the connected fd, or -1. */
static inline int engine_start(struct engine_process *e, const char *engine_path,
                               char *const args[], const char *socket_path,
                               const char *tcp_port, char err[CLIENT_ERROR_SIZE])
{
    char *argv[40], address[160], where[256];
    memset(e, 0, sizeof *e);
    if (tcp_port != NULL) {
        snprintf(address, sizeof address, "127.0.0.1:%s", tcp_port);
        engine_argv(argv, 40, engine_path, args, "--tcp", address, NULL, NULL);
    } else {
        snprintf(e->socket_path, sizeof e->socket_path, "%s", socket_path);
        engine_argv(argv, 40, engine_path, args, "--unix", e->socket_path, NULL, NULL);
    }
    e->pid = engine_spawn_ready(argv, where, sizeof where, err);
    if (e->pid < 0) {
        e->pid = 0;
        return -1;
    }
    int fd;
    if (tcp_port != NULL) {
        const char *colon = strrchr(where, ':');
        snprintf(e->tcp_port, sizeof e->tcp_port, "%s", colon != NULL ? colon + 1 : "");
        fd = tcp_connect("127.0.0.1", e->tcp_port);
    } else {
        fd = unix_connect(e->socket_path);
    }
    if (fd < 0)
        snprintf(err, CLIENT_ERROR_SIZE, "connecting to %s: %s", where, strerror(errno));
    return fd;
}

/* SIGTERM, then wait for the engine to exit. */
static inline void engine_stop(struct engine_process *e)
{
    if (e->pid > 0) {
        kill(e->pid, SIGTERM);
        waitpid(e->pid, NULL, 0);
    }
    e->pid = 0;
}

/* A loopback TCP port that is free right now; 0, or -1. */
static inline int free_tcp_port(char port[16])
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t len = sizeof addr;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
             getsockname(fd, (struct sockaddr *)&addr, &len) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return -1;
    snprintf(port, 16, "%u", ntohs(addr.sin_port));
    return 0;
}

/* Starts `engine_path args... --stdin [mode]` on two pipes; its pid, or -1. */
static inline pid_t engine_spawn_piped(const char *engine_path, char *const args[],
                                       const char *mode, int *to_child, int *from_child,
                                       char err[CLIENT_ERROR_SIZE])
{
    int in_pipe[2], out_pipe[2];
    char *argv[40];
    pid_t pid;
    if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_pipe[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
    engine_argv(argv, 40, engine_path, args, "--stdin", mode, NULL, NULL);
    int rc = posix_spawn(&pid, engine_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (rc != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "cannot spawn %s: %s", engine_path, strerror(rc));
        close(in_pipe[1]);
        close(out_pipe[0]);
        return -1;
    }
    *to_child = in_pipe[1];
    *from_child = out_pipe[0];
    return pid;
}

/* One request in c->request[0..len) through a freshly spawned --stdin engine. */
static inline int engine_spawn_call(struct test_client *c, const char *engine_path,
                                    char *const args[], size_t len, char err[CLIENT_ERROR_SIZE])
{
    int to_child, from_child;
    pid_t pid = engine_spawn_piped(engine_path, args, NULL, &to_child, &from_child, err);
    if (pid < 0)
        return -1;
    c->out_fd = to_child;
    c->in_fd = from_child;
    int status = tclient_round_trip(c, len, err);
    close(to_child);
    close(from_child);
    c->in_fd = c->out_fd = -1;
    struct rusage usage;
    c->child_faults = wait4(pid, NULL, 0, &usage) == pid ? usage.ru_minflt : -1;
    return status;
}

/* An engine serving over shared memory, and a client attached to it. */
struct shm_engine {
    struct engine_process process;
    struct shm_channel channel;
    struct test_client client;     /* its round trips go through `channel` */
    char name[SHM_NAME_SIZE];
};

/* Starts `engine_path args... --shm NAME --shm-wait MODE` (NAME from this
 * process's pid and tag), waits for its ready line, and attaches. */
static inline int shm_engine_start(struct shm_engine *s, const char *engine_path,
                                   char *const args[], const char *tag, enum shm_wait wait,
                                   char err[CLIENT_ERROR_SIZE])
{
    char *argv[40], where[256];
    memset(s, 0, sizeof *s);
    tclient_init(&s->client, -1, -1);
    snprintf(s->name, sizeof s->name, "/ipctax-%d-%s", (int)getpid(), tag);
    engine_argv(argv, 40, engine_path, args, "--shm", s->name, "--shm-wait",
                shm_wait_name(wait));
    s->process.pid = engine_spawn_ready(argv, where, sizeof where, err);
    if (s->process.pid < 0) {
        s->process.pid = 0;
        return -1;
    }
    if (shm_channel_attach(&s->channel, s->name, wait, 5000, err, CLIENT_ERROR_SIZE) != 0) {
        engine_stop(&s->process);
        return -1;
    }
    s->client.shm = &s->channel;
    return 0;
}

/* Detaches, stops the engine (which removes its segment), frees the buffers. */
static inline void shm_engine_stop(struct shm_engine *s)
{
    tclient_close(&s->client);
    shm_channel_detach(&s->channel);
    engine_stop(&s->process);
}

#endif
