/*
 * test_load.c - one engine, many clients at once, good and bad.
 *
 * build/ipctax-engine (or $IPCTAX_ENGINE: `make check-sanitize` points it at
 * the AddressSanitizer build) serves a Unix socket in a private directory
 * with a short frame timeout. Client threads mix, on their connections:
 * echoes of random sizes, sweeps (compared bit for bit with sweep_naive),
 * a loaded series swept one combination at a time, per-bar streams, bad
 * frames of every kind, requests cut off half-way, and replies abandoned
 * half-way. Beside them, one client sends a frame one byte a second and one
 * stops reading a large reply; both must be dropped by the frame timeout
 * while the others go on being served.
 *
 * Asserted: every well-formed request gets the correct, bit-identical reply
 * (none lost); every bad frame gets an error frame and a closed connection;
 * the slow and the stalled client are dropped; the engine's resident memory
 * stays under a generous bound and does not grow from one round of load to
 * the next; SIGTERM ends it with status 0 and removes its socket. No timing
 * is asserted: time limits only bound how long the test waits.
 *
 * With IPCTAX_LOAD_OUT=FILE the counts are written to FILE as key,value
 * rows (`make measure-robustness` writes data/load.csv this way).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "testclient.h"
#include "wire/frame.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "wire/netio.h"
#include "kernel/series.h"
#include "util/timing.h"

/* The engine's limits for this test, and the size of the load. */
enum {
    FRAME_TIMEOUT_MS = 2500,       /* short, so the slow clients are dropped soon */
    IDLE_TIMEOUT_MS = 10000,
    MAX_FRAME = 1 << 20,           /* 1 MiB */
    MAX_CLIENTS = 64,
    WORKERS = 16,                  /* client threads per round */
    ROUNDS_PER_WORKER = 60,        /* requests (or faults) per thread per round */
    LOAD_ROUNDS = 3,               /* memory must not grow from one to the next */
    SERIES_BARS = 600,
    SWEEP_COMBOS = 4,
    STREAM_BARS = 40,
    MAX_ECHO = 3000,               /* doubles */
    BAD_KINDS = 7,                 /* kinds of bad frame, below */
    CUT_REPLY_MIN = 20000,         /* doubles in an echo abandoned half-way */
    CUT_REPLY_SPREAD = 20000,
    CUT_REPLY_READ = 1000,         /* bytes of its reply read before hanging up */
    IO_TIMEOUT_MS = 20000,         /* longest a single read or write may wait */
    WATCHDOG_S = 120,              /* the whole program, as a last resort */
};

/* Generous bounds on the engine's memory (kB): a leak of one request buffer
 * per connection would pass the first and fail the second. */
enum { PEAK_RSS_BOUND_KB = 256 * 1024, GROWTH_BOUND_KB = 24 * 1024 };

/* ---- Shared inputs and expected results ------------------------------------ */

static double series[SERIES_BARS];
static struct combo_params combos[SWEEP_COMBOS];
static struct combo_result expected_sweep[SWEEP_COMBOS];      /* over the whole series */
static struct combo_result expected_stream[SWEEP_COMBOS];     /* over the first STREAM_BARS */
static char socket_path[108];
static pid_t engine_pid;

/* ---- Counts ------------------------------------------------------------------ */

enum kind {
    K_ECHO, K_SWEEP, K_LOAD, K_SWEEP_LOADED, K_STREAM_OPEN, K_STREAM_BAR, K_STREAM_CLOSE,
    K_BAD, K_CUT_REQUEST, K_CUT_REPLY, N_KINDS
};
static const char *const KIND_NAMES[N_KINDS] = {
    "echo", "sweep", "load", "sweep_loaded", "stream_open", "stream_bar", "stream_close",
    "bad_frames", "cut_requests", "cut_replies",
};

static atomic_long sent[N_KINDS];          /* requests (or faults) made */
static atomic_long answered_ok;            /* well-formed requests answered correctly */
static atomic_long well_formed;            /* well-formed requests sent */
static atomic_long error_frames;           /* error frames received, all expected */
static atomic_long connections;            /* connections opened */
static atomic_long failures;               /* anything unexpected */

