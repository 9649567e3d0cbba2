/*
 * client.h - the protocol's client: a byte link, two buffers, a round trip.
 *
 * Tangled from paper/57-client.md.
 */
#ifndef IPCTAX_CLIENT_H
#define IPCTAX_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "wire/buffer.h"
#include "wire/frame.h"
#include "wire/netio.h"

struct client {
    struct byte_link link;
    struct fd_pair fds;        /* the link's descriptors, when it is fd_link's */
    struct buffer request, reply;
    size_t reply_len;          /* bytes of the last reply body */
};

/* When the parts of a round trip ended (clock_ns values): the request sent,
 * the first read of the reply (its length word, with what of the body came
 * along), the whole reply read. */
struct round_trip_times {
    uint64_t sent, arrived, received;
};

/* An empty client; then the link it talks over: two descriptors (read from
 * in_fd, write to out_fd) or any byte link. A client may change its link
 * and keep its buffers; it never takes the descriptors' ownership. */
void client_init(struct client *c);
void client_set_fds(struct client *c, int in_fd, int out_fd);
void client_set_link(struct client *c, struct byte_link link);
void client_free(struct client *c);

/* The request buffer, holding at least `size` bytes; NULL when out of memory. */
uint8_t *client_request_buffer(struct client *c, size_t size);

/* Sends request[0..len) as a frame and reads the reply into c->reply.
 * Returns 0; -1 when the transport failed or the deadline (clock_ns; 0:
 * none) passed; -2 when the engine answered with an error frame, whose
 * message is then in err. `times` may be NULL. */
int client_round_trip(struct client *c, size_t len, uint64_t deadline_ns,
                      struct round_trip_times *times, char *err, size_t err_size);

/* Encodes a request and makes the round trip; as above. */
int client_request(struct client *c, enum opcode op, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos, char *err,
                   size_t err_size);
/* A sweep, decoded into results[0..n_combos). */
int client_sweep(struct client *c, const double *close, size_t n_bars,
                 const struct combo_params *params, size_t n_combos,
                 struct combo_result *results, char *err, size_t err_size);
/* An echo of values[0..n), decoded into back[0..n). */
int client_echo(struct client *c, const double *values, size_t n, double *back, char *err,
                size_t err_size);

#endif
