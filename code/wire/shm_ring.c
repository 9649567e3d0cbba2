/*
 * shm_ring.c - two SPSC byte rings in POSIX shared memory, C11 atomics,
 * waiting by spinning or in futex.
 *
 * Tangled from paper/84-shm.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/netio.h"
#include "wire/shm_ring.h"

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "shared-memory atomics must be lock-free to work between processes");
_Static_assert(sizeof(_Atomic uint32_t) == 4, "a futex word is 32 bits");

/* Points the channel at its two rings: the engine reads requests, the client replies. */
static void bind_side(struct shm_channel *ch, int is_engine)
{
    uint8_t *requests = (uint8_t *)ch->seg + SHM_DATA_OFFSET;
    uint8_t *replies = requests + ch->capacity;
    ch->is_engine = is_engine;
    ch->in = is_engine ? &ch->seg->requests : &ch->seg->replies;
    ch->out = is_engine ? &ch->seg->replies : &ch->seg->requests;
    ch->in_data = is_engine ? requests : replies;
    ch->out_data = is_engine ? replies : requests;
}

/* Sleeps while *word == expected, at most timeout_ns; a signal also ends
 * it, and then 1 is returned (0 otherwise). */
static int futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, &ts, NULL, 0);
    return r != 0 && errno == EINTR;
}

/* Changes the word, then wakes whoever sleeps on it. */
static void futex_bump(_Atomic uint32_t *word)
{
    atomic_fetch_add(word, 1);
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The spin-wait hint: fewer wasted loads, no flush when the wait ends. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

enum { SHM_SPINS_PER_LOOK = 256 };                 /* polls between looks at the clock */
#define SHM_CHECK_NS 10000000ull                   /* 10 ms: longest sleep without a check */
#define SHM_SPIN_PATIENCE_NS 100000000ull          /* 100 ms of spinning, then sleep */
#define SHM_LEAVE_NS 1000000000ull                 /* 1 s for a client to leave */
#define SHM_DAMAGED "its size changed under it"    /* why a damaged segment is replaced */

static int alive(pid_t pid)
{
    return pid > 0 && kill(pid, 0) == 0;
}

/* Whether process pid maps the segment open as fd at least `times` times
 * (its device and inode are in /proc/PID/maps once per mapping); when /proc
 * cannot tell, it is taken to. */
static int maps_segment(pid_t pid, int fd, int times)
{
    char path[64], line[512];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 ? fopen(path, "r") : NULL;
    if (f == NULL)
        return 1;
    int found = 0;
    while (found < times && fgets(line, sizeof line, f) != NULL) {
        unsigned major, minor;
        unsigned long long inode;
        if (sscanf(line, "%*s %*s %*s %x:%x %llu", &major, &minor, &inode) == 3 &&
            inode == (unsigned long long)st.st_ino && major == major(st.st_dev) &&
            minor == minor(st.st_dev))
            found++;
    }
    fclose(f);
    return found >= times;
}

static void write_header(struct shm_channel *ch);    /* below: the engine's own words */

/* Engine: puts back the header words it owns if anyone changed them. */
static void reassert_header(struct shm_channel *ch)
{
    const struct shm_segment *seg = ch->seg;
    if (atomic_load(&seg->engine_pid) != (int32_t)getpid() || seg->magic != SHM_MAGIC ||
        seg->version != SHM_VERSION || seg->ring_bytes != ch->capacity ||
        !atomic_load(&seg->ready))
        write_header(ch);
}

/*
 * A session starts on empty rings. The engine empties them when a session
 * ends, but a second process may have moved a counter since; so each side,
 * when its session starts, makes the counter it owns (the head of the ring
 * it writes, the tail of the ring it reads) equal to the other side's. The
 * client does so on attaching, before it has written anything; the engine
 * on accepting, when the client may have written a request already, so it
 * leaves the requests' tail, which the client has matched, as it is.
 */
static void start_empty(struct shm_channel *ch)
{
    if (!ch->is_engine)
        atomic_store(&ch->in->tail, atomic_load(&ch->in->head));
    atomic_store(&ch->out->head, atomic_load(&ch->out->tail));
    ch->head_seen = atomic_load(&ch->in->tail);
    ch->tail_seen = atomic_load(&ch->out->tail);
}


static int mapping_damaged(const struct shm_channel *ch);   /* below: a shrunk segment */
static int segment_damaged(const struct shm_channel *ch);

/* Whether the engine has been told to stop: a byte waits in its stop pipe
 * (left there, for every other wait to see too). */
static int stop_requested(const struct shm_channel *ch)
{
    struct pollfd p = {ch->stop_fd, POLLIN, 0};
    return ch->stop_fd >= 0 && poll(&p, 1, 0) > 0;
}

/* 0 while the session goes on; -1 with errno EPIPE when the peer has left
 * or died, EIO when the segment was damaged, or EINTR when the engine has
 * been told to stop. The shared words
 * are read on every call; the kernel is asked (about the peer, and about
 * the stop pipe) at most every SHM_CHECK_NS. */
static int session_over(struct shm_channel *ch, uint64_t now)
{
    struct shm_segment *seg = ch->seg;
    if (mapping_damaged(ch)) {
        errno = EIO;                   /* the segment shrank under us (below) */
        return -1;
    }
    int gone = ch->is_engine ? atomic_load(&seg->client) != ch->peer
                             : atomic_load(&seg->engine_closed) != 0;
    if (!gone && now >= ch->next_liveness_ns) {
        ch->next_liveness_ns = now + SHM_CHECK_NS;
        if (stop_requested(ch)) {
            errno = EINTR;
            return -1;
        }
        if (ch->is_engine && segment_damaged(ch)) {
            errno = EIO;               /* shrunk where nothing has touched it yet */
            return -1;
        }
        if (ch->is_engine)
            reassert_header(ch);
        gone = !alive(ch->peer);
    }
    if (gone)
        errno = EPIPE;
    return gone ? -1 : 0;
}

/* After publishing: wakes the other side if, and only if, it sleeps. */
static void wake_if_sleeping(_Atomic uint32_t *sleeping, _Atomic uint32_t *seq)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(sleeping, memory_order_relaxed))
        futex_bump(seq);
}

