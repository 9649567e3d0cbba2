/*
 * netio.h - exact reads and writes with deadlines, and socket set-up.
 *
 * Tangled from paper/55-engine.md.
 */
#ifndef IPCTAX_NETIO_H
#define IPCTAX_NETIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Deadlines are clock_ns() values; NO_DEADLINE waits as long as it takes. */
#define NO_DEADLINE 0

/* Reads exactly n bytes. Returns 0 when done, 1 when the peer closed before
 * the first byte (a clean end), -1 on error, mid-frame close (ECONNRESET) or
 * a passed deadline (ETIMEDOUT). */
int read_exact(int fd, void *buf, size_t n, uint64_t deadline_ns);

/* Reads at least `least` bytes (1 or more) into the iovecs, which it may
 * modify, and at most their total: whatever has arrived by then. Returns
 * the count; 0 when the peer closed before the first byte; -1 as above. */
ssize_t read_some(int fd, struct iovec *iov, int iovcnt, size_t least, uint64_t deadline_ns);

/* Writes every byte of the iovecs (which it may modify). 0 or -1 as above. */
int write_all(int fd, struct iovec *iov, int iovcnt, uint64_t deadline_ns);

/* <<byte-link>>, paper/55-engine.md */
/* Where a connection's bytes come from and go to. Both calls keep the
 * contract of read_exact and write_all (netio.h): 0 when done; a read
 * returns 1 when the peer left before its first byte; otherwise -1 with
 * errno ETIMEDOUT, ECONNRESET, EPIPE or what the system said. */
struct byte_link {
    int (*read_exact)(void *ctx, void *buf, size_t n, uint64_t deadline_ns);
    /* read_some's contract: at least `least` bytes into the iovecs, at most
     * their total; the count, 0 for a clean end, or -1. A transport that
     * cannot tell what has arrived reads exactly `least`. */
    ssize_t (*read_some)(void *ctx, struct iovec *iov, int iovcnt, size_t least,
                         uint64_t deadline_ns);
    int (*write_all)(void *ctx, struct iovec *iov, int iovcnt, uint64_t deadline_ns);
    /* 1 when the peer has certainly gone (hung up, died); 0 otherwise.
     * Never waits: a long computation asks it between pieces of work. */
    int (*peer_gone)(void *ctx);
    void *ctx;                 /* the transport's own state */
};
struct fd_pair {
    int in, out;               /* read from in, write to out */
};

/* A link that reads fds->in and writes fds->out. */
struct byte_link fd_link(struct fd_pair *fds);

/* <<socket-helpers-interface>>, paper/55-engine.md */
/* Listens on a Unix socket at path (mode 0600), replacing a stale socket
 * file but never a live one. Returns the fd, or -1 with a message in err. */
int unix_listen(const char *path, int backlog, char *err, size_t err_size);
int unix_connect(const char *path);

/* Listens on host:port (TCP_NODELAY on accepted sockets is the caller's).
 * A failure says why: the resolver's message, or which call failed. */
int tcp_listen(const char *host, const char *port, int backlog, char *err, size_t err_size);
/* The socket's own address as "HOST:PORT" ("[HOST]:PORT" for IPv6); 0 or -1. */
int socket_local_address(int fd, char *text, size_t size);
int tcp_connect(const char *host, const char *port);
/* Sends small frames at once instead of waiting to fill a packet, and on a
 * loopback connection sends without pacing (see the chapter). */
void tcp_no_delay(int fd);

/* Sets the period after which a blocked read or write wakes up. */
void socket_wake_every(int fd, int milliseconds);

#endif
