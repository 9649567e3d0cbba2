/*
 * test_engine.c - build/ipctax-engine as a process: over a Unix socket in a
 * private temporary directory, over --stdin pipes, and over TCP on
 * 127.0.0.1. What a client sees is checked byte by byte: echoes come back
 * verbatim, sweeps equal the in-process kernel bit for bit (gate_compare),
 * every kind of bad frame gets an error frame and a closed connection, and
 * the engine goes on serving correct sweeps after each. Also: stalled, idle
 * and vanishing clients, --max-clients, SIGTERM, stale and live socket
 * files, and the socket file's permissions.
 *
 * The engine and bench programs are brought up to date with make first
 * (see build_programs in testengine.h). No timing is asserted: the time
 * limits below only bound how long a test may wait for something to happen.
 */
#include <grp.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/un.h>

#include "testengine.h"
#include "engine/service.h"
#include "kernel/kernel_tuned.h"
#include "kernel/kernels.h"
#include "wire/json_codec.h"

/* ---- Engines -------------------------------------------------------------- */

/* Starts the engine on test_dir/name with args; returns the connected fd
 * that engine_start makes (the engine counts it as a client). */
static int start_engine(struct engine_process *e, const char *name, char *const args[],
                        char path[108])
{
    char err[CLIENT_ERROR_SIZE] = "";
    scratch_path(path, 108, name);
    int fd = engine_start_tracked(e, args, path, NULL, err);
    if (fd < 0)
        fail_msg("cannot start the engine on %s: %s", path, err);
    return fd;
}

static void assert_engine_alive(const struct engine_process *e)
{
    int status;
    pid_t r = waitpid(e->pid, &status, WNOHANG);
    if (r == e->pid)
        untrack_child(e->pid);                 /* reaped: its pid is no longer ours */
    if (r == e->pid)
        fail_msg("the engine died (%s %d)", WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    assert_int_equal(r, 0);
}

/* Stops the engine with `sig` and checks it exits 0 and removes its socket. */
static void stop_engine_checked(struct engine_process *e, int sig)
{
    int status;
    assert_engine_alive(e);
    assert_int_equal(kill(e->pid, sig), 0);
    if (wait_for_exit(e->pid, 3000, &status) != 0)
        fail_msg("the engine did not exit within 3 s of signal %d", sig);   /* teardown kills it */
    untrack_child(e->pid);
    e->pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the engine stopped with %s %d, expected exit status 0",
                 WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (e->socket_path[0] != '\0' && access(e->socket_path, F_OK) == 0)
        fail_msg("the engine left its socket file %s behind", e->socket_path);
}

/* For teardown after a failure: never leaves an engine running. */
static void kill_engine(struct engine_process *e)
{
    if (e->pid > 0) {
        kill(e->pid, SIGKILL);
        waitpid(e->pid, NULL, 0);
        untrack_child(e->pid);
        e->pid = 0;
    }
    if (e->socket_path[0] != '\0')
        unlink(e->socket_path);
}

static long cpu_ms_of(pid_t pid);

/* ---- Reference checks on raw replies ----------------------------------- */

/* Values whose bits must survive: every pattern, NaN payloads included. */
static double *bit_patterns(size_t n, uint64_t seed)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t bits = x;
        if (i % 5 == 1)
            bits = 0x7ff8000000000000ULL | (x & 0xfffff);   /* quiet NaN with a payload */
        else if (i % 5 == 2)
            bits = 0x8000000000000000ULL;                     /* -0.0 */
        memcpy(&v[i], &bits, 8);
    }
    return v;
}

/* ---- Basic service --------------------------------------------------------- */

static void echo_returns_the_payload_bit_for_bit(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "echo.sock", NULL, path);
    struct test_client c;
    tclient_init(&c, fd, fd);
    const size_t sizes[] = {0, 1, 7, 1000, 150000, 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *values = bit_patterns(n, s + 1);
        double *back = malloc((n ? n : 1) * sizeof *back);
        memset(back, 0xa5, (n ? n : 1) * sizeof *back);
        char err[CLIENT_ERROR_SIZE] = "";
        int r = tclient_echo(&c, values, n, back, err);
        if (r != 0)
            fail_msg("echo of %zu values failed (%d): %s", n, r, err);
        assert_int_equal(c.reply_len, n * 8);
        /* The reply body is the request's close bytes, byte for byte. */
        if (n > 0) {
            assert_memory_equal(c.reply, c.request + REQUEST_HEADER_BYTES, n * 8);
            assert_memory_equal(back, values, n * 8);
        }
        free(values);
        free(back);
    }
    tclient_close(&c);
    stop_engine_checked(&e, SIGTERM);
}

static void sweep_equals_the_in_process_kernel(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "sweep.sock", NULL, path);
    assert_sweep_over(fd);
    close(fd);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * The tuned kernel behind the engine, as chosen (--kernel tuned) and on every
 * path this machine runs (--kernel tuned-PATH): the naive kernel's results
 * bit for bit on the grid over 20,000 bars. The engine computes that job in
 * several groups of combinations (paper/55-engine.md), and the first group
 * grows the workspace the series was decoded into, so the later groups must
 * find the series where it moved to.
 */
static void tuned_kernel_on_every_path(void **state)
{
    (void)state;
    enum { BARS = 20000 };             /* the grid over it: three groups of the engine's */
    double *close = malloc(BARS * sizeof *close);
    struct combo_params params[DEFAULT_COMBOS];
    struct combo_result naive[DEFAULT_COMBOS], got[DEFAULT_COMBOS];
    assert_non_null(close);
    gbm_series(close, BARS, DEFAULT_SEED);
    grid_fill(params, DEFAULT_COMBOS);
    assert_int_equal(sweep_naive(close, BARS, params, DEFAULT_COMBOS, naive), 0);
    const struct test_job job = {close, BARS, params, DEFAULT_COMBOS};
    for (int p = -1; p < tuned_path_count(); p++) {
        if (p >= 0 && tuned_path_lacks(p, cpu_simd_here()) != NULL)
            continue;
        char kernel[32];
        snprintf(kernel, sizeof kernel, p < 0 ? "tuned" : "tuned-%s", tuned_path_name(p));
        char *args[] = {"--kernel", kernel, NULL};
        struct engine_process e;
        char path[108], err[CLIENT_ERROR_SIZE] = "";
        int fd = start_engine(&e, "tuned.sock", args, path);
        struct test_client c;
        tclient_init(&c, fd, fd);
        memset(got, 0xff, sizeof got);
        if (tclient_sweep(&c, &job, 0, DEFAULT_COMBOS, got, err) != 0)
            fail_msg("--kernel %s: %s", kernel, err);
        struct gate_verdict v = gate_compare(naive, got, DEFAULT_COMBOS);
        if (!v.passed)
            fail_msg("--kernel %s: only %zu of %d combos identical to the naive kernel", kernel,
                     v.identical, DEFAULT_COMBOS);
        tclient_close(&c);
        stop_engine_checked(&e, SIGTERM);
    }
    free(close);
}

/* One connection carries any number of requests, of both kinds, in any order. */
static void many_requests_on_one_connection(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "many.sock", NULL, path);
    struct test_client c;
    tclient_init(&c, fd, fd);
    for (int i = 0; i < 60; i++) {
        char err[CLIENT_ERROR_SIZE] = "";
        if (i % 3 == 2) {
            size_t n = 1 + (size_t)i * 37;
            double back[2300];
            assert_true(n <= 2300);
            if (tclient_echo(&c, ref.close, n, back, err) != 0)
                fail_msg("request %d (echo of %zu): %s", i, n, err);
            assert_memory_equal(back, ref.close, n * 8);
        } else {
            size_t first = (size_t)i % REF_COMBOS;
            size_t count = 1 + (size_t)i % (REF_COMBOS - first);
            struct combo_result results[REF_COMBOS];
            if (tclient_sweep(&c, &ref.job, first, count, results, err) != 0)
                fail_msg("request %d (sweep of %zu combos): %s", i, count, err);
            struct gate_verdict v = gate_compare(ref.expected + first, results + first, count);
            if (!v.passed)
                fail_msg("request %d: sweep of combos %zu..%zu differs", i, first,
                         first + count - 1);
        }
    }
    tclient_close(&c);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * Four connections each have a request outstanding at once, and the replies
 * are read in the reverse order of the requests. An engine that served one
 * connection at a time would never answer the fourth while the first waits
 * for its next request, and the read would time out.
 */
static void four_clients_interleave(void **state)
{
    (void)state;
    enum { CLIENTS = 4, ROUNDS = 12 };
    struct engine_process e;
    char path[108];
    int first_fd = start_engine(&e, "four.sock", NULL, path);
    int fds[CLIENTS] = {first_fd};
    for (int k = 1; k < CLIENTS; k++) {
        fds[k] = connect_unix(path);
        assert_true(fds[k] >= 0);
    }
    for (int round = 0; round < ROUNDS; round++) {
        size_t firsts[CLIENTS], ns[CLIENTS];
        int sweeps[CLIENTS];
        for (int k = 0; k < CLIENTS; k++) {
            size_t len;
            uint8_t *body;
            sweeps[k] = (round + k) % 2 == 0;
            if (sweeps[k]) {
                firsts[k] = (size_t)(round + k) % (REF_COMBOS - 1);
                ns[k] = 2;
                len = (size_t)request_body_size(REF_BARS, 2);
                body = malloc(len);
                request_encode(body, OP_SWEEP, ref.close, REF_BARS, ref.params + firsts[k], 2);
            } else {
                ns[k] = 100 * (size_t)(k + 1) + (size_t)round;
                body = reference_request(OP_ECHO, (uint32_t)ns[k], 0, &len);
            }
            assert_int_equal(send_frame(fds[k], (uint32_t)len, body, len), 0);
            free(body);
        }
        for (int k = CLIENTS - 1; k >= 0; k--) {
            uint32_t word = 0;
            uint8_t *body;
            if (read_frame(fds[k], &word, &body, TEST_IO_TIMEOUT_MS) != 0)
                fail_msg("round %d: client %d got no reply", round, k);
            assert_false(word & ERROR_FRAME_FLAG);
            if (sweeps[k])
                assert_sweep_reply(body, word, firsts[k], ns[k]);
            else {
                assert_int_equal(word, ns[k] * 8);
                assert_memory_equal(body, ref.close, ns[k] * 8);
            }
            free(body);
        }
    }
    for (int k = 0; k < CLIENTS; k++)
        close(fds[k]);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * A sweep of no combinations is valid (request_decode accepts it) and its
 * reply is an empty body. It is the first request of a fresh connection
 * here, where the connection's buffers are still unallocated.
 */
static void sweep_of_no_combos_gets_an_empty_reply(void **state)
{
    (void)state;
    /* In the service alone, with no socket. */
    struct engine_config cfg = {.max_frame = 1u << 20, .max_work = DEFAULT_MAX_WORK,
                                .sweep = sweep_naive_in, .idle_timeout_ms = 1000,
                                .frame_timeout_ms = 1000};
    struct connection conn;
    connection_init(&conn, &cfg);
    const double close3[3] = {100, 101, 102};
    uint8_t body3[9 + 24];
    request_encode(body3, OP_SWEEP, close3, 3, NULL, 0);
    char err[512] = "";
    int r = handle_request(&conn, body3, sizeof body3, err, sizeof err);
    size_t reply_bytes = 0;
    for (int i = 0; r == 0 && i < conn.n_reply; i++)
        reply_bytes += conn.reply_len[i];
    connection_free(&conn);
    if (r != 0)
        fail_msg("a sweep of 3 bars x 0 combos was refused: %s", err);
    assert_int_equal(reply_bytes, 0);

    /* Through the engine, then a normal sweep on the same connection. */
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "nocombos.sock", NULL, path);
    size_t len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, 0, &len);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    free(body);
    uint32_t word = 0;
    uint8_t *reply = NULL;
    assert_int_equal(read_frame(fd, &word, &reply, TEST_IO_TIMEOUT_MS), 0);
    if (word != 0)
        fail_msg("a sweep of %d bars x 0 combos got word 0x%08x \"%s\", expected an empty reply",
                 REF_BARS, word, (word & ERROR_FRAME_FLAG) ? (char *)reply : "");
    free(reply);
    assert_sweep_over(fd);
    close(fd);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- Work: bounded before it starts, abandoned when its client goes -------- */

