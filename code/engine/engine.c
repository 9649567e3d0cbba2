/*
 * engine.c - ipctax-engine: the kernel behind a Unix socket, TCP, or stdin.
 *
 * Tangled from paper/55-engine.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/cli.h"
#include "engine/service.h"
#include "util/options.h"
#include "util/timing.h"
#include "wire/frame.h"
#include "wire/netio.h"
#include "wire/shm_ring.h"

/* The commit the engine was built from; the Makefile passes it. */
#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

enum {
    WAKE_PERIOD_MS = 250,      /* how often a blocked read rechecks its deadline */
    SLOT_GRACE_MS = 1000,      /* longest wait for a hung-up client's slot (see below) */
    ACCEPT_BACKOFF_MS = 100,   /* pause after accept found no resources */
    LISTEN_BACKLOG = 64,
};

/* <<engine-stop-on-signal>>, paper/55-engine.md */
static int stop_pipe[2] = {-1, -1};

static const int STOP_SIGNALS[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};

static void on_stop_signal(int sig)
{
    unsigned char byte = (unsigned char)sig;
    int saved = errno;
    if (write(stop_pipe[1], &byte, 1) < 0) {
        /* the pipe is full: a stop is already pending */
    }
    errno = saved;
}

/* SIGPIPE ignored everywhere; the stop signals turned into bytes on the
 * stop pipe unless `keep_defaults` (--stdin). */
static int install_signal_handlers(int keep_defaults)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    if (keep_defaults)
        return 0;
    sa.sa_handler = on_stop_signal;
    for (size_t i = 0; i < sizeof STOP_SIGNALS / sizeof STOP_SIGNALS[0]; i++)
        sigaction(STOP_SIGNALS[i], &sa, NULL);
    return 0;
}

/* <<engine-ready>>, paper/55-engine.md */
/* --die-with-parent: SIGTERM when the parent goes. Returns 1 when it has
 * gone already: between `parent`, read first thing in main, and now, or
 * before main began, when init (pid 1) has adopted the engine. */
static int die_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    return getppid() != parent || parent == 1;
}

/* The one line a program that started the engine reads to know that it is
 * ready, and where: written once the listener or the segment accepts. */
static void announce(const char *transport, const char *where)
{
    printf("listening %s:%s\n", transport, where);
    fflush(stdout);
}

/* <<engine-connection-thread>>, paper/55-engine.md */
struct server {
    const struct engine_options *opts;
    pthread_mutex_t lock;
    pthread_cond_t slot_freed;     /* signalled when a thread gives its slot back */
    int *slot_fd;                  /* each slot's connection, or -1 */
    struct pollfd *probe;          /* scratch for looking at every slot at once */
    int active;                    /* slots in use */
};

/* What a connection's thread is handed: its server, its slot, its socket. */
struct slot_claim {
    struct server *server;
    int slot, fd;
};

static void release_slot(struct server *s, int slot)
{
    pthread_mutex_lock(&s->lock);
    s->slot_fd[slot] = -1;
    s->active--;
    pthread_cond_signal(&s->slot_freed);
    pthread_mutex_unlock(&s->lock);
}

static void *connection_thread(void *arg)
{
    struct slot_claim *cl = arg;
    const struct engine_options *o = cl->server->opts;
    if (o->raw) {
        serve_raw(cl->fd, cl->fd, &o->cfg);
    } else {
        struct connection c;
        connection_init(&c, &o->cfg);
        serve_connection(&c, cl->fd, cl->fd, 0);
        connection_free(&c);
    }
    release_slot(cl->server, cl->slot);    /* before close: the number is not reused yet */
    close(cl->fd);
    free(cl);
    return NULL;
}

/* <<take-a-slot>>, paper/55-engine.md */
/* With the lock held: whether some connection's client has hung up. */
static int a_client_has_hung_up(struct server *s)
{
    int n = 0;
    for (int i = 0; i < s->opts->max_clients; i++)
        if (s->slot_fd[i] >= 0)
            s->probe[n++] = (struct pollfd){s->slot_fd[i], POLLRDHUP, 0};
    if (poll(s->probe, (nfds_t)n, 0) <= 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (s->probe[i].revents & (POLLRDHUP | POLLHUP | POLLERR))
            return 1;
    return 0;
}

/* A free slot for fd, waiting a little for one whose client has gone; the
 * slot's index, or -1 when the engine is really full. */
static int take_slot(struct server *s, int fd)
{
    pthread_mutex_lock(&s->lock);
    if (s->active >= s->opts->max_clients && a_client_has_hung_up(s)) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)SLOT_GRACE_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        while (s->active >= s->opts->max_clients &&
               pthread_cond_timedwait(&s->slot_freed, &s->lock, &until) == 0) {
        }
    }
    int slot = -1;
    for (int i = 0; s->active < s->opts->max_clients && slot < 0; i++)
        if (s->slot_fd[i] < 0)
            slot = i;
    if (slot >= 0) {
        s->slot_fd[slot] = fd;
        s->active++;
    }
    pthread_mutex_unlock(&s->lock);
    return slot;
}