static void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failure(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_load: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    atomic_fetch_add(&failures, 1);
}

/* ---- Small helpers ------------------------------------------------------------ */

static uint64_t after_ms(int ms)
{
    return clock_ns() + (uint64_t)ms * 1000000u;
}

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

/* A xorshift generator per thread: the load differs between threads but
 * is the same from run to run. */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static int connect_engine(void)
{
    int fd = unix_connect(socket_path);
    if (fd >= 0) {
        socket_wake_every(fd, 50);
        atomic_fetch_add(&connections, 1);
    }
    return fd;
}

static int send_all(int fd, const void *a, size_t n)
{
    struct iovec iov = {(void *)a, n};
    return write_all(fd, &iov, 1, after_ms(IO_TIMEOUT_MS));
}

/* Sends a frame whose length word is `word`, then body[0..n). */
static int send_frame(int fd, uint32_t word, const uint8_t *body, size_t n)
{
    uint8_t header[FRAME_HEADER_BYTES];
    le_put_u32(header, word);
    struct iovec iov[2] = {{header, sizeof header}, {(void *)body, n}};
    return write_all(fd, iov, n ? 2 : 1, after_ms(IO_TIMEOUT_MS));
}

/* Reads one frame: 0 with *word and a malloc'd body, -1 otherwise. */
static int read_frame(int fd, uint32_t *word, uint8_t **body, int timeout_ms)
{
    uint8_t header[FRAME_HEADER_BYTES];
    uint64_t deadline = after_ms(timeout_ms);
    *body = NULL;
    if (read_exact(fd, header, sizeof header, deadline) != 0)
        return -1;
    *word = le_get_u32(header);
    size_t len = *word & FRAME_LENGTH_MASK;
    *body = malloc(len + 1);
    if (*body == NULL || read_exact(fd, *body, len, deadline) != 0) {
        free(*body);
        *body = NULL;
        return -1;
    }
    (*body)[len] = '\0';
    return 0;
}

/* The next frame must be an error frame containing `needle`, then the end. */
static int expect_error_then_close(int fd, const char *needle, int timeout_ms)
{
    uint32_t word;
    uint8_t *body;
    if (read_frame(fd, &word, &body, timeout_ms) != 0) {
        failure("expected an error frame (\"%s\"), got none", needle);
        return -1;
    }
    int ok = (word & ERROR_FRAME_FLAG) && strstr((char *)body, needle) != NULL;
    if (!ok)
        failure("expected an error frame with \"%s\", got word %#x \"%.80s\"", needle, word,
                (word & ERROR_FRAME_FLAG) ? (char *)body : "");
    free(body);
    uint8_t byte;
    if (read_exact(fd, &byte, 1, after_ms(timeout_ms)) != 1) {
        failure("the connection stayed open after an error frame (\"%s\")", needle);
        ok = 0;
    }
    if (ok)
        atomic_fetch_add(&error_frames, 1);
    return ok ? 0 : -1;
}

static int same_results(const struct combo_result *a, const struct combo_result *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (memcmp(&a[k].pnl, &b[k].pnl, sizeof(double)) != 0 || a[k].trades != b[k].trades)
            return 0;
    return 1;
}

/* ---- Well-formed requests ---------------------------------------------------- */

struct worker {
    uint32_t rng;
    struct test_client client;   /* the worker's long-lived connection */
    int loaded;                    /* a series is loaded on it */
};

/* One request on the worker's connection; returns 0 if the reply was right. */
static int request(struct worker *w, enum kind kind, enum opcode op, const double *close,
                   size_t n_bars, const struct combo_params *params, size_t n_combos)
{
    char err[CLIENT_ERROR_SIZE];
    atomic_fetch_add(&sent[kind], 1);
    atomic_fetch_add(&well_formed, 1);
    int status = tclient_request(&w->client, op, close, n_bars, params, n_combos, err);
    if (status != 0) {
        failure("%s request: %s", KIND_NAMES[kind], err);
        return -1;
    }
    return 0;
}

static void answered(int ok, const char *what)
{
    if (ok)
        atomic_fetch_add(&answered_ok, 1);
    else
        failure("a wrong reply to %s", what);
}