/*
 * 61 bytes (a loaded sweep of one combination, every window 100,000) on a
 * loaded series of 200,000 bars ask for 1.4e11 window-bar steps, some 80 s
 * of the naive kernel: refused at once, before any work starts. The engine
 * once computed it, a core at full load and a slot held, whatever became of
 * the client.
 */
static void work_above_max_work_is_refused_before_it_starts(void **state)
{
    (void)state;
    enum { BARS = 200000 };
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "work.sock", NULL, path);
    double *series = malloc(BARS * sizeof *series);
    gbm_series(series, BARS, 42);
    struct test_client c;
    char err[CLIENT_ERROR_SIZE] = "";
    tclient_init(&c, fd, fd);
    if (tclient_request(&c, OP_LOAD, series, BARS, NULL, 0, err) != 0)
        fail_msg("load: %s", err);
    c.in_fd = c.out_fd = -1;
    tclient_close(&c);
    const struct combo_params heavy = {100000, 100000, 100000, 100000, 100000, 100000};
    uint8_t body[9 + 48];
    request_encode(body, OP_SWEEP_LOADED, NULL, 0, &heavy, 1);
    assert_int_equal(send_frame(fd, sizeof body, body, sizeof body), 0);
    assert_error_frame_then_eof(fd, "--max-work", NULL, 0);   /* within 5 s, or fails */
    close(fd);
    free(series);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

/* The limit, at the service: a request exactly at it is served, one step
 * above it refused; and the default admits the study's sweep (150,000 bars
 * x 80 combinations) ten times over. */
static void max_work_is_exact_and_admits_the_study(void **state)
{
    (void)state;
    uint64_t work = sweep_work(ref.params, REF_COMBOS, REF_BARS);
    struct engine_config cfg = {.max_frame = 1u << 20, .max_work = work, .sweep = sweep_naive_in};
    size_t len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &len);
    char err[512] = "";
    struct connection conn;
    connection_init(&conn, &cfg);
    if (handle_request(&conn, body, len, err, sizeof err) != 0)
        fail_msg("a sweep of exactly --max-work was refused: %s", err);
    connection_free(&conn);
    cfg.max_work = work - 1;
    connection_init(&conn, &cfg);
    assert_int_equal(handle_request(&conn, body, len, err, sizeof err), -1);
    assert_non_null(strstr(err, "--max-work"));
    connection_free(&conn);
    free(body);

    struct combo_params grid[80];
    grid_fill(grid, 80);
    uint64_t study = sweep_work(grid, 80, 150000);
    if (study * 10 > DEFAULT_MAX_WORK)
        fail_msg("the default --max-work (%llu) admits the study's sweep (%llu steps) "
                 "less than ten times over", (unsigned long long)DEFAULT_MAX_WORK,
                 (unsigned long long)study);
}

/* The reference sweep on a new connection to path: 0 with the results
 * checked, or tclient_sweep's failure with its message in err. */
static int reference_sweep_on_a_new_client(const char *path, char err[CLIENT_ERROR_SIZE])
{
    int d = connect_unix(path);
    assert_true(d >= 0);
    struct test_client c;
    struct combo_result results[REF_COMBOS];
    tclient_init(&c, d, d);
    int r = tclient_sweep(&c, &ref.job, 0, REF_COMBOS, results, err);
    tclient_close(&c);
    if (r == 0)
        assert_reference_results(results);
    return r;
}

/*
 * After a client hung up mid-sweep, the engine's only slot is free again
 * within 2.5 s (the reference sweep is served), and the engine goes idle.
 */
static void assert_the_slot_is_free_again(const struct engine_process *e, const char *path)
{
    uint64_t deadline = deadline_after_ms(2500);
    for (;;) {
        char err[CLIENT_ERROR_SIZE] = "";
        if (reference_sweep_on_a_new_client(path, err) == 0)
            break;
        if (clock_ns() > deadline)
            fail_msg("2.5 s after its client hung up, the abandoned sweep still held the "
                     "engine's only slot: %s", err);
        sleep_ms(50);
    }
    long cpu_before = cpu_ms_of(e->pid);
    sleep_ms(500);
    long cpu = cpu_ms_of(e->pid) - cpu_before;
    if (cpu > 200)
        fail_msg("the engine used %ld ms of CPU in half a second after its clients left", cpu);
}

/*
 * A sweep whose client hangs up is abandoned: the service runs the kernel
 * on groups of combinations and looks at the connection between them. With
 * --max-clients 1 the next client is served within a second or two, not
 * after the seconds of work nobody will read.
 */