/* <<make-and-free-the-table-of-slots>>, paper/55-engine.md */
static int server_init(struct server *s, const struct engine_options *o)
{
    pthread_condattr_t attr;
    memset(s, 0, sizeof *s);
    s->opts = o;
    s->slot_fd = malloc((size_t)o->max_clients * sizeof *s->slot_fd);
    s->probe = malloc((size_t)o->max_clients * sizeof *s->probe);
    if (s->slot_fd == NULL || s->probe == NULL)
        return -1;
    for (int i = 0; i < o->max_clients; i++)
        s->slot_fd[i] = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->slot_freed, &attr);
    pthread_condattr_destroy(&attr);
    return 0;
}

/* The table is freed when no thread uses it; a thread still serving when
 * the engine stops is ended, table and all, by the process's exit. */
static void server_free(struct server *s)
{
    pthread_mutex_lock(&s->lock);
    int idle = s->active == 0;
    pthread_mutex_unlock(&s->lock);
    if (idle) {
        free(s->slot_fd);
        free(s->probe);
    }
}

/* <<start-a-client-or-refuse-it>>, paper/55-engine.md */
static void refuse_busy(int fd, int max_clients)
{
    char message[128];
    uint8_t header[FRAME_HEADER_BYTES];
    snprintf(message, sizeof message, "engine busy: %d clients are connected, the maximum",
             max_clients);
    uint32_t n = error_frame_header(header, strlen(message));
    struct iovec iov[2] = {{header, sizeof header}, {message, n}};
    write_all(fd, iov, 2, NO_DEADLINE);
    close(fd);
}

static void start_client(struct server *s, int fd)
{
    pthread_t thread;
    pthread_attr_t attr;
    int slot = take_slot(s, fd);
    if (slot < 0) {
        refuse_busy(fd, s->opts->max_clients);
        return;
    }
    struct slot_claim *cl = malloc(sizeof *cl);
    if (cl != NULL) {
        *cl = (struct slot_claim){s, slot, fd};
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int started = pthread_create(&thread, &attr, connection_thread, cl) == 0;
        pthread_attr_destroy(&attr);
        if (started)
            return;
        free(cl);
    }
    release_slot(s, slot);
    close(fd);
}

/* <<refuse-when-no-descriptor-is-left>>, paper/55-engine.md */
/*
 * When accept finds no descriptor left (EMFILE, ENFILE), the client it
 * could not take still waits in the listener's queue, and poll reports it
 * again at once: the loop would spin, and the client would get nothing. The
 * engine therefore keeps one descriptor in reserve. Out of descriptors, it
 * gives the reserve up, accepts the waiting client with it, tells it
 * "busy", closes it and takes the reserve back; when even that fails (or
 * the kernel is short of memory, ENOBUFS, ENOMEM), it stops looking at the
 * listener for ACCEPT_BACKOFF_MS, watching only the stop pipe.
 */
static int reserve_fd = -1;

static void refuse_without_descriptors(int listener)
{
    if (reserve_fd >= 0) {
        close(reserve_fd);
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            char message[] = "engine busy: no file descriptor is left for another client";
            uint8_t header[FRAME_HEADER_BYTES];
            uint32_t n = error_frame_header(header, strlen(message));
            struct iovec iov[2] = {{header, sizeof header}, {message, n}};
            write_all(fd, iov, 2, NO_DEADLINE);
            close(fd);
        }
        reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            return;
    }
    poll(&(struct pollfd){stop_pipe[0], POLLIN, 0}, 1, ACCEPT_BACKOFF_MS);
}

/* <<engine-accept-loop>>, paper/55-engine.md */
/* Static: the connection threads use it until they end, perhaps after the
 * accept loop has returned. */
static struct server server;

static int accept_loop(int listener, const struct engine_options *o)
{
    struct pollfd fds[2] = {{listener, POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
    if (server_init(&server, o) != 0)
        return -1;
    reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            server_free(&server);
            return -1;
        }
        if (fds[1].revents != 0) {
            server_free(&server);
            return 0;                                  /* told to stop */
        }
        if (!(fds[0].revents & POLLIN))
            continue;
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                       errno == ENOMEM))
            refuse_without_descriptors(listener);
        if (fd < 0)
            continue;                                  /* or the client gave up; go on */
        if (o->listen_on == LISTEN_TCP)
            tcp_no_delay(fd);
        socket_wake_every(fd, WAKE_PERIOD_MS);
        start_client(&server, fd);
    }
}

