/*
 * fuzz_shm.c - a libFuzzer target for the shared-memory channel of
 * paper/84-shm.md: the engine's side of a channel, and this process's own
 * client, against a second process that may write any bytes anywhere in
 * the segment, and cut its file short.
 *
 * One input is a list of operations (tests/fuzz/shm_ops.h): writes of any
 * bytes into the header and into the rings, as that second process would
 * make them; the engine's reads and writes, accept and release, and one
 * request served from whatever the rings hold (serve_link, so handle_request
 * too); a client's attach, reads, writes and detach; and truncations of the
 * segment's file. Every wait has a deadline of "now", so nothing in an
 * input can wait for long.
 *
 * The properties, checked after every operation and at the end:
 *
 *   1. Nothing touches memory outside the segment or the caller's buffers,
 *      and a truncated segment costs no process its life (AddressSanitizer,
 *      and the channel's SIGBUS containment).
 *   2. Every call answers as its contract says: a read 0, 1 or -1, a write 0
 *      or -1, and a failure's errno one of the documented ones.
 *   3. The channel never freezes. At the end, whatever was written into it,
 *      the engine releases its session and looks for clients; what was
 *      written may spoil the next session, but of two new clients in turn,
 *      one must attach, send an echo and get it back, bit for bit.
 *
 * A violation is reported on stderr and ends the process with abort(),
 * which libFuzzer records as a crash. Built by `make fuzz`; replayed,
 * without libFuzzer, by tests/test_fuzz_shm_regressions.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/service.h"
#include "kernel/kernel.h"
#include "wire/frame.h"
#include "wire/shm_ring.h"
#include "util/timing.h"

#include "shm_ops.h"

/* One request of a few hundred bytes at most: the rings are small. */
static const struct engine_config SHM_FUZZ_CONFIG = {
    .max_frame = 4096,
    .max_work = 1u << 20,
    .sweep = sweep_naive_in,
    .idle_timeout_ms = 1,
    .frame_timeout_ms = 1,
};

/* The replay names the input it is running, so a failure says which. */
static const char *shm_input_name = "";

static void shm_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void shm_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_shm: %s%sproperty violated: ", shm_input_name,
            *shm_input_name ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* ---- Reading the input ---------------------------------------------------- */

struct input {
    const uint8_t *p;
    size_t left;
};

static uint32_t take(struct input *in, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) {
        uint8_t b = 0;
        if (in->left > 0) {
            b = *in->p++;
            in->left--;
        }
        v |= (uint32_t)b << (8 * i);
    }
    return v;
}

/* ---- Contracts -------------------------------------------------------------- */

static void check_read(int r, const char *who)
{
    if (r == 0 || r == 1)
        return;
    if (r != -1)
        shm_fail("%s: shm_read_exact returned %d", who, r);
    if (errno != ETIMEDOUT && errno != ECONNRESET && errno != EPIPE && errno != EIO &&
        errno != EINTR)
        shm_fail("%s: a read failed with errno %d (%s)", who, errno, strerror(errno));
}

static void check_write(int r, const char *who)
{
    if (r == 0)
        return;
    if (r != -1)
        shm_fail("%s: shm_write_all returned %d", who, r);
    if (errno != ETIMEDOUT && errno != EPIPE && errno != EIO && errno != EINTR)
        shm_fail("%s: a write failed with errno %d (%s)", who, errno, strerror(errno));
}

/* ---- One run ------------------------------------------------------------------ */

struct run {
    char name[64];
    struct shm_channel engine, client;
    int in_session, attached;
    uint8_t buf[65536];
    uint8_t requests[64 * SHM_FUZZ_ECHO_FRAME];    /* the client's stream of echoes */
    size_t sent;                                   /* of the current frame */
};

/* Fills the client's stream with echo requests of two doubles each. */
static void fill_requests(struct run *r)
{
    for (size_t i = 0; i < sizeof r->requests / SHM_FUZZ_ECHO_FRAME; i++) {
        const double two[2] = {(double)i, -0.5 * (double)i};
        uint8_t *frame = r->requests + i * SHM_FUZZ_ECHO_FRAME;
        le_put_u32(frame, SHM_FUZZ_ECHO_FRAME - 4);
        request_encode(frame + 4, OP_ECHO, two, 2, NULL, 0);
    }
}

