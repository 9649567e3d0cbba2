/*
 * netio.c - byte I/O and sockets, shared by the engine and every client.
 *
 * Tangled from paper/55-engine.md.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/netio.h"

/* <<deadline-check>>, paper/55-engine.md */
/* After EAGAIN/EINTR: 1 to retry, 0 to give up (errno = ETIMEDOUT). */
static int may_retry(uint64_t deadline_ns)
{
    if (errno == EINTR)
        return 1;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
        return 0;
    if (deadline_ns != NO_DEADLINE && clock_ns() >= deadline_ns) {
        errno = ETIMEDOUT;
        return 0;
    }
    return 1;
}

/* <<read-exact>>, paper/55-engine.md */
/* Drops the first n bytes of the iovecs (read or written already). */
static void skip_bytes(struct iovec **iov, int *iovcnt, size_t n)
{
    while (*iovcnt > 0 && n >= (*iov)->iov_len) {
        n -= (*iov)->iov_len;
        (*iov)++;
        (*iovcnt)--;
    }
    if (*iovcnt > 0) {
        (*iov)->iov_base = (uint8_t *)(*iov)->iov_base + n;
        (*iov)->iov_len -= n;
    }
}

ssize_t read_some(int fd, struct iovec *iov, int iovcnt, size_t least, uint64_t deadline_ns)
{
    size_t got = 0;
    while (got < least) {
        ssize_t r = readv(fd, iov, iovcnt);
        if (r > 0) {
            got += (size_t)r;
            skip_bytes(&iov, &iovcnt, (size_t)r);
            if (got < least && deadline_ns != NO_DEADLINE && clock_ns() >= deadline_ns) {
                errno = ETIMEDOUT;
                return -1;
            }
        } else if (r == 0) {
            if (got == 0)
                return 0;
            errno = ECONNRESET;
            return -1;
        } else if (!may_retry(deadline_ns)) {
            return -1;
        }
    }
    return (ssize_t)got;
}

int read_exact(int fd, void *buf, size_t n, uint64_t deadline_ns)
{
    struct iovec iov = {buf, n};
    if (n == 0)
        return 0;
    ssize_t r = read_some(fd, &iov, 1, n, deadline_ns);
    return r > 0 ? 0 : r == 0 ? 1 : -1;
}

/* <<write-all>>, paper/55-engine.md */
/* One non-blocking attempt to send what is left. */
static ssize_t send_some(int fd, struct iovec *iov, int iovcnt)
{
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
    ssize_t w = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK)
        return writev(fd, iov, iovcnt);
    return w;
}