/* <<engine-stdin-mode>>, paper/55-engine.md */
static int serve_stdin(const struct engine_options *o)
{
    struct engine_config cfg = o->cfg;
    struct connection c;
    cfg.idle_timeout_ms = 0;           /* pipes: wait as long as the parent takes */
    cfg.frame_timeout_ms = 0;
    if (o->raw) {
        serve_raw(STDIN_FILENO, STDOUT_FILENO, &cfg);                /* the pipe's floor */
        return 0;
    }
    connection_init(&c, &cfg);
    int status = serve_connection(&c, STDIN_FILENO, STDOUT_FILENO, 1);
    connection_free(&c);
    return status == 0 ? 0 : 1;
}

/* <<engine-shm-server>>, paper/84-shm.md */
static void serve_shm_session(struct shm_channel *ch, const struct engine_options *o)
{
    struct byte_link link = shm_link(ch);
    if (o->raw) {
        serve_raw_link(&link, &o->cfg);
        return;
    }
    struct connection c;
    connection_init(&c, &o->cfg);
    serve_link(&c, &link, 0);
    connection_free(&c);
}
static int serve_shm(const struct engine_options *o)
{
    struct shm_channel ch;
    char err[512];
    if (shm_channel_create(&ch, o->shm_name, SHM_DEFAULT_RING_BYTES, o->shm_wait, err,
                           sizeof err) != 0) {
        fprintf(stderr, "ipctax-engine: %s\n", err);
        return 1;
    }
    ch.stop_fd = stop_pipe[0];
    announce("shm", ch.name);
    unsigned reported = 0;
    int status;
    while ((status = shm_channel_accept(&ch, NO_DEADLINE)) == 0) {
        if (ch.renewals != reported) {
            fprintf(stderr, "ipctax-engine: gave the segment %s up (%s); serving from a new "
                    "one\n", ch.name, ch.renewed_because);
            reported = ch.renewals;
        }
        serve_shm_session(&ch, o);
        shm_channel_release(&ch);
    }
    int why = errno;
    if (why != EINTR)
        fprintf(stderr, "ipctax-engine: cannot go on serving %s: %s\n", ch.name,
                strerror(why));
    shm_channel_destroy(&ch);
    return why == EINTR ? 0 : 1;
}

/* <<engine-main>>, paper/55-engine.md */
int main(int argc, char **argv)
{
    pid_t parent = getppid();
    struct engine_options o;
    char err[512];
    engine_default_options(&o);
    /* <<engine-answer-the-command-line>>, paper/55-engine.md */
    switch (engine_parse_options(argc, argv, &o, err, sizeof err)) {
    case CLI_HELP:
        engine_usage(stdout);
        return 0;
    case CLI_VERSION:
        return print_version("ipctax-engine", IPCTAX_COMMIT);
    case CLI_BAD:
        return usage_error("ipctax-engine", "%s", err);
    }
    /* <<engine-install-signals-and-watch-the-parent>>, paper/55-engine.md */
    if (install_signal_handlers(o.listen_on == LISTEN_STDIN) != 0) {
        perror("ipctax-engine: signals");
        return 2;
    }
    if (o.die_with_parent && die_with_parent(parent)) {
        fprintf(stderr, "ipctax-engine: --die-with-parent: the process that started the "
                "engine has gone already; stopping\n");
        return 0;
    }
    /* <<engine-shm-mode>>, paper/84-shm.md */
    if (o.listen_on == LISTEN_SHM)
        return serve_shm(&o);
    if (o.listen_on == LISTEN_STDIN)
        return serve_stdin(&o);

    /* <<engine-listen-and-announce>>, paper/55-engine.md */
    int listener = o.listen_on == LISTEN_UNIX
        ? unix_listen(o.unix_path, LISTEN_BACKLOG, err, sizeof err)
        : tcp_listen(o.tcp_host, o.tcp_port, LISTEN_BACKLOG, err, sizeof err);
    if (listener < 0) {
        fprintf(stderr, "ipctax-engine: %s\n", err);
        return 1;
    }
    char where[300];
    if (o.listen_on == LISTEN_TCP && socket_local_address(listener, where, sizeof where) != 0)
        snprintf(where, sizeof where, "%s:%s", o.tcp_host, o.tcp_port);
    announce(o.listen_on == LISTEN_UNIX ? "unix" : "tcp",
             o.listen_on == LISTEN_UNIX ? o.unix_path : where);
    int status = accept_loop(listener, &o);
    close(listener);
    if (o.listen_on == LISTEN_UNIX)
        unlink(o.unix_path);
    return status == 0 ? 0 : 1;
}