static void do_echo(struct worker *w)
{
    size_t n = next_random(&w->rng) % (MAX_ECHO + 1);
    size_t first = next_random(&w->rng) % (SERIES_BARS - (n % SERIES_BARS));
    double *values = malloc((n ? n : 1) * sizeof *values);
    for (size_t i = 0; i < n; i++)
        values[i] = series[(first + i) % SERIES_BARS] * (double)(i + 1);
    if (request(w, K_ECHO, OP_ECHO, values, n, NULL, 0) == 0)
        answered(w->client.reply_len == n * 8 &&
                 (n == 0 || memcmp(w->client.reply, values, n * 8) == 0), "an echo");
    free(values);
}

static void do_sweep(struct worker *w)
{
    struct combo_result got[SWEEP_COMBOS];
    if (request(w, K_SWEEP, OP_SWEEP, series, SERIES_BARS, combos, SWEEP_COMBOS) == 0)
        answered(sweep_reply_decode(w->client.reply, w->client.reply_len, got,
                                    SWEEP_COMBOS) == 0 &&
                 same_results(got, expected_sweep, SWEEP_COMBOS), "a sweep");
}

static void do_loaded(struct worker *w)
{
    if (!w->loaded) {
        if (request(w, K_LOAD, OP_LOAD, series, SERIES_BARS, NULL, 0) != 0)
            return;
        answered(w->client.reply_len == 0, "a load");
        w->loaded = 1;
    }
    size_t k = next_random(&w->rng) % SWEEP_COMBOS;
    struct combo_result got;
    if (request(w, K_SWEEP_LOADED, OP_SWEEP_LOADED, NULL, 0, &combos[k], 1) == 0)
        answered(sweep_reply_decode(w->client.reply, w->client.reply_len, &got, 1) == 0 &&
                 same_results(&got, &expected_sweep[k], 1), "a loaded sweep");
}

static void do_stream(struct worker *w)
{
    struct combo_result got[SWEEP_COMBOS];
    if (request(w, K_STREAM_OPEN, OP_OPEN_STREAM, NULL, 0, combos, SWEEP_COMBOS) != 0)
        return;
    answered(w->client.reply_len == 0, "opening a stream");
    for (size_t t = 0; t < STREAM_BARS; t++) {
        if (request(w, K_STREAM_BAR, OP_BAR, &series[t], 1, NULL, 0) != 0)
            return;
        answered(w->client.reply_len == SWEEP_COMBOS, "a bar");
    }
    if (request(w, K_STREAM_CLOSE, OP_CLOSE_STREAM, NULL, 0, NULL, 0) == 0)
        answered(sweep_reply_decode(w->client.reply, w->client.reply_len, got,
                                    SWEEP_COMBOS) == 0 &&
                 same_results(got, expected_stream, SWEEP_COMBOS), "closing a stream");
}

/* ---- Bad input and faults, each on a connection of its own -------------------- */

static void do_bad_frame(struct worker *w)
{
    uint8_t body[REQUEST_HEADER_BYTES + 8 * PARAM_BYTES];
    memset(body, 0, sizeof body);
    int fd = connect_engine();
    if (fd < 0) {
        failure("connect for a bad frame: %s", strerror(errno));
        return;
    }
    atomic_fetch_add(&sent[K_BAD], 1);
    const char *needle = "";
    int status = 0;
    switch (next_random(&w->rng) % BAD_KINDS) {
    case 0:
        body[0] = 77;
        needle = "unknown opcode";
        status = send_frame(fd, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES);
        break;
    case 1:
        body[0] = OP_ECHO;
        le_put_u32(body + 1, 1000);
        needle = "require";
        status = send_frame(fd, REQUEST_HEADER_BYTES, body, REQUEST_HEADER_BYTES);
        break;
    case 2:
        needle = "exceeds the engine's maximum";
        status = send_frame(fd, MAX_FRAME + 1, NULL, 0);
        break;
    case 3: {
        struct combo_params bad = combos[0];
        bad.h_len = 2;                             /* longer than the one bar sent */
        request_encode(body, OP_SWEEP, series, 1, &bad, 1);
        needle = "outside 1..n_bars";
        status = send_frame(fd, (uint32_t)request_body_size(1, 1), body,
                            (size_t)request_body_size(1, 1));
        break;
    }
    case 4:
        request_encode(body, OP_SWEEP_LOADED, NULL, 0, combos, 1);
        needle = "no series is loaded";
        status = send_frame(fd, (uint32_t)request_body_size(0, 1), body,
                            (size_t)request_body_size(0, 1));
        break;
    case 5: {
        struct combo_params huge[8];               /* rings of 16 MiB in all */
        for (int k = 0; k < 8; k++)
            huge[k] = (struct combo_params){1, 1, MAX_STREAM_WINDOW, 1, 1, MAX_STREAM_WINDOW};
        request_encode(body, OP_OPEN_STREAM, NULL, 0, huge, 8);
        needle = "would hold";
        status = send_frame(fd, (uint32_t)request_body_size(0, 8), body,
                            (size_t)request_body_size(0, 8));
        break;
    }
    default:
        needle = "shorter than";
        status = send_frame(fd, 0, NULL, 0);       /* an empty frame */
        break;
    }
    if (status != 0)
        failure("sending a bad frame: %s", strerror(errno));
    else
        expect_error_then_close(fd, needle, IO_TIMEOUT_MS);
    close(fd);
}

