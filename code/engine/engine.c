/*
 * engine.c - ipctax-engine: the kernel behind a Unix socket, TCP, or stdin.
 *
 * Tangled from paper/55-engine.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire/frame.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "wire/netio.h"
#include "wire/options.h"
#include "engine/service.h"
#include "wire/shm_ring.h"
#include "wire/timing.h"

enum transport { TRANSPORT_NONE, TRANSPORT_UNIX, TRANSPORT_TCP, TRANSPORT_STDIN, TRANSPORT_SHM };

enum {
    DEFAULT_MAX_CLIENTS = 32,
    DEFAULT_IDLE_TIMEOUT_MS = 120000,
    DEFAULT_FRAME_TIMEOUT_MS = 10000,
    WAKE_PERIOD_MS = 250,      /* how often a blocked read rechecks its deadline */
    SLOT_GRACE_MS = 1000,      /* longest wait for a hung-up client's slot (see below) */
    ENGINE_SPARE_FDS = 16,     /* descriptors kept for the engine's own use */
    ACCEPT_BACKOFF_MS = 100,   /* pause after accept found no resources */
    LISTEN_BACKLOG = 64,
};

/* --max-work's own bound: 2^62, so that a sum of steps never nears 2^64. */
#define MAX_MAX_WORK (1L << 62)

struct engine_options {
    enum transport transport;
    const char *unix_path;
    char tcp_host[256];
    char tcp_port[16];
    int max_clients;
    int raw;                   /* serve the raw ping-pong, not the protocol */
    const char *shm_name;      /* --shm: the shared-memory segment's name */
    enum shm_wait shm_wait;    /* --shm-wait: how the engine waits (zero: futex) */
    struct engine_config cfg;
};

static void usage(FILE *to)
{
    fprintf(to,
        "usage: ipctax-engine (--unix PATH | --tcp [HOST:]PORT | --stdin | --shm NAME) [options]\n"
        "Serves the ipctax wire protocol: little-endian, one length-prefixed frame\n"
        "each way; opcode 0 sweep, 1 echo, 2-6 stateful (load, sweep loaded,\n"
        "open stream, bar, close stream). See paper/50-protocol.md and\n"
        "paper/80-stateful.md.\n"
        "\n"
        "  --unix PATH          listen on a Unix domain socket (created mode 0600)\n"
        "  --tcp [HOST:]PORT    listen on TCP, TCP_NODELAY; HOST defaults to 127.0.0.1\n"
        "  --stdin              serve one request from stdin to stdout, then exit\n"
        "  --shm NAME           serve one client at a time over POSIX shared memory\n"
        "                       (/dev/shm/NAME, mode 0600; see paper/84-shm.md)\n"
        "  --shm-wait MODE      how --shm waits for its client: futex (default; sleep)\n"
        "                       or spin (poll; holds a core busy while it waits)\n"
        "  --kernel NAME        naive (default) or tuned (bit-identical, one thread)\n"
        "  --max-frame BYTES    largest request body accepted (default %u)\n"
        "  --max-work STEPS     most window-bar steps one request may ask for, counted\n"
        "                       before any work starts (default %llu)\n"
        "  --max-clients N      concurrent connections (default %d)\n"
        "  --idle-timeout MS    longest wait between frames (default %d)\n"
        "  --frame-timeout MS   longest time to receive or send one frame (default %d)\n"
        "  --raw                serve a raw ping-pong instead (transport floor; see\n"
        "                       the echo chapter): u32 size once, then size bytes\n"
        "                       echoed back per round trip, no framing\n"
        "  --help               this text\n"
        "\n"
        "A request the engine cannot serve gets an error frame, [u32 0x80000000 |\n"
        "len][len bytes of UTF-8], and the connection is closed. SIGTERM, SIGINT,\n"
        "SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 stop the engine and remove its socket\n"
        "file or shared-memory segment.\n",
        DEFAULT_MAX_FRAME, (unsigned long long)DEFAULT_MAX_WORK, DEFAULT_MAX_CLIENTS,
        DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_FRAME_TIMEOUT_MS);
}

struct named_kernel {
    const char *name;
    sweep_fn sweep;
};

static int sweep_tuned_one_thread(struct sweep_workspace *ws, const double *close,
                                  size_t n_bars, const struct combo_params *params,
                                  size_t n_combos, struct combo_result *results)
{
    (void)ws;
    return sweep_tuned(close, n_bars, params, n_combos, results, 1);
}

static const struct named_kernel KERNELS[] = {
    {"naive", sweep_naive_in},
    {"tuned", sweep_tuned_one_thread},
};

static int parse_host_port(const char *text, struct engine_options *o)
{
    const char *colon = strrchr(text, ':');
    const char *port = colon ? colon + 1 : text;
    size_t host_len = colon ? (size_t)(colon - text) : 0;
    if (host_len >= sizeof o->tcp_host || strlen(port) >= sizeof o->tcp_port || *port == '\0')
        return -1;
    snprintf(o->tcp_host, sizeof o->tcp_host, "%.*s", (int)host_len, text);
    if (host_len == 0)
        snprintf(o->tcp_host, sizeof o->tcp_host, "127.0.0.1");
    snprintf(o->tcp_port, sizeof o->tcp_port, "%s", port);
    return 0;
}

/* Each client holds one descriptor; the engine keeps ENGINE_SPARE_FDS for
 * its own (standard streams, listener, stop pipe, the reserve below, and
 * what the C library opens). */
