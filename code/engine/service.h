/*
 * service.h - the engine's protocol on one connection.
 *
 * Tangled from paper/55-engine.md.
 */
#ifndef IPCTAX_SERVICE_H
#define IPCTAX_SERVICE_H

#include <stddef.h>
#include <stdint.h>
#include "kernel/kernel.h"
#include "kernel/kernel_stream.h"
#include "kernel/kernels.h"
#include "wire/buffer.h"
#include "wire/frame.h"
#include "wire/netio.h"

struct engine_config {
    uint32_t max_frame;        /* largest request body accepted, in bytes */
    uint64_t max_work;         /* most window-bar steps one request may ask for */
    sweep_fn sweep;            /* the kernel */
    struct sweep_layout layout;/* of the kernel's workspaces (--layout) */
    int idle_timeout_ms;       /* a client may wait this long between frames */
    int frame_timeout_ms;      /* a frame must arrive whole within this */
};

/* <<work-limit-interface>>, paper/55-engine.md */
/* Default --max-work: 5e10 window-bar steps (the study's sweep is 3.7e9). */
#define DEFAULT_MAX_WORK 50000000000ull

/* Window-bar steps of a sweep of these parameter sets over n_bars bars:
 * n_bars times the sum of each combination's seven windows. Saturates. */
uint64_t sweep_work(const struct combo_params *params, size_t n_combos, uint64_t n_bars);

/* <<connection-state>>, paper/55-engine.md */
struct connection {
    const struct engine_config *cfg;
    const struct byte_link *link;          /* while serve_link runs; else NULL */
    struct buffer body, params, results, out;
    size_t ahead, ahead_at;                /* bytes of the next frame read with the last
                                              one, at body.data + ahead_at */
    struct sweep_workspace workspace;      /* the kernel's, kept between requests */
    /* <<connection-extra-state>>, paper/80-stateful.md */
    struct sweep_workspace loaded;         /* opcode 2's series, in a workspace of its own */
    uint32_t loaded_bars;                  /* 0 until a series is loaded */
    struct sweep_stream stream;            /* opcode 4's stream */
    int streaming;
    uint64_t stream_work;                  /* window-bar steps of one of its bars */
    /* <<connection-extra-state>>, paper/83-json.md */
    char *json_reply;                      /* the last JSON reply's text */
    /* The timing of a request that asked for it (paper/50-protocol.md). */
    int timed;
    int reply_is_json;                     /* the timing goes into the text */
    uint64_t started_ns, cpu_started_ns;   /* set by serve_link when a request may ask */
    uint64_t faults_started;
    uint64_t decoded_ns, computed_ns, encoded_ns;  /* the handler's marks; 0: not made */
    uint8_t trailer[TIMING_TRAILER_BYTES];
    char timing_text[320];
    /* The reply body: up to two pieces and the timing, sent with the header
     * in one writev. */
    const void *reply[3];
    size_t reply_len[3];
    int n_reply;
};

void connection_init(struct connection *c, const struct engine_config *cfg);
void connection_free(struct connection *c);

/* Answers one request body. On success the reply body is described by
 * c->reply[0..c->n_reply) and 0 is returned; on a request that cannot be
 * served, -1 with a message in err. Never touches a file descriptor, so it
 * can be driven by a fuzzer. */
int handle_request(struct connection *c, const uint8_t *body, size_t len,
                   char *err, size_t err_size);

/* Serves frames from the link (netio.h) until the peer closes or max_requests (0: no
 * limit) have been answered (returns 0), or until a request is refused or
 * I/O fails (returns -1). */
int serve_link(struct connection *c, const struct byte_link *link, int max_requests);
/* The same, reading in_fd and writing out_fd. */
int serve_connection(struct connection *c, int in_fd, int out_fd, int max_requests);

/* The raw ping-pong: one size word (at most cfg->max_frame), then that many
 * bytes in and the same bytes out, until the peer leaves or a time limit of
 * cfg passes (the idle timeout for each round trip's bytes, the frame
 * timeout for each echo). */
void serve_raw_link(const struct byte_link *link, const struct engine_config *cfg);
void serve_raw(int in_fd, int out_fd, const struct engine_config *cfg);

#endif