/* Announces a request and sends half of it, then goes away. */
static void do_cut_request(struct worker *w)
{
    size_t len = (size_t)request_body_size(SERIES_BARS, SWEEP_COMBOS);
    uint8_t *body = malloc(len);
    request_encode(body, OP_SWEEP, series, SERIES_BARS, combos, SWEEP_COMBOS);
    int fd = connect_engine();
    if (fd >= 0) {
        atomic_fetch_add(&sent[K_CUT_REQUEST], 1);
        uint8_t header[FRAME_HEADER_BYTES];
        le_put_u32(header, (uint32_t)len);
        size_t part = 1 + next_random(&w->rng) % (len - 1);
        if (send_all(fd, header, sizeof header) != 0 || send_all(fd, body, part) != 0)
            failure("sending half a request: %s", strerror(errno));
        close(fd);
    }
    free(body);
}

/* Asks for a large echo, reads a little of the reply, then goes away. */
static void do_cut_reply(struct worker *w)
{
    size_t n = CUT_REPLY_MIN + next_random(&w->rng) % CUT_REPLY_SPREAD;
    size_t len = (size_t)request_body_size((uint32_t)n, 0);
    uint8_t *body = malloc(len);
    double *values = malloc(n * sizeof *values);
    for (size_t i = 0; i < n; i++)
        values[i] = series[i % SERIES_BARS];
    request_encode(body, OP_ECHO, values, (uint32_t)n, NULL, 0);
    int fd = connect_engine();
    if (fd >= 0) {
        atomic_fetch_add(&sent[K_CUT_REPLY], 1);
        uint8_t some[CUT_REPLY_READ];
        if (send_frame(fd, (uint32_t)len, body, len) != 0 ||
            read_exact(fd, some, sizeof some, after_ms(IO_TIMEOUT_MS)) != 0)
            failure("half a reply: %s", strerror(errno));
        close(fd);
    }
    free(values);
    free(body);
}

/* ---- Workers ---------------------------------------------------------------------- */

static int worker_connect(struct worker *w)
{
    int fd = connect_engine();
    if (fd < 0) {
        failure("connect: %s", strerror(errno));
        return -1;
    }
    tclient_init(&w->client, fd, fd);
    w->loaded = 0;
    return 0;
}

static void *worker_thread(void *arg)
{
    struct worker w = {.rng = (uint32_t)(uintptr_t)arg * 2654435761u + 1};
    if (worker_connect(&w) != 0)
        return NULL;
    for (int i = 0; i < ROUNDS_PER_WORKER; i++) {
        switch (next_random(&w.rng) % 10) {
        case 0: case 1: do_echo(&w); break;
        case 2: case 3: do_sweep(&w); break;
        case 4: case 5: do_loaded(&w); break;
        case 6: do_stream(&w); break;
        case 7: do_bad_frame(&w); break;
        case 8: do_cut_request(&w); break;
        default: do_cut_reply(&w); break;
        }
        if (next_random(&w.rng) % 16 == 0) {           /* a client comes and goes */
            tclient_close(&w.client);
            if (worker_connect(&w) != 0)
                return NULL;
        }
    }
    tclient_close(&w.client);
    return NULL;
}