/* Sleeps on seq for at most timeout_ns unless *word has moved from seen;
 * 1 when a signal ended the sleep. */
static int sleep_unless_moved(_Atomic uint64_t *word, uint64_t seen, _Atomic uint32_t *seq,
                              _Atomic uint32_t *sleeping, uint64_t timeout_ns)
{
    int interrupted = 0;
    uint32_t ticket = atomic_load_explicit(seq, memory_order_acquire);
    atomic_store_explicit(sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(word, memory_order_relaxed) == seen)
        interrupted = futex_wait(seq, ticket, timeout_ns);
    atomic_store_explicit(sleeping, 0, memory_order_relaxed);
    return interrupted;
}
/* How long a futex sleep may last: until the next check, or the deadline if sooner. */
static uint64_t nap_before(uint64_t deadline_ns)
{
    if (deadline_ns == NO_DEADLINE)
        return SHM_CHECK_NS;
    uint64_t now = clock_ns();
    if (deadline_ns <= now)
        return 0;
    return deadline_ns - now < SHM_CHECK_NS ? deadline_ns - now : SHM_CHECK_NS;
}

/* Waits until *word moves from seen: 0, or -1 with errno ETIMEDOUT, EPIPE or EINTR. */
static int await_move(struct shm_channel *ch, _Atomic uint64_t *word, uint64_t seen,
                      _Atomic uint32_t *seq, _Atomic uint32_t *sleeping, uint64_t deadline_ns)
{
    int spinning = ch->wait == SHM_WAIT_SPIN;
    uint64_t spin_until = 0;
    for (;;) {
        int interrupted = 0;
        if (spinning) {
            for (int i = 0; i < SHM_SPINS_PER_LOOK; i++) {
                if (atomic_load_explicit(word, memory_order_acquire) != seen)
                    return 0;
                cpu_relax();
            }
        } else {
            interrupted = sleep_unless_moved(word, seen, seq, sleeping, nap_before(deadline_ns));
        }
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            return 0;
        uint64_t now = clock_ns();
        if (spin_until == 0)
            spin_until = now + SHM_SPIN_PATIENCE_NS;    /* patience runs from the first look */
        else if (now >= spin_until)
            spinning = 0;
        if (interrupted)
            ch->next_liveness_ns = 0;                   /* a signal: look at the stop pipe now */
        if (session_over(ch, now) != 0)   /* bytes written just before leaving still count */
            return atomic_load_explicit(word, memory_order_acquire) != seen ? 0 : -1;
        if (deadline_ns != NO_DEADLINE && now >= deadline_ns) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

/* Bytes ready to read; looks at the producer's head only when what was known is used up. */
static uint64_t readable(struct shm_channel *ch, uint64_t tail)
{
    if (ch->head_seen == tail)
        ch->head_seen = atomic_load_explicit(&ch->in->head, memory_order_acquire);
    return ch->head_seen - tail;
}

/* Room to write; looks at the consumer's tail only when what was known is too little. */
static uint64_t writable(struct shm_channel *ch, uint64_t head, uint64_t want)
{
    uint64_t room = ch->capacity - (head - ch->tail_seen);
    if (room < want) {
        ch->tail_seen = atomic_load_explicit(&ch->out->tail, memory_order_acquire);
        room = ch->capacity - (head - ch->tail_seen);
    }
    return room;
}

/* Copies n bytes to ring position pos, wrapping around the end. */
static void copy_in(uint8_t *ring, uint64_t capacity, uint64_t pos, const uint8_t *src,
                    size_t n)
{
    size_t at = (size_t)(pos & (capacity - 1));
    size_t first = n < capacity - at ? n : (size_t)(capacity - at);
    memcpy(ring + at, src, first);
    memcpy(ring, src + first, n - first);
}

static void copy_out(uint8_t *dst, const uint8_t *ring, uint64_t capacity, uint64_t pos,
                     size_t n)
{
    size_t at = (size_t)(pos & (capacity - 1));
    size_t first = n < capacity - at ? n : (size_t)(capacity - at);
    memcpy(dst, ring + at, first);
    memcpy(dst + first, ring, n - first);
}
int shm_write_all(struct shm_channel *ch, const struct iovec *iov, int iovcnt,
                  uint64_t deadline_ns)
{
    struct shm_ring *r = ch->out;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t step = ch->capacity / 4;
    size_t left = 0, off = 0;
    for (int i = 0; i < iovcnt; i++)
        left += iov[i].iov_len;
    while (left > 0) {
        uint64_t want = left < step ? left : step;
        uint64_t room = writable(ch, head, want);
        if (room == 0) {
            if (await_move(ch, &r->tail, ch->tail_seen, &r->space_seq, &r->producer_sleeping,
                           deadline_ns) != 0)
                return -1;
            continue;
        }
        size_t n = (size_t)(room < want ? room : want);
        left -= n;
        while (n > 0) {            /* gather from the iovecs */
            size_t take = iov->iov_len - off < n ? iov->iov_len - off : n;
            copy_in(ch->out_data, ch->capacity, head, (const uint8_t *)iov->iov_base + off, take);
            head += take, off += take, n -= take;
            if (off == iov->iov_len)
                iov++, off = 0;
        }
        atomic_store_explicit(&r->head, head, memory_order_release);
        wake_if_sleeping(&r->consumer_sleeping, &r->data_seq);
    }
    return 0;
}
int shm_read_exact(struct shm_channel *ch, void *buf, size_t n, uint64_t deadline_ns)
{
    struct shm_ring *r = ch->in;
    uint8_t *dst = buf;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t step = ch->capacity / 4;
    size_t got = 0;
    while (got < n) {
        uint64_t ready = readable(ch, tail);
        if (ready == 0) {
            if (await_move(ch, &r->head, tail, &r->data_seq, &r->consumer_sleeping,
                           deadline_ns) == 0)
                continue;
            if (errno == EPIPE && got == 0)
                return 1;                                  /* a clean end */
            if (errno == EPIPE)
                errno = ECONNRESET;
            return -1;
        }
        size_t take = n - got;
        if (take > ready)
            take = (size_t)ready;
        if (take > step)
            take = (size_t)step;
        copy_out(dst + got, ch->in_data, ch->capacity, tail, take);
        tail += take, got += take;
        atomic_store_explicit(&r->tail, tail, memory_order_release);
        wake_if_sleeping(&r->producer_sleeping, &r->space_seq);
    }
    return 0;
}

static int shm_link_read(void *ctx, void *buf, size_t n, uint64_t deadline_ns)
{
    return shm_read_exact(ctx, buf, n, deadline_ns);
}

static int shm_link_write(void *ctx, struct iovec *iov, int iovcnt, uint64_t deadline_ns)
{
    return shm_write_all(ctx, iov, iovcnt, deadline_ns);
}

/* The peer has gone when the session is over (it left, died, or the
 * engine is stopping); the kernel is asked at most every SHM_CHECK_NS. */
static int shm_link_peer_gone(void *ctx)
{
    return session_over(ctx, clock_ns()) != 0;
}

struct byte_link shm_link(struct shm_channel *ch)
{
    return (struct byte_link){shm_link_read, shm_link_write, shm_link_peer_gone, ch};
}

/* Every mapping of a segment in this process, for the SIGBUS handler. Slots
 * are claimed and given back by ordinary code; the handler only reads. */
enum { SHM_MAX_GUARDED = 64 };

static struct {
    _Atomic uintptr_t base;        /* 0: free; 1: being claimed */
    _Atomic size_t len;
    _Atomic int damaged;           /* its file shrank under it */
} guarded[SHM_MAX_GUARDED];

static struct sigaction sigbus_before;     /* what SIGBUS did before ours */

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    uintptr_t at = (uintptr_t)info->si_addr;
    for (int i = 0; i < SHM_MAX_GUARDED; i++) {
        uintptr_t base = atomic_load(&guarded[i].base);
        size_t len = atomic_load(&guarded[i].len);
        if (base > 1 && at - base < len &&
            mmap((void *)base, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            atomic_store(&guarded[i].damaged, 1);
            return;                            /* the access is made again, on zeros */
        }
    }
    if (sigbus_before.sa_flags & SA_SIGINFO)
        sigbus_before.sa_sigaction(sig, info, context);
    else if (sigbus_before.sa_handler != SIG_DFL && sigbus_before.sa_handler != SIG_IGN)
        sigbus_before.sa_handler(sig);
    else
        sigaction(SIGBUS, &(struct sigaction){.sa_handler = SIG_DFL}, NULL);
}

/* Puts the handler in place unless it is there already: someone else (a
 * test framework, say) may have replaced it since the last mapping, and
 * whatever they installed becomes the handler for faults that are not ours. */
static void install_sigbus_handler(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct sigaction now, sa;
    pthread_mutex_lock(&lock);
    if (sigaction(SIGBUS, NULL, &now) == 0 &&
        !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus)) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigbus_before = now;
        sigaction(SIGBUS, &sa, NULL);
    }
    pthread_mutex_unlock(&lock);
}

