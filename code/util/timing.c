/*
 * timing.c - the monotonic clock and the process's processor time.
 *
 * Tangled from paper/40-harness.md.
 */
#include <time.h>

#include "util/timing.h"

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clock_ns(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

double seconds_between(uint64_t start_ns, uint64_t end_ns)
{
    return (double)(end_ns - start_ns) * 1e-9;
}

uint64_t cpu_ns(void)
{
    return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t thread_cpu_ns(void)
{
    return read_clock(CLOCK_THREAD_CPUTIME_ID);
}