/* ---- The two slow clients ---------------------------------------------------------- */

static atomic_long slow_dropped, slow_drop_ms, slow_bytes, stalled_dropped;

/* Announces a 64-byte frame and sends it one byte a second. */
static void *slow_sender_thread(void *arg)
{
    (void)arg;
    int fd = connect_engine();
    if (fd < 0) {
        failure("slow client: connect: %s", strerror(errno));
        return NULL;
    }
    uint8_t header[FRAME_HEADER_BYTES], byte = OP_ECHO;
    le_put_u32(header, 64);
    uint64_t start = clock_ns();
    send_all(fd, header, sizeof header);
    for (int i = 0; i < 30; i++) {                      /* it is dropped long before */
        if (send(fd, &byte, 1, MSG_NOSIGNAL) != 1)
            break;
        atomic_fetch_add(&slow_bytes, 1);
        uint32_t word;
        uint8_t *body;
        /* Wait a second for the engine's verdict, then send the next byte. */
        if (read_frame(fd, &word, &body, 1000) == 0) {
            int ok = (word & ERROR_FRAME_FLAG) && strstr((char *)body, "did not arrive within");
            free(body);
            if (!ok) {
                failure("slow client: an unexpected frame %#x", word);
                break;
            }
            atomic_store(&slow_drop_ms, (long)((clock_ns() - start) / 1000000u));
            uint8_t more;
            if (read_exact(fd, &more, 1, after_ms(IO_TIMEOUT_MS)) == 1)
                atomic_store(&slow_dropped, 1);
            break;
        }
    }
    if (!atomic_load(&slow_dropped))
        failure("the client sending a byte a second was not dropped");
    close(fd);
    return NULL;
}

/* Asks for a 1 MB echo and reads none of the reply until the engine gives up. */
static void *stalled_reader_thread(void *arg)
{
    (void)arg;
    size_t n = (MAX_FRAME - REQUEST_HEADER_BYTES) / 8;
    size_t len = (size_t)request_body_size((uint32_t)n, 0);
    uint8_t *body = calloc(1, len);
    int fd = connect_engine();
    if (body == NULL || fd < 0) {
        failure("stalled client: %s", strerror(errno));
        free(body);
        return NULL;
    }
    body[0] = OP_ECHO;
    le_put_u32(body + 1, (uint32_t)n);
    if (send_frame(fd, (uint32_t)len, body, len) != 0)
        failure("stalled client: sending: %s", strerror(errno));
    sleep_ms(FRAME_TIMEOUT_MS + 1500);                 /* the engine must give up first */
    uint8_t header[FRAME_HEADER_BYTES];
    size_t got = 0;
    if (read_exact(fd, header, sizeof header, after_ms(IO_TIMEOUT_MS)) == 0) {
        uint8_t chunk[65536];
        uint64_t deadline = after_ms(IO_TIMEOUT_MS);
        ssize_t r;
        while (clock_ns() < deadline &&
               ((r = read(fd, chunk, sizeof chunk)) > 0 || (r < 0 && errno == EAGAIN)))
            got += r > 0 ? (size_t)r : 0;
    }
    if (got < n * 8)
        atomic_store(&stalled_dropped, 1);
    else
        failure("the client that stopped reading got its whole reply (%zu bytes)", got);
    close(fd);
    free(body);
    return NULL;
}

/* ---- The engine ----------------------------------------------------------------------- */

static const char *engine_path(void)
{
    static char path[4096];
    const char *e = getenv("IPCTAX_ENGINE"), *root = getenv("IPCTAX_ROOT");
    if (e != NULL && *e != '\0')
        return e;
    snprintf(path, sizeof path, "%s/build/ipctax-engine", root && *root ? root : ".");
    return path;
}

/* VmRSS or VmHWM of the engine in kB, or -1. */
static long engine_memory_kb(const char *field)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)engine_pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':')
            kb = strtol(line + strlen(field) + 1, NULL, 10);
    fclose(f);
    return kb;
}

