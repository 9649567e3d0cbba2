/*
 * client.h - the harness's side of the protocol: round trips, engines.
 *
 * Tangled from paper/57-client.md.
 */
#ifndef IPCTAX_CLIENT_H
#define IPCTAX_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/arch.h"
#include "wire/frame.h"
#include "wire/shm_ring.h"

/* Client errors are reported as architecture errors: one size for both. */
enum { CLIENT_ERROR_SIZE = 512 };

struct engine_client {
    int in_fd, out_fd;             /* where replies come from, where requests go */
    uint8_t *request;              /* request body buffer */
    size_t request_cap;
    uint8_t *reply;                /* reply body buffer */
    size_t reply_cap;
    size_t reply_len;
    struct shm_channel *shm;       /* if set, round trips go through shared memory (@sec:shm) */
    long child_faults;             /* minor page faults of the last spawned engine */
};

void client_init(struct engine_client *c, int in_fd, int out_fd);
void client_close(struct engine_client *c);

/* Makes sure the request buffer holds `size` bytes; returns it or NULL. */
uint8_t *client_request_buffer(struct engine_client *c, size_t size);

/* Sends request[0..len) as a frame and reads the reply into c->reply.
 * Returns 0; -1 on I/O failure; -2 when the engine answered with an error
 * frame (its message is in err). */
int client_round_trip(struct engine_client *c, size_t len, char err[CLIENT_ERROR_SIZE]);

/* Encodes a request (any opcode) and makes the round trip; as above. */
int client_request(struct engine_client *c, enum opcode op, const double *close,
                   size_t n_bars, const struct combo_params *params, size_t n_combos,
                   char err[CLIENT_ERROR_SIZE]);

/* Sweeps combos [first, first+count) of the job; results go to results[first..]. */
int client_sweep(struct engine_client *c, const struct sweep_job *job, size_t first,
                 size_t count, struct combo_result *results, char err[CLIENT_ERROR_SIZE]);

/* Echoes values[0..n) and decodes the answer into back[0..n). */
int client_echo(struct engine_client *c, const double *values, size_t n, double *back,
                char err[CLIENT_ERROR_SIZE]);

struct engine_process {
    pid_t pid;
    char socket_path[108];
    char tcp_port[16];
};

/* Starts `engine_path args...` and waits until it accepts on its socket
 * (tcp_port NULL: Unix socket at socket_path). Returns a connected fd, or -1. */
int engine_start(struct engine_process *e, const char *engine_path, char *const args[],
                 const char *socket_path, const char *tcp_port, char err[CLIENT_ERROR_SIZE]);
/* SIGTERM, then wait for the engine to exit. */
void engine_stop(struct engine_process *e);

/* Finds a loopback TCP port that is free right now; returns 0 or -1. */
int free_tcp_port(char port[16]);

/* Starts `engine_path args... --stdin [mode]` with its standard input and
 * output on two pipes; returns its pid, or -1 with err set. */
pid_t engine_spawn_piped(const char *engine_path, char *const args[], const char *mode,
                         int *to_child, int *from_child, char err[CLIENT_ERROR_SIZE]);

/* Runs `engine_path --stdin args...` for one request in c->request[0..len):
 * the reply lands in c->reply. Returns as client_round_trip does. */
int engine_spawn_call(struct engine_client *c, const char *engine_path, char *const args[],
                      size_t len, char err[CLIENT_ERROR_SIZE]);
/* An engine serving over shared memory, and a client attached to it. */
struct shm_engine {
    struct engine_process process;
    struct shm_channel channel;
    struct engine_client client;   /* its round trips go through `channel` */
    char name[SHM_NAME_SIZE];
};

/* Starts `engine_path args... --shm NAME --shm-wait MODE` (NAME from this
 * process's pid and `tag`), waits until its segment is ready, and attaches.
 * Both sides wait in `wait`. Returns 0 or -1 with err set. */
int shm_engine_start(struct shm_engine *s, const char *engine_path, char *const args[],
                     const char *tag, enum shm_wait wait, char err[CLIENT_ERROR_SIZE]);
/* Detaches, stops the engine (which removes its segment), frees the buffers. */
void shm_engine_stop(struct shm_engine *s);

#endif
