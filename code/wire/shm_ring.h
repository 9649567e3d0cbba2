/*
 * shm_ring.h - a channel in POSIX shared memory: two single-producer,
 * single-consumer byte rings (requests and replies) that carry the
 * protocol's frames between one engine and one client at a time.
 *
 * Tangled from paper/84-shm.md.
 */
#ifndef IPCTAX_SHM_RING_H
#define IPCTAX_SHM_RING_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "wire/netio.h"

/* <<shm-wait-modes>>, paper/84-shm.md */
/* How one side waits for the other; each side chooses for itself. */
enum shm_wait {
    SHM_WAIT_FUTEX,            /* sleep in the kernel until woken (the default) */
    SHM_WAIT_SPIN,             /* poll with a pause instruction, a core held busy */
};

/* "futex" or "spin" into *mode; 0, or -1 for anything else. */
int shm_wait_parse(const char *text, enum shm_wait *mode);
const char *shm_wait_name(enum shm_wait mode);

/* <<shm-sizes>>, paper/84-shm.md */
enum {
    SHM_DEFAULT_RING_BYTES = 256 * 1024,   /* each direction; see the text */
    SHM_MIN_RING_BYTES = 64,               /* must be a power of two ... */
    SHM_MAX_RING_BYTES = 1 << 30,          /* ... between these two */
    SHM_NAME_SIZE = 128,                   /* "/name" and its NUL */
};

/* <<shm-shared-layout>>, paper/84-shm.md */
/* Two cache lines: some x86 processors fetch lines in adjacent pairs. */
#define SHM_LINE 128

struct shm_ring {
    /* The producer's block: written on every publish. */
    _Alignas(SHM_LINE) _Atomic uint64_t head;      /* bytes ever written */
    _Atomic uint32_t data_seq;                     /* futex word: data for a sleeping consumer */
    /* The consumer's block: written on every read. */
    _Alignas(SHM_LINE) _Atomic uint64_t tail;      /* bytes ever read */
    _Atomic uint32_t space_seq;                    /* futex word: room for a sleeping producer */
    /* Written only on going to sleep and waking: cheap for the other side to read. */
    _Alignas(SHM_LINE) _Atomic uint32_t consumer_sleeping;
    _Alignas(SHM_LINE) _Atomic uint32_t producer_sleeping;
};

/* The client word: free, the attached client's pid, or "it has left". */
enum { SHM_FREE = 0, SHM_CLIENT_LEFT = -1 };

struct shm_segment {
    uint64_t magic;
    uint32_t version;
    uint32_t ring_bytes;
    _Atomic uint32_t ready;            /* set last, when everything else is in place */
    _Atomic int32_t engine_pid;        /* 0 once the engine has stopped */
    _Atomic int32_t client;            /* SHM_FREE, a pid, or SHM_CLIENT_LEFT */
    _Atomic uint32_t engine_closed;    /* the engine has ended this client's session */
    _Atomic uint32_t attach_seq;       /* futex word the engine sleeps on between clients */
    struct shm_ring requests;          /* client to engine */
    struct shm_ring replies;           /* engine to client */
};

#define SHM_MAGIC 0x6970637461785368ull        /* "ipctaxSh" */
#define SHM_VERSION 1u
/* The rings' bytes start on the first page boundary after the control block. */
#define SHM_DATA_OFFSET ((sizeof(struct shm_segment) + 4095) / 4096 * 4096)

/* <<shm-channel>>, paper/84-shm.md */

/* One process's view of a channel. */
struct shm_channel {
    struct shm_segment *seg;       /* the mapping; NULL when not attached */
    size_t map_bytes;
    struct shm_ring *in, *out;     /* the ring this side reads, the one it writes */
    uint8_t *in_data, *out_data;   /* their bytes */
    uint64_t capacity;             /* bytes in each ring, a power of two */
    uint64_t head_seen;            /* the incoming ring's head when last read */
    uint64_t tail_seen;            /* the outgoing ring's tail when last read */
    enum shm_wait wait;            /* how this side waits */
    int is_engine;
    pid_t peer;                    /* the process on the other side */
    uint64_t next_liveness_ns;     /* when to ask the kernel about the peer again */
    int stop_fd;                   /* engine: readable once told to stop; -1 elsewhere */
    int fd;                        /* engine: the segment, to look at its size; else -1 */
    int guard;                     /* the mapping's slot for the SIGBUS handler, or -1 */
    unsigned renewals;             /* engine: segments replaced (for the log) */
    char renewed_because[160];     /* engine: why the last one was */
    uint64_t leave_ns;             /* engine: how long a client has to leave (SHM_LEAVE_NS) */
    char name[SHM_NAME_SIZE];
};

/* <<shm-channel-interface>>, paper/84-shm.md */
/* Engine: creates the segment `name` (mode 0600) with rings of ring_bytes
 * each, replacing a segment left by a dead engine but never a live one.
 * Returns 0, or -1 with a message in err. */
int shm_channel_create(struct shm_channel *ch, const char *name, size_t ring_bytes,
                       enum shm_wait wait, char *err, size_t err_size);
/* Engine: sleeps until a client attaches (0), until ch->stop_fd becomes
 * readable (-1, errno EINTR: the engine's stop pipe, which its signal
 * handler writes), or until the deadline (-1, ETIMEDOUT; NO_DEADLINE waits
 * as long as it takes). A segment found damaged is replaced first (-1 with
 * errno when that fails). */
int shm_channel_accept(struct shm_channel *ch, uint64_t deadline_ns);
/* Engine: ends the session, waits for the client to leave (or die), and
 * empties the rings for the next client. */
void shm_channel_release(struct shm_channel *ch);
/* Engine: marks the engine gone, unmaps and removes the segment. */
void shm_channel_destroy(struct shm_channel *ch);

/* Client: attaches to the engine's segment, retrying for up to timeout_ms
 * while it does not exist yet, is not ready, or serves another client.
 * Returns 0, or -1 with errno and a message in err. */
int shm_channel_attach(struct shm_channel *ch, const char *name, enum shm_wait wait,
                       int timeout_ms, char *err, size_t err_size);
/* Client: leaves the channel, so that the engine serves the next client. */
void shm_channel_detach(struct shm_channel *ch);

/* Writes every byte of the iovecs. 0, or -1 with errno ETIMEDOUT (the
 * deadline, a clock_ns() value, passed), EPIPE (the peer has gone) or
 * EINTR (the engine was told to stop). */
int shm_write_all(struct shm_channel *ch, const struct iovec *iov, int iovcnt,
                  uint64_t deadline_ns);
/* Reads exactly n bytes. 0; 1 when the peer left before the first byte (a
 * clean end); -1 with errno as above, or ECONNRESET when it left mid-way. */
int shm_read_exact(struct shm_channel *ch, void *buf, size_t n, uint64_t deadline_ns);

/* The two calls above as a byte link (netio.h), for the protocol's loop
 * and the harness's client. */
struct byte_link shm_link(struct shm_channel *ch);

#endif