static char dir[64];
static struct engine_process engine;

static int start_engine(void)
{
    static char frame_timeout[16], idle_timeout[16], max_frame[16], max_clients[16];
    snprintf(frame_timeout, sizeof frame_timeout, "%d", FRAME_TIMEOUT_MS);
    snprintf(idle_timeout, sizeof idle_timeout, "%d", IDLE_TIMEOUT_MS);
    snprintf(max_frame, sizeof max_frame, "%d", MAX_FRAME);
    snprintf(max_clients, sizeof max_clients, "%d", MAX_CLIENTS);
    char *const args[] = {"--frame-timeout", frame_timeout, "--idle-timeout", idle_timeout,
                          "--max-frame", max_frame, "--max-clients", max_clients, NULL};
    char err[CLIENT_ERROR_SIZE];
    snprintf(dir, sizeof dir, "/tmp/ipctax-load-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(socket_path, sizeof socket_path, "%s/engine.sock", dir);
    int fd = engine_start(&engine, engine_path(), args, socket_path, NULL, err);
    if (fd < 0) {
        fprintf(stderr, "test_load: %s\n", err);
        return -1;
    }
    close(fd);
    engine_pid = engine.pid;
    return 0;
}

/* ---- The test --------------------------------------------------------------------------- */

static void run_workers(void)
{
    pthread_t threads[WORKERS];
    for (uintptr_t i = 0; i < WORKERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, worker_thread, (void *)(i + 1)), 0);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
}

static long rss_kb[LOAD_ROUNDS + 1], peak_kb;
static double seconds;

static void test_engine_under_load(void **state)
{
    (void)state;
    uint64_t t0 = clock_ns();
    assert_int_equal(start_engine(), 0);
    rss_kb[0] = engine_memory_kb("VmRSS");

    pthread_t slow, stalled;
    assert_int_equal(pthread_create(&slow, NULL, slow_sender_thread, NULL), 0);
    assert_int_equal(pthread_create(&stalled, NULL, stalled_reader_thread, NULL), 0);
    for (int round = 1; round <= LOAD_ROUNDS; round++) {
        run_workers();
        if (round == 1) {
            pthread_join(slow, NULL);
            pthread_join(stalled, NULL);
        }
        rss_kb[round] = engine_memory_kb("VmRSS");
    }
    peak_kb = engine_memory_kb("VmHWM");

    /* SIGTERM: exit status 0, socket file gone. */
    assert_int_equal(kill(engine.pid, SIGTERM), 0);
    int status = -1;
    uint64_t deadline = after_ms(IO_TIMEOUT_MS);
    while (waitpid(engine.pid, &status, WNOHANG) == 0 && clock_ns() < deadline)
        sleep_ms(5);
    engine.pid = 0;
    seconds = (double)(clock_ns() - t0) / 1e9;
    struct stat st;
    int socket_left = lstat(socket_path, &st) == 0;
    rmdir(dir);

    long lost = atomic_load(&well_formed) - atomic_load(&answered_ok);
    fprintf(stderr, "test_load: %ld connections, %ld well-formed requests, %ld answered "
            "correctly, %ld error frames; engine RSS %ld -> %ld -> %ld kB, peak %ld kB; "
            "%.1f s\n", atomic_load(&connections), atomic_load(&well_formed),
            atomic_load(&answered_ok), atomic_load(&error_frames), rss_kb[0], rss_kb[1],
            rss_kb[LOAD_ROUNDS], peak_kb, seconds);
    assert_int_equal(atomic_load(&failures), 0);
    assert_int_equal(lost, 0);
    assert_int_equal(atomic_load(&error_frames), atomic_load(&sent[K_BAD]));
    assert_true(atomic_load(&slow_dropped) && atomic_load(&stalled_dropped));
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fail_msg("the engine did not exit with status 0 on SIGTERM (wait status %#x)", status);
    if (socket_left)
        fail_msg("the engine left its socket file behind");
    assert_true(rss_kb[0] > 0 && peak_kb > 0);
    /* A sanitized engine keeps freed memory in quarantine: its RSS says
     * nothing about the engine's own, so check-sanitize turns the bounds off. */
    const char *bounds = getenv("IPCTAX_LOAD_MEMORY_BOUNDS");
    if (bounds != NULL && strcmp(bounds, "0") == 0) {
        fprintf(stderr, "test_load: the memory bounds are not checked "
                "(IPCTAX_LOAD_MEMORY_BOUNDS=0: a sanitizer's quarantine holds freed memory)\n");
        return;
    }
    if (peak_kb > PEAK_RSS_BOUND_KB)
        fail_msg("the engine's peak RSS of %ld kB is above %d kB", peak_kb, PEAK_RSS_BOUND_KB);
    if (rss_kb[LOAD_ROUNDS] > rss_kb[1] + GROWTH_BOUND_KB)
        fail_msg("the engine's RSS grew from %ld to %ld kB between identical rounds",
                 rss_kb[1], rss_kb[LOAD_ROUNDS]);
}