static void a_sweep_is_abandoned_when_its_client_hangs_up(void **state)
{
    (void)state;
    enum { BARS = 50000, COMBOS = 25 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--max-clients", "1", NULL};
    int fd = start_engine(&e, "abandon.sock", args, path);
    double *series = malloc(BARS * sizeof *series);
    gbm_series(series, BARS, 7);
    struct combo_params heavy[COMBOS];
    for (int k = 0; k < COMBOS; k++)
        heavy[k] = (struct combo_params){1000, 1000, 1000, 1000, 1000, 1000};
    size_t len = (size_t)request_body_size(BARS, COMBOS);
    uint8_t *body = malloc(len);
    request_encode(body, OP_SWEEP, series, BARS, heavy, COMBOS);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    sleep_ms(300);
    close(fd);                                       /* hangs up mid-sweep */
    assert_the_slot_is_free_again(&e, path);
    free(body);
    free(series);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * One combination can be all of a sweep's work. A 61-byte loaded sweep of
 * one combination whose windows are all 100,000, on a loaded series of
 * 200,000 bars, once kept a core busy for minutes after its client hung up,
 * the engine's only slot taken meanwhile: the engine looked at the
 * connection only between combinations. It now looks every few million
 * steps from inside the kernel's loops, with either kernel.
 */
static void one_combination_is_abandoned_when_its_client_hangs_up(void **state)
{
    (void)state;
    enum { BARS = 200000, WINDOW = 100000 };
    double *series = malloc(BARS * sizeof *series);
    gbm_series(series, BARS, 11);
    size_t load_len = (size_t)request_body_size(BARS, 0);
    uint8_t *load = malloc(load_len), sweep[REQUEST_HEADER_BYTES + PARAM_BYTES];
    request_encode(load, OP_LOAD, series, BARS, NULL, 0);
    struct combo_params heavy = {WINDOW, WINDOW, WINDOW, WINDOW, WINDOW, WINDOW};
    request_encode(sweep, OP_SWEEP_LOADED, NULL, 0, &heavy, 1);
    for (size_t k = 0; k < N_KERNELS; k++) {              /* every kernel the engine offers */
        if (!KERNELS[k].engine)
            continue;
        struct engine_process e;
        char path[108];
        char *const args[] = {"--max-clients", "1", "--max-work", "1000000000000",
                              "--kernel", (char *)KERNELS[k].name, NULL};
        int fd = start_engine(&e, "abandon-one.sock", args, path);
        uint32_t word;
        uint8_t *reply = NULL;
        assert_int_equal(send_frame(fd, (uint32_t)load_len, load, load_len), 0);
        assert_int_equal(read_frame(fd, &word, &reply, TEST_IO_TIMEOUT_MS), 0);
        assert_int_equal(word, 0);                      /* loaded: an empty reply */
        free(reply);
        assert_int_equal(send_frame(fd, sizeof sweep, sweep, sizeof sweep), 0);
        assert_int_equal(sizeof sweep + FRAME_HEADER_BYTES, 61);
        sleep_ms(300);
        close(fd);                                      /* hangs up inside the combination */
        assert_the_slot_is_free_again(&e, path);
        stop_engine_checked(&e, SIGTERM);
    }
    free(load);
    free(series);
}

/*
 * Issue 33: a client that shut down its sending side after its last request
 * (a common way to say "that was all") lost any sweep longer than a tenth
 * of a second: the watch took the half-close for a hang-up. The client still
 * reads, so the sweep (some 3.5e8 steps, watched) is answered in full.
 */
static void a_half_closed_client_still_gets_its_long_sweep(void **state)
{
    (void)state;
    enum { BARS = 50000 };
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "half-close.sock", NULL, path);
    double *series = malloc(BARS * sizeof *series);
    gbm_series(series, BARS, 5);
    struct combo_params long_one = {1000, 1000, 1000, 1000, 1000, 1000};
    assert_true(sweep_work(&long_one, 1, BARS) >= (1ull << 27));   /* long enough to be watched */
    size_t len = (size_t)request_body_size(BARS, 1);
    uint8_t *body = malloc(len);
    request_encode(body, OP_SWEEP, series, BARS, &long_one, 1);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    assert_int_equal(shutdown(fd, SHUT_WR), 0);          /* "that was my last request" */
    uint32_t word = 0;
    uint8_t *reply = NULL;
    int r = read_frame(fd, &word, &reply, 30000);
    if (r != 0)
        fail_msg("a half-closed client got no reply (%d)", r);
    if (word & ERROR_FRAME_FLAG)
        fail_msg("a half-closed client's sweep was refused: %s", (char *)reply);
    assert_int_equal(word & FRAME_LENGTH_MASK, RESULT_BYTES);
    free(reply);
    close(fd);
    free(body);
    free(series);
    stop_engine_checked(&e, SIGTERM);
}

/* A link whose client is always gone, for the service alone. */
static int always_gone(void *ctx)
{
    (void)ctx;
    return 1;
}

/*
 * Issue 33: one bar of a wide, warm stream was seconds of work, done to
 * the end for a client that had gone (12.9 s of CPU, the slot held). A bar
 * is watched as a sweep is: here 400,000 combinations whose four close
 * windows are 256 bars, warm after 256 bars, make a bar of some 4e8 steps,
 * and a link that reports its client gone ends it within the watch's look
 * (a tenth of a second), with an error that says why, and the stream closed.
 */
static void a_stream_bar_is_abandoned_when_its_client_has_gone(void **state)
{
    (void)state;
    enum { COMBOS = 400000, WINDOW = 256 };
    struct engine_config cfg = {.max_frame = 1u << 30, .max_work = DEFAULT_MAX_WORK,
                                .sweep = sweep_naive_in};
    struct combo_params *params = malloc(COMBOS * sizeof *params);
    for (size_t k = 0; k < COMBOS; k++)
        params[k] = (struct combo_params){WINDOW, WINDOW, 1, WINDOW, WINDOW, 1};
    size_t len = (size_t)request_body_size(0, COMBOS);
    uint8_t *open = malloc(len), bar[REQUEST_HEADER_BYTES + 8];
    request_encode(open, OP_OPEN_STREAM, NULL, 0, params, COMBOS);
    char err[512] = "";
    struct connection conn;
    connection_init(&conn, &cfg);
    if (handle_request(&conn, open, len, err, sizeof err) != 0)
        fail_msg("opening the stream: %s", err);
    assert_true(conn.stream_work >= (1ull << 27));
    double close = 100.0;
    for (int b = 0; b < WINDOW; b++) {                   /* warm: every window full */
        request_encode(bar, OP_BAR, &close, 1, NULL, 0);
        if (handle_request(&conn, bar, sizeof bar, err, sizeof err) != 0)
            fail_msg("bar %d: %s", b, err);
        close += 0.5;
    }
    struct fd_pair none = {-1, -1};
    struct byte_link gone = fd_link(&none);
    gone.peer_gone = always_gone;
    conn.link = &gone;
    request_encode(bar, OP_BAR, &close, 1, NULL, 0);
    uint64_t start = clock_ns();
    int r = handle_request(&conn, bar, sizeof bar, err, sizeof err);
    double ms = (double)(clock_ns() - start) / 1e6;
    conn.link = NULL;
    int streaming = conn.streaming;
    connection_free(&conn);
    free(open);
    free(params);
    if (r == 0)
        fail_msg("a bar of %d combinations was made whole (%.0f ms) for a client that had gone",
                 COMBOS, ms);
    if (strstr(err, "abandoned") == NULL || streaming)
        fail_msg("the abandoned bar said \"%s\" and left the stream %s", err,
                 streaming ? "open" : "closed");
}

/*
 * A close that is not a finite number (NaN, an infinity) is refused, and the
 * error names the first one: a NaN once went into the kernel, whose
 * comparisons are all false on it, and a plausible PnL came back. Echo
 * computes nothing and still returns any bits verbatim (see above).
 */
static void non_finite_closes_are_refused_naming_the_first(void **state)
{
    (void)state;
    enum { BARS = 64 };
    struct engine_config cfg = {.max_frame = 1u << 20, .max_work = DEFAULT_MAX_WORK,
                                .sweep = sweep_naive_in};
    double closes[BARS];
    struct combo_params p = {2, 4, 2, 2, 2, 4};
    const struct {
        enum opcode op;
        size_t bad;            /* the first non-finite close */
        double value;
        const char *needle;
    } cases[] = {
        {OP_SWEEP, 17, NAN, "close[17] is nan"},
        {OP_SWEEP, 0, INFINITY, "close[0] is inf"},
        {OP_SWEEP, BARS - 1, -INFINITY, "close[63] is -inf"},
        {OP_LOAD, 5, NAN, "close[5] is nan"},
        {OP_BAR, 0, INFINITY, "close[0] is inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t n_bars = cases[i].op == OP_BAR ? 1 : BARS;
        uint32_t n_combos = cases[i].op == OP_SWEEP ? 1 : 0;
        for (size_t t = 0; t < BARS; t++)
            closes[t] = 100.0 + (double)(t % 7);
        closes[cases[i].bad] = cases[i].value;
        if (cases[i].bad + 3 < n_bars)
            closes[cases[i].bad + 3] = NAN;             /* a later one is not named */
        size_t len = (size_t)request_body_size(n_bars, n_combos);
        uint8_t *body = malloc(len);
        request_encode(body, cases[i].op, closes, n_bars, &p, n_combos);
        char err[512] = "";
        struct connection conn;
        connection_init(&conn, &cfg);
        if (cases[i].op == OP_BAR) {
            uint8_t open[REQUEST_HEADER_BYTES + PARAM_BYTES];
            request_encode(open, OP_OPEN_STREAM, NULL, 0, &p, 1);
            assert_int_equal(handle_request(&conn, open, sizeof open, err, sizeof err), 0);
        }
        if (handle_request(&conn, body, len, err, sizeof err) == 0)
            fail_msg("case %zu: a request with %g at close[%zu] was served", i,
                     cases[i].value, cases[i].bad);
        if (strstr(err, cases[i].needle) == NULL)
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, cases[i].needle);
        connection_free(&conn);
        free(body);
    }

    /* Through the engine: an error frame, then the connection is closed. */
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "nonfinite.sock", NULL, path);
    for (size_t t = 0; t < BARS; t++)
        closes[t] = 100.0;
    closes[9] = NAN;
    size_t len = (size_t)request_body_size(BARS, 1);
    uint8_t *body = malloc(len);
    request_encode(body, OP_SWEEP, closes, BARS, &p, 1);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    assert_error_frame_then_eof(fd, "close[9] is nan", NULL, 0);
    close(fd);
    free(body);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- JSON ------------------------------------------------------------------ */

/* Sends a JSON body on a fresh connection; returns the reply frame's word
 * and body (the caller frees it). */
static uint32_t json_round_trip(const char *path, const char *text, size_t len, uint8_t **reply)
{
    int fd = connect_unix(path);
    assert_true(fd >= 0);
    assert_int_equal(send_frame(fd, (uint32_t)len, text, len), 0);
    uint32_t word = 0;
    if (read_frame(fd, &word, reply, TEST_IO_TIMEOUT_MS) != 0)
        fail_msg("no reply to a JSON body of %zu bytes", len);
    close(fd);
    return word;
}

/*
 * A JSON body is known by its content: an object after optional white
 * space and a UTF-8 byte-order mark. Such bodies once went to the binary
 * decoder ("unknown opcode 32", "... 239"), as did a top-level array
 * ("unknown opcode 91"), which must be refused as JSON; and an object with
 * a key twice was accepted, the last value winning, where it must be
 * refused.
 */
static void json_is_known_by_its_content_and_duplicate_keys_are_refused(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "json.sock", NULL, path));
    size_t len;
    char *sweep = json_request_encode(ref.close, REF_BARS, ref.params, REF_COMBOS, &len);
    assert_non_null(sweep);
    static const char *const prefixes[] = {" ", "\r\n\t  ", "\xef\xbb\xbf", "\xef\xbb\xbf \n"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        char *text = malloc(n + len);
        memcpy(text, prefixes[i], n);
        memcpy(text + n, sweep, len);
        uint8_t *reply;
        uint32_t word = json_round_trip(path, text, n + len, &reply);
        if (word & ERROR_FRAME_FLAG)
            fail_msg("a JSON sweep after %zu bytes of prefix was refused: %s", n, (char *)reply);
        struct combo_result results[REF_COMBOS];
        char err[256];
        if (json_reply_decode((const char *)reply, word, results, REF_COMBOS, err, sizeof err))
            fail_msg("prefix %zu: %s", i, err);
        assert_reference_results(results);
        free(reply);
        free(text);
    }
    static const struct {
        const char *text, *needle;
    } refused[] = {
        {"[1, 2, 3]", "must be an object"},
        {"  [{\"op\":\"sweep\"}]", "must be an object"},
        {"\xef\xbb\xbf[]", "must be an object"},
        {"{\"op\":\"sweep\",\"close\":[1,2,3],\"close\":[4,5,6],\"params\":[]}", "duplicate"},
        {"{\"op\":\"sweep\",\"op\":\"sweep\",\"close\":[1,2],\"params\":[]}", "duplicate"},
        {" x", "invalid JSON"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        uint8_t *reply;
        uint32_t word = json_round_trip(path, refused[i].text, strlen(refused[i].text), &reply);
        if (!(word & ERROR_FRAME_FLAG) || strstr((char *)reply, refused[i].needle) == NULL)
            fail_msg("JSON body %zu: expected an error with \"%s\", got %s \"%s\"", i,
                     refused[i].needle, word & ERROR_FRAME_FLAG ? "the error" : "a reply",
                     word & ERROR_FRAME_FLAG ? (char *)reply : "");
        assert_true(is_utf8_text(reply, word & FRAME_LENGTH_MASK));
        free(reply);
    }
    free(sweep);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- Bad frames: one engine that must survive all of them ------------------- */

/* The reference sweep's request is exactly the engine's maximum frame. */
static struct engine_process bad_engine;
static char bad_path[108];
static uint32_t bad_max_frame;

static int bad_frames_setup(void **state)
{
    (void)state;
    static char max_frame[32];
    bad_max_frame = (uint32_t)request_body_size(REF_BARS, REF_COMBOS);
    snprintf(max_frame, sizeof max_frame, "%u", bad_max_frame);
    char *const args[] = {"--max-frame", max_frame, NULL};
    char err[CLIENT_ERROR_SIZE] = "";
    scratch_path(bad_path, sizeof bad_path, "bad.sock");
    int fd = engine_start_tracked(&bad_engine, args, bad_path, NULL, err);
    if (fd < 0) {
        fprintf(stderr, "cannot start the engine: %s\n", err);
        return -1;
    }
    close(fd);
    untrack_child(bad_engine.pid);             /* it belongs to the group, not a test */
    group_child = bad_engine.pid;
    return 0;
}

static int bad_frames_teardown(void **state)
{
    (void)state;
    kill_engine(&bad_engine);
    group_child = 0;
    return 0;
}

struct bad_frame {
    const char *what;
    uint32_t word;             /* the length word sent */
    enum { BODY_NONE, BODY_REFERENCE, BODY_ZEROS, BODY_ECHO10 } body;
    size_t send;               /* bytes of body actually sent (SIZE_MAX: word's worth) */
    int opcode;                /* -1: leave the reference's */
    int combo, param;          /* param to overwrite (-1: none) */
    int64_t value;
    size_t header_bytes;       /* send only this many header bytes (4: all) */
    int shut;                  /* shut down writing after sending */
    const char *needle;        /* in the error message */
};

#define REF_LEN ((uint32_t)(9 + 8 * REF_BARS + 48 * REF_COMBOS))

static const struct bad_frame BAD_FRAMES[] = {
    {"a frame one byte over --max-frame", REF_LEN + 1, BODY_NONE, 0, -1, -1, -1, 0, 4, 0,
     "exceeds the engine's maximum of 24297"},
    {"a length word of 2^31 - 1", 0x7fffffffu, BODY_NONE, 0, -1, -1, -1, 0, 4, 0,
     "frame of 2147483647 bytes exceeds"},
    {"a request length word with the error bit set", 0x80000020u, BODY_NONE, 0, -1, -1, -1, 0,
     4, 0, "exceeds"},
    {"a truncated header (2 bytes, then end of stream)", 0, BODY_NONE, 0, -1, -1, -1, 0, 2, 1,
     "the connection ended in the middle of the frame's header"},
    {"a truncated body (100 announced, 10 sent, then end of stream)", 100, BODY_ZEROS, 10, -1,
     -1, -1, 0, 4, 1, "the connection ended in the middle of the frame's body"},
    {"a zero-length frame", 0, BODY_NONE, 0, -1, -1, -1, 0, 4, 0,
     "request body of 0 bytes is shorter than its 9-byte header"},
    {"a body shorter than the request header", 5, BODY_ZEROS, SIZE_MAX, -1, -1, -1, 0, 4, 0,
     "request body of 5 bytes is shorter than its 9-byte header"},
    {"a body 8 bytes shorter than its counts say", REF_LEN - 8, BODY_REFERENCE, SIZE_MAX, -1,
     -1, -1, 0, 4, 0, "body is 24289 bytes but n_bars = 3000 and n_combos = 6 require 24297"},
    {"a body 8 bytes longer than its counts say", 9 + 80 + 8, BODY_ECHO10, SIZE_MAX, -1, -1,
     -1, 0, 4, 0, "body is 97 bytes but n_bars = 10 and n_combos = 0 require 89"},
    {"an unknown opcode", REF_LEN, BODY_REFERENCE, SIZE_MAX, OPCODE_COUNT, -1, -1, 0, 4, 0,
     "unknown opcode"},
    {"opcode 255", REF_LEN, BODY_REFERENCE, SIZE_MAX, 255, -1, -1, 0, 4, 0,
     "unknown opcode 255"},
    {"a zero window", REF_LEN, BODY_REFERENCE, SIZE_MAX, -1, 2, 1, 0, 4, 0,
     "combo 2, parameter 1: window 0 is outside 1..n_bars (3000)"},
    {"a negative window", REF_LEN, BODY_REFERENCE, SIZE_MAX, -1, 5, 5, -3, 4, 0,
     "combo 5, parameter 5: window -3 is outside"},
    {"a window longer than the series", REF_LEN, BODY_REFERENCE, SIZE_MAX, -1, 0, 0, 3001, 4,
     0, "combo 0, parameter 0: window 3001 is outside 1..n_bars (3000)"},
    {"a sweep of no bars", 9, BODY_ZEROS, SIZE_MAX, OP_SWEEP, -1, -1, 0, 4, 0,
     "opcode 0 (sweep) needs n_bars >= 1"},
};

static void bad_frame_gets_an_error_frame_then_the_engine_serves_on(void **state)
{
    const struct bad_frame *b = *state;
    size_t body_len = 0;
    uint8_t *body = NULL;
    if (b->body == BODY_REFERENCE || b->body == BODY_ECHO10) {
        body = b->body == BODY_ECHO10 ? reference_request(OP_ECHO, 10, 0, &body_len)
                                      : reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &body_len);
        body = realloc(body, body_len + 64);
        memset(body + body_len, 0, 64);
        if (b->opcode >= 0)
            body[0] = (uint8_t)b->opcode;
        if (b->combo >= 0)
            le_put_i64s(body + 9 + 8 * REF_BARS + 48 * b->combo + 8 * b->param, &b->value, 1);
    } else {
        body_len = 256;
        body = calloc(1, body_len);
        if (b->opcode >= 0)
            body[0] = (uint8_t)b->opcode;
    }
    size_t send = b->send == SIZE_MAX ? b->word : b->send;
    if (b->body == BODY_NONE)
        send = 0;
    assert_true(send <= body_len + 64);

    int fd = connect_unix(bad_path);
    assert_true(fd >= 0);
    uint8_t header[4];
    le_put_u32(header, b->word);
    assert_int_equal(send_bytes(fd, header, b->header_bytes), 0);
    if (send > 0)
        assert_int_equal(send_bytes(fd, body, send), 0);
    if (b->shut)
        shutdown(fd, SHUT_WR);
    char message[512];
    assert_error_frame_then_eof(fd, b->needle, message, sizeof message);
    close(fd);
    free(body);

    assert_engine_alive(&bad_engine);
    assert_new_client_sweeps(bad_path);
}

