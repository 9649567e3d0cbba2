/*
 * frame.h - the wire protocol: one length-prefixed, little-endian frame
 * each way. The one codec that the engine and every client use.
 *
 * Tangled from paper/50-protocol.md.
 */
#ifndef IPCTAX_FRAME_H
#define IPCTAX_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* <<protocol-constants>>, paper/50-protocol.md */
enum opcode {
    OP_SWEEP = 0,              /* run the kernel over every parameter set */
    OP_ECHO = 1,               /* send the close array back, compute nothing */
    /* <<more-opcodes>>, paper/80-stateful.md */
    OP_LOAD = 2,               /* keep a series on the connection */
    OP_SWEEP_LOADED = 3,       /* sweep parameter sets over the kept series */
    OP_OPEN_STREAM = 4,        /* start a per-bar stream for these parameter sets */
    OP_BAR = 5,                /* advance the stream by one bar */
    OP_CLOSE_STREAM = 6,       /* close every position, return the results */
    OPCODE_COUNT               /* opcodes are 0 .. OPCODE_COUNT - 1 */
};

enum {
    FRAME_HEADER_BYTES = 4,    /* the u32 body length */
    REQUEST_HEADER_BYTES = 9,  /* u8 opcode, u32 n_bars, u32 n_combos */
    PARAM_BYTES = PARAMS_PER_COMBO * 8,
    RESULT_BYTES = 16,         /* f64 pnl + i64 trades per combination */
};

/* The top bit of a length word marks an error frame; the rest is its length. */
#define ERROR_FRAME_FLAG 0x80000000u
#define FRAME_LENGTH_MASK 0x7fffffffu

/* Largest request body the engine accepts unless told otherwise: 16 MiB
 * (two million bars; see the text for why not more). */
#define DEFAULT_MAX_FRAME (16u * 1024u * 1024u)

/* The opcode byte's top bit asks the engine to time the call (see the text). */
#define OP_TIMED 0x80u

/* What a timed reply carries after its body: seven little-endian u64. */
enum { TIMING_TRAILER_FIELDS = 7, TIMING_TRAILER_BYTES = 8 * TIMING_TRAILER_FIELDS };
/* <<protocol-constants>>, paper/80-stateful.md */

/* Longest window a per-bar stream accepts: each window is a ring of this
 * many doubles per combination, so it bounds a stream's memory. */
enum { MAX_STREAM_WINDOW = 1 << 16 };

/* <<little-endian-interface>>, paper/50-protocol.md */
void le_put_u32(uint8_t *p, uint32_t v);
uint32_t le_get_u32(const uint8_t *p);
void le_put_f64s(uint8_t *dst, const double *src, size_t n);
void le_get_f64s(double *dst, const uint8_t *src, size_t n);
void le_put_i64s(uint8_t *dst, const int64_t *src, size_t n);
void le_get_i64s(int64_t *dst, const uint8_t *src, size_t n);

/* <<request-interface>>, paper/50-protocol.md */
/* Body size of a request with these counts; exact, never wraps. */
uint64_t request_body_size(uint32_t n_bars, uint32_t n_combos);

/* Writes a request body into body[0 .. request_body_size(...)). */
void request_encode(uint8_t *body, enum opcode op, const double *close, uint32_t n_bars,
                    const struct combo_params *params, uint32_t n_combos);

/* A decoded request: counts, and pointers into the body it came from. */
struct request_view {
    uint8_t opcode;            /* without the OP_TIMED bit */
    int timed;                 /* the client set OP_TIMED */
    uint32_t n_bars, n_combos;
    const uint8_t *close;      /* n_bars little-endian f64 */
    const uint8_t *params;     /* n_combos x 6 little-endian i64 */
};

/* Checks that a body has a request's shape (a header, an opcode the
 * protocol defines, counts that agree with its length); returns 0, or -1
 * with a message for an error frame. */
int request_decode(const uint8_t *body, size_t len, struct request_view *req,
                   char *err, size_t err_size);

/* The parameter sets of a decoded request, as structs. */
void request_params(const struct request_view *req, struct combo_params *params);

/* The one check of parameter sets: every window in 1..max_window, where
 * `limit` names max_window for the message ("n_bars"). 0, or -1. */
int request_check_windows(const struct combo_params *params, size_t n_combos,
                          int64_t max_window, const char *limit, char *err, size_t err_size);

/* The one check of a series: every close a finite number. 0, or -1 with a
 * message naming the first that is not. */
int request_check_closes(const double *close, size_t n, char *err, size_t err_size);

/* <<reply-interface>>, paper/50-protocol.md */
uint64_t sweep_reply_size(uint32_t n_combos);
void sweep_reply_encode(uint8_t *body, const struct combo_result *results, uint32_t n_combos);
/* Returns 0, or -1 if the body is not the reply to n_combos combinations. */
int sweep_reply_decode(const uint8_t *body, size_t len, struct combo_result *results,
                       uint32_t n_combos);

/* Writes the 4-byte header of an error frame; returns the message length used. */
uint32_t error_frame_header(uint8_t header[FRAME_HEADER_BYTES], size_t message_len);

/* The engine's timing of one call (nanoseconds). */
struct call_timing {
    uint64_t engine_ns, decode_ns, compute_ns, encode_ns, cpu_ns, received_ns, faults;
};

void timing_trailer_encode(uint8_t out[TIMING_TRAILER_BYTES], const struct call_timing *t);
/* The trailer at the end of body[0..len); 0, or -1 when len is too short. */
int timing_trailer_decode(const uint8_t *body, size_t len, struct call_timing *t);

#endif
