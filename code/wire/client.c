/*
 * client.c - one round trip of the protocol over a byte link.
 *
 * Tangled from paper/57-client.md.
 */
#include <errno.h>
#include <string.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/client.h"

/* <<client-lifetime>>, paper/57-client.md */
void client_init(struct client *c)
{
    memset(c, 0, sizeof *c);
    c->fds = (struct fd_pair){-1, -1};
}

void client_set_fds(struct client *c, int in_fd, int out_fd)
{
    c->fds = (struct fd_pair){in_fd, out_fd};
    c->link = fd_link(&c->fds);
}

void client_set_link(struct client *c, struct byte_link link)
{
    c->link = link;
}

void client_free(struct client *c)
{
    buffer_free(&c->request);
    buffer_free(&c->reply);
    c->reply_len = 0;
}

uint8_t *client_request_buffer(struct client *c, size_t size)
{
    return buffer_reserve(&c->request, size);
}

/* <<client-round-trip>>, paper/57-client.md */
enum { REPLY_AHEAD = 64 * 1024 };     /* bytes the first read may take beyond the word */

/* An error frame's message: what came with its length word (`have` bytes
 * in the reply buffer) and the rest of a screenful. */
static int read_error_frame(const struct client *c, uint32_t len, size_t have, uint64_t deadline,
                            char *err, size_t err_size)
{
    char message[512];
    size_t keep = len < sizeof message - 1 ? len : sizeof message - 1;
    size_t kept = have < keep ? have : keep;
    memcpy(message, c->reply.data, kept);
    if (keep > kept && c->link.read_exact(c->link.ctx, message + kept, keep - kept, deadline) == 0)
        kept = keep;
    message[kept] = '\0';
    set_error(err, err_size, "engine error: %s", message);
    return -2;
}

static const char *read_failure(int r)
{
    return r == 1 ? "the engine closed the connection" : strerror(errno);
}

int client_round_trip(struct client *c, size_t len, uint64_t deadline_ns,
                      struct round_trip_times *times, char *err, size_t err_size)
{
    uint8_t header[FRAME_HEADER_BYTES];
    le_put_u32(header, (uint32_t)len);
    struct iovec iov[2] = {{header, sizeof header}, {c->request.data, len}};
    if (c->link.write_all(c->link.ctx, iov, 2, deadline_ns) != 0)
        return set_error(err, err_size, "sending a %zu-byte request: %s", len, strerror(errno));
    uint64_t sent = clock_ns();
    if (buffer_reserve(&c->reply, REPLY_AHEAD) == NULL)
        return set_error(err, err_size, "out of memory for a reply");
    struct iovec in[2] = {{header, sizeof header}, {c->reply.data, c->reply.cap}};
    ssize_t got = c->link.read_some(c->link.ctx, in, 2, sizeof header, deadline_ns);
    if (got <= 0)
        return set_error(err, err_size, "reading a reply: %s", read_failure(got == 0));
    uint64_t arrived = clock_ns();
    uint32_t word = le_get_u32(header);
    size_t have = (size_t)got - sizeof header;             /* of the body, read already */
    if (word & ERROR_FRAME_FLAG)
        return read_error_frame(c, word & FRAME_LENGTH_MASK, have, deadline_ns, err, err_size);
    if (have > word)
        return set_error(err, err_size, "the engine sent %zu bytes beyond its %u-byte reply",
                         have - word, word);
    if (buffer_reserve(&c->reply, word) == NULL)
        return set_error(err, err_size, "out of memory for a %u-byte reply", word);
    int r = c->link.read_exact(c->link.ctx, (uint8_t *)c->reply.data + have, word - have,
                               deadline_ns);
    if (r != 0)
        return set_error(err, err_size, "reading a %u-byte reply: %s", word, read_failure(r));
    c->reply_len = word;
    if (times != NULL)
        *times = (struct round_trip_times){sent, arrived, clock_ns()};
    return 0;
}

/* <<client-requests>>, paper/57-client.md */
int client_request(struct client *c, enum opcode op, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos, char *err,
                   size_t err_size)
{
    uint64_t size = request_body_size((uint32_t)n_bars, (uint32_t)n_combos);
    if (client_request_buffer(c, (size_t)size) == NULL)
        return set_error(err, err_size, "out of memory for a request");
    request_encode(c->request.data, op, close, (uint32_t)n_bars, params, (uint32_t)n_combos);
    return client_round_trip(c, (size_t)size, NO_DEADLINE, NULL, err, err_size);
}

int client_sweep(struct client *c, const double *close, size_t n_bars,
                 const struct combo_params *params, size_t n_combos,
                 struct combo_result *results, char *err, size_t err_size)
{
    int status = client_request(c, OP_SWEEP, close, n_bars, params, n_combos, err, err_size);
    if (status != 0)
        return status;
    if (sweep_reply_decode(c->reply.data, c->reply_len, results, (uint32_t)n_combos) != 0)
        return set_error(err, err_size, "a sweep reply of %zu bytes for %zu combos",
                         c->reply_len, n_combos);
    return 0;
}

int client_echo(struct client *c, const double *values, size_t n, double *back, char *err,
                size_t err_size)
{
    int status = client_request(c, OP_ECHO, values, n, NULL, 0, err, err_size);
    if (status != 0)
        return status;
    if (c->reply_len != n * 8)
        return set_error(err, err_size, "an echo of %zu values came back as %zu bytes", n,
                         c->reply_len);
    le_get_f64s(back, c->reply.data, n);
    return 0;
}