/* A request of exactly --max-frame bytes is served (the bound is inclusive). */
static void a_frame_of_exactly_max_frame_is_served(void **state)
{
    (void)state;
    assert_int_equal(bad_max_frame, REF_LEN);
    assert_new_client_sweeps(bad_path);
    assert_engine_alive(&bad_engine);
}

/*
 * A client may send its next requests before the replies to the last: the
 * engine reads what has arrived in one go, so the bytes of later frames
 * that came with a frame must start the next ones. Three echoes leave in
 * two writes, the second frame's length word cut after two bytes; each
 * comes back whole and in order, on one connection.
 */
static void frames_sent_together_are_answered_in_order(void **state)
{
    (void)state;
    static const size_t n[3] = {1, 1000, 3};
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "together.sock", NULL, path));
    double *values[3];
    uint8_t *frames = NULL;
    size_t total = 0, cut = 0;
    for (int k = 0; k < 3; k++) {
        values[k] = bit_patterns(n[k], 11 + (uint64_t)k);
        size_t len = (size_t)request_body_size((uint32_t)n[k], 0);
        frames = realloc(frames, total + FRAME_HEADER_BYTES + len);
        assert_non_null(frames);
        le_put_u32(frames + total, (uint32_t)len);
        request_encode(frames + total + FRAME_HEADER_BYTES, OP_ECHO, values[k], (uint32_t)n[k],
                       NULL, 0);
        total += FRAME_HEADER_BYTES + len;
        if (k == 0)
            cut = total + 2;                   /* inside the second frame's length word */
    }
    int fd = connect_unix(path);
    assert_true(fd >= 0);
    assert_int_equal(send_bytes(fd, frames, cut), 0);
    sleep_ms(20);                              /* the engine reads the first part alone */
    assert_int_equal(send_bytes(fd, frames + cut, total - cut), 0);
    for (int k = 0; k < 3; k++) {
        uint32_t word;
        uint8_t *body;
        assert_int_equal(read_frame(fd, &word, &body, TEST_IO_TIMEOUT_MS), 0);
        assert_int_equal(word, n[k] * 8);
        double *back = malloc(n[k] * sizeof *back);
        assert_non_null(back);
        le_get_f64s(back, body, n[k]);
        assert_memory_equal(back, values[k], n[k] * sizeof *back);
        free(back);
        free(body);
        free(values[k]);
    }
    close(fd);
    free(frames);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- Clients that stall, idle, vanish, or crowd in ----------------------- */