/* Registers a mapping; its slot, or -1 when every slot is taken. */
static int guard_mapping(void *base, size_t len)
{
    install_sigbus_handler();
    for (int i = 0; i < SHM_MAX_GUARDED; i++) {
        uintptr_t free_slot = 0;
        if (atomic_compare_exchange_strong(&guarded[i].base, &free_slot, 1)) {
            atomic_store(&guarded[i].damaged, 0);
            atomic_store(&guarded[i].len, len);
            atomic_store(&guarded[i].base, (uintptr_t)base);
            return i;
        }
    }
    return -1;
}

static void unguard_mapping(int slot)
{
    if (slot < 0)
        return;
    atomic_store(&guarded[slot].base, 0);          /* first: the handler stops matching */
    atomic_store(&guarded[slot].len, 0);
}

static int mapping_damaged(const struct shm_channel *ch)
{
    return ch->guard >= 0 && atomic_load(&guarded[ch->guard].damaged);
}

/* Engine: the segment is not the one it made (its mapping took a fault, or
 * its file's size is no longer the mapping's). */
static int segment_damaged(const struct shm_channel *ch)
{
    struct stat st;
    return mapping_damaged(ch) ||
           (ch->fd >= 0 && fstat(ch->fd, &st) == 0 && (size_t)st.st_size != ch->map_bytes);
}

