/*
 * shm_ring.c - the channel's data path: two SPSC byte rings in POSIX shared
 * memory, C11 atomics, waiting by spinning or in futex. The segment's
 * lifecycle and its SIGBUS guard are in shm_segment.c.
 *
 * Tangled from paper/84-shm.md.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/netio.h"
#include "wire/shm_private.h"
#include "wire/shm_ring.h"

/* <<shm-layout>>, paper/84-shm.md */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "shared-memory atomics must be lock-free to work between processes");
_Static_assert(sizeof(_Atomic uint32_t) == 4, "a futex word is 32 bits");

/* Points the channel at its two rings: the engine reads requests, the client replies. */
void shm_bind_side(struct shm_channel *ch, int is_engine)
{
    uint8_t *requests = (uint8_t *)ch->seg + SHM_DATA_OFFSET;
    uint8_t *replies = requests + ch->capacity;
    ch->is_engine = is_engine;
    ch->in = is_engine ? &ch->seg->requests : &ch->seg->replies;
    ch->out = is_engine ? &ch->seg->replies : &ch->seg->requests;
    ch->in_data = is_engine ? requests : replies;
    ch->out_data = is_engine ? replies : requests;
}

/* <<shm-futex-and-pause>>, paper/84-shm.md */
/* Sleeps while *word == expected, at most timeout_ns; a signal also ends
 * it, and then 1 is returned (0 otherwise). */
int shm_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, &ts, NULL, 0);
    return r != 0 && errno == EINTR;
}

/* Changes the word, then wakes whoever sleeps on it. */
void shm_futex_bump(_Atomic uint32_t *word)
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

/* <<shm-waiting>>, paper/84-shm.md */
/* After publishing: wakes the other side if, and only if, it sleeps. */
static void wake_if_sleeping(_Atomic uint32_t *sleeping, _Atomic uint32_t *seq)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(sleeping, memory_order_relaxed))
        shm_futex_bump(seq);
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
        interrupted = shm_futex_wait(seq, ticket, timeout_ns);
    atomic_store_explicit(sleeping, 0, memory_order_relaxed);
    return interrupted;
}
/* How long a futex sleep may last: until the next check, or the deadline if sooner. */
uint64_t shm_nap_before(uint64_t deadline_ns)
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
            interrupted = sleep_unless_moved(word, seen, seq, sleeping, shm_nap_before(deadline_ns));
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
        if (shm_session_over(ch, now) != 0)   /* bytes written just before leaving still count */
            return atomic_load_explicit(word, memory_order_acquire) != seen ? 0 : -1;
        if (deadline_ns != NO_DEADLINE && now >= deadline_ns) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

/* <<shm-moving-bytes>>, paper/84-shm.md */
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

/* <<shm-link>>, paper/84-shm.md */
static int shm_link_read(void *ctx, void *buf, size_t n, uint64_t deadline_ns)
{
    return shm_read_exact(ctx, buf, n, deadline_ns);
}

static ssize_t shm_link_read_some(void *ctx, struct iovec *iov, int iovcnt, size_t least,
                                 uint64_t deadline_ns)
{
    size_t got = 0;
    for (int i = 0; i < iovcnt && got < least; i++) {
        size_t take = least - got < iov[i].iov_len ? least - got : iov[i].iov_len;
        int r = shm_read_exact(ctx, iov[i].iov_base, take, deadline_ns);
        if (r == 1 && got > 0)
            errno = ECONNRESET;                /* the peer left inside the frame */
        if (r != 0)
            return r == 1 && got == 0 ? 0 : -1;
        got += take;
    }
    return (ssize_t)got;
}

static int shm_link_write(void *ctx, struct iovec *iov, int iovcnt, uint64_t deadline_ns)
{
    return shm_write_all(ctx, iov, iovcnt, deadline_ns);
}

/* The peer has gone when the session is over (it left, died, or the
 * engine is stopping); the kernel is asked at most every SHM_CHECK_NS. */
static int shm_link_peer_gone(void *ctx)
{
    return shm_session_over(ctx, clock_ns()) != 0;
}

struct byte_link shm_link(struct shm_channel *ch)
{
    return (struct byte_link){shm_link_read, shm_link_read_some, shm_link_write,
                              shm_link_peer_gone, ch};
}

/* <<shm-wait-names>>, paper/84-shm.md */
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