static void client_vanishing_mid_reply_does_not_take_the_engine_down(void **state)
{
    (void)state;
    enum { N = 150000 };
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "vanish.sock", NULL, path));
    double *values = bit_patterns(N, 7);
    size_t len = (size_t)request_body_size(N, 0);
    uint8_t *body = malloc(len);
    request_encode(body, OP_ECHO, values, N, NULL, 0);
    for (int i = 0; i < 6; i++) {
        int fd = connect_unix(path);
        assert_true(fd >= 0);
        if (i == 5)
            shutdown(fd, SHUT_RD);
        assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
        if (i == 5) {
            /* It shut down reading before sending: the reply can only meet EPIPE. */
        } else if (i % 2 == 0) {
            /* The 1.2 MB reply cannot fit the socket's buffer: once its header
             * is here the engine is blocked writing the rest when we leave. */
            uint8_t header[4];
            assert_int_equal(read_exact(fd, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            assert_int_equal(le_get_u32(header), N * 8);
        }
        close(fd);
    }
    sleep_ms(50);
    assert_engine_alive(&e);
    assert_new_client_sweeps(path);
    free(values);
    free(body);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * A client that asks for 1.2 MB and never reads it: the engine gives up
 * writing after the frame timeout and closes; the client finds a partial
 * reply and then the end of the stream. Meanwhile others are served.
 */
static void client_not_reading_its_reply_is_dropped(void **state)
{
    (void)state;
    enum { N = 150000 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--frame-timeout", "300", NULL};
    close(start_engine(&e, "noread.sock", args, path));
    double *values = bit_patterns(N, 3);
    size_t len = (size_t)request_body_size(N, 0);
    uint8_t *body = malloc(len);
    request_encode(body, OP_ECHO, values, N, NULL, 0);
    int fd = connect_unix(path);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    assert_new_client_sweeps(path);
    sleep_ms(1200);
    size_t got = 0;
    uint8_t chunk[65536];
    uint64_t deadline = deadline_after_ms(TEST_IO_TIMEOUT_MS);
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            break;
        if ((errno == EAGAIN || errno == EINTR) && clock_ns() < deadline)
            continue;
        fail_msg("reading the partial reply: %s", strerror(errno));
    }
    if (got >= 4 + (size_t)N * 8)
        fail_msg("the whole reply (%zu bytes) arrived; the engine should have given up", got);
    close(fd);
    assert_engine_alive(&e);
    assert_new_client_sweeps(path);
    free(values);
    free(body);
    stop_engine_checked(&e, SIGTERM);
}

/* Half a frame, then silence: dropped by the frame timeout (the idle timeout
 * is a minute, the test's wait five seconds), while another client is served. */
static void stalled_client_is_dropped_after_the_frame_timeout(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    char *const args[] = {"--frame-timeout", "300", "--idle-timeout", "60000", NULL};
    close(start_engine(&e, "stall.sock", args, path));
    int fd = connect_unix(path);
    uint8_t partial[4 + 10] = {0};
    le_put_u32(partial, 100);
    assert_int_equal(send_bytes(fd, partial, sizeof partial), 0);
    assert_new_client_sweeps(path);                    /* while the stalled one waits */
    assert_error_frame_then_eof(fd, "the frame's body did not arrive within 300 ms", NULL, 0);
    close(fd);
    assert_engine_alive(&e);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

/* Half a header, then silence: the frame deadline starts at a frame's first
 * byte, so the idle timeout (a minute here) does not protect a stalled frame. */
static void half_a_header_is_dropped_after_the_frame_timeout(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    char *const args[] = {"--frame-timeout", "300", "--idle-timeout", "60000", NULL};
    close(start_engine(&e, "half.sock", args, path));
    int fd = connect_unix(path);
    const uint8_t two[2] = {0x10, 0x00};
    assert_int_equal(send_bytes(fd, two, 2), 0);
    assert_new_client_sweeps(path);                    /* while the stalled one waits */
    assert_error_frame_then_eof(fd, "the frame's header did not arrive within 300 ms", NULL, 0);
    close(fd);
    assert_engine_alive(&e);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * A client that reads its 1.2 MB reply slowly (64 KiB per 100 ms, about 2 s
 * in all) may not hold its connection past the frame timeout: the engine
 * gives up writing and closes, so the whole reply never arrives. (A blocking
 * writev on a Unix socket restarts its timeout for every chunk, so this
 * needs the engine to bound the write as a whole.)
 */
static void slow_reader_is_dropped_after_the_frame_timeout(void **state)
{
    (void)state;
    enum { N = 150000 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--frame-timeout", "300", NULL};
    close(start_engine(&e, "slow.sock", args, path));
    int fd = connect_unix(path);
    size_t len = (size_t)request_body_size(N, 0);
    uint8_t *body = calloc(1, len);
    body[0] = OP_ECHO;
    le_put_u32(body + 1, N);
    assert_int_equal(send_frame(fd, (uint32_t)len, body, len), 0);
    free(body);
    size_t got = 0;
    int ended = 0;
    uint8_t chunk[65536];
    uint64_t deadline = deadline_after_ms(8000);
    while (got < 4 + (size_t)N * 8 && clock_ns() < deadline) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r == 0) {
            ended = 1;
            break;
        }
        if (r > 0)
            got += (size_t)r;
        sleep_ms(100);
    }
    close(fd);
    if (got >= 4 + (size_t)N * 8)
        fail_msg("a client reading 64 KiB per 100 ms received all %zu bytes; the frame "
                 "timeout of 300 ms was not applied to the write", got);
    assert_true(ended);
    assert_engine_alive(&e);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

/* A client that sends nothing for longer than the idle timeout is told so. */
static void idle_client_is_dropped_after_the_idle_timeout(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    char *const args[] = {"--idle-timeout", "300", NULL};
    int fd = start_engine(&e, "idle.sock", args, path);
    assert_sweep_over(fd);                             /* served, then silent */
    assert_error_frame_then_eof(fd, "idle timeout of 300 ms", NULL, 0);
    close(fd);
    assert_engine_alive(&e);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

static void client_beyond_max_clients_is_told_busy(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    char *const args[] = {"--max-clients", "2", NULL};
    int a = start_engine(&e, "busy.sock", args, path);          /* client 1 */
    int b = connect_unix(path);                                  /* client 2 */
    assert_true(b >= 0);
    assert_sweep_over(b);                              /* b is accepted and counted */
    int c = connect_unix(path);                                  /* client 3 */
    assert_true(c >= 0);
    assert_error_frame_then_eof(c, "engine busy: 2 clients are connected", NULL, 0);
    close(c);
    /* Refused clients that stop reading at once: when the busy message meets
     * EPIPE (whenever the shutdown wins the race with it), the engine lives. */
    for (int i = 0; i < 10; i++) {
        int gone = connect_unix(path);
        assert_true(gone >= 0);
        shutdown(gone, SHUT_RD);
        close(gone);
    }
    sleep_ms(50);
    assert_engine_alive(&e);
    assert_sweep_over(a);                              /* the two are unaffected */
    assert_sweep_over(b);
    close(a);
    /* A's slot comes back once its thread has noticed; give it up to 3 s. */
    uint64_t deadline = deadline_after_ms(3000);
    for (;;) {
        char err[CLIENT_ERROR_SIZE] = "";
        int r = reference_sweep_on_a_new_client(path, err);
        if (r == 0)
            break;
        /* Still busy: the refusal arrives as an error frame, or, when the
         * engine closed the refused connection before the request was fully
         * written, as a broken pipe or a reset while sending. */
        int refused = (r == -2 && strstr(err, "busy") != NULL) ||
                      (r == -1 && (strstr(err, "Broken pipe") != NULL ||
                                   strstr(err, "reset") != NULL));
        if (!refused || clock_ns() > deadline)
            fail_msg("after a client left, a new one was not served: %s", err);
        sleep_ms(20);
    }
    close(b);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * A slot is freed with its connection: a client that closes and at once
 * connects again must be served, not told "busy" because the thread of its
 * first connection had not yet noticed the close (114 of 500 were refused
 * with --max-clients 1).
 */
static void a_client_that_reconnects_at_once_is_not_told_busy(void **state)
{
    (void)state;
    enum { RECONNECTS = 500 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--max-clients", "1", NULL};
    close(start_engine(&e, "reconnect.sock", args, path));
    int refused = 0;
    char last[CLIENT_ERROR_SIZE] = "";
    for (int i = 0; i < RECONNECTS; i++) {
        int fd = connect_unix(path);
        assert_true(fd >= 0);
        struct test_client c;
        double one = (double)i, back = 0;
        tclient_init(&c, fd, fd);
        if (tclient_echo(&c, &one, 1, &back, last) != 0)
            refused++;
        tclient_close(&c);
    }
    if (refused > 0)
        fail_msg("%d of %d clients that reconnected at once were refused (last: %s)",
                 refused, RECONNECTS, last);
    stop_engine_checked(&e, SIGTERM);
}

/* CPU time the process has used, user and system, in ms (from /proc). */
static long cpu_ms_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL || fgets(text, sizeof text, f) == NULL) {
        if (f != NULL)
            fclose(f);
        return -1;
    }
    fclose(f);
    unsigned long utime = 0, stime = 0;
    const char *after = strrchr(text, ')');             /* the name may hold spaces */
    if (after == NULL ||
        sscanf(after + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
               &stime) != 2)
        return -1;
    return (long)((utime + stime) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* The descriptor limit at which the process has exactly `room` free
 * descriptor numbers (a descriptor takes the lowest free number, and the
 * limit caps the number, not the count), or -1. */
static int limit_leaving_room(pid_t pid, int room)
{
    char path[64];
    static unsigned char used[65536];
    memset(used, 0, sizeof used);
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        long n = strtol(e->d_name, NULL, 10);
        if (e->d_name[0] != '.' && n >= 0 && n < (long)sizeof used)
            used[n] = 1;
    }
    closedir(d);
    for (int limit = 0, free_numbers = 0; limit < (int)sizeof used; limit++) {
        if (free_numbers == room)
            return limit;
        free_numbers += !used[limit];
    }
    return -1;
}

/*
 * An engine out of file descriptors (here its limit is lowered under it to
 * leave room for two clients) tells the next client "busy" and does not
 * spin: accept4 failing with EMFILE once made the loop spin at full speed
 * while queued clients got nothing at all.
 */
static void out_of_descriptors_the_engine_says_busy_and_does_not_spin(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "emfile.sock", NULL, path));
    sleep_ms(50);
    int limit = limit_leaving_room(e.pid, 2);
    assert_true(limit > 0);
    struct rlimit lim = {(rlim_t)limit, (rlim_t)limit};
    assert_int_equal(prlimit(e.pid, RLIMIT_NOFILE, &lim, NULL), 0);
    int a = connect_unix(path), b = connect_unix(path);
    assert_true(a >= 0 && b >= 0);
    assert_sweep_over(a);
    assert_sweep_over(b);
    long cpu_before = cpu_ms_of(e.pid);
    int c = connect_unix(path);
    assert_true(c >= 0);
    assert_error_frame_then_eof(c, "engine busy", NULL, 0);
    close(c);
    sleep_ms(1000);
    long cpu = cpu_ms_of(e.pid) - cpu_before;
    if (cpu > 300)
        fail_msg("the engine used %ld ms of CPU in a second with no work to do", cpu);
    close(a);
    sleep_ms(50);
    assert_new_client_sweeps(path);                /* a freed descriptor serves again */
    close(b);
    stop_engine_checked(&e, SIGTERM);
}

/* --max-clients cannot promise more clients than descriptors allow. */
static void max_clients_is_bounded_by_the_descriptor_limit(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "maxc.sock");
    struct rlimit lim;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
    char too_many[32];
    snprintf(too_many, sizeof too_many, "%llu", (unsigned long long)lim.rlim_cur + 1);
    char *argv[] = {(char *)engine_binary(), "--unix", path, "--max-clients", too_many, NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
    char expected[96];
    snprintf(expected, sizeof expected, "--max-clients: %s is outside 1..", too_many);
    if (r.timed_out || exit_code(&r) != 2 || strstr(r.err, expected) == NULL)
        fail_msg("--max-clients %s with a descriptor limit of %llu: exit %d, stderr \"%s\"",
                 too_many, (unsigned long long)lim.rlim_cur, exit_code(&r), r.err);
    run_result_free(&r);
    assert_int_equal(access(path, F_OK), -1);
}

/*
 * --raw, the transport's floor for the echo measurement: a u32 size once,
 * then each round trip is that many bytes in and the same bytes out. A
 * client that has stopped reading makes the engine's write fail with EPIPE
 * (the raw loop writes without a deadline, so SIGPIPE must be ignored).
 */
static void raw_mode_echoes_bytes_and_survives_a_reader_gone(void **state)
{
    (void)state;
    enum { SIZE = 100000 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--raw", NULL};
    int fd = start_engine(&e, "raw.sock", args, path);
    uint8_t *out = malloc(SIZE), *in = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        out[i] = (uint8_t)(i * 131 + 7);
    uint8_t size_word[4];
    le_put_u32(size_word, SIZE);
    assert_int_equal(send_bytes(fd, size_word, 4), 0);
    for (int round = 0; round < 3; round++) {
        out[0] = (uint8_t)round;
        assert_int_equal(send_bytes(fd, out, SIZE), 0);
        assert_int_equal(read_exact(fd, in, SIZE, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        assert_memory_equal(in, out, SIZE);
    }
    close(fd);

    int gone = connect_unix(path);
    assert_int_equal(send_bytes(gone, size_word, 4), 0);
    shutdown(gone, SHUT_RD);
    assert_int_equal(send_bytes(gone, out, SIZE), 0);
    sleep_ms(100);
    close(gone);
    assert_engine_alive(&e);

    fd = connect_unix(path);
    le_put_u32(size_word, 8);
    assert_int_equal(send_bytes(fd, size_word, 4), 0);
    assert_int_equal(send_bytes(fd, "12345678", 8), 0);
    assert_int_equal(read_exact(fd, in, 8, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    assert_memory_equal(in, "12345678", 8);
    close(fd);
    free(out);
    free(in);
    stop_engine_checked(&e, SIGTERM);
}

/*
 * --raw keeps the engine's time limits: a client that sends nothing, before
 * or after its size word, is dropped after the idle timeout, and one that
 * stops reading is dropped when its echo has waited a frame timeout. Each
 * once kept its thread (and slot) for good.
 */
static void raw_mode_drops_silent_clients_and_non_readers(void **state)
{
    (void)state;
    enum { SIZE = 1 << 20 };
    struct engine_process e;
    char path[108];
    char *const args[] = {"--raw", "--idle-timeout", "300", "--frame-timeout", "300", NULL};
    close(start_engine(&e, "rawtime.sock", args, path));
    uint8_t *buf = calloc(1, SIZE), size_word[4];
    le_put_u32(size_word, SIZE);
    for (int kind = 0; kind < 3; kind++) {
        int fd = connect_unix(path);
        assert_true(fd >= 0);
        if (kind >= 1)
            assert_int_equal(send_bytes(fd, size_word, 4), 0);
        if (kind == 2)                             /* a payload whose echo nobody reads */
            assert_int_equal(send_bytes(fd, buf, SIZE), 0);
        sleep_ms(kind == 2 ? 1200 : 0);
        /* The engine must close the connection: the end of the stream, after
         * at most part of the echo. */
        size_t got = 0;
        int ended = 0;
        uint64_t deadline = deadline_after_ms(3000);
        while (!ended && clock_ns() < deadline) {
            ssize_t r = read(fd, buf, SIZE);
            if (r == 0)
                ended = 1;
            else if (r > 0)
                got += (size_t)r;
            else if (errno != EAGAIN && errno != EINTR)
                ended = 1;                         /* reset by the engine: closed too */
        }
        close(fd);
        if (!ended)
            fail_msg("raw client %d (%s) was not dropped within 3 s", kind,
                     kind == 0 ? "silent" : kind == 1 ? "silent after its size word"
                                                      : "not reading its echo");
        if (got >= (size_t)SIZE)
            fail_msg("the client that did not read got its whole echo");
    }
    free(buf);
    assert_engine_alive(&e);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- Lifetime and the socket file ----------------------------------------- */

static void sigterm_stops_the_engine_and_removes_its_socket(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "term.sock", NULL, path);       /* a client is connected */
    assert_int_equal(access(path, F_OK), 0);
    stop_engine_checked(&e, SIGTERM);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(errno, ENOENT);
    close(fd);
}

static void sigint_stops_the_engine_too(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "int.sock", NULL, path));
    stop_engine_checked(&e, SIGINT);
    assert_int_equal(access(path, F_OK), -1);
}

/* The usual ways of asking a program to stop (a closed terminal, a quit
 * key, the user signals) stop the engine as SIGTERM does: exit status 0
 * and the socket file removed. Each once killed it and left the file. */
static void every_termination_signal_stops_the_engine_cleanly(void **state)
{
    (void)state;
    static const int signals[] = {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct engine_process e;
        char path[108], name[32];
        snprintf(name, sizeof name, "sig%d.sock", signals[i]);
        int fd = start_engine(&e, name, NULL, path);          /* a client is connected */
        stop_engine_checked(&e, signals[i]);
        assert_int_equal(access(path, F_OK), -1);
        close(fd);
    }
}

/* In --stdin mode there is nothing to clean up, and the engine, blocked on
 * its input, must still end when told to (it once swallowed SIGTERM: the
 * handler's byte went to a pipe nobody read, and the read was retried). */
static void a_stdin_engine_ends_on_sigterm(void **state)
{
    (void)state;
    int to_child, from_child, status;
    char err[CLIENT_ERROR_SIZE] = "";
    pid_t pid = engine_spawn_piped(engine_binary(), NULL, NULL, &to_child, &from_child, err);
    if (pid < 0)
        fail_msg("cannot start the engine: %s", err);
    track_child(pid);
    sleep_ms(100);                                     /* let it block on its input */
    assert_int_equal(kill(pid, SIGTERM), 0);
    if (wait_for_exit(pid, 3000, &status) != 0)
        fail_msg("a --stdin engine went on waiting for its input after SIGTERM");
    untrack_child(pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    close(to_child);
    close(from_child);
}

/* A socket file nobody listens on, as a crash or kill -9 leaves it. */
static void make_stale_socket_file(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s >= 0);
    assert_int_equal(bind(s, (struct sockaddr *)&addr, sizeof addr), 0);
    close(s);
}

static void stale_socket_file_is_taken_over(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "stale.sock");
    make_stale_socket_file(path);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(unix_connect(path), -1);                  /* nobody answers */
    assert_int_equal(errno, ECONNREFUSED);

    struct engine_process e;
    int fd = start_engine(&e, "stale.sock", NULL, path);
    assert_sweep_over(fd);
    close(fd);
    assert_new_client_sweeps(path);
    stop_engine_checked(&e, SIGTERM);
}

static void live_engine_path_is_not_stolen(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "live.sock", NULL, path);
    struct stat before, after;
    assert_int_equal(lstat(path, &before), 0);

    char *argv[] = {(char *)engine_binary(), "--unix", path, NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
    if (r.timed_out) {
        run_result_free(&r);
        fail_msg("a second engine on a live path kept running (it took the path over)");
    }
    if (exit_code(&r) == 0 || strstr(r.err, "already listening") == NULL)
        fail_msg("second engine: exit %d, stderr \"%s\"; expected non-zero and "
                 "\"already listening\"", exit_code(&r), r.err);
    run_result_free(&r);

    assert_int_equal(lstat(path, &after), 0);
    assert_true(after.st_ino == before.st_ino);               /* the same socket file */
    assert_sweep_over(fd);                                     /* the old connection */
    assert_new_client_sweeps(path);                            /* and new ones */
    close(fd);
    stop_engine_checked(&e, SIGTERM);
}

/* Copies the engine binary to `to`, mode 0755: user nobody may not reach
 * the build folder (a clone in /root, say), but may run this copy. */
static void copy_engine_for_anyone(const char *to)
{
    int in = open(engine_binary(), O_RDONLY | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    assert_true(in >= 0 && out >= 0);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
    assert_int_equal(close(out), 0);
    assert_int_equal(chmod(to, 0755), 0);
}

/*
 * Runs a second engine on `path` as another user who cannot connect to the
 * live engine's socket there (its probe fails with EACCES): as user nobody
 * when this test runs as root (a copy of the engine beside the socket, in
 * the shared folder, since nobody may not reach the build folder), else as
 * ourselves with the socket's mode cleared. Its exit status and standard
 * error go to *r.
 */
static void run_second_engine_denied(const char *path, struct run_result *r)
{
    char exe[160];
    snprintf(exe, sizeof exe, "%.*s/ipctax-engine", (int)(strrchr(path, '/') - path), path);
    char *argv[] = {(char *)engine_binary(), "--unix", (char *)path, NULL};
    if (getuid() != 0) {
        assert_int_equal(chmod(path, 0), 0);
        assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, r), 0);
        assert_int_equal(chmod(path, 0600), 0);
        return;
    }
    copy_engine_for_anyone(exe);
    argv[0] = exe;
    int err_pipe[2];
    assert_int_equal(pipe2(err_pipe, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(err_pipe[1], STDERR_FILENO);
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            _exit(99);
        execv(argv[0], argv);
        _exit(98);
    }
    track_child(pid);
    close(err_pipe[1]);
    memset(r, 0, sizeof *r);
    r->out = calloc(1, 1);
    r->err = calloc(1, 1);
    struct pollfd p = {err_pipe[0], POLLIN, 0};
    uint64_t deadline = deadline_after_ms(3000);
    while (clock_ns() < deadline && poll(&p, 1, 50) >= 0)
        if (p.revents && !append_from(err_pipe[0], &r->err, &r->err_len))
            break;
    close(err_pipe[0]);
    if (wait_for_exit(pid, 100, &r->status) != 0) {
        r->timed_out = 1;
        kill(pid, SIGKILL);
        waitpid(pid, &r->status, 0);
    }
    untrack_child(pid);
    unlink(exe);
    assert_true(!WIFEXITED(r->status) || (WEXITSTATUS(r->status) != 99 &&
                                          WEXITSTATUS(r->status) != 98));
}

/*
 * In a folder that others may write to (a shared, non-sticky one), a user
 * who cannot connect to a live engine's socket must not take it for stale:
 * its probe fails with EACCES, not ECONNREFUSED. The engine once unlinked
 * the live socket and put its own in its place.
 */
static void a_socket_that_refuses_us_permission_is_not_taken_over(void **state)
{
    (void)state;
    char shared[64], path[108];
    snprintf(shared, sizeof shared, "/tmp/ipctax-shared-XXXXXX");
    assert_non_null(mkdtemp(shared));
    assert_int_equal(chmod(shared, 0777), 0);
    snprintf(path, sizeof path, "%s/live.sock", shared);
    struct engine_process e;
    char err[CLIENT_ERROR_SIZE] = "";
    int fd = engine_start_tracked(&e, NULL, path, NULL, err);
    if (fd < 0)
        fail_msg("cannot start the engine on %s: %s", path, err);
    struct stat before, after;
    assert_int_equal(lstat(path, &before), 0);

    struct run_result r;
    run_second_engine_denied(path, &r);
    int refused = !r.timed_out && exit_code(&r) == 1 && strstr(r.err, "not touching it") != NULL;
    char message[512];
    snprintf(message, sizeof message, "%s", r.err);
    run_result_free(&r);
    int same = lstat(path, &after) == 0 && after.st_ino == before.st_ino;
    unlink(path);
    if (!same) {
        close(fd);
        kill_engine(&e);
        rmdir(shared);
        fail_msg("the live engine's socket was replaced (second engine said \"%s\")", message);
    }
    if (!refused)
        fail_msg("second engine: expected exit 1 and \"not touching it\", got \"%s\"", message);
    assert_sweep_over(fd);
    close(fd);
    kill_engine(&e);
    rmdir(shared);
}

/*
 * A live listener whose backlog is full answers a non-blocking connect with
 * EAGAIN: it is alive, and is left alone. (The probe once blocked in
 * connect, so the second engine hung.)
 */
static void a_live_socket_with_a_full_backlog_is_not_taken_over(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "full.sock");
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(bind(listener, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(listen(listener, 0), 0);
    int queued[4], n = 0, full = 0;
    while (n < 4 && !full) {
        queued[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (connect(queued[n], (struct sockaddr *)&addr, sizeof addr) != 0)
            full = errno == EAGAIN;
        n++;
    }
    assert_true(full);
    struct stat before, after;
    assert_int_equal(lstat(path, &before), 0);
    char *argv[] = {(char *)engine_binary(), "--unix", path, NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
    if (r.timed_out || exit_code(&r) != 1 || strstr(r.err, "already listening") == NULL)
        fail_msg("engine on a live socket with a full backlog: %s, exit %d, stderr \"%s\"",
                 r.timed_out ? "still running after 3 s" : "ended", exit_code(&r), r.err);
    run_result_free(&r);
    assert_int_equal(lstat(path, &after), 0);
    assert_true(after.st_ino == before.st_ino);
    for (int i = 0; i < n; i++)
        close(queued[i]);
    close(listener);
    unlink(path);
}

static void a_file_that_is_not_a_socket_is_left_alone(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "precious.sock");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    char *argv[] = {(char *)engine_binary(), "--unix", path, NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
    if (r.timed_out || exit_code(&r) == 0 || strstr(r.err, "not a socket") == NULL)
        fail_msg("engine on a regular file: exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
    char text[32] = "";
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "precious");
    unlink(path);
}

/* 0600 as documented: only the owner may connect, whatever the umask. */
static void socket_file_is_created_mode_0600(void **state)
{
    (void)state;
    mode_t old = umask(0);                   /* a permissive umask must not matter */
    struct engine_process e;
    char path[108];
    int fd = start_engine(&e, "mode.sock", NULL, path);
    umask(old);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    if ((st.st_mode & 07777) != 0600)
        fail_msg("socket file mode is %04o, expected 0600", (unsigned)(st.st_mode & 07777));
    assert_true(st.st_uid == getuid());
    close(fd);
    stop_engine_checked(&e, SIGTERM);
}

static void bad_options_exit_2_with_a_message(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "opts.sock");
    char *const cases[][6] = {
        {"--kernel", "nosuch", "--unix", path, NULL},
        {"--max-clients", "0", "--unix", path, NULL},
        {"--max-frame", "8", "--unix", path, NULL},
        {"--idle-timeout", "1O", "--unix", path, NULL},
        {"--tcp", "", NULL},
        {"--frame-timeout", "100", NULL},                       /* no transport */
        {"--unix", path, "extra", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8] = {(char *)engine_binary()};
        for (int k = 0; cases[i][k] != NULL; k++)
            argv[k + 1] = cases[i][k];
        struct run_result r;
        assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
        if (exit_code(&r) != 2 || r.err_len == 0)
            fail_msg("case %zu (%s %s): exit %d, stderr \"%s\"; expected 2 and a message", i,
                     cases[i][0], cases[i][1], exit_code(&r), r.err);
        run_result_free(&r);
        assert_int_equal(access(path, F_OK), -1);         /* nothing was created */
    }
}

/* ---- --stdin ------------------------------------------------------------------ */

/* A whole request frame: header and body; caller frees. */
static uint8_t *framed(const uint8_t *body, size_t len, size_t *framed_len)
{
    uint8_t *f = malloc(len + 4);
    le_put_u32(f, (uint32_t)len);
    memcpy(f + 4, body, len);
    *framed_len = len + 4;
    return f;
}

static void stdin_sweep_equals_in_process(void **state)
{
    (void)state;
    /* Through the production client, as the spawn_stdin architecture calls it. */
    struct test_client c;
    tclient_init(&c, -1, -1);
    size_t len = (size_t)request_body_size(REF_BARS, REF_COMBOS);
    assert_non_null(tclient_request_buffer(&c, len));
    request_encode(c.request, OP_SWEEP, ref.close, REF_BARS, ref.params, REF_COMBOS);
    char err[CLIENT_ERROR_SIZE] = "";
    if (engine_spawn_call(&c, engine_binary(), NULL, len, err) != 0)
        fail_msg("engine --stdin: %s", err);
    assert_sweep_reply(c.reply, c.reply_len, 0, REF_COMBOS);
    tclient_close(&c);

    /* And raw: exactly one reply frame on stdout, exit status 0. */
    size_t body_len, in_len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &body_len);
    uint8_t *in = framed(body, body_len, &in_len);
    char *argv[] = {(char *)engine_binary(), "--stdin", NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, in, in_len, 5000, &r), 0);
    assert_int_equal(exit_code(&r), 0);
    assert_int_equal(r.out_len, 4 + 16 * REF_COMBOS);
    assert_int_equal(le_get_u32((uint8_t *)r.out), 16 * REF_COMBOS);
    assert_sweep_reply((uint8_t *)r.out + 4, r.out_len - 4, 0, REF_COMBOS);
    run_result_free(&r);
    free(in);
    free(body);
}

static void stdin_echo_is_verbatim(void **state)
{
    (void)state;
    enum { N = 150000 };
    double *values = bit_patterns(N, 11);
    struct test_client c;
    tclient_init(&c, -1, -1);
    size_t len = (size_t)request_body_size(N, 0);
    assert_non_null(tclient_request_buffer(&c, len));
    request_encode(c.request, OP_ECHO, values, N, NULL, 0);
    char err[CLIENT_ERROR_SIZE] = "";
    if (engine_spawn_call(&c, engine_binary(), NULL, len, err) != 0)
        fail_msg("engine --stdin: %s", err);
    assert_int_equal(c.reply_len, (size_t)N * 8);
    assert_memory_equal(c.reply, values, (size_t)N * 8);
    tclient_close(&c);
    free(values);
}

/* A request the engine refuses: an error frame on stdout and exit status 1. */
static void stdin_bad_request_gets_an_error_frame_and_status_1(void **state)
{
    (void)state;
    size_t body_len, in_len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &body_len);
    const int64_t zero = 0;
    le_put_i64s(body + 9 + 8 * REF_BARS + 48 * 3 + 8 * 4, &zero, 1);
    uint8_t *in = framed(body, body_len, &in_len);
    struct {
        const char *what;
        char *extra[3];
        size_t send;
        const char *needle;
    } cases[] = {
        {"a zero window", {NULL}, in_len, "combo 3, parameter 4: window 0 is outside"},
        {"a truncated body", {NULL}, 4 + 100, "the connection ended in the middle of the frame's body"},
        {"a frame over --max-frame", {"--max-frame", "1000", NULL}, in_len,
         "frame of 24297 bytes exceeds the engine's maximum of 1000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[6] = {(char *)engine_binary(), "--stdin"};
        for (int k = 0; cases[i].extra[k] != NULL; k++)
            argv[2 + k] = cases[i].extra[k];
        struct run_result r;
        assert_int_equal(run_program(argv, NULL, in, cases[i].send, 5000, &r), 0);
        if (exit_code(&r) != 1)
            fail_msg("%s: exit %d, expected 1", cases[i].what, exit_code(&r));
        if (r.out_len < 5)
            fail_msg("%s: %zu bytes on stdout, expected an error frame", cases[i].what, r.out_len);
        uint32_t word = le_get_u32((uint8_t *)r.out);
        assert_true(word & ERROR_FRAME_FLAG);
        size_t n = word & FRAME_LENGTH_MASK;
        assert_int_equal(r.out_len, 4 + n);                    /* nothing else */
        assert_true(is_utf8_text((uint8_t *)r.out + 4, n));
        if (strstr(r.out + 4, cases[i].needle) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].what, r.out + 4,
                     cases[i].needle);
        run_result_free(&r);
    }
    free(in);
    free(body);
}

/* ---- TCP ---------------------------------------------------------------------- */

/* A port on 127.0.0.1 that nothing listens on just now. */
static int pick_port(char port[16], int attempt)
{
    for (int i = 0; i < 200; i++) {
        int p = 20000 + (int)((getpid() + (attempt * 200 + i) * 7919) % 20000);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int s = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int ok = bind(s, (struct sockaddr *)&a, sizeof a) == 0;
        close(s);
        if (ok) {
            snprintf(port, 16, "%d", p);
            return 0;
        }
    }
    return -1;
}

static void tcp_echo_and_sweep(void **state)
{
    (void)state;
    struct engine_process e;
    char port[16], err[CLIENT_ERROR_SIZE] = "";
    int fd = -1;
    for (int attempt = 0; attempt < 5 && fd < 0; attempt++) {
        assert_int_equal(pick_port(port, attempt), 0);
        fd = engine_start_tracked(&e, NULL, NULL, port, err);
    }
    if (fd < 0)
        fail_msg("cannot start the engine on TCP: %s", err);
    int nodelay = 0;
    socklen_t size = sizeof nodelay;
    assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &size), 0);
    assert_int_equal(nodelay, 1);

    enum { N = 150000 };
    double *values = bit_patterns(N, 5);
    double *back = malloc(N * sizeof *back);
    struct test_client c;
    tclient_init(&c, fd, fd);
    if (tclient_echo(&c, values, N, back, err) != 0)
        fail_msg("echo over TCP: %s", err);
    assert_memory_equal(back, values, (size_t)N * 8);
    if (tclient_echo(&c, values, 0, back, err) != 0)
        fail_msg("empty echo over TCP: %s", err);
    c.in_fd = c.out_fd = -1;
    tclient_close(&c);
    assert_sweep_over(fd);

    int fd2 = test_socket(tcp_connect("127.0.0.1", port));
    assert_true(fd2 >= 0);
    nodelay = 0;
    assert_int_equal(getsockopt(fd2, IPPROTO_TCP, TCP_NODELAY, &nodelay, &size), 0);
    assert_int_equal(nodelay, 1);
    assert_sweep_over(fd2);
    /* A refused request over TCP: the error frame arrives, then the end. */
    size_t len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &len);
    const int64_t too_long = REF_BARS + 1;
    le_put_i64s(body + 9 + 8 * REF_BARS, &too_long, 1);
    assert_int_equal(send_frame(fd2, (uint32_t)len, body, len), 0);
    assert_error_frame_then_eof(fd2, "window 3001 is outside", NULL, 0);
    close(fd2);
    assert_sweep_over(fd);
    close(fd);
    free(body);
    free(values);
    free(back);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- Timing, asked for or not ------------------------------------------------ */

/* Two connections to one engine, one plain and one timed, on every opcode. */
static void assert_timing_over_sockets(int plain_fd, int timed_fd, const char *where)
{
    struct reply plain[SESSION_REQUESTS], timed[SESSION_REQUESTS];
    struct fd_pair a = {plain_fd, plain_fd}, b = {timed_fd, timed_fd};
    struct byte_link la = fd_link(&a), lb = fd_link(&b);
    run_session(&la, 0, plain);
    run_session(&lb, 1, timed);
    assert_plain_replies(plain);
    assert_timed_matches_plain(plain, timed, where);
    free_replies(plain);
    free_replies(timed);
}

/*
 * The timing opt-in of paper/50-protocol.md: a client that does not set
 * the opcode's top bit gets the protocol's replies byte for byte; one that
 * does gets the same bytes and a consistent 56-byte trailer, for every
 * opcode, over a Unix socket, TCP and --stdin (and shared memory, in
 * test_shm.c).
 */
static void timing_is_opt_in_on_every_opcode_and_transport(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108], port[16], err[CLIENT_ERROR_SIZE] = "";
    int a = start_engine(&e, "timed.sock", NULL, path), b = connect_unix(path);
    assert_true(b >= 0);
    assert_timing_over_sockets(a, b, "unix");
    close(a);
    close(b);
    stop_engine_checked(&e, SIGTERM);

    a = -1;
    for (int attempt = 0; attempt < 5 && a < 0; attempt++) {
        assert_int_equal(pick_port(port, attempt + 7), 0);
        a = engine_start_tracked(&e, NULL, NULL, port, err);
    }
    if (a < 0)
        fail_msg("cannot start the engine on TCP: %s", err);
    b = test_socket(tcp_connect("127.0.0.1", port));
    assert_true(b >= 0);
    assert_timing_over_sockets(a, b, "tcp");
    close(a);
    close(b);
    stop_engine_checked(&e, SIGTERM);

    for (int k = 0; k < 2; k++) {                    /* --stdin: one request a process */
        struct test_client c;
        uint8_t *replies[2];
        size_t lens[2];
        for (int timed = 0; timed < 2; timed++) {
            size_t len;
            uint8_t *body = session_request(k, timed, &len);
            tclient_init(&c, -1, -1);
            assert_non_null(tclient_request_buffer(&c, len));
            memcpy(c.request, body, len);
            free(body);
            if (engine_spawn_call(&c, engine_binary(), NULL, len, err) != 0)
                fail_msg("--stdin step %d: %s", k, err);
            lens[timed] = c.reply_len;
            replies[timed] = malloc(c.reply_len + 1);
            memcpy(replies[timed], c.reply, c.reply_len);
            tclient_close(&c);
        }
        assert_int_equal(lens[1], lens[0] + TIMING_TRAILER_BYTES);
        assert_memory_equal(replies[1], replies[0], lens[0]);
        struct call_timing t;
        assert_int_equal(timing_trailer_decode(replies[1], lens[1], &t), 0);
        assert_timing_consistent(&t, k, "stdin");
        free(replies[0]);
        free(replies[1]);
    }
}

/* The JSON form: "timing": true adds a member, and changes nothing else. */
static void json_timing_is_opt_in(void **state)
{
    (void)state;
    struct engine_process e;
    char path[108];
    close(start_engine(&e, "jsontimed.sock", NULL, path));
    size_t len, expected_len;
    char *sweep = json_request_encode(ref.close, REF_BARS, ref.params, REF_COMBOS, &len);
    char *expected = json_reply_encode(ref.expected, REF_COMBOS, &expected_len);
    assert_non_null(sweep);
    assert_non_null(expected);
    uint8_t *plain, *timed, *off;
    uint32_t plain_word = json_round_trip(path, sweep, len, &plain);
    assert_int_equal(plain_word, expected_len);            /* the reply it always was */
    assert_memory_equal(plain, expected, expected_len);
    static const char *const asks[] = {",\"timing\":true}", ",\"timing\":false}"};
    char *with = malloc(len + 32);
    for (int i = 0; i < 2; i++) {
        memcpy(with, sweep, len - 1);                      /* without the closing brace */
        strcpy(with + len - 1, asks[i]);
        uint32_t word = json_round_trip(path, with, strlen(with), i == 0 ? &timed : &off);
        assert_false(word & ERROR_FRAME_FLAG);
        if (i == 1) {
            assert_int_equal(word, expected_len);
            assert_memory_equal(off, expected, expected_len);
            free(off);
            continue;
        }
        assert_memory_equal(timed, expected, expected_len - 1);
        assert_memory_equal(timed + expected_len - 1, ",\"timing\":{", 11);
        struct combo_result results[REF_COMBOS];
        struct call_timing t;
        char err[256];
        if (json_reply_decode((const char *)timed, word, results, REF_COMBOS, err, sizeof err) ||
            json_reply_timing((const char *)timed, word, &t, err, sizeof err))
            fail_msg("a timed JSON reply: %s", err);
        assert_reference_results(results);
        assert_timing_consistent(&t, 0, "json");
        free(timed);
    }
    free(with);
    free(plain);
    free(sweep);
    free(expected);
    stop_engine_checked(&e, SIGTERM);
}

/* ---- The command line ----------------------------------------------------------- */

/*
 * When ready, the engine prints one line: where it listens, with the port
 * the kernel chose for --tcp 0. It is written only once the listener
 * accepts, so a client may connect at once, without retrying.
 */
static void the_engine_announces_where_it_listens(void **state)
{
    (void)state;
    char path[108], line[256], expected[160];
    pid_t pid;
    scratch_path(path, sizeof path, "announce.sock");
    char *unix_argv[] = {(char *)engine_binary(), "--unix", path, NULL};
    if (spawn_reading_first_line(unix_argv, &pid, line, sizeof line) != 0)
        fail_msg("no line from an engine on a Unix socket (got \"%s\")", line);
    snprintf(expected, sizeof expected, "listening unix:%s", path);
    assert_string_equal(line, expected);
    int fd = connect_unix(path);                       /* at once: no retry */
    if (fd < 0)
        fail_msg("the engine announced %s but refused a connection: %s", path, strerror(errno));
    assert_sweep_over(fd);
    close(fd);
    end_spawned(pid);

    static char *const tcp_args[] = {"0", "127.0.0.1:0", "[127.0.0.1]:0"};
    for (size_t i = 0; i < sizeof tcp_args / sizeof tcp_args[0]; i++) {
        char *tcp_argv[] = {(char *)engine_binary(), "--tcp", tcp_args[i], NULL};
        if (spawn_reading_first_line(tcp_argv, &pid, line, sizeof line) != 0)
            fail_msg("no line from an engine on --tcp %s (got \"%s\")", tcp_args[i], line);
        unsigned port = 0;
        if (sscanf(line, "listening tcp:127.0.0.1:%u", &port) != 1 || port == 0 || port > 65535)
            fail_msg("--tcp %s announced \"%s\"", tcp_args[i], line);
        char port_text[16];
        snprintf(port_text, sizeof port_text, "%u", port);
        fd = test_socket(tcp_connect("127.0.0.1", port_text));
        if (fd < 0)
            fail_msg("the engine announced port %u but refused a connection", port);
        assert_sweep_over(fd);
        close(fd);
        end_spawned(pid);
    }
}

/* Every bad option is named, with what it allows; a listener that cannot
 * be made says why (once "...: Success"). */
static void options_are_checked_and_refusals_say_why(void **state)
{
    (void)state;
    char path[108], busy_port[16], busy[64];
    scratch_path(path, sizeof path, "opts2.sock");
    int holder = -1;
    for (int attempt = 0; attempt < 5 && holder < 0; attempt++) {
        assert_int_equal(pick_port(busy_port, attempt + 17), 0);
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)atoi(busy_port)),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        holder = socket(AF_INET, SOCK_STREAM, 0);
        if (bind(holder, (struct sockaddr *)&a, sizeof a) != 0 || listen(holder, 1) != 0) {
            close(holder);
            holder = -1;
        }
    }
    assert_true(holder >= 0);
    snprintf(busy, sizeof busy, "127.0.0.1:%s", busy_port);
    /* PATH stands for a socket path in the scratch folder, BUSY for an
     * address whose port is taken. */
    static const struct {
        const char *args[5];
        int status;
        const char *needle;
    } cases[] = {
        {{"--tcp", "70000"}, 2, "--tcp port: 70000 is outside 0..65535"},
        {{"--tcp", "abc"}, 2, "--tcp port: 'abc' is not a whole number in 0..65535"},
        {{"--tcp", "-1"}, 2, "--tcp port: -1 is outside 0..65535"},
        {{"--tcp", "bad host:80"}, 1, "cannot listen on bad host:80: "},
        {{"--tcp", "BUSY"}, 1, ": bind: Address already in use"},
        {{"--max-clients", "0", "--unix", "PATH"}, 2, "--max-clients: 0 is outside 1.."},
        {{"--max-frame", "8", "--unix", "PATH"}, 2, "--max-frame: 8 is outside 9..2147483647"},
        {{"--max-work", "0", "--unix", "PATH"}, 2, "--max-work: 0 is outside 1.."},
        {{"--idle-timeout", "1O", "--unix", "PATH"}, 2,
         "--idle-timeout: '1O' is not a whole number in 1..86400000"},
        {{"--frame-timeout", "86400001", "--unix", "PATH"}, 2,
         "--frame-timeout: 86400001 is outside 1..86400000"},
        {{"--kernel", "fast", "--unix", "PATH"}, 2, "--kernel: 'fast' is not a kernel (naive"},
        {{"--kernel", "tuned-avx9", "--unix", "PATH"}, 2,
         "--kernel: 'avx9' is not a path of the tuned kernel ("},
        {{"--shm", "x", "--shm-wait", "doze"}, 2, "--shm-wait: 'doze' is not futex or spin"},
        {{"--stdin", "--unix", "PATH"}, 2, "give one transport"},
        {{"--frobnicate", "--unix", "PATH"}, 2, "unknown option '--frobnicate'"},
        {{"--unix"}, 2, "--unix needs a value"},
        {{"--max-clients", " 5", "--unix", "PATH"}, 2,
         "--max-clients: ' 5' is not a whole number in 1.."},
        {{"--max-clients", "+5", "--unix", "PATH"}, 2,
         "--max-clients: '+5' is not a whole number in 1.."},
        {{"--idle-timeout", "5 ", "--unix", "PATH"}, 2,
         "--idle-timeout: '5 ' is not a whole number in 1..86400000"},
        {{"--layout", "8, 8, 8", "--unix", "PATH"}, 2, "--layout: '8, 8, 8' is not"},
        {{"--layout", "+8,8,8", "--unix", "PATH"}, 2, "--layout: '+8,8,8' is not"},
        {{"--layout", "-8,8,8", "--unix", "PATH"}, 2, "--layout: '-8,8,8' is not"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[8] = {(char *)engine_binary()};
        for (int k = 0; k < 5 && cases[i].args[k] != NULL; k++) {
            const char *a = cases[i].args[k];
            argv[k + 1] = strcmp(a, "PATH") == 0 ? path : strcmp(a, "BUSY") == 0 ? busy : (char *)a;
        }
        struct run_result r;
        assert_int_equal(run_program(argv, NULL, NULL, 0, 10000, &r), 0);
        if (exit_code(&r) != cases[i].status || strstr(r.err, cases[i].needle) == NULL ||
            strstr(r.err, "Success") != NULL)
            fail_msg("case %zu (%s %s): exit %d, stderr \"%s\"; expected %d and \"%s\"", i,
                     argv[1], argv[2] ? argv[2] : "", exit_code(&r), r.err, cases[i].status,
                     cases[i].needle);
        run_result_free(&r);
        assert_int_equal(access(path, F_OK), -1);
    }
    close(holder);
}

/*
 * A path forced through IPCTAX_TUNED_PATH must be a path this machine runs:
 * anything else is refused before the engine listens, whatever the kernel,
 * with one line naming the variable. The usage lists every path.
 */
static void tuned_path_from_the_environment(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "envpath.sock");
    char *argv[] = {(char *)engine_binary(), "--unix", path, NULL};
    char *envp[] = {"IPCTAX_TUNED_PATH=avx9", NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, envp, NULL, 0, 10000, &r), 0);
    assert_int_equal(exit_code(&r), 2);
    assert_non_null(strstr(r.err, "IPCTAX_TUNED_PATH: 'avx9' is not a path of the tuned kernel"));
    assert_int_equal(access(path, F_OK), -1);
    run_result_free(&r);
    char *help[] = {(char *)engine_binary(), "--help", NULL};
    assert_int_equal(run_program(help, NULL, NULL, 0, 3000, &r), 0);
    for (int p = 0; p < tuned_path_count(); p++) {
        char name[32];
        snprintf(name, sizeof name, "tuned-%s ", tuned_path_name(p));
        assert_non_null(strstr(r.out, name));
    }
    run_result_free(&r);
}