/* "name" or "/name" to "/name": one component, as shm_open wants. */
static int normalize_name(char out[SHM_NAME_SIZE], const char *name)
{
    const char *bare = name[0] == '/' ? name + 1 : name;
    if (bare[0] == '\0' || strchr(bare, '/') != NULL || strlen(bare) + 2 > SHM_NAME_SIZE)
        return -1;
    snprintf(out, SHM_NAME_SIZE, "/%s", bare);
    return 0;
}

enum segment_state { SEGMENT_GONE, SEGMENT_STALE, SEGMENT_LIVE, SEGMENT_FOREIGN };

/* Opens what is at `name` without following a link or blocking on a FIFO;
 * the descriptor, or -1 with errno. */
static int open_what_is_there(const char *name)
{
    return shm_open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
}

/* What occupies a taken name; for a foreign object, why, in `why`. Its
 * header is read, not mapped: a file that shrinks under a read gives a
 * short read, not SIGBUS. */
static enum segment_state probe_segment(const char *name, char *why, size_t why_size)
{
    struct shm_segment header;
    struct stat st;
    int fd = open_what_is_there(name);
    if (fd < 0 && errno == ENOENT)
        return SEGMENT_GONE;               /* removed since: the name is free again */
    if (fd < 0 && errno == ELOOP) {
        set_error(why, why_size, "is a symbolic link");
        return SEGMENT_FOREIGN;
    }
    if (fd < 0 || fstat(fd, &st) != 0) {
        set_error(why, why_size, "cannot be looked at (%s)", strerror(errno));
        if (fd >= 0)
            close(fd);
        return SEGMENT_FOREIGN;
    }
    ssize_t n = S_ISREG(st.st_mode) && st.st_uid == geteuid()
        ? pread(fd, &header, sizeof header, 0) : -1;
    close(fd);
    if (!S_ISREG(st.st_mode))
        set_error(why, why_size, "is not a regular file");
    else if (st.st_uid != geteuid())
        set_error(why, why_size, "belongs to user %u, not to this one", (unsigned)st.st_uid);
    else if (n == 0)
        return SEGMENT_STALE;              /* empty: a creation that never finished */
    else if (n != (ssize_t)sizeof header || header.magic != SHM_MAGIC)
        set_error(why, why_size, "is not an ipctax segment");
    else
        return alive(atomic_load(&header.engine_pid)) ? SEGMENT_LIVE : SEGMENT_STALE;
    return SEGMENT_FOREIGN;
}

