/*
 * host.c - the gaps the host leaves in each CPU's time: both CPUs spin at
 * once, each reading the clock, after every round.
 *
 * Tangled from paper/69-host.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/measure.h"
#include "harness/placement.h"
#include "util/error.h"
#include "util/timing.h"

/* <<host-constants>>, paper/69-host.md */
enum { HOST_SPIN_MS = 200 };
static const uint64_t HOST_GAP_NS = 200000;   /* 0.2 ms: well above a guest tick */

/* <<host-the-spin>>, paper/69-host.md */
void host_spin(uint64_t ns, uint64_t gap_min_ns, struct host_spin *out)
{
    uint64_t start = clock_ns(), last = start;
    *out = (struct host_spin){0, 1, 0, 0, 0};
    while (last - start < ns) {
        uint64_t now = clock_ns(), gap = now - last;
        out->reads++;
        if (gap >= gap_min_ns) {
            out->gaps++;
            out->gap_ns += gap;
            if (gap > out->longest_ns)
                out->longest_ns = gap;
        }
        last = now;
    }
    out->spin_ns = last - start;
}

/* <<host-a-pass>>, paper/69-host.md */
struct host_cpu {
    int cpu, pinned;
    struct host_spin spin;
};

static void *spin_one(void *arg)
{
    struct host_cpu *h = arg;
    h->pinned = pin_this_thread(h->cpu) == 0;
    if (h->pinned)
        host_spin((uint64_t)HOST_SPIN_MS * 1000000u, HOST_GAP_NS, &h->spin);
    return NULL;
}

static int host_pass(const int cpus[2], struct host_cpu out[2], char *err, size_t err_size)
{
    pthread_t other;
    out[0] = (struct host_cpu){cpus[0], 0, {0}};
    out[1] = (struct host_cpu){cpus[1], 0, {0}};
    if (pthread_create(&other, NULL, spin_one, &out[1]) != 0)
        return set_error(err, err_size, "cannot start the spin of CPU %d", cpus[1]);
    spin_one(&out[0]);
    pthread_join(other, NULL);
    pin_this_thread(CPU_ANY);
    if (!out[0].pinned || !out[1].pinned)
        return set_error(err, err_size, "cannot pin a spin to CPU %d or %d", cpus[0], cpus[1]);
    return 0;
}

/* <<host-in-the-rounds>>, paper/69-host.md */
struct host {
    struct data_out out;
    int cpus[2];
};

static void *host_begin(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct host *h = calloc(1, sizeof *h);
    if (h == NULL) {
        set_error(err, err_size, "out of memory for the host's spins");
        return NULL;
    }
    if (placement_duet_cpus(h->cpus) != 0) {
        set_error(err, err_size, "the host's spins need two CPUs");
        free(h);
        return NULL;
    }
    if (measure_open(ctx, "host.csv", &h->out, err, err_size) != 0) {
        free(h);
        return NULL;
    }
    return h;
}

static int host_round(void *state, int round, char *err, size_t err_size)
{
    struct host *h = state;
    struct host_cpu spun[2];
    if (host_pass(h->cpus, spun, err, err_size) != 0)
        return -1;
    for (int k = 0; k < 2; k++) {
        data_int(&h->out, HOST_pass, round);
        data_int(&h->out, HOST_cpu, spun[k].cpu);
        data_int(&h->out, HOST_spin_ns, (int64_t)spun[k].spin.spin_ns);
        data_int(&h->out, HOST_reads, (int64_t)spun[k].spin.reads);
        data_int(&h->out, HOST_gaps, (int64_t)spun[k].spin.gaps);
        data_int(&h->out, HOST_gap_ns, (int64_t)spun[k].spin.gap_ns);
        data_int(&h->out, HOST_longest_ns, (int64_t)spun[k].spin.longest_ns);
        data_int(&h->out, HOST_gap_min_ns, (int64_t)HOST_GAP_NS);
        data_end_row(&h->out);
    }
    return 0;
}

static int host_end(void *state, int ok, char *err, size_t err_size)
{
    struct host *h = state;
    int status = 0;
    if (ok && data_out_close(&h->out) != 0)
        status = set_error(err, err_size, "cannot write host.csv");
    else if (!ok)
        data_out_abandon(&h->out);
    free(h);
    return status;
}

const struct in_rounds host_in_rounds = {host_begin, host_round, host_end};