/* -h and --help print the usage on stdout and exit 0; --version prints the
 * commit the engine was built from. */
static void help_and_version(void **state)
{
    (void)state;
    static const char *const helps[] = {"-h", "--help"};
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = {(char *)engine_binary(), (char *)helps[i], NULL};
        struct run_result r;
        assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
        assert_int_equal(exit_code(&r), 0);
        assert_int_equal(r.err_len, 0);
        assert_non_null(strstr(r.out, "usage: ipctax-engine"));
        assert_non_null(strstr(r.out, "--die-with-parent"));
        assert_non_null(strstr(r.out, "listening tcp:HOST:PORT"));
        run_result_free(&r);
    }
    char path[4096], commit[128] = "", release[64] = "", expected[240];
    FILE *f = fopen(root_path(path, sizeof path, "build/commit.txt"), "r");
    assert_non_null(f);
    assert_non_null(fgets(commit, sizeof commit, f));
    fclose(f);
    f = fopen(root_path(path, sizeof path, "build/release.txt"), "r");   /* CITATION.cff's */
    assert_non_null(f);
    assert_non_null(fgets(release, sizeof release, f));
    fclose(f);
    commit[strcspn(commit, "\n")] = '\0';
    release[strcspn(release, "\n")] = '\0';
    snprintf(expected, sizeof expected, "ipctax-engine %s (commit %s)\n", release, commit);
    char *argv[] = {(char *)engine_binary(), "--version", NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 3000, &r), 0);
    assert_int_equal(exit_code(&r), 0);
    assert_string_equal(r.out, expected);
    run_result_free(&r);
}

