/*
 * shm_segment.c - the channel's segment: its peer's liveness, the SIGBUS
 * guard against a segment that shrinks, creating and attaching, and the
 * engine's sessions.
 *
 * Tangled from paper/84-shm.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/netio.h"
#include "wire/shm_private.h"
#include "wire/shm_ring.h"

/* <<shm-peer-liveness>>, paper/84-shm.md */
/* <<is-the-peer-there>>, paper/84-shm.md */
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

/* <<the-engines-words-and-empty-rings>>, paper/84-shm.md */
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

/* <<is-the-session-over>>, paper/84-shm.md */
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
int shm_session_over(struct shm_channel *ch, uint64_t now)
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

/* <<shm-shrinking-segments>>, paper/84-shm.md */
/* <<the-sigbus-handler>>, paper/84-shm.md */
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

/* <<guard-a-mapping>>, paper/84-shm.md */
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

/* <<is-the-segment-damaged>>, paper/84-shm.md */
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

/* <<shm-segment-lifetime>>, paper/84-shm.md */
/* <<name-a-segment-and-probe-what-is-there>>, paper/84-shm.md */
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

/* <<remove-only-our-own-name>>, paper/84-shm.md */
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

/* <<map-a-new-segment>>, paper/84-shm.md */
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
    shm_bind_side(ch, 1);
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

/* <<create-the-channel>>, paper/84-shm.md */
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

/* <<renew-a-segment>>, paper/84-shm.md */
/* Engine: gives the segment up (marked closed for a client still in it) and
 * maps a new one under the same name, noting `why` for the log (NULL: the
 * first segment). 0, or -1 with errno and a message. */
static int renew_segment(struct shm_channel *ch, const char *why, char *err, size_t err_size)
{
    if (ch->seg != NULL) {
        atomic_store(&ch->seg->engine_closed, 1);
        shm_futex_bump(&ch->seg->replies.data_seq);
        shm_futex_bump(&ch->seg->requests.space_seq);
        unlink_if_ours(ch);
        unmap_segment(ch);
        ch->renewals++;
        snprintf(ch->renewed_because, sizeof ch->renewed_because, "%s", why);
    }
    ch->head_seen = ch->tail_seen = 0;
    return map_new_segment(ch, err, err_size);
}

/* <<claim-a-segment>>, paper/84-shm.md */
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

/* <<try-to-attach-once>>, paper/84-shm.md */
static int try_attach(struct shm_channel *ch, const char *name, enum shm_wait wait,
                      char *err, size_t err_size)
{
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
    /* <<open-the-segments-file>>, paper/84-shm.md */
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
    /* <<map-and-claim-the-segment>>, paper/84-shm.md */
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
        shm_futex_bump(&seg->attach_seq);
        set_error(err, err_size, "%s changed size while being attached", ch->name);
        why = EAGAIN;
    }
    close(fd);
    /* <<let-go-of-a-failed-attach>>, paper/84-shm.md */
    if (why != 0) {
        unguard_mapping(ch->guard);
        munmap(seg, size);
        ch->guard = -1;
        errno = why;
        return -1;
    }
    /* <<start-the-session-on-the-segment>>, paper/84-shm.md */
    ch->seg = seg;
    ch->map_bytes = size;
    ch->capacity = seg->ring_bytes;
    ch->wait = wait;
    ch->peer = atomic_load(&seg->engine_pid);
    shm_bind_side(ch, 0);
    start_empty(ch);
    shm_futex_bump(&seg->attach_seq);              /* the engine may be asleep, waiting for us */
    return 0;
}

/* <<attach-with-retries>>, paper/84-shm.md */
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

/* <<shm-sessions>>, paper/84-shm.md */
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
            shm_futex_wait(&seg->attach_seq, ticket, shm_nap_before(deadline_ns));
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
    shm_futex_bump(&seg->replies.data_seq);        /* a client waiting for a reply */
    shm_futex_bump(&seg->requests.space_seq);      /* or for room for its request */
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
        shm_futex_wait(&seg->attach_seq, ticket, deadline - now < SHM_CHECK_NS ? deadline - now
                                                                            : SHM_CHECK_NS);
    }
}

void shm_channel_destroy(struct shm_channel *ch)
{
    if (ch->seg == NULL)
        return;
    atomic_store(&ch->seg->engine_pid, 0);
    atomic_store(&ch->seg->engine_closed, 1);
    shm_futex_bump(&ch->seg->replies.data_seq);
    shm_futex_bump(&ch->seg->requests.space_seq);
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
        shm_futex_bump(&ch->seg->requests.data_seq);
        shm_futex_bump(&ch->seg->replies.space_seq);
        shm_futex_bump(&ch->seg->attach_seq);
    }
    unmap_segment(ch);
    memset(ch, 0, sizeof *ch);
    ch->stop_fd = ch->fd = ch->guard = -1;
}
