/*
 * drive_engine.c - one client's worth of everything the engine serves, for
 * tests/check_valgrind.sh to run against an engine under valgrind.
 *
 *   drive_engine SOCKET          serve the session below over the socket
 *   drive_engine --request FILE  write one sweep request frame to FILE
 *                                (for the engine's --stdin mode)
 *
 * The session: echoes, a sweep compared bit for bit with sweep_naive, the
 * same sweep as JSON, a loaded series swept per combination, a per-bar
 * stream, a timed sweep and a timed echo, a connection that leaves a loaded series and an open stream
 * behind when it goes, one that hangs up in the middle of a long (watched)
 * sweep, a bad frame (which must get an error frame and a
 * closed connection), and a request cut off half-way. Sizes are small: valgrind runs the engine some
 * twenty times slower than it runs natively. Exits 0 when every reply was
 * right, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testclient.h"
#include "wire/frame.h"
#include "kernel/grid.h"
#include "wire/json_codec.h"
#include "kernel/kernel.h"
#include "wire/netio.h"
#include "kernel/series.h"
#include "util/timing.h"

enum { BARS = 300, COMBOS = 3, STREAM_BARS = 30, TIMEOUT_MS = 60000 };

static double series[BARS];
static struct combo_params params[COMBOS];
static struct combo_result expected[COMBOS], expected_stream[COMBOS];
static int failures;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "drive_engine: %s: %s\n", what, detail);
    failures++;
}

static int same(const struct combo_result *a, const struct combo_result *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (memcmp(&a[k].pnl, &b[k].pnl, sizeof(double)) != 0 || a[k].trades != b[k].trades)
            return 0;
    return 1;
}

/* Connects, retrying while the engine under valgrind is still starting. */
static int connect_to(const char *path)
{
    uint64_t deadline = clock_ns() + (uint64_t)TIMEOUT_MS * 1000000u;
    for (;;) {
        int fd = unix_connect(path);
        if (fd >= 0)
            return fd;
        if (clock_ns() >= deadline)
            return -1;
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
}

static void session(const char *path)
{
    char err[CLIENT_ERROR_SIZE];
    struct test_client c;
    struct combo_result got[COMBOS];
    int fd = connect_to(path);
    if (fd < 0) {
        fail("connect", strerror(errno));
        return;
    }
    tclient_init(&c, fd, fd);
    static const size_t echo_sizes[] = {0, 1, 100, BARS};
    double back[BARS];
    for (size_t i = 0; i < sizeof echo_sizes / sizeof echo_sizes[0]; i++) {
        size_t n = echo_sizes[i];
        if (tclient_echo(&c, series, n, back, err) != 0 || memcmp(back, series, n * 8) != 0)
            fail("echo", err);
    }
    if (tclient_sweep(&c, &(struct test_job){series, BARS, params, COMBOS}, 0, COMBOS, got,
                     err) != 0 || !same(got, expected, COMBOS))
        fail("sweep", err);
    size_t text_len;
    char *text = json_request_encode(series, BARS, params, COMBOS, &text_len);
    uint8_t *body = text ? tclient_request_buffer(&c, text_len) : NULL;
    if (body == NULL) {
        fail("JSON sweep", "out of memory");
    } else {
        memcpy(body, text, text_len);
        if (tclient_round_trip(&c, text_len, err) != 0 ||
            json_reply_decode((const char *)c.reply, c.reply_len, got, COMBOS, err,
                              sizeof err) != 0 || !same(got, expected, COMBOS))
            fail("JSON sweep", err);
    }
    free(text);
    if (tclient_request(&c, OP_LOAD, series, BARS, NULL, 0, err) != 0)
        fail("load", err);
    for (size_t k = 0; k < COMBOS; k++)
        if (tclient_request(&c, OP_SWEEP_LOADED, NULL, 0, &params[k], 1, err) != 0 ||
            sweep_reply_decode(c.reply, c.reply_len, &got[k], 1) != 0 ||
            !same(&got[k], &expected[k], 1))
            fail("sweep loaded", err);
    if (tclient_request(&c, OP_OPEN_STREAM, NULL, 0, params, COMBOS, err) != 0)
        fail("open stream", err);
    for (size_t t = 0; t < STREAM_BARS; t++)
        if (tclient_request(&c, OP_BAR, &series[t], 1, NULL, 0, err) != 0)
            fail("bar", err);
    if (tclient_request(&c, OP_CLOSE_STREAM, NULL, 0, NULL, 0, err) != 0 ||
        sweep_reply_decode(c.reply, c.reply_len, got, COMBOS) != 0 ||
        !same(got, expected_stream, COMBOS))
        fail("close stream", err);
    /* Timed: the reply, then the engine's 56-byte timing trailer. */
    struct call_timing t;
    if (tclient_request(&c, (enum opcode)(OP_SWEEP | OP_TIMED), series, BARS, params, COMBOS,
                        err) != 0 ||
        timing_trailer_decode(c.reply, c.reply_len, &t) != 0 ||
        sweep_reply_decode(c.reply, c.reply_len - TIMING_TRAILER_BYTES, got, COMBOS) != 0 ||
        !same(got, expected, COMBOS) || t.compute_ns > t.engine_ns)
        fail("timed sweep", err);
    if (tclient_request(&c, (enum opcode)(OP_ECHO | OP_TIMED), series, 10, NULL, 0, err) != 0 ||
        c.reply_len != 80 + TIMING_TRAILER_BYTES || memcmp(c.reply, series, 80) != 0)
        fail("timed echo", err);
    tclient_close(&c);
}

/* Loads a series and opens a stream, then hangs up: the engine must free both. */
static void abandoned_state(const char *path)
{
    char err[CLIENT_ERROR_SIZE];
    struct test_client c;
    int fd = connect_to(path);
    if (fd < 0) {
        fail("connect", strerror(errno));
        return;
    }
    tclient_init(&c, fd, fd);
    if (tclient_request(&c, OP_LOAD, series, BARS, NULL, 0, err) != 0 ||
        tclient_request(&c, OP_OPEN_STREAM, NULL, 0, params, COMBOS, err) != 0 ||
        tclient_request(&c, OP_BAR, &series[0], 1, NULL, 0, err) != 0)
        fail("state left behind", err);
    tclient_close(&c);
}

/* A loaded sweep long enough to be watched (2.5e8 window-bar steps), then a
 * hang-up in its middle: the engine must stop it, end its watch and free
 * everything. */
static void abandoned_sweep(const char *path)
{
    enum { LONG_BARS = 6000 };
    char err[CLIENT_ERROR_SIZE];
    struct test_client c;
    double *closes = malloc(LONG_BARS * sizeof *closes);
    struct combo_params heavy = {LONG_BARS, LONG_BARS, LONG_BARS, LONG_BARS, LONG_BARS,
                                 LONG_BARS};
    uint8_t frame[4 + REQUEST_HEADER_BYTES + PARAM_BYTES];
    le_put_u32(frame, REQUEST_HEADER_BYTES + PARAM_BYTES);
    request_encode(frame + 4, OP_SWEEP_LOADED, NULL, 0, &heavy, 1);
    gbm_series(closes, LONG_BARS, 5);
    int fd = connect_to(path);
    if (fd < 0) {
        fail("connect", strerror(errno));
        free(closes);
        return;
    }
    tclient_init(&c, fd, fd);
    struct iovec iov = {frame, sizeof frame};
    if (tclient_request(&c, OP_LOAD, closes, LONG_BARS, NULL, 0, err) != 0)
        fail("load for an abandoned sweep", err);
    else if (write_all(fd, &iov, 1, NO_DEADLINE) != 0)
        fail("abandoned sweep", strerror(errno));
    nanosleep(&(struct timespec){1, 0}, NULL);         /* the sweep is running */
    tclient_close(&c);
    free(closes);
}

/* An unknown opcode: an error frame, then the end of the connection. */
static void bad_frame(const char *path)
{
    uint8_t frame[4 + REQUEST_HEADER_BYTES] = {0};
    le_put_u32(frame, REQUEST_HEADER_BYTES);
    frame[4] = 99;
    int fd = connect_to(path);
    struct iovec iov = {frame, sizeof frame};
    uint8_t header[4], message[512], byte;
    uint64_t deadline = clock_ns() + (uint64_t)TIMEOUT_MS * 1000000u;
    if (fd >= 0)
        socket_wake_every(fd, 100);
    if (fd < 0 || write_all(fd, &iov, 1, deadline) != 0 ||
        read_exact(fd, header, 4, deadline) != 0) {
        fail("bad frame", "no answer");
    } else {
        uint32_t word = le_get_u32(header);
        size_t len = word & FRAME_LENGTH_MASK;
        if (!(word & ERROR_FRAME_FLAG) || len >= sizeof message ||
            read_exact(fd, message, len, deadline) != 0 ||
            read_exact(fd, &byte, 1, deadline) != 1)
            fail("bad frame", "not an error frame followed by the end");
    }
    if (fd >= 0)
        close(fd);
}

/* Announces a sweep and sends half of it. */
static void cut_request(const char *path)
{
    size_t len = (size_t)request_body_size(BARS, COMBOS);
    uint8_t *frame = malloc(4 + len);
    le_put_u32(frame, (uint32_t)len);
    request_encode(frame + 4, OP_SWEEP, series, BARS, params, COMBOS);
    int fd = connect_to(path);
    struct iovec iov = {frame, 4 + len / 2};
    if (fd < 0 || write_all(fd, &iov, 1, NO_DEADLINE) != 0)
        fail("cut request", strerror(errno));
    if (fd >= 0)
        close(fd);
    free(frame);
}

static int write_request(const char *file)
{
    size_t len = (size_t)request_body_size(BARS, COMBOS);
    uint8_t *frame = malloc(4 + len);
    le_put_u32(frame, (uint32_t)len);
    request_encode(frame + 4, OP_SWEEP, series, BARS, params, COMBOS);
    FILE *f = fopen(file, "wb");
    int ok = f != NULL && fwrite(frame, 1, 4 + len, f) == 4 + len;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    free(frame);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    gbm_series(series, BARS, 11);
    for (size_t k = 0; k < COMBOS; k++)
        params[k] = grid_params(GRID_MIN_LENGTH + 7 * (int64_t)k);
    if (sweep_naive(series, BARS, params, COMBOS, expected) != 0 ||
        sweep_naive(series, STREAM_BARS, params, COMBOS, expected_stream) != 0)
        return 1;
    if (argc == 3 && strcmp(argv[1], "--request") == 0)
        return write_request(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: drive_engine SOCKET | drive_engine --request FILE\n");
        return 2;
    }
    session(argv[1]);
    abandoned_state(argv[1]);
    abandoned_sweep(argv[1]);
    bad_frame(argv[1]);
    cut_request(argv[1]);
    session(argv[1]);
    return failures ? 1 : 0;
}
