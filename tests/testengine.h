/*
 * testengine.h - helpers for the tests that run ipctax-engine and
 * ipctax-bench as processes: paths, a bounded way to run a program, raw
 * frames with deadlines, and a reference sweep to compare against.
 *
 * Every wait here is bounded, so a misbehaving engine fails a test instead
 * of hanging it; each test also arms alarm() as a last resort (see
 * test_arm_watchdog).
 */
#ifndef IPCTAX_TESTENGINE_H
#define IPCTAX_TESTENGINE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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
#include "harness/gate.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "wire/netio.h"
#include "kernel/series.h"
#include "util/timing.h"

extern char **environ;

/* A test still running after TEST_WATCHDOG_S is killed. Under the address
 * sanitizer a program runs several times slower: the slowest test of
 * test_analysis (a kept summary read back) took 13.6 s there on an idle
 * host and passed the 20 s limit on a host the hypervisor slowed. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_WATCHDOG_FACTOR 3
#else
#define TEST_WATCHDOG_FACTOR 1
#endif
enum {
    TEST_IO_TIMEOUT_MS = 5000,     /* longest any single read or write may take */
    TEST_WATCHDOG_S = 20 * TEST_WATCHDOG_FACTOR,
};

/* ---- Paths ------------------------------------------------------------- */

/* root/rel, where root is $IPCTAX_ROOT (set by `make unit-tests`) or ".". */
static inline const char *root_path(char *buf, size_t size, const char *rel)
{
    const char *root = getenv("IPCTAX_ROOT");
    snprintf(buf, size, "%s/%s", root != NULL && *root != '\0' ? root : ".", rel);
    return buf;
}

/* The engine under test: $IPCTAX_ENGINE if set (`make check-sanitize` points
 * it at the sanitized build), else build/ipctax-engine. */
static inline const char *engine_binary(void)
{
    static char path[4096];
    const char *chosen = getenv("IPCTAX_ENGINE");
    if (chosen != NULL && *chosen != '\0')
        return chosen;
    return root_path(path, sizeof path, "build/ipctax-engine");
}

static inline const char *bench_binary(void)
{
    static char path[4096];
    return root_path(path, sizeof path, "build/ipctax-bench");
}

/* A private scratch directory for one test program, removed at the end. */
static char test_dir[64];

static inline int test_dir_create(void)
{
    snprintf(test_dir, sizeof test_dir, "/tmp/ipctax-test-XXXXXX");
    return mkdtemp(test_dir) != NULL ? 0 : -1;
}

/* Removes the scratch directory and everything in it (one level of subdirectories). */
static inline void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat st;
            if (depth > 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(path, depth - 1);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static inline void test_dir_remove(void)
{
    if (test_dir[0] != '\0' && strstr(test_dir, "/tmp/ipctax-test-") == test_dir)
        remove_tree(test_dir, 2);
}

/* test_dir/name; names are short, so a socket path stays well under 108 bytes. */
static inline const char *scratch_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", test_dir, name);
    return buf;
}

/* ---- Children that must not outlive a test ------------------------------ */

/*
 * Every engine or program a test starts is tracked until it is reaped, so
 * that a failing test (whose cleanup code never runs) or the watchdog can
 * kill it: a left-over engine would keep running and would hold this
 * program's stdout open, hanging whatever reads it.
 */
enum { MAX_TRACKED = 64 };
static volatile pid_t tracked_pids[MAX_TRACKED];
/* A child that outlives single tests (one engine for a group of them):
 * killed by the watchdog and by its group's teardown, not by a test's. */
static volatile pid_t group_child;

static inline void track_child(pid_t pid)
{
    for (int i = 0; i < MAX_TRACKED; i++)
        if (tracked_pids[i] == 0) {
            tracked_pids[i] = pid;
            return;
        }
}

static inline void untrack_child(pid_t pid)
{
    for (int i = 0; i < MAX_TRACKED; i++)
        if (tracked_pids[i] == pid)
            tracked_pids[i] = 0;
}

/* Kills and reaps every tracked child; returns how many there were. */
static inline int kill_tracked_children(void)
{
    int n = 0;
    for (int i = 0; i < MAX_TRACKED; i++) {
        pid_t pid = tracked_pids[i];
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            tracked_pids[i] = 0;
            n++;
        }
    }
    return n;
}