/* Engine: removes the name if it still names the segment open as ch->fd,
 * and only then: whatever has taken its place is not the engine's to remove. */
static void unlink_if_ours(const struct shm_channel *ch)
{
    struct stat mine, there;
    int fd = open_what_is_there(ch->name);
    if (fd < 0)
        return;
    int same = ch->fd >= 0 && fstat(ch->fd, &mine) == 0 && fstat(fd, &there) == 0 &&
               mine.st_dev == there.st_dev && mine.st_ino == there.st_ino;
    close(fd);
    if (same)
        shm_unlink(ch->name);
}

/* The header words the engine owns, as it writes them: the ready flag last. */
static void write_header(struct shm_channel *ch)
{
    atomic_store(&ch->seg->engine_pid, (int32_t)getpid());
    ch->seg->magic = SHM_MAGIC;
    ch->seg->version = SHM_VERSION;
    ch->seg->ring_bytes = (uint32_t)ch->capacity;
    atomic_store_explicit(&ch->seg->ready, 1, memory_order_release);
}

/* Engine: creates ch->name anew (O_EXCL), sizes it, maps it and writes its
 * header. 0, or -1 with errno and a message. */
static int map_new_segment(struct shm_channel *ch, char *err, size_t err_size)
{
    size_t size = SHM_DATA_OFFSET + 2 * (size_t)ch->capacity;
    int fd = shm_open(ch->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return set_error(err, err_size, "cannot create %s: %s", ch->name, strerror(errno));
    void *p = ftruncate(fd, (off_t)size) == 0
        ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    int saved = errno, guard = p != MAP_FAILED ? guard_mapping(p, size) : -1;
    if (guard < 0) {
        if (p != MAP_FAILED) {
            munmap(p, size);
            saved = EMFILE;                        /* every guarded slot is in use */
        }
        close(fd);
        shm_unlink(ch->name);
        errno = saved;
        return set_error(err, err_size, "cannot size or map %s: %s", ch->name, strerror(saved));
    }
    ch->seg = p;
    ch->fd = fd;
    ch->guard = guard;
    ch->map_bytes = size;
    bind_side(ch, 1);
    write_header(ch);
    return 0;
}

static void unmap_segment(struct shm_channel *ch)
{
    unguard_mapping(ch->guard);
    munmap(ch->seg, ch->map_bytes);
    if (ch->fd >= 0)
        close(ch->fd);
    ch->seg = NULL;
    ch->fd = ch->guard = -1;
}
int shm_channel_create(struct shm_channel *ch, const char *name, size_t ring_bytes,
                       enum shm_wait wait, char *err, size_t err_size)
{
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
    if (ring_bytes < SHM_MIN_RING_BYTES || ring_bytes > SHM_MAX_RING_BYTES ||
        (ring_bytes & (ring_bytes - 1)) != 0) {
        errno = EINVAL;
        return set_error(err, err_size, "ring size %zu is not a power of two in %d..%d",
                         ring_bytes, SHM_MIN_RING_BYTES, SHM_MAX_RING_BYTES);
    }
    if (normalize_name(ch->name, name) != 0) {
        errno = EINVAL;
        return set_error(err, err_size, "bad shared-memory name '%s'", name);
    }
    ch->capacity = ring_bytes;
    ch->wait = wait;
    ch->leave_ns = SHM_LEAVE_NS;
    if (map_new_segment(ch, err, err_size) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    char why[128];
    enum segment_state state = probe_segment(ch->name, why, sizeof why);
    if (state == SEGMENT_LIVE) {
        errno = EADDRINUSE;
        return set_error(err, err_size, "an engine is already serving %s", ch->name);
    }
    if (state == SEGMENT_FOREIGN) {
        errno = EEXIST;
        return set_error(err, err_size, "%s exists and %s; not touching it", ch->name, why);
    }
    if (state == SEGMENT_STALE)
        shm_unlink(ch->name);                  /* its engine is gone: the segment is stale */
    return map_new_segment(ch, err, err_size);
}
/* Engine: gives the segment up (marked closed for a client still in it) and
 * maps a new one under the same name, noting `why` for the log (NULL: the
 * first segment). 0, or -1 with errno and a message. */
static int renew_segment(struct shm_channel *ch, const char *why, char *err, size_t err_size)
{
    if (ch->seg != NULL) {
        atomic_store(&ch->seg->engine_closed, 1);
        futex_bump(&ch->seg->replies.data_seq);
        futex_bump(&ch->seg->requests.space_seq);
        unlink_if_ours(ch);
        unmap_segment(ch);
        ch->renewals++;
        snprintf(ch->renewed_because, sizeof ch->renewed_because, "%s", why);
    }
    ch->head_seen = ch->tail_seen = 0;
    return map_new_segment(ch, err, err_size);
}
/* Whether a mapped segment can be attached: 0 when it is ours (the client
 * word is then this process's), or the errno value that says why not. */
static int claim_segment(struct shm_segment *seg, size_t size, const char *name,
                         char *err, size_t err_size)
{
    int32_t me = (int32_t)getpid(), expected = SHM_FREE;
    uint32_t ring = seg->ring_bytes;
    if (!atomic_load_explicit(&seg->ready, memory_order_acquire)) {
        set_error(err, err_size, "%s is not ready", name);
        return EAGAIN;
    }
    if (seg->magic != SHM_MAGIC || seg->version != SHM_VERSION) {
        set_error(err, err_size, "%s is not an ipctax segment of version %u", name,
                  SHM_VERSION);
        return EPROTO;
    }
    if (ring < SHM_MIN_RING_BYTES || ring > SHM_MAX_RING_BYTES || (ring & (ring - 1)) != 0 ||
        size != SHM_DATA_OFFSET + 2 * (size_t)ring) {
        set_error(err, err_size, "%s has the wrong size (%zu bytes, for rings of %u): "
                  "damaged, and about to be replaced", name, size, ring);
        return EAGAIN;
    }
    int32_t engine = atomic_load(&seg->engine_pid);
    if (engine == 0) {
        set_error(err, err_size, "%s has no engine's pid just now", name);
        return EAGAIN;                 /* stopping (then it goes), or its engine restores it */
    }
    if (!alive(engine)) {
        set_error(err, err_size, "the engine of %s has stopped", name);
        return ECONNREFUSED;
    }
    if (!atomic_compare_exchange_strong(&seg->client, &expected, me)) {
        set_error(err, err_size, "%s is serving another client", name);
        return EBUSY;
    }
    return 0;
}

/* The file's size, or 0 when it cannot be learned. */
static size_t file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
}

static int try_attach(struct shm_channel *ch, const char *name, enum shm_wait wait,
                      char *err, size_t err_size)
{
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
    if (normalize_name(ch->name, name) != 0) {
        errno = EINVAL;
        return set_error(err, err_size, "bad shared-memory name '%s'", name);
    }
    int fd = shm_open(ch->name, O_RDWR, 0);
    if (fd < 0)
        return set_error(err, err_size, "cannot open %s: %s", ch->name, strerror(errno));
    size_t size = file_size(fd);
    if (size < SHM_DATA_OFFSET) {
        close(fd);
        errno = EAGAIN;
        return set_error(err, err_size, "%s is not ready", ch->name);
    }
    struct shm_segment *seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        int saved = errno;
        close(fd);
        errno = saved;
        return set_error(err, err_size, "cannot map %s: %s", ch->name, strerror(saved));
    }
    ch->guard = guard_mapping(seg, size);
    int why = ch->guard >= 0 ? claim_segment(seg, size, ch->name, err, err_size) : EMFILE;
    if (why == EMFILE)
        set_error(err, err_size, "this process maps too many segments already");
    if (why == 0 && file_size(fd) != size) {
        atomic_store(&seg->client, SHM_CLIENT_LEFT);   /* give the claim back: it shrank */
        futex_bump(&seg->attach_seq);
        set_error(err, err_size, "%s changed size while being attached", ch->name);
        why = EAGAIN;
    }
    close(fd);
    if (why != 0) {
        unguard_mapping(ch->guard);
        munmap(seg, size);
        ch->guard = -1;
        errno = why;
        return -1;
    }
    ch->seg = seg;
    ch->map_bytes = size;
    ch->capacity = seg->ring_bytes;
    ch->wait = wait;
    ch->peer = atomic_load(&seg->engine_pid);
    bind_side(ch, 0);
    start_empty(ch);
    futex_bump(&seg->attach_seq);              /* the engine may be asleep, waiting for us */
    return 0;
}

