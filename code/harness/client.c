/*
 * client.c - round trips to an engine, and engines as child processes.
 *
 * Tangled from paper/57-client.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/client.h"
#include "wire/buffer.h"
#include "wire/netio.h"

void client_init(struct engine_client *c, int in_fd, int out_fd)
{
    memset(c, 0, sizeof *c);
    c->in_fd = in_fd;
    c->out_fd = out_fd;
}

void client_close(struct engine_client *c)
{
    if (c->out_fd >= 0 && c->out_fd != c->in_fd)
        close(c->out_fd);
    if (c->in_fd >= 0)
        close(c->in_fd);
    free(c->request);
    free(c->reply);
    memset(c, 0, sizeof *c);
    c->in_fd = c->out_fd = -1;
}

/* The client keeps each buffer as a pointer and a capacity, because the
 * architectures read c->request and c->reply directly; growing them is
 * struct buffer's (wire/buffer.h), the engine's one rule. */
static uint8_t *ensure(uint8_t **data, size_t *cap, size_t size)
{
    struct buffer b = {*data, *cap};
    uint8_t *p = buffer_reserve(&b, size);
    *data = b.data;
    *cap = b.cap;
    return p;
}

uint8_t *client_request_buffer(struct engine_client *c, size_t size)
{
    return ensure(&c->request, &c->request_cap, size ? size : 1);
}

static int read_error_frame(const struct byte_link *link, uint32_t len,
                            char err[CLIENT_ERROR_SIZE])
{
    char message[CLIENT_ERROR_SIZE - 32];   /* room for the prefix below */
    size_t keep = len < sizeof message - 1 ? len : sizeof message - 1;
    if (link->read_exact(link->ctx, message, keep, NO_DEADLINE) != 0)
        keep = 0;
    message[keep] = '\0';
    snprintf(err, CLIENT_ERROR_SIZE, "engine error: %s", message);
    return -2;
}

/* Why a read of the reply failed: a clean end (1) has no errno of its own. */
static const char *read_failure(int r)
{
    return r == 1 ? "the engine closed the connection" : strerror(errno);
}

int client_round_trip(struct engine_client *c, size_t len, char err[CLIENT_ERROR_SIZE])
{
    struct fd_pair fds = {c->in_fd, c->out_fd};
    struct byte_link link = c->shm != NULL ? shm_link(c->shm) : fd_link(&fds);
    uint8_t header[FRAME_HEADER_BYTES];
    le_put_u32(header, (uint32_t)len);
    struct iovec iov[2] = {{header, sizeof header}, {c->request, len}};
    if (link.write_all(link.ctx, iov, 2, NO_DEADLINE) != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "sending a request: %s", strerror(errno));
        return -1;
    }
    int r = link.read_exact(link.ctx, header, sizeof header, NO_DEADLINE);
    if (r != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "reading a reply header: %s", read_failure(r));
        return -1;
    }
    uint32_t word = le_get_u32(header);
    if (word & ERROR_FRAME_FLAG)
        return read_error_frame(&link, word & FRAME_LENGTH_MASK, err);
    if (ensure(&c->reply, &c->reply_cap, word ? word : 1) == NULL) {
        snprintf(err, CLIENT_ERROR_SIZE, "out of memory for a %u-byte reply", word);
        return -1;
    }
    r = link.read_exact(link.ctx, c->reply, word, NO_DEADLINE);
    if (r != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "reading a %u-byte reply: %s", word, read_failure(r));
        return -1;
    }
    c->reply_len = word;
    return 0;
}

int client_request(struct engine_client *c, enum opcode op, const double *close,
                   size_t n_bars, const struct combo_params *params, size_t n_combos,
                   char err[CLIENT_ERROR_SIZE])
{
    uint64_t size = request_body_size((uint32_t)n_bars, (uint32_t)n_combos);
    if (client_request_buffer(c, size) == NULL) {
        snprintf(err, CLIENT_ERROR_SIZE, "out of memory for a request");
        return -1;
    }
    request_encode(c->request, op, close, (uint32_t)n_bars, params, (uint32_t)n_combos);
    return client_round_trip(c, size, err);
}