/*
 * --die-with-parent: an engine whose parent dies stops as on SIGTERM, and
 * removes its socket file. The parent here is a child of the test, which
 * starts the engine and is then killed; the test, a subreaper, inherits the
 * engine and can wait for it.
 */
static void an_engine_dies_with_its_parent(void **state)
{
    (void)state;
    char path[108], line[256];
    scratch_path(path, sizeof path, "orphan.sock");
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t parent = fork();
    assert_true(parent >= 0);
    if (parent == 0) {
        char *argv[] = {(char *)engine_binary(), "--die-with-parent", "--unix", path, NULL};
        pid_t engine;
        close(report[0]);
        if (spawn_reading_first_line(argv, &engine, line, sizeof line) != 0)
            _exit(1);
        if (write(report[1], &engine, sizeof engine) != (ssize_t)sizeof engine)
            _exit(1);
        for (;;)
            pause();
    }
    track_child(parent);
    close(report[1]);
    pid_t engine = 0;
    struct pollfd p = {report[0], POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0 || read(report[0], &engine, sizeof engine) != sizeof engine)
        fail_msg("the intermediate parent did not start the engine");
    close(report[0]);
    track_child(engine);
    assert_int_equal(access(path, F_OK), 0);
    kill(parent, SIGKILL);
    waitpid(parent, NULL, 0);
    untrack_child(parent);
    int status;
    if (wait_for_exit(engine, 3000, &status) != 0)
        fail_msg("the engine outlived its parent by 3 s");
    untrack_child(engine);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the orphaned engine ended with %s %d, expected exit status 0",
                 WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (access(path, F_OK) == 0)
        fail_msg("the orphaned engine left its socket file");
}