int shm_channel_attach(struct shm_channel *ch, const char *name, enum shm_wait wait,
                       int timeout_ms, char *err, size_t err_size)
{
    uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        if (try_attach(ch, name, wait, err, err_size) == 0)
            return 0;
        int again = errno == ENOENT || errno == EAGAIN || errno == EBUSY ||
                    errno == ECONNREFUSED;
        if (!again || clock_ns() >= deadline)
            return -1;
        int saved = errno;
        nanosleep(&(struct timespec){0, 100000}, NULL);
        errno = saved;
    }
}

/* Empties both rings and frees the channel; only while no client uses it. */
static void empty_and_free(struct shm_channel *ch)
{
    struct shm_ring *rings[2] = {&ch->seg->requests, &ch->seg->replies};
    for (int i = 0; i < 2; i++) {
        atomic_store_explicit(&rings[i]->head, 0, memory_order_relaxed);
        atomic_store_explicit(&rings[i]->tail, 0, memory_order_relaxed);
        atomic_store_explicit(&rings[i]->consumer_sleeping, 0, memory_order_relaxed);
        atomic_store_explicit(&rings[i]->producer_sleeping, 0, memory_order_relaxed);
    }
    ch->head_seen = ch->tail_seen = 0;
    atomic_store_explicit(&ch->seg->engine_closed, 0, memory_order_relaxed);
    atomic_store_explicit(&ch->seg->client, SHM_FREE, memory_order_release);
}