/* ---- Time limits -------------------------------------------------------- */

/* A test that hangs is stopped by SIGALRM: its children are killed and the
 * program exits non-zero (the run fails, it does not hang). */
static void on_watchdog(int sig)
{
    (void)sig;
    static const char message[] = "\nwatchdog: a test ran for too long; stopping\n";
    for (int i = 0; i < MAX_TRACKED; i++)
        if (tracked_pids[i] > 0)
            kill(tracked_pids[i], SIGKILL);
    if (group_child > 0)
        kill(group_child, SIGKILL);
    if (write(STDERR_FILENO, message, sizeof message - 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

static inline int test_arm_watchdog(void **state)
{
    (void)state;
    signal(SIGALRM, on_watchdog);
    alarm(TEST_WATCHDOG_S);
    return 0;
}

/* Teardown: after a failed test, nothing it started is left running. */
static inline int test_disarm_watchdog(void **state)
{
    (void)state;
    alarm(0);
    kill_tracked_children();
    return 0;
}

static inline uint64_t deadline_after_ms(int ms)
{
    return clock_ns() + (uint64_t)ms * 1000000u;
}

static inline void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

/* Waits for pid up to timeout_ms; returns 0 with *status, or -1 if still running. */
static inline int wait_for_exit(pid_t pid, int timeout_ms, int *status)
{
    uint64_t deadline = deadline_after_ms(timeout_ms);
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        if (clock_ns() >= deadline)
            return -1;
        sleep_ms(2);
    }
}

/* ---- Running a program, bounded ------------------------------------------ */

struct run_result {
    int status;                /* wait status; meaningful unless timed_out */
    int timed_out;             /* the program was killed after the time limit */
    char *out, *err;           /* everything it wrote, NUL-terminated */
    size_t out_len, err_len;
};

static inline void run_result_free(struct run_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static inline int append_from(int fd, char **buf, size_t *len)
{
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0)
        return n == 0 || (errno != EAGAIN && errno != EINTR) ? 0 : 1;
    char *bigger = realloc(*buf, *len + (size_t)n + 1);
    if (bigger == NULL)
        return 0;
    memcpy(bigger + *len, chunk, (size_t)n);
    *len += (size_t)n;
    bigger[*len] = '\0';
    *buf = bigger;
    return 1;
}

/*
 * Runs argv (looked up in PATH if it has no slash) with in[0..in_len) on its
 * standard input, collecting its standard output and error, and kills it if
 * it is still running after timeout_ms. envp NULL: this process's environment.
 * Returns 0, or -1 if it could not be started.
 */
static inline int run_program(char *const argv[], char *const envp[], const void *in,
                              size_t in_len, int timeout_ms, struct run_result *r)
{
    int pin[2], pout[2], perr[2];
    memset(r, 0, sizeof *r);
    r->out = calloc(1, 1);
    r->err = calloc(1, 1);
    if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pin[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, pout[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, perr[1], STDERR_FILENO);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp ? envp : environ);
    if (rc == 0)
        track_child(pid);
    posix_spawn_file_actions_destroy(&fa);
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    if (rc != 0) {
        close(pin[1]);
        close(pout[0]);
        close(perr[0]);
        return -1;
    }
    fcntl(pin[1], F_SETFL, O_NONBLOCK);
    size_t sent = 0;
    int in_fd = pin[1], out_open = 1, err_open = 1;
    if (in == NULL || in_len == 0) {
        close(in_fd);
        in_fd = -1;
    }
    uint64_t deadline = deadline_after_ms(timeout_ms);
    while ((out_open || err_open || in_fd >= 0) && !r->timed_out) {
        struct pollfd fds[3] = {{out_open ? pout[0] : -1, POLLIN, 0},
                                {err_open ? perr[0] : -1, POLLIN, 0},
                                {in_fd, POLLOUT, 0}};
        int left_ms = (int)((deadline - clock_ns()) / 1000000u);
        if (clock_ns() >= deadline) {
            r->timed_out = 1;
            break;
        }
        if (poll(fds, 3, left_ms < 1 ? 1 : left_ms) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            out_open = append_from(pout[0], &r->out, &r->out_len);
        if (fds[1].revents)
            err_open = append_from(perr[0], &r->err, &r->err_len);
        if (in_fd >= 0 && fds[2].revents) {
            ssize_t w = write(in_fd, (const char *)in + sent, in_len - sent);
            if (w > 0)
                sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == in_len) {
                close(in_fd);
                in_fd = -1;
            }
        }
    }
    if (in_fd >= 0)
        close(in_fd);
    close(pout[0]);
    close(perr[0]);
    if (r->timed_out || wait_for_exit(pid, timeout_ms, &r->status) != 0) {
        r->timed_out = 1;
        kill(pid, SIGKILL);
        waitpid(pid, &r->status, 0);
    }
    untrack_child(pid);
    return 0;
}

static inline int exit_code(const struct run_result *r)
{
    return !r->timed_out && WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

/*
 * Brings build/ipctax-engine and build/ipctax-bench up to date. `make
 * unit-tests` builds the library and the tests but not the programs, and a
 * program left from an older build would test old code; make does nothing
 * when they are current. Returns 0, or -1 with make's output printed.
 */
static inline int build_programs(void)
{
    static const char *const drop[] = {"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "MAKEOVERRIDES="};
    char *envp[512];
    size_t n = 0;
    for (char **e = environ; *e != NULL && n < 511; e++) {
        int keep = 1;
        for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
            keep = keep && strncmp(*e, drop[i], strlen(drop[i])) != 0;
        if (keep)
            envp[n++] = *e;
    }
    envp[n] = NULL;
    char root[4096];
    root_path(root, sizeof root, ".");
    char *argv[] = {"make", "-s", "--no-print-directory", "-C", root,
                    "build/ipctax-engine", "build/ipctax-bench", NULL};
    struct run_result r;
    if (run_program(argv, envp, NULL, 0, 300000, &r) != 0) {
        fprintf(stderr, "cannot run make: %s\n", strerror(errno));
        return -1;
    }
    int ok = exit_code(&r) == 0 && access(engine_binary(), X_OK) == 0 &&
             access(bench_binary(), X_OK) == 0;
    if (!ok)
        fprintf(stderr, "make build/ipctax-engine build/ipctax-bench failed:\n%s%s\n",
                r.out, r.err);
    run_result_free(&r);
    return ok ? 0 : -1;
}

/* engine_start (client.h) with build/ipctax-engine, its child tracked and the
 * connected fd made a test socket. Returns the fd, or -1 with err set. */
static inline int engine_start_tracked(struct engine_process *e, char *const args[],
                                       const char *socket_path, const char *tcp_port,
                                       char err[CLIENT_ERROR_SIZE])
{
    int fd = engine_start(e, engine_binary(), args, socket_path, tcp_port, err);
    if (fd < 0)
        return -1;
    track_child(e->pid);
    socket_wake_every(fd, 50);
    return fd;
}

/* ---- The reference job ---------------------------------------------------- */

/* A real series and grid, and what the in-process kernel makes of them. */
enum { REF_BARS = 3000, REF_COMBOS = 6 };

struct reference_job {
    double close[REF_BARS];
    struct combo_params params[REF_COMBOS];
    struct combo_result expected[REF_COMBOS];
    struct test_job job;
};

static struct reference_job ref;

static inline void reference_job_init(void)
{
    gbm_series(ref.close, REF_BARS, 42);
    grid_fill(ref.params, REF_COMBOS);
    if (sweep_naive(ref.close, REF_BARS, ref.params, REF_COMBOS, ref.expected) != 0)
        abort();
    ref.job = (struct test_job){ref.close, REF_BARS, ref.params, REF_COMBOS};
}

/* Fails the test unless results equal the in-process sweep bit for bit. */
static inline void assert_reference_results(const struct combo_result *results)
{
    struct gate_verdict v = gate_compare(ref.expected, results, REF_COMBOS);
    if (!v.passed)
        fail_msg("only %zu of %d combos identical to the in-process sweep "
                 "(max |PnL diff| %.17g)", v.identical, REF_COMBOS, v.max_abs_pnl_diff);
}

/* ---- Raw frames ------------------------------------------------------------- */

/* Every blocked read or write on a test socket wakes up to check its deadline. */
static inline int test_socket(int fd)
{
    if (fd >= 0)
        socket_wake_every(fd, 50);
    return fd;
}

static inline int connect_unix(const char *path)
{
    return test_socket(unix_connect(path));
}

static inline int send_bytes(int fd, const void *buf, size_t n)
{
    struct iovec iov = {(void *)buf, n};
    return write_all(fd, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS));
}

/* Sends a frame: the length word `word` (not necessarily body_len), then the body. */
static inline int send_frame(int fd, uint32_t word, const void *body, size_t body_len)
{
    uint8_t header[FRAME_HEADER_BYTES];
    le_put_u32(header, word);
    struct iovec iov[2] = {{header, sizeof header}, {(void *)body, body_len}};
    return write_all(fd, iov, body_len ? 2 : 1, deadline_after_ms(TEST_IO_TIMEOUT_MS));
}

/* Reads one frame: 0 with *word and a malloc'd body (length = word's low 31
 * bits), 1 on a clean end of stream before the header, -1 on error/timeout. */
static inline int read_frame(int fd, uint32_t *word, uint8_t **body, int timeout_ms)
{
    uint8_t header[FRAME_HEADER_BYTES];
    uint64_t deadline = deadline_after_ms(timeout_ms);
    *body = NULL;
    int r = read_exact(fd, header, sizeof header, deadline);
    if (r != 0)
        return r;
    *word = le_get_u32(header);
    size_t len = *word & FRAME_LENGTH_MASK;
    if (len > 64u * 1024u * 1024u)
        return -1;
    *body = malloc(len + 1);
    if (*body == NULL || read_exact(fd, *body, len, deadline) != 0) {
        free(*body);
        *body = NULL;
        return -1;
    }
    (*body)[len] = '\0';
    return 0;
}

/* 1 if s[0..n) is well-formed UTF-8 with no NUL, else 0. */
static inline int is_utf8_text(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        size_t extra;
        uint32_t cp;
        if (c == 0)
            return 0;
        if (c < 0x80) { i++; continue; }
        else if ((c & 0xe0) == 0xc0) { extra = 1; cp = c & 0x1f; }
        else if ((c & 0xf0) == 0xe0) { extra = 2; cp = c & 0x0f; }
        else if ((c & 0xf8) == 0xf0) { extra = 3; cp = c & 0x07; }
        else return 0;
        if (i + extra >= n)
            return 0;
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t min_cp[] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += extra + 1;
    }
    return 1;
}

/*
 * The next thing on fd must be an error frame (top bit set) whose message is
 * UTF-8 text containing `needle`, and after it the engine must close the
 * connection. The message is copied to message[0..size) if not NULL.
 */
static inline void assert_error_frame_then_eof(int fd, const char *needle, char *message,
                                               size_t size)
{
    uint32_t word = 0;
    uint8_t *body = NULL;
    int r = read_frame(fd, &word, &body, TEST_IO_TIMEOUT_MS);
    if (r != 0)
        fail_msg("expected an error frame containing \"%s\", got %s", needle,
                 r == 1 ? "the end of the stream" : "no frame within the time limit");
    size_t len = word & FRAME_LENGTH_MASK;
    if (!(word & ERROR_FRAME_FLAG))
        fail_msg("expected an error frame containing \"%s\", got a %zu-byte reply", needle, len);
    if (len == 0 || !is_utf8_text(body, len))
        fail_msg("error frame of %zu bytes is not non-empty UTF-8 text", len);
    if (strstr((char *)body, needle) == NULL)
        fail_msg("error message \"%s\" does not contain \"%s\"", (char *)body, needle);
    if (message != NULL)
        snprintf(message, size, "%s", (char *)body);
    free(body);
    uint8_t byte;
    r = read_exact(fd, &byte, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS));
    if (r != 1)
        fail_msg("after the error frame the connection should be closed; read gave %d (%s)",
                 r, r == 0 ? "more data" : strerror(errno));
}

/* Sweeps the reference job over fd with the production client; checks it. */
static inline void assert_sweep_over(int fd)
{
    struct test_client c;
    struct combo_result results[REF_COMBOS];
    char err[CLIENT_ERROR_SIZE] = "";
    memset(results, 0, sizeof results);
    tclient_init(&c, fd, fd);
    int status = tclient_sweep(&c, &ref.job, 0, REF_COMBOS, results, err);
    c.in_fd = c.out_fd = -1;           /* the caller owns fd */
    tclient_close(&c);
    if (status != 0)
        fail_msg("sweep failed (%d): %s", status, err);
    assert_reference_results(results);
}

/* A new client of the engine at path gets a correct sweep. */
static inline void assert_new_client_sweeps(const char *path)
{
    int fd = connect_unix(path);
    if (fd < 0)
        fail_msg("cannot connect to %s: %s", path, strerror(errno));
    assert_sweep_over(fd);
    close(fd);
}

/* A request body for the reference job, with the given opcode; caller frees. */
static inline uint8_t *reference_request(enum opcode op, uint32_t n_bars, uint32_t n_combos,
                                         size_t *len)
{
    *len = (size_t)request_body_size(n_bars, n_combos);
    uint8_t *body = malloc(*len);
    request_encode(body, op, ref.close, n_bars, ref.params, n_combos);
    return body;
}

/* ---- A program's first line -------------------------------------------------------- */

/* Starts `argv` through the launcher (wire/launch.h) and gives back its
 * ready line whole ("listening ..."), within 3 s; the pid is tracked. 0, or
 * -1 if no such line came (line then says why). */
static inline int spawn_reading_first_line(char *const argv[], pid_t *pid, char *line, size_t size)
{
    char address[512], err[512];
    struct engine_launch l = {argv, 0, 3000, track_child, untrack_child};
    *pid = engine_launch(&l, address, sizeof address, err, sizeof err);
    snprintf(line, size, "%s%.200s", *pid > 0 ? "listening " : "", *pid > 0 ? address : err);
    return *pid > 0 ? 0 : -1;
}

static inline void end_spawned(pid_t pid)
{
    int status;
    kill(pid, SIGTERM);
    if (wait_for_exit(pid, 3000, &status) != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    untrack_child(pid);
}

/* ---- Sessions of every opcode, plain or timed ------------------------------------ */

/* The reply body `body[0..len)` to a sweep of combos [first, first+count). */
static inline void assert_sweep_reply(const uint8_t *body, size_t len, size_t first, size_t count)
{
    struct combo_result results[REF_COMBOS];
    if (sweep_reply_decode(body, len, results, (uint32_t)count) != 0)
        fail_msg("a sweep reply of %zu bytes for %zu combos", len, count);
    struct gate_verdict v = gate_compare(ref.expected + first, results, count);
    if (!v.passed)
        fail_msg("combos %zu..%zu: %zu of %zu identical", first, first + count - 1,
                 v.identical, count);
}

/* A reply as it came: its length word and body (malloc'd). */
struct reply {
    uint32_t word;
    uint8_t *body;
};

enum { SESSION_REQUESTS = 7, ECHO_DOUBLES = 100 };

/* The request of step k of a session that uses every opcode once, in the
 * order they make sense: sweep, echo, load, sweep loaded, open stream, one
 * bar, close stream. With `timed`, each opcode has the timing bit. */
static inline uint8_t *session_request(int k, int timed, size_t *len)
{
    static const struct { enum opcode op; uint32_t bars, combos; } steps[SESSION_REQUESTS] = {
        {OP_SWEEP, REF_BARS, REF_COMBOS}, {OP_ECHO, ECHO_DOUBLES, 1}, {OP_LOAD, REF_BARS, 0},
        {OP_SWEEP_LOADED, 0, REF_COMBOS}, {OP_OPEN_STREAM, 0, REF_COMBOS}, {OP_BAR, 1, 0},
        {OP_CLOSE_STREAM, 0, 0},
    };
    uint8_t *body = reference_request(steps[k].op, steps[k].bars, steps[k].combos, len);
    if (timed)
        body[0] |= OP_TIMED;
    return body;
}

/* Runs the session over a link; every reply goes to r[0..SESSION_REQUESTS). */
static inline void run_session(const struct byte_link *link, int timed, struct reply r[])
{
    for (int k = 0; k < SESSION_REQUESTS; k++) {
        size_t len;
        uint8_t *body = session_request(k, timed, &len), header[4];
        le_put_u32(header, (uint32_t)len);
        struct iovec iov[2] = {{header, 4}, {body, len}};
        assert_int_equal(link->write_all(link->ctx, iov, 2, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        free(body);
        assert_int_equal(link->read_exact(link->ctx, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        r[k].word = le_get_u32(header);
        size_t n = r[k].word & FRAME_LENGTH_MASK;
        r[k].body = malloc(n + 1);
        assert_int_equal(link->read_exact(link->ctx, r[k].body, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        if (r[k].word & ERROR_FRAME_FLAG) {
            r[k].body[n] = '\0';
            fail_msg("step %d%s was refused: %s", k, timed ? " (timed)" : "", (char *)r[k].body);
        }
    }
}

/* A plain session's replies are exactly the protocol's, as they always were. */
static inline void assert_plain_replies(const struct reply r[])
{
    struct combo_result stream_expected[REF_COMBOS];
    assert_sweep_reply(r[0].body, r[0].word, 0, REF_COMBOS);
    assert_int_equal(r[1].word, ECHO_DOUBLES * 8);
    assert_memory_equal(r[1].body, ref.close, ECHO_DOUBLES * 8);
    assert_int_equal(r[2].word, 0);
    assert_sweep_reply(r[3].body, r[3].word, 0, REF_COMBOS);
    assert_int_equal(r[4].word, 0);
    assert_int_equal(r[5].word, REF_COMBOS);
    for (int k = 0; k < REF_COMBOS; k++)
        assert_int_equal(r[5].body[k], 0);           /* one bar: everyone is flat */
    assert_int_equal(sweep_naive(ref.close, 1, ref.params, REF_COMBOS, stream_expected), 0);
    uint8_t expected[16 * REF_COMBOS];
    sweep_reply_encode(expected, stream_expected, REF_COMBOS);
    assert_int_equal(r[6].word, sizeof expected);
    assert_memory_equal(r[6].body, expected, sizeof expected);
}

/* The timing's fields are consistent: the phases fit in the span, echo and
 * load compute nothing, the sweeps compute something, and the CPU time is
 * of the order of the span (one client; a little slack for two clocks). */
static inline void assert_timing_consistent(const struct call_timing *t, int step, const char *where)
{
    if (t->decode_ns + t->compute_ns + t->encode_ns > t->engine_ns || t->engine_ns == 0 ||
        t->cpu_ns > 2 * t->engine_ns + 2000000u)
        fail_msg("%s, step %d: engine %llu, decode %llu, compute %llu, encode %llu, cpu %llu ns",
                 where, step, (unsigned long long)t->engine_ns, (unsigned long long)t->decode_ns,
                 (unsigned long long)t->compute_ns, (unsigned long long)t->encode_ns,
                 (unsigned long long)t->cpu_ns);
    if ((step == 1 || step == 2) && t->compute_ns != 0)
        fail_msg("%s: an %s computed for %llu ns", where, step == 1 ? "echo" : "load",
                 (unsigned long long)t->compute_ns);
    if ((step == 0 || step == 3) && t->compute_ns == 0)
        fail_msg("%s: a sweep computed for 0 ns", where);
}

/* A timed reply is the plain reply, byte for byte, then the 40-byte trailer. */
static inline void assert_timed_matches_plain(const struct reply plain[], const struct reply timed[],
                                       const char *where)
{
    for (int k = 0; k < SESSION_REQUESTS; k++) {
        if (timed[k].word != plain[k].word + TIMING_TRAILER_BYTES)
            fail_msg("%s, step %d: a timed reply of %u bytes for a plain one of %u", where, k,
                     timed[k].word, plain[k].word);
        if (plain[k].word > 0 && memcmp(timed[k].body, plain[k].body, plain[k].word) != 0)
            fail_msg("%s, step %d: the timed reply's body differs from the plain one", where, k);
        struct call_timing t;
        assert_int_equal(timing_trailer_decode(timed[k].body, timed[k].word, &t), 0);
        assert_timing_consistent(&t, k, where);
    }
}

static inline void free_replies(struct reply r[])
{
    for (int k = 0; k < SESSION_REQUESTS; k++)
        free(r[k].body);
}

#endif