/*
 * An engine whose parent is gone before it could ask to die with it has
 * been adopted by init (its parent is pid 1), and stops at once. It once
 * waited for a death that had already happened, and served on for good.
 * The engine here is started by a process whose own parent has just
 * exited; where a subreaper adopts orphans instead of init, the engine
 * cannot tell, and the test says so and skips.
 */
static void an_engine_whose_parent_is_gone_at_start_stops(void **state)
{
    (void)state;
    char path[108];
    scratch_path(path, sizeof path, "orphan-at-start.sock");
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    int out[2];
    assert_int_equal(pipe(out), 0);
    pid_t parent = fork();
    assert_true(parent >= 0);
    if (parent == 0) {
        pid_t me = getpid();
        if (fork() != 0)
            _exit(0);                                   /* the parent goes at once */
        for (int i = 0; i < 5000 && getppid() == me; i++)
            usleep(1000);
        pid_t engine = getppid() == 1 ? getpid() : 0;   /* 0: not adopted by init */
        if (write(out[1], &engine, sizeof engine) != (ssize_t)sizeof engine || engine == 0)
            _exit(1);
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        char *argv[] = {(char *)engine_binary(), "--die-with-parent", "--unix", path, NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    waitpid(parent, NULL, 0);
    pid_t engine = 0;
    struct pollfd p = {out[0], POLLIN, 0};
    if (poll(&p, 1, 6000) <= 0 || read(out[0], &engine, sizeof engine) != sizeof engine)
        fail_msg("the orphan did not report");
    if (engine == 0) {
        close(out[0]);
        print_message("skipped: a subreaper, not init, adopted the orphan here, so the engine "
                      "cannot tell that its parent is gone\n");
        skip();
    }
    track_child(engine);                                /* killed by the teardown on failure */
    char text[512];
    size_t n = 0;
    uint64_t deadline = deadline_after_ms(3000);
    for (;;) {                                          /* until the engine's stdout closes */
        if (clock_ns() > deadline)
            fail_msg("an engine whose parent was gone at its start was still running after "
                     "3 s (it said \"%.*s\")", (int)n, text);
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t r = read(out[0], text + n, sizeof text - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(out[0]);
    untrack_child(engine);
    if (access(path, F_OK) == 0)
        fail_msg("the engine left its socket file");
}

/* ---- Groups -------------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    if (build_programs() != 0 || test_dir_create() != 0)
        return -1;
    reference_job_init();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    test_dir_remove();
    return 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_arm_watchdog, test_disarm_watchdog)
#define BAD(i) {BAD_FRAMES[i].what, bad_frame_gets_an_error_frame_then_the_engine_serves_on, \
                test_arm_watchdog, test_disarm_watchdog, (void *)&BAD_FRAMES[i]}

int main(void)
{
    const struct CMUnitTest service[] = {
        T(echo_returns_the_payload_bit_for_bit),
        T(sweep_equals_the_in_process_kernel),
        T(tuned_kernel_on_every_path),
        T(tuned_path_from_the_environment),
        T(many_requests_on_one_connection),
        T(sweep_of_no_combos_gets_an_empty_reply),
        T(work_above_max_work_is_refused_before_it_starts),
        T(max_work_is_exact_and_admits_the_study),
        T(a_sweep_is_abandoned_when_its_client_hangs_up),
        T(one_combination_is_abandoned_when_its_client_hangs_up),
        T(a_half_closed_client_still_gets_its_long_sweep),
        T(a_stream_bar_is_abandoned_when_its_client_has_gone),
        T(non_finite_closes_are_refused_naming_the_first),
        T(json_is_known_by_its_content_and_duplicate_keys_are_refused),
        T(four_clients_interleave),
        T(frames_sent_together_are_answered_in_order),
        T(client_vanishing_mid_reply_does_not_take_the_engine_down),
        T(client_not_reading_its_reply_is_dropped),
        T(stalled_client_is_dropped_after_the_frame_timeout),
        T(half_a_header_is_dropped_after_the_frame_timeout),
        T(slow_reader_is_dropped_after_the_frame_timeout),
        T(idle_client_is_dropped_after_the_idle_timeout),
        T(client_beyond_max_clients_is_told_busy),
        T(a_client_that_reconnects_at_once_is_not_told_busy),
        T(out_of_descriptors_the_engine_says_busy_and_does_not_spin),
        T(max_clients_is_bounded_by_the_descriptor_limit),
        T(raw_mode_echoes_bytes_and_survives_a_reader_gone),
        T(raw_mode_drops_silent_clients_and_non_readers),
        T(sigterm_stops_the_engine_and_removes_its_socket),
        T(sigint_stops_the_engine_too),
        T(every_termination_signal_stops_the_engine_cleanly),
        T(stale_socket_file_is_taken_over),
        T(live_engine_path_is_not_stolen),
        T(a_socket_that_refuses_us_permission_is_not_taken_over),
        T(a_live_socket_with_a_full_backlog_is_not_taken_over),
        T(a_file_that_is_not_a_socket_is_left_alone),
        T(socket_file_is_created_mode_0600),
        T(bad_options_exit_2_with_a_message),
        T(stdin_sweep_equals_in_process),
        T(stdin_echo_is_verbatim),
        T(stdin_bad_request_gets_an_error_frame_and_status_1),
        T(a_stdin_engine_ends_on_sigterm),
        T(tcp_echo_and_sweep),
        T(timing_is_opt_in_on_every_opcode_and_transport),
        T(json_timing_is_opt_in),
        T(the_engine_announces_where_it_listens),
        T(options_are_checked_and_refusals_say_why),
        T(help_and_version),
        T(an_engine_dies_with_its_parent),
        T(an_engine_whose_parent_is_gone_at_start_stops),
    };
    const struct CMUnitTest bad_frames[] = {
        BAD(0), BAD(1), BAD(2), BAD(3), BAD(4), BAD(5), BAD(6), BAD(7),
        BAD(8), BAD(9), BAD(10), BAD(11), BAD(12), BAD(13), BAD(14),
        T(a_frame_of_exactly_max_frame_is_served),
    };
    _Static_assert(sizeof BAD_FRAMES / sizeof BAD_FRAMES[0] == 15, "list every bad frame");
    if (group_setup(NULL) != 0)
        return 1;
    int failed = cmocka_run_group_tests_name("engine", service, NULL, NULL);
    failed += cmocka_run_group_tests_name("bad frames", bad_frames, bad_frames_setup,
                                          bad_frames_teardown);
    group_teardown(NULL);
    return failed != 0;
}
