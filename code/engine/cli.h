/*
 * cli.h - the engine's command line: its options, their ranges and defaults.
 *
 * Tangled from paper/55-engine.md.
 */
#ifndef IPCTAX_CLI_H
#define IPCTAX_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "engine/service.h"
#include "wire/shm_ring.h"

/* <<engine-options>>, paper/55-engine.md */
/* Where the engine listens for its clients (the harness's own transports are
 * another thing: harness/session.h). */
enum listen_on { LISTEN_NONE, LISTEN_UNIX, LISTEN_TCP, LISTEN_STDIN, LISTEN_SHM };

enum {
    DEFAULT_MAX_CLIENTS = 32,
    DEFAULT_IDLE_TIMEOUT_MS = 120000,
    DEFAULT_FRAME_TIMEOUT_MS = 10000,
    MAX_TIMEOUT_MS = 86400000,         /* a day: the harness's idle timeout */
    ENGINE_SPARE_FDS = 16,             /* descriptors kept for the engine's own use */
};

/* --max-work's own bound: 2^62, so that a sum of steps never nears 2^64. */
#define MAX_MAX_WORK (1L << 62)

struct engine_options {
    enum listen_on listen_on;
    const char *unix_path;
    char tcp_host[256];
    char tcp_port[8];
    int max_clients;
    int raw;                   /* serve the raw ping-pong, not the protocol */
    int die_with_parent;       /* SIGTERM when the parent goes */
    /* <<engine-shm-options>>, paper/84-shm.md */
    const char *shm_name;      /* --shm: the shared-memory segment's name */
    enum shm_wait shm_wait;    /* --shm-wait: how the engine waits (zero: futex) */
    struct engine_config cfg;
};

/* What a command line asks for. */
enum cli_result { CLI_RUN = 0, CLI_HELP = 1, CLI_VERSION = 2, CLI_BAD = -1 };

void engine_default_options(struct engine_options *o);
/* Parses argv into *o, which holds the defaults: CLI_RUN, CLI_HELP or
 * CLI_VERSION, or CLI_BAD with a message in err that names the option and
 * what it allows. Prints nothing, exits nothing. */
int engine_parse_options(int argc, char **argv, struct engine_options *o,
                         char *err, size_t err_size);
void engine_usage(FILE *to);
/* The most clients the descriptor limit leaves room for. */
long max_clients_allowed(void);

#endif