/* Waits until fd can take more bytes or the deadline passes (ETIMEDOUT). */
static int wait_writable(int fd, uint64_t deadline_ns)
{
    for (;;) {
        uint64_t now = clock_ns();
        if (now >= deadline_ns) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {fd, POLLOUT, 0};
        int r = poll(&p, 1, (int)((deadline_ns - now) / 1000000u) + 1);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

int write_all(int fd, struct iovec *iov, int iovcnt, uint64_t deadline_ns)
{
    while (iovcnt > 0) {
        ssize_t w = deadline_ns == NO_DEADLINE ? writev(fd, iov, iovcnt)
                                               : send_some(fd, iov, iovcnt);
        if (w < 0) {
            if (deadline_ns != NO_DEADLINE && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (wait_writable(fd, deadline_ns) != 0)
                    return -1;
            } else if (!may_retry(deadline_ns)) {
                return -1;
            }
            continue;
        }
        skip_bytes(&iov, &iovcnt, (size_t)w);
    }
    return 0;
}

/* <<fd-link>>, paper/55-engine.md */
static int fd_read_exact(void *ctx, void *buf, size_t n, uint64_t deadline_ns)
{
    return read_exact(((const struct fd_pair *)ctx)->in, buf, n, deadline_ns);
}

static int fd_write_all(void *ctx, struct iovec *iov, int iovcnt, uint64_t deadline_ns)
{
    return write_all(((const struct fd_pair *)ctx)->out, iov, iovcnt, deadline_ns);
}

/* A socket's peer has gone when it has closed both ways (POLLHUP) or reset
 * the connection (POLLERR), not when it only stopped sending (POLLRDHUP: it
 * still reads); a pipe's reader, when writing would fail (POLLERR). poll
 * reports these without being asked. */
static int fd_peer_gone(void *ctx)
{
    const struct fd_pair *fds = ctx;
    struct pollfd p = {fds->out, 0, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

static ssize_t fd_read_some(void *ctx, struct iovec *iov, int iovcnt, size_t least,
                            uint64_t deadline_ns)
{
    return read_some(((const struct fd_pair *)ctx)->in, iov, iovcnt, least, deadline_ns);
}

struct byte_link fd_link(struct fd_pair *fds)
{
    return (struct byte_link){fd_read_exact, fd_read_some, fd_write_all, fd_peer_gone, fds};
}

/* <<unix-sockets>>, paper/55-engine.md */
static int unix_address(const char *path, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(addr->sun_path, path);
    return 0;
}

int unix_connect(const char *path)
{
    struct sockaddr_un addr;
    if (unix_address(path, &addr) != 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int unix_listen(const char *path, int backlog, char *err, size_t err_size)
{
    struct sockaddr_un addr;
    struct stat st;
    if (unix_address(path, &addr) != 0)
        return set_error(err, err_size, "socket path too long: %s", path);
    if (lstat(path, &st) == 0) {
        /* <<take-over-a-stale-socket-file>>, paper/55-engine.md */
        if (!S_ISSOCK(st.st_mode))
            return set_error(err, err_size, "%s exists and is not a socket; not touching it", path);
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (probe < 0)
            return set_error(err, err_size, "socket: %s", strerror(errno));
        int answered = connect(probe, (struct sockaddr *)&addr, sizeof addr) == 0;
        int why = errno;
        close(probe);
        if (answered || why == EAGAIN)
            return set_error(err, err_size, "an engine is already listening on %s%s", path,
                             answered ? "" : " (its backlog is full)");
        if (why != ECONNREFUSED)
            return set_error(err, err_size, "cannot tell whether %s is in use (connect: %s); "
                             "not touching it", path, strerror(why));
        unlink(path);                  /* nobody listens: the file is stale */
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return set_error(err, err_size, "socket: %s", strerror(errno));
    /* bind creates the file; a umask of 0177 makes it 0600 from birth, with
     * no window in which another user could connect. */
    mode_t old_mask = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old_mask);
    if (bound != 0 || listen(fd, backlog) != 0) {
        set_error(err, err_size, "cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* <<listen-on-tcp>>, paper/55-engine.md */
int tcp_listen(const char *host, const char *port, int backlog, char *err, size_t err_size)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return set_error(err, err_size, "cannot listen on %s:%s: %s", host, port,
                         rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    int fd = -1, why = 0;
    const char *step = "socket";
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        int one = 1;
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            why = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        step = "bind";
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            step = "listen";
            if (listen(fd, backlog) == 0)
                break;
        }
        why = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return set_error(err, err_size, "cannot listen on %s:%s: %s: %s", host, port, step,
                         strerror(why));
    return fd;
}

/* <<connect-over-tcp-and-name-an-address>>, paper/55-engine.md */
int socket_local_address(int fd, char *text, size_t size)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
        getnameinfo((struct sockaddr *)&a, len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return -1;
    snprintf(text, size, a.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
    return 0;
}

int tcp_connect(const char *host, const char *port)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0)
        tcp_no_delay(fd);
    return fd;
}

/* <<tune-a-tcp-connection>>, paper/55-engine.md */
/* Whether fd's peer is this machine: 127.0.0.0/8, ::1, or IPv4 on IPv6. */
static int peer_is_loopback(int fd)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    if (getpeername(fd, (struct sockaddr *)&a, &len) != 0)
        return 0;
    if (a.ss_family == AF_INET)
        return (ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *v6 = &((struct sockaddr_in6 *)&a)->sin6_addr;
    return a.ss_family == AF_INET6 &&
           (IN6_IS_ADDR_LOOPBACK(v6) ||
            (IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127));
}

void tcp_no_delay(int fd)
{
    int one = 1;
    static const char unpaced[] = "reno";
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (peer_is_loopback(fd))
        setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, unpaced, sizeof unpaced - 1);
}

void socket_wake_every(int fd, int milliseconds)
{
    struct timeval tv = {milliseconds / 1000, (milliseconds % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}