int shm_channel_accept(struct shm_channel *ch, uint64_t deadline_ns)
{
    char err[256];
    for (;;) {
        if (stop_requested(ch)) {
            errno = EINTR;
            return -1;
        }
        if ((ch->seg == NULL || segment_damaged(ch)) &&
            renew_segment(ch, SHM_DAMAGED, err, sizeof err) != 0)
            return -1;
        struct shm_segment *seg = ch->seg;
        reassert_header(ch);
        uint32_t ticket = atomic_load(&seg->attach_seq);
        int32_t client = atomic_load(&seg->client);
        if (client > 0 && segment_damaged(ch))
            continue;                          /* shrunk as it attached: renewed above */
        if (client > 0 && alive(client) &&
            maps_segment(client, ch->fd, client == (int32_t)getpid() ? 2 : 1)) {
            ch->peer = client;
            ch->next_liveness_ns = 0;
            start_empty(ch);
            return 0;
        }
        if (client != SHM_FREE) {
            empty_and_free(ch);                /* it came and went, or was never there */
        } else if (deadline_ns != NO_DEADLINE && clock_ns() >= deadline_ns) {
            errno = ETIMEDOUT;
            return -1;
        } else {
            futex_wait(&seg->attach_seq, ticket, nap_before(deadline_ns));
        }
    }
}
void shm_channel_release(struct shm_channel *ch)
{
    char err[256], why[128];
    struct shm_segment *seg = ch->seg;
    if (segment_damaged(ch)) {
        renew_segment(ch, SHM_DAMAGED, err, sizeof err);   /* on failure, accept tries again */
        return;
    }
    atomic_store(&seg->engine_closed, 1);
    futex_bump(&seg->replies.data_seq);        /* a client waiting for a reply */
    futex_bump(&seg->requests.space_seq);      /* or for room for its request */
    uint64_t deadline = clock_ns() + ch->leave_ns;
    for (;;) {
        uint32_t ticket = atomic_load(&seg->attach_seq);
        int32_t client = atomic_load(&seg->client);
        if (client == SHM_CLIENT_LEFT || (client == ch->peer && !alive(ch->peer))) {
            empty_and_free(ch);                /* gone: the segment serves the next one */
            return;
        }
        if (stop_requested(ch))
            return;
        uint64_t now = clock_ns();
        if (client != ch->peer)
            snprintf(why, sizeof why, "its client word was changed from %d to %d during the "
                     "session", (int)ch->peer, (int)client);
        else
            snprintf(why, sizeof why, "its client, pid %d, did not leave within %llu ms of the "
                     "end of its session", (int)ch->peer,
                     (unsigned long long)(ch->leave_ns / 1000000u));
        if (client != ch->peer || now >= deadline) {
            renew_segment(ch, why, err, sizeof err);   /* on failure, accept tries again */
            return;
        }
        futex_wait(&seg->attach_seq, ticket, deadline - now < SHM_CHECK_NS ? deadline - now
                                                                            : SHM_CHECK_NS);
    }
}

