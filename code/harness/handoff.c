/*
 * handoff.c - a floor taken apart: a clock reading, a kernel entry, and a
 * one-byte round trip between two threads, on one CPU and on two.
 *
 * Tangled from paper/72-handoff.md.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/measure.h"
#include "harness/placement.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

/* <<handoff-constants>>, paper/72-handoff.md */
enum {
    HANDOFF_REPS = 12,                 /* at --scale 1 */
    HANDOFF_LEAST_REPS = 6,
    HANDOFF_CLOCK_READS = 100000,
    HANDOFF_SYSCALLS = 20000,
    HANDOFF_ROUND_TRIPS = 2000,
    HANDOFF_WARMUP = 100,              /* round trips before the timed ones */
};

/* <<handoff-a-round-trip-between-two-threads>>, paper/72-handoff.md */
struct handoff_peer {
    int fd, cpu, polling, shared_cpu, pinned;
};

/* One byte from fd, waiting in the receive or polling; 0, or -1 when the
 * other end is gone or the socket failed. A poller that shares its CPU
 * with the other end yields it, or each byte would wait for a time slice. */
static int receive_byte(int fd, int polling, int shared_cpu)
{
    char byte;
    for (;;) {
        ssize_t got = recv(fd, &byte, 1, polling ? MSG_DONTWAIT : 0);
        if (got == 1)
            return 0;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (shared_cpu)
                sched_yield();
            continue;
        }
        return -1;
    }
}

static void *answer_bytes(void *arg)
{
    struct handoff_peer *p = arg;
    char byte = 1;
    p->pinned = pin_this_thread(p->cpu) == 0;
    int shared = p->shared_cpu;
    for (int i = 0; p->pinned && i < HANDOFF_WARMUP + HANDOFF_ROUND_TRIPS; i++)
        if (receive_byte(p->fd, p->polling, shared) != 0 ||
            send(p->fd, &byte, 1, MSG_NOSIGNAL) != 1)
            break;
    shutdown(p->fd, SHUT_RDWR);
    return NULL;
}

static int round_trips(int peer_cpu, int polling, uint64_t *ns, char *err, size_t err_size)
{
    int fds[2];
    pthread_t other;
    char byte = 1;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return set_error(err, err_size, "cannot make the handoff's socket pair");
    int shared = peer_cpu == current_cpu();
    struct handoff_peer p = {fds[1], peer_cpu, polling, shared, 0};
    if (pthread_create(&other, NULL, answer_bytes, &p) != 0) {
        close(fds[0]), close(fds[1]);
        return set_error(err, err_size, "cannot start the handoff's other thread");
    }
    int status = 0;
    uint64_t start = 0;
    for (int i = 0; status == 0 && i < HANDOFF_WARMUP + HANDOFF_ROUND_TRIPS; i++) {
        if (i == HANDOFF_WARMUP)
            start = clock_ns();
        if (send(fds[0], &byte, 1, MSG_NOSIGNAL) != 1 ||
            receive_byte(fds[0], polling, shared) != 0)
            status = -1;
    }
    *ns = clock_ns() - start;
    shutdown(fds[0], SHUT_RDWR);
    pthread_join(other, NULL);
    close(fds[0]), close(fds[1]);
    if (!p.pinned)
        return set_error(err, err_size, "cannot pin the handoff's other thread to CPU %d",
                         peer_cpu);
    return status == 0 ? 0 : set_error(err, err_size, "a handoff's round trip failed");
}

/* <<handoff-the-loops>>, paper/72-handoff.md */
static int handoff_loop(enum handoff_kind kind, int peer, uint64_t *count, uint64_t *ns,
                        char *err, size_t err_size)
{
    uint64_t start = clock_ns(), last = start;
    switch (kind) {
    case HANDOFF_CLOCK:
        for (*count = 0; *count < HANDOFF_CLOCK_READS; ++*count)
            last = clock_ns();
        break;
    case HANDOFF_SYSCALL:
        for (*count = 0; *count < HANDOFF_SYSCALLS; ++*count)
            (void)syscall(SYS_getppid);       /* not getpid: glibc once cached it */
        last = clock_ns();
        break;
    default:
        *count = HANDOFF_ROUND_TRIPS;
        return round_trips(peer, kind == HANDOFF_POLLING, ns, err, err_size);
    }
    *ns = last - start;
    return 0;
}

/* <<handoff-a-repetition>>, paper/72-handoff.md */
static int handoff_repetition(struct mt19937 *mt, int rep, int here, int there,
                              struct data_out *out, char *err, size_t err_size)
{
    static const char *const names[N_HANDOFF_KINDS] = HANDOFF_KIND_NAMES;
    size_t order[N_HANDOFF_KINDS];
    random_order(mt, order, N_HANDOFF_KINDS);
    if (pin_this_thread(here) != 0)
        return set_error(err, err_size, "cannot pin the handoff's thread to CPU %d", here);
    for (size_t k = 0; k < N_HANDOFF_KINDS; k++) {
        enum handoff_kind kind = (enum handoff_kind)order[k];
        int peer = kind == HANDOFF_POLLING || kind == HANDOFF_SLEEPING ? there : here;
        uint64_t count = 0, ns = 0;
        if (handoff_loop(kind, peer, &count, &ns, err, err_size) != 0)
            return -1;
        data_int(out, HANDOFF_rep, rep);
        data_int(out, HANDOFF_position, (int64_t)k + 1);
        data_text(out, HANDOFF_kind, names[kind]);
        data_int(out, HANDOFF_cpu, here);
        data_int(out, HANDOFF_peer_cpu, peer);
        data_int(out, HANDOFF_count, (int64_t)count);
        data_int(out, HANDOFF_ns, (int64_t)ns);
        data_end_row(out);
    }
    return 0;
}

/* <<measure-handoff>>, paper/72-handoff.md */
int measure_handoff(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct data_out out;
    int cpus[2];
    placement_init();
    if (placement_duet_cpus(cpus) != 0)
        cpus[0] = cpus[1] = current_cpu();
    if (measure_open(ctx, "handoff.csv", &out, err, err_size) != 0)
        return -1;
    struct mt19937 mt;
    mt19937_seed(&mt, ctx->seed ^ 0x68616e64u);           /* "hand" */
    int status = 0, reps = scaled(ctx, HANDOFF_REPS, HANDOFF_LEAST_REPS);
    for (int rep = 1; status == 0 && rep <= reps; rep++) {
        int here = cpus[rep % 2], there = cpus[(rep + 1) % 2];
        status = handoff_repetition(&mt, rep, here, there, &out, err, err_size);
    }
    pin_this_thread(CPU_ANY);
    if (status == 0 && data_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write handoff.csv");
    else if (status != 0)
        data_out_abandon(&out);
    return status;
}