static void serve_one_request(struct run *r)
{
    struct connection c;
    struct byte_link link = shm_link(&r->engine);
    connection_init(&c, &SHM_FUZZ_CONFIG);
    int status = serve_link(&c, &link, 1);
    connection_free(&c);
    if (status != 0 && status != -1)
        shm_fail("serve_link returned %d", status);
}

static void truncate_segment(const char *name, uint32_t size, size_t mapped)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return;
    if (ftruncate(fd, (off_t)(size % (mapped + 1))) != 0)
        shm_fail("ftruncate: %s", strerror(errno));
    close(fd);
}

static void run_op(struct run *r, struct input *in)
{
    uint8_t *control = (uint8_t *)r->engine.seg;
    size_t n;
    char err[256];
    int op = (int)(take(in, 1) % SHM_OP_COUNT);
    if (getenv("FUZZ_SHM_TRACE") != NULL)          /* for reading a crash by eye */
        fprintf(stderr, "op %d (session %d, attached %d, %zu bytes left)\n", op,
                r->in_session, r->attached, in->left);
    if (control == NULL && (op == SHM_OP_POKE_HEADER || op == SHM_OP_POKE_RINGS))
        return;                                /* between two segments: nothing to write */
    switch (op) {
    case SHM_OP_POKE_HEADER: {
        size_t at = take(in, 2) % SHM_DATA_OFFSET;
        n = take(in, 1);
        n = n < SHM_DATA_OFFSET - at ? n : SHM_DATA_OFFSET - at;
        for (size_t i = 0; i < n; i++)
            control[at + i] = (uint8_t)take(in, 1);
        break;
    }
    case SHM_OP_POKE_RINGS: {
        size_t at = take(in, 2) % (2 * SHM_FUZZ_RING_BYTES);
        n = take(in, 1);
        n = n < 2 * SHM_FUZZ_RING_BYTES - at ? n : 2 * SHM_FUZZ_RING_BYTES - at;
        for (size_t i = 0; i < n; i++)
            control[SHM_DATA_OFFSET + at + i] = (uint8_t)take(in, 1);
        break;
    }
    case SHM_OP_ENGINE_READ:
        n = take(in, 2) % sizeof r->buf;
        if (r->in_session)
            check_read(shm_read_exact(&r->engine, r->buf, n, clock_ns()), "engine");
        break;
    case SHM_OP_ENGINE_WRITE: {
        n = take(in, 2) % sizeof r->buf;
        struct iovec iov = {r->buf, n};
        if (r->in_session)
            check_write(shm_write_all(&r->engine, &iov, 1, clock_ns()), "engine");
        break;
    }
    case SHM_OP_ENGINE_ACCEPT:
        if (!r->in_session && shm_channel_accept(&r->engine, clock_ns()) == 0)
            r->in_session = 1;
        break;
    case SHM_OP_ENGINE_RELEASE:
        if (r->in_session)
            shm_channel_release(&r->engine);
        r->in_session = 0;
        break;
    case SHM_OP_ENGINE_SERVE:
        if (r->in_session)
            serve_one_request(r);
        break;
    case SHM_OP_CLIENT_ATTACH: {
        enum shm_wait mode = take(in, 1) & 1 ? SHM_WAIT_SPIN : SHM_WAIT_FUTEX;
        if (!r->attached &&
            shm_channel_attach(&r->client, r->name, mode, 0, err, sizeof err) == 0)
            r->attached = 1;
        break;
    }
    case SHM_OP_CLIENT_WRITE: {
        n = take(in, 2) % (sizeof r->requests - r->sent);
        struct iovec iov = {r->requests + r->sent, n};
        if (r->attached)
            check_write(shm_write_all(&r->client, &iov, 1, clock_ns()), "client");
        r->sent = (r->sent + n) % SHM_FUZZ_ECHO_FRAME;  /* where the stream goes on */
        break;
    }
    case SHM_OP_CLIENT_READ:
        n = take(in, 2) % sizeof r->buf;
        if (r->attached)
            check_read(shm_read_exact(&r->client, r->buf, n, clock_ns()), "client");
        break;
    case SHM_OP_CLIENT_DETACH:
        if (r->attached)
            shm_channel_detach(&r->client);
        r->attached = 0;
        break;
    case SHM_OP_TRUNCATE:
        truncate_segment(r->name, take(in, 4), r->engine.map_bytes);
        break;
    }
}