int client_sweep(struct engine_client *c, const struct sweep_job *job, size_t first,
                 size_t count, struct combo_result *results, char err[CLIENT_ERROR_SIZE])
{
    int status = client_request(c, OP_SWEEP, job->close, job->n_bars, job->params + first,
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

int client_echo(struct engine_client *c, const double *values, size_t n, double *back,
                char err[CLIENT_ERROR_SIZE])
{
    int status = client_request(c, OP_ECHO, values, n, NULL, 0, err);
    if (status != 0)
        return status;
    if (c->reply_len != n * 8) {
        snprintf(err, CLIENT_ERROR_SIZE, "an echo of %zu values came back as %zu bytes",
                 n, c->reply_len);
        return -1;
    }
    le_get_f64s(back, c->reply, n);
    return 0;
}

extern char **environ;

static pid_t spawn(const char *path, char *const argv[], posix_spawn_file_actions_t *actions)
{
    pid_t pid;
    int rc = posix_spawn(&pid, path, actions, NULL, argv, environ);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

/* The harness keeps its engines for the whole measurement and runs the
 * architectures in rounds, so a connection may sit idle for minutes between
 * two of its requests: engines it starts get a day. Options given in args
 * come later on the command line and win. */
#define HARNESS_IDLE_TIMEOUT_MS "86400000"

/* argv = path, the idle timeout, the args up to their NULL, then the extras
 * (each may be NULL). */
static void build_argv(char *argv[], size_t max, const char *path, char *const args[],
                       const char *extra1, const char *extra2)
{
    size_t n = 0;
    argv[n++] = (char *)path;
    argv[n++] = "--idle-timeout";
    argv[n++] = HARNESS_IDLE_TIMEOUT_MS;
    for (size_t i = 0; args != NULL && args[i] != NULL && n < max - 3 - 2; i++)
        argv[n++] = args[i];
    if (extra1 != NULL)
        argv[n++] = (char *)extra1;
    if (extra2 != NULL)
        argv[n++] = (char *)extra2;
    argv[n] = NULL;
}

int engine_start(struct engine_process *e, const char *engine_path, char *const args[],
                 const char *socket_path, const char *tcp_port, char err[CLIENT_ERROR_SIZE])
{
    char *argv[32];
    memset(e, 0, sizeof *e);
    if (tcp_port != NULL) {
        snprintf(e->tcp_port, sizeof e->tcp_port, "%s", tcp_port);
        build_argv(argv, 32, engine_path, args, "--tcp", e->tcp_port);
    } else {
        snprintf(e->socket_path, sizeof e->socket_path, "%s", socket_path);
        build_argv(argv, 32, engine_path, args, "--unix", e->socket_path);
    }
    e->pid = spawn(engine_path, argv, NULL);
    if (e->pid < 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "cannot start %s: %s", engine_path, strerror(errno));
        return -1;
    }
    for (int attempt = 0; attempt < 5000; attempt++) {
        int fd = tcp_port ? tcp_connect("127.0.0.1", tcp_port) : unix_connect(socket_path);
        if (fd >= 0)
            return fd;
        int status;
        if (waitpid(e->pid, &status, WNOHANG) == e->pid) {
            snprintf(err, CLIENT_ERROR_SIZE, "%s exited before listening (status %d)",
                     engine_path, status);
            e->pid = 0;
            return -1;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    snprintf(err, CLIENT_ERROR_SIZE, "%s did not listen within 5 s", engine_path);
    engine_stop(e);
    return -1;
}
int free_tcp_port(char port[16])
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

void engine_stop(struct engine_process *e)
{
    if (e->pid > 0) {
        kill(e->pid, SIGTERM);
        waitpid(e->pid, NULL, 0);
    }
    e->pid = 0;
}
pid_t engine_spawn_piped(const char *engine_path, char *const args[], const char *mode,
                         int *to_child, int *from_child, char err[CLIENT_ERROR_SIZE])
{
    int in_pipe[2], out_pipe[2];
    char *argv[32];
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "pipe: %s", strerror(errno));
        close(in_pipe[0]);
        close(in_pipe[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    build_argv(argv, 32, engine_path, args, "--stdin", mode);
    pid_t pid = spawn(engine_path, argv, &actions);
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (pid < 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "cannot spawn %s: %s", engine_path, strerror(errno));
        close(in_pipe[1]);
        close(out_pipe[0]);
        return -1;
    }
    *to_child = in_pipe[1];
    *from_child = out_pipe[0];
    return pid;
}

int engine_spawn_call(struct engine_client *c, const char *engine_path, char *const args[],
                      size_t len, char err[CLIENT_ERROR_SIZE])
{
    int to_child, from_child;
    pid_t pid = engine_spawn_piped(engine_path, args, NULL, &to_child, &from_child, err);
    if (pid < 0)
        return -1;
    c->out_fd = to_child;
    c->in_fd = from_child;
    int status = client_round_trip(c, len, err);
    close(to_child);
    close(from_child);
    c->in_fd = c->out_fd = -1;
    struct rusage usage;
    c->child_faults = wait4(pid, NULL, 0, &usage) == pid ? usage.ru_minflt : -1;
    return status;
}
int shm_engine_start(struct shm_engine *s, const char *engine_path, char *const args[],
                     const char *tag, enum shm_wait wait, char err[CLIENT_ERROR_SIZE])
{
    char *argv[32], why[CLIENT_ERROR_SIZE] = "";
    size_t n = 0;
    memset(s, 0, sizeof *s);
    client_init(&s->client, -1, -1);
    snprintf(s->name, sizeof s->name, "/ipctax-%d-%s", (int)getpid(), tag);
    argv[n++] = (char *)engine_path;
    argv[n++] = "--idle-timeout";
    argv[n++] = HARNESS_IDLE_TIMEOUT_MS;
    for (size_t i = 0; args != NULL && args[i] != NULL && n < 32 - 7; i++)
        argv[n++] = args[i];
    argv[n++] = "--shm";
    argv[n++] = s->name;
    argv[n++] = "--shm-wait";
    argv[n++] = (char *)shm_wait_name(wait);
    argv[n] = NULL;
    s->process.pid = spawn(engine_path, argv, NULL);
    if (s->process.pid < 0) {
        snprintf(err, CLIENT_ERROR_SIZE, "cannot start %s: %s", engine_path, strerror(errno));
        return -1;
    }
    for (int attempt = 0; attempt < 5000; attempt++) {
        if (shm_channel_attach(&s->channel, s->name, wait, 0, why, sizeof why) == 0) {
            s->client.shm = &s->channel;
            return 0;
        }
        int status;
        if (waitpid(s->process.pid, &status, WNOHANG) == s->process.pid) {
            snprintf(err, CLIENT_ERROR_SIZE, "%.200s exited before its segment was ready "
                     "(status %d)", engine_path, status);
            s->process.pid = 0;
            return -1;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    snprintf(err, CLIENT_ERROR_SIZE, "%.200s: no ready segment within 5 s: %.200s", engine_path, why);
    engine_stop(&s->process);
    return -1;
}
void shm_engine_stop(struct shm_engine *s)
{
    client_close(&s->client);
    shm_channel_detach(&s->channel);
    engine_stop(&s->process);
}