/* Writes the counts as key,value rows, for data/load.csv. */
static int write_counts(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    long lost = atomic_load(&well_formed) - atomic_load(&answered_ok);
    fprintf(f, "key,value\n");
    fprintf(f, "workers,%d\nrounds,%d\nconnections,%ld\n", WORKERS, LOAD_ROUNDS,
            atomic_load(&connections));
    for (int k = 0; k < N_KINDS; k++)
        fprintf(f, "%s,%ld\n", KIND_NAMES[k], atomic_load(&sent[k]));
    fprintf(f, "well_formed,%ld\nanswered_ok,%ld\nlost,%ld\nerror_frames,%ld\n",
            atomic_load(&well_formed), atomic_load(&answered_ok), lost,
            atomic_load(&error_frames));
    fprintf(f, "slow_dropped,%ld\nslow_drop_ms,%ld\nslow_bytes,%ld\nstalled_dropped,%ld\n",
            atomic_load(&slow_dropped), atomic_load(&slow_drop_ms), atomic_load(&slow_bytes),
            atomic_load(&stalled_dropped));
    fprintf(f, "frame_timeout_ms,%d\nmax_frame,%d\nmax_clients,%d\n", FRAME_TIMEOUT_MS,
            MAX_FRAME, MAX_CLIENTS);
    fprintf(f, "series_bars,%d\nsweep_combos,%d\nstream_bars,%d\nmax_echo,%d\nbad_kinds,%d\n",
            SERIES_BARS, SWEEP_COMBOS, STREAM_BARS, MAX_ECHO, BAD_KINDS);
    fprintf(f, "cut_reply_min_bytes,%d\ncut_reply_max_bytes,%d\ncut_reply_read,%d\n",
            8 * CUT_REPLY_MIN, 8 * (CUT_REPLY_MIN + CUT_REPLY_SPREAD - 1), CUT_REPLY_READ);
    fprintf(f, "rss_start_kb,%ld\nrss_round1_kb,%ld\nrss_end_kb,%ld\npeak_rss_kb,%ld\n",
            rss_kb[0], rss_kb[1], rss_kb[LOAD_ROUNDS], peak_kb);
    fprintf(f, "peak_rss_bound_kb,%d\ngrowth_bound_kb,%d\nseconds,%.1f\n", PEAK_RSS_BOUND_KB,
            GROWTH_BOUND_KB, seconds);
    return fclose(f);
}

int main(void)
{
    alarm(WATCHDOG_S);
    signal(SIGPIPE, SIG_IGN);
    gbm_series(series, SERIES_BARS, 7);
    for (size_t k = 0; k < SWEEP_COMBOS; k++)
        combos[k] = grid_params(GRID_MIN_LENGTH + 10 * (int64_t)k);
    if (sweep_naive(series, SERIES_BARS, combos, SWEEP_COMBOS, expected_sweep) != 0 ||
        sweep_naive(series, STREAM_BARS, combos, SWEEP_COMBOS, expected_stream) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_under_load),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (engine.pid > 0)
        engine_stop(&engine);
    const char *out = getenv("IPCTAX_LOAD_OUT");
    if (failed == 0 && out != NULL && *out != '\0' && write_counts(out) != 0) {
        fprintf(stderr, "test_load: cannot write %s\n", out);
        return 1;
    }
    return failed;
}