void shm_channel_destroy(struct shm_channel *ch)
{
    if (ch->seg == NULL)
        return;
    atomic_store(&ch->seg->engine_pid, 0);
    atomic_store(&ch->seg->engine_closed, 1);
    futex_bump(&ch->seg->replies.data_seq);
    futex_bump(&ch->seg->requests.space_seq);
    unlink_if_ours(ch);
    unmap_segment(ch);
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
}
void shm_channel_detach(struct shm_channel *ch)
{
    if (ch->seg == NULL)
        return;
    int32_t me = (int32_t)getpid();
    if (atomic_compare_exchange_strong(&ch->seg->client, &me, SHM_CLIENT_LEFT)) {
        futex_bump(&ch->seg->requests.data_seq);
        futex_bump(&ch->seg->replies.space_seq);
        futex_bump(&ch->seg->attach_seq);
    }
    unmap_segment(ch);
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
}

int shm_wait_parse(const char *text, enum shm_wait *mode)
{
    if (strcmp(text, "futex") == 0)
        *mode = SHM_WAIT_FUTEX;
    else if (strcmp(text, "spin") == 0)
        *mode = SHM_WAIT_SPIN;
    else
        return -1;
    return 0;
}

const char *shm_wait_name(enum shm_wait mode)
{
    return mode == SHM_WAIT_SPIN ? "spin" : "futex";
}
