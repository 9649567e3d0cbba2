/*
 * service.c - reads request frames, answers them, one connection at a time.
 *
 * Tangled from paper/55-engine.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "netio.h"
#include "service.h"
#include "timing.h"

/* Returns a buffer of at least `size` bytes, or NULL when out of memory. */
static void *grow(struct grow_buffer *b, size_t size)
{
    if (size <= b->cap)
        return b->data;
    void *bigger = realloc(b->data, size ? size : 1);
    if (bigger == NULL)
        return NULL;
    b->data = bigger;
    b->cap = size;
    return bigger;
}

void connection_init(struct connection *c, const struct engine_config *cfg)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    sweep_workspace_init(&c->workspace);
}

void connection_free(struct connection *c)
{
    struct grow_buffer *all[] = {&c->body, &c->close, &c->params, &c->results, &c->out};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->data);
    sweep_workspace_free(&c->workspace);
    memset(c, 0, sizeof *c);
}

static int handle_sweep(struct connection *c, const struct request_view *req,
                        char *err, size_t err_size)
{
    double *close = grow(&c->close, (size_t)req->n_bars * sizeof(double));
    struct combo_params *params = grow(&c->params, (size_t)req->n_combos * sizeof *params);
    struct combo_result *results = grow(&c->results, (size_t)req->n_combos * sizeof *results);
    uint8_t *out = grow(&c->out, (size_t)sweep_reply_size(req->n_combos));
    if (close == NULL || params == NULL || results == NULL || out == NULL) {
        snprintf(err, err_size, "engine out of memory for %u bars x %u combos",
                 req->n_bars, req->n_combos);
        return -1;
    }
    le_get_f64s(close, req->close, req->n_bars);
    request_params(req, params);
    if (c->cfg->sweep(&c->workspace, close, req->n_bars, params, req->n_combos, results) != 0) {
        snprintf(err, err_size, "engine out of memory for the sweep workspace");
        return -1;
    }
    sweep_reply_encode(out, results, req->n_combos);
    c->reply[0] = out;
    c->reply_len[0] = (size_t)sweep_reply_size(req->n_combos);
    c->n_reply = 1;
    return 0;
}

static int handle_echo(struct connection *c, const struct request_view *req)
{
    c->reply[0] = req->close;
    c->reply_len[0] = (size_t)req->n_bars * 8;
    c->n_reply = 1;
    return 0;
}

int handle_request(struct connection *c, const uint8_t *body, size_t len,
                   char *err, size_t err_size)
{
    struct request_view req;
    c->n_reply = 0;
    if (request_decode(body, len, &req, err, err_size) != 0)
        return -1;
    switch (req.opcode) {
    case OP_SWEEP:
        return handle_sweep(c, &req, err, err_size);
    case OP_ECHO:
        return handle_echo(c, &req);
    }
    snprintf(err, err_size, "opcode %u is known but not served", req.opcode);
    return -1;
}

static uint64_t deadline_in(int ms)
{
    return ms > 0 ? clock_ns() + (uint64_t)ms * 1000000u : NO_DEADLINE;
}

static int send_reply(struct connection *c, int fd)
{
    uint8_t header[FRAME_HEADER_BYTES];
    struct iovec iov[3] = {{header, sizeof header}};
    size_t total = 0;
    for (int i = 0; i < c->n_reply; i++) {
        iov[1 + i].iov_base = (void *)c->reply[i];
        iov[1 + i].iov_len = c->reply_len[i];
        total += c->reply_len[i];
    }
    le_put_u32(header, (uint32_t)total);
    return write_all(fd, iov, 1 + c->n_reply, deadline_in(c->cfg->frame_timeout_ms));
}

static void send_error(struct connection *c, int fd, const char *message)
{
    uint8_t header[FRAME_HEADER_BYTES];
    uint32_t n = error_frame_header(header, strlen(message));
    struct iovec iov[2] = {{header, sizeof header}, {(void *)message, n}};
    write_all(fd, iov, 2, deadline_in(c->cfg->frame_timeout_ms));
}

int serve_connection(struct connection *c, int in_fd, int out_fd, int max_requests)
{
    char err[512];
    for (int served = 0; max_requests == 0 || served < max_requests; served++) {
        uint8_t header[FRAME_HEADER_BYTES];
        int r = read_exact(in_fd, header, sizeof header, deadline_in(c->cfg->idle_timeout_ms));
        if (r == 1)
            return 0;                                  /* the client is done */
        if (r != 0) {
            snprintf(err, sizeof err, "no complete frame header within the idle timeout "
                     "of %d ms: %s", c->cfg->idle_timeout_ms, strerror(errno));
            send_error(c, out_fd, err);
            return -1;
        }
        uint32_t len = le_get_u32(header);
        if (len > c->cfg->max_frame) {
            snprintf(err, sizeof err, "frame of %u bytes exceeds the engine's maximum of %u",
                     len, c->cfg->max_frame);
            send_error(c, out_fd, err);
            return -1;
        }
        uint8_t *body = grow(&c->body, len);
        if (body == NULL) {
            send_error(c, out_fd, "engine out of memory for the request body");
            return -1;
        }
        if (read_exact(in_fd, body, len, deadline_in(c->cfg->frame_timeout_ms)) != 0) {
            snprintf(err, sizeof err, "incomplete frame body (%u bytes announced): %s",
                     len, errno == 0 ? "closed" : strerror(errno));
            send_error(c, out_fd, err);
            return -1;
        }
        if (handle_request(c, body, len, err, sizeof err) != 0) {
            send_error(c, out_fd, err);
            return -1;
        }
        if (send_reply(c, out_fd) != 0)
            return -1;                                 /* the client went away */
    }
    return 0;
}