static long max_clients_allowed(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return 1000000;
    long n = (long)lim.rlim_cur - ENGINE_SPARE_FDS;
    return n > 1 ? n : 1;
}

static int parse_options(int argc, char **argv, struct engine_options *o)
{
    static const struct option options[] = {
        {"unix", required_argument, 0, 'u'}, {"tcp", required_argument, 0, 't'},
        {"stdin", no_argument, 0, 's'}, {"kernel", required_argument, 0, 'k'},
        {"max-frame", required_argument, 0, 'f'}, {"max-clients", required_argument, 0, 'c'},
        {"max-work", required_argument, 0, 'w'},
        {"idle-timeout", required_argument, 0, 'i'}, {"frame-timeout", required_argument, 0, 'F'},
        {"shm", required_argument, 0, 'S'}, {"shm-wait", required_argument, 0, 'W'},
        {"raw", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    int opt;
    long v;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'u': o->transport = TRANSPORT_UNIX; o->unix_path = optarg; break;
        case 't':
            o->transport = TRANSPORT_TCP;
            if (parse_host_port(optarg, o) != 0) goto bad;
            break;
        case 's': o->transport = TRANSPORT_STDIN; break;
        case 'k': {
            size_t i = 0, n = sizeof KERNELS / sizeof KERNELS[0];
            while (i < n && strcmp(KERNELS[i].name, optarg) != 0)
                i++;
            if (i == n) goto bad;
            o->cfg.sweep = KERNELS[i].sweep;
            break;
        }
        case 'f': if (parse_long_in_range(optarg, REQUEST_HEADER_BYTES, FRAME_LENGTH_MASK, &v)) goto bad;
                  o->cfg.max_frame = (uint32_t)v; break;
        case 'c':
            if (parse_long_in_range(optarg, 1, max_clients_allowed(), &v) != 0) {
                fprintf(stderr, "ipctax-engine: --max-clients: %s is outside 1..%ld (each "
                        "client takes a descriptor; see ulimit -n)\n", optarg,
                        max_clients_allowed());
                return -1;
            }
            o->max_clients = (int)v;
            break;
        case 'w': if (parse_long_in_range(optarg, 1, MAX_MAX_WORK, &v)) goto bad;
                  o->cfg.max_work = (uint64_t)v; break;
        case 'i': if (parse_long_in_range(optarg, 1, 86400000, &v)) goto bad;
                  o->cfg.idle_timeout_ms = v; break;
        case 'F': if (parse_long_in_range(optarg, 1, 86400000, &v)) goto bad;
                  o->cfg.frame_timeout_ms = v; break;
        case 'r': o->raw = 1; break;
        case 'S': o->transport = TRANSPORT_SHM; o->shm_name = optarg; break;
        case 'W': if (shm_wait_parse(optarg, &o->shm_wait) != 0) goto bad; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind == argc && o->transport != TRANSPORT_NONE)
        return 0;
    fprintf(stderr, "ipctax-engine: say --unix PATH, --tcp PORT, --stdin or --shm NAME (see --help)\n");
    return -1;
bad:
    fprintf(stderr, "ipctax-engine: bad value '%s' for an option (see --help)\n", optarg);
    return -1;
}

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

struct server {
    const struct engine_options *opts;
    pthread_mutex_t lock;
    pthread_cond_t slot_freed;     /* signalled when a thread gives its slot back */
    int *slot_fd;                  /* each slot's connection, or -1 */
    struct pollfd *probe;          /* scratch for looking at every slot at once */
    int active;                    /* slots in use */
};

struct client {
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
    struct client *cl = arg;
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
    struct client *cl = malloc(sizeof *cl);
    if (cl != NULL) {
        *cl = (struct client){s, slot, fd};
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
        if (o->transport == TRANSPORT_TCP)
            tcp_no_delay(fd);
        socket_wake_every(fd, WAKE_PERIOD_MS);
        start_client(&server, fd);
    }
}

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
    unsigned reported = 0;
    int status;
    while ((status = shm_channel_accept(&ch)) == 0) {
        if (ch.renewals != reported) {
            fprintf(stderr, "ipctax-engine: the segment %s was damaged (its size changed "
                    "under it); serving from a new one\n", ch.name);
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

int main(int argc, char **argv)
{
    struct engine_options o = {
        .max_clients = DEFAULT_MAX_CLIENTS,
        .cfg = {DEFAULT_MAX_FRAME, DEFAULT_MAX_WORK, sweep_naive_in, DEFAULT_IDLE_TIMEOUT_MS,
                DEFAULT_FRAME_TIMEOUT_MS},
    };
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    if (install_signal_handlers(o.transport == TRANSPORT_STDIN) != 0) {
        perror("ipctax-engine: signals");
        return 2;
    }
    if (o.transport == TRANSPORT_SHM)
        return serve_shm(&o);
    if (o.transport == TRANSPORT_STDIN)
        return serve_stdin(&o);

    char err[512];
    int listener = o.transport == TRANSPORT_UNIX
        ? unix_listen(o.unix_path, LISTEN_BACKLOG, err, sizeof err)
        : tcp_listen(o.tcp_host, o.tcp_port, LISTEN_BACKLOG, err, sizeof err);
    if (listener < 0) {
        fprintf(stderr, "ipctax-engine: %s\n", err);
        return 1;
    }
    int status = accept_loop(listener, &o);
    close(listener);
    if (o.transport == TRANSPORT_UNIX)
        unlink(o.unix_path);
    return status == 0 ? 0 : 1;
}
