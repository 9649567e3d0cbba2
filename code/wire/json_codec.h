/*
 * json_codec.h - the engine's JSON endpoint: requests and replies as text.
 *
 * Tangled from paper/83-json.md.
 */
#ifndef IPCTAX_JSON_CODEC_H
#define IPCTAX_JSON_CODEC_H

#include <stddef.h>

#include "kernel/kernel.h"
#include "wire/frame.h"

/* Largest JSON body the engine parses: the tree costs ~20x the text. */
#define MAX_JSON_BODY (4u * 1024u * 1024u)

/* A decoded JSON sweep request; its arrays are malloc'ed. */
struct json_request {
    double *close;
    size_t n_bars;
    struct combo_params *params;
    size_t n_combos;
    int timed;                 /* "timing": true */
};

/* The request text for a sweep (free() it); NULL when out of memory. */
char *json_request_encode(const double *close, size_t n_bars,
                          const struct combo_params *params, size_t n_combos, size_t *len);
/* The same, asking for the engine's timing when `timed` is set. */
char *json_request_encode_timed(const double *close, size_t n_bars,
                                const struct combo_params *params, size_t n_combos, int timed,
                                size_t *len);
/* Parses and checks a request; returns 0, or -1 with a message. */
int json_request_decode(const char *text, size_t len, struct json_request *req,
                        char *err, size_t err_size);
void json_request_free(struct json_request *req);

/* The reply text for results (free() it); NULL when out of memory. */
char *json_reply_encode(const struct combo_result *results, size_t n_combos, size_t *len);
/* Parses a reply for n_combos combinations (a "timing" member is allowed,
 * and ignored); returns 0, or -1 with a message. */
int json_reply_decode(const char *text, size_t len, struct combo_result *results,
                      size_t n_combos, char *err, size_t err_size);
/* The "timing" member of a reply to a timed request; 0, or -1 with a message. */
int json_reply_timing(const char *text, size_t len, struct call_timing *t,
                      char *err, size_t err_size);

#endif