/*
 * One session of a new client: attach, an echo of two doubles, the reply.
 * Returns 1 when the echo came back bit for bit, 0 when the session was
 * spoiled (a refusal, or nothing), with the reason in why.
 */
static int echo_session(struct run *r, char *why, size_t why_size)
{
    char err[256];
    int attached = 0;
    for (int attempt = 0; attempt < 4 && !attached; attempt++) {
        if (shm_channel_accept(&r->engine, clock_ns()) == 0)
            shm_channel_release(&r->engine);   /* a ghost the input wrote in: let it go */
        attached = shm_channel_attach(&r->client, r->name, SHM_WAIT_FUTEX, 0, err,
                                      sizeof err) == 0;
    }
    if (!attached)
        shm_fail("no new client could attach after the engine looked for clients: %s", err);
    if (shm_channel_accept(&r->engine, clock_ns() + 100000000u) != 0)
        shm_fail("the engine did not see the new client: %s", strerror(errno));
    const double two[2] = {1.5, -0.25};
    uint8_t frame[4 + 9 + 16], back[4 + 16];
    request_encode(frame + 4, OP_ECHO, two, 2, NULL, 0);
    le_put_u32(frame, 9 + 16);
    struct iovec iov = {frame, sizeof frame};
    int ok = 0;
    snprintf(why, why_size, "nothing came back");
    if (shm_write_all(&r->client, &iov, 1, clock_ns() + 100000000u) == 0) {
        serve_one_request(r);
        if (shm_read_exact(&r->client, back, 4, clock_ns() + 100000000u) == 0) {
            uint32_t word = le_get_u32(back);
            size_t n = word & FRAME_LENGTH_MASK;
            char message[256] = "";
            if (word & ERROR_FRAME_FLAG) {
                shm_read_exact(&r->client, message, n < 255 ? n : 255, clock_ns() + 100000000u);
                snprintf(why, why_size, "refused: \"%s\"", message);
            } else {
                ok = word == 16 &&
                     shm_read_exact(&r->client, back + 4, 16, clock_ns() + 100000000u) == 0 &&
                     memcmp(back + 4, frame + 13, 16) == 0;
                snprintf(why, why_size, "a reply of %u bytes that is not the echo", word);
            }
        }
    }
    shm_channel_detach(&r->client);
    shm_channel_release(&r->engine);
    return ok;
}

/*
 * Property 3: whatever the input did, the channel serves again. What a
 * second process wrote into a free channel (its ring counters, say) can
 * spoil the next session, which then ends, and the engine empties the
 * rings; the session after that must be served: a new client attaches,
 * sends an echo and gets the same bytes back.
 */
static void check_a_new_client_is_served(struct run *r)
{
    char why[300];
    if (r->attached)
        shm_channel_detach(&r->client);
    if (r->in_session)
        shm_channel_release(&r->engine);
    r->attached = r->in_session = 0;
    if (echo_session(r, why, sizeof why) || echo_session(r, why, sizeof why))
        return;
    shm_fail("two new clients in turn were not served: %s", why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct run r;
    char err[256];
    memset(&r, 0, sizeof r);
    fill_requests(&r);
    snprintf(r.name, sizeof r.name, "/ipctax-fuzz-shm-%d", (int)getpid());
    shm_unlink(r.name);                        /* left by an earlier, crashed run */
    if (shm_channel_create(&r.engine, r.name, SHM_FUZZ_RING_BYTES, SHM_WAIT_FUTEX, err,
                           sizeof err) != 0)
        shm_fail("cannot create %s: %s", r.name, err);
    r.engine.leave_ns = 1000000;               /* 1 ms for a client to leave */
    struct input in = {data, size};
    for (int ops = 0; in.left > 0 && ops < 256; ops++)
        run_op(&r, &in);
    check_a_new_client_is_served(&r);
    shm_channel_destroy(&r.engine);
    return 0;
}
