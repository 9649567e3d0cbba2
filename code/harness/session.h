/*
 * session.h - an engine on a transport, and the protocol's calls to it,
 * each optionally timed on both sides of the boundary.
 *
 * Tangled from paper/57-client.md.
 */
#ifndef IPCTAX_SESSION_H
#define IPCTAX_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/env.h"
#include "kernel/kernel.h"
#include "schema/architectures.h"
#include "schema/columns.h"
#include "wire/client.h"
#include "wire/netio.h"
#include "wire/shm_ring.h"

/* <<call-record>>, paper/57-client.md */
#define CALL_RECORD_MEMBER(row, name, ...) uint64_t name;
struct call_record {
    CALL_RECORD_COLUMNS(CALL_RECORD_MEMBER, unused)
    int has_engine;            /* the reply carried the engine's own timing */
    int has_process;           /* a process was spawned for the call */
    int has_usage;             /* ... and its usage is known */
    int has_client_faults;     /* client_minor_faults was counted */
    uint64_t exchange_ns, arrived_ns;  /* the clock when sending began and the reply was in */
    uint64_t spawn_ns;         /* a spawned engine: the parent's posix_spawn */
};
#undef CALL_RECORD_MEMBER

/* <<session-type>>, paper/57-client.md */
struct session_options {
    enum transport transport;
    const char *name;          /* names the socket or segment; unique in a run */
    const char *kernel;        /* the engine's --kernel, or NULL for its default */
    const char *layout;        /* the engine's --layout (@sec:workspace), or NULL */
    int raw;                   /* the engine serves the raw ping-pong instead */
    int connect;               /* connect now; 0 when another process will */
    const char *engine;        /* another engine binary, or NULL for the harness's */
    char *const *wrapper;      /* a command the engine runs under (valgrind), or NULL */
};

struct session {
    struct session_options opt;
    const struct harness_env *env;
    pid_t pid;                 /* the persistent engine, 0 if none */
    char address[512];         /* where it said it listens */
    char socket_path[108];
    char tcp_port[16];
    char shm_name[SHM_NAME_SIZE];
    int fd;                    /* the socket connection, or -1 */
    struct shm_channel shm;
    int attached;              /* to the shared-memory channel */
    int connected;             /* the client has a link */
    struct client client;      /* the round trips (@sec:client-round-trip) */
    pid_t raw_child;           /* the pipe transport's engine, 0 if none */
};

/* <<session-interface>>, paper/57-client.md */
/* Starts the engine (none for TRANSPORT_SPAWN: each call starts one), waits
 * until it listens, and connects if asked. Returns 0, or -1 with err set. */
int session_open(struct session *s, const struct harness_env *env,
                 const struct session_options *o, char *err, size_t err_size);
/* Disconnects and stops the engine, which removes its socket or segment. */
void session_close(struct session *s);

/* Leaves the engine running but drops the connection, and makes a new one:
 * an engine over shared memory serves one client at a time. */
void session_disconnect(struct session *s);
int session_connect(struct session *s, char *err, size_t err_size);

/* The protocol's calls. With t != NULL the call is timed and asks the
 * engine for its timing; with NULL it is sent exactly as a client that
 * does not ask would send it. Each returns 0, or -1 with err set (an engine's
 * error frame included, with its message). */
int session_sweep(struct session *s, const double *close, size_t n_bars,
                  const struct combo_params *params, size_t n_combos,
                  struct combo_result *results, struct call_record *t, char *err, size_t err_size);
int session_echo(struct session *s, const double *values, size_t n, double *back,
                 struct call_record *t, char *err, size_t err_size);
int session_load(struct session *s, const double *close, size_t n_bars,
                 struct call_record *t, char *err, size_t err_size);
int session_sweep_loaded(struct session *s, const struct combo_params *params,
                         size_t n_combos, struct combo_result *results,
                         struct call_record *t, char *err, size_t err_size);
int session_stream_open(struct session *s, const struct combo_params *params,
                        size_t n_combos, struct call_record *t, char *err, size_t err_size);
int session_stream_bar(struct session *s, double close, size_t n_combos,
                       struct call_record *t, char *err, size_t err_size);
int session_stream_close(struct session *s, struct combo_result *results, size_t n_combos,
                         struct call_record *t, char *err, size_t err_size);
int session_json_sweep(struct session *s, const double *close, size_t n_bars,
                       const struct combo_params *params, size_t n_combos,
                       struct combo_result *results, struct call_record *t,
                       char *err, size_t err_size);

/* The raw ping-pong of an engine opened with raw = 1: `bytes` out and the
 * same bytes back per round trip, until session_raw_end. */
int session_raw_begin(struct session *s, size_t bytes, char *err, size_t err_size);
int session_raw_round_trip(struct session *s, const void *out, void *in, size_t bytes,
                           char *err, size_t err_size);
void session_raw_end(struct session *s);

#endif
