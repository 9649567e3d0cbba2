/*
 * timing.h - the one clock every measurement reads.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_TIMING_H
#define IPCTAX_TIMING_H

#include <stdint.h>

/* Nanoseconds on CLOCK_MONOTONIC: for intervals only. */
uint64_t clock_ns(void);
double seconds_between(uint64_t start_ns, uint64_t end_ns);

/* Processor time this process has used, all threads, in nanoseconds. */
uint64_t cpu_ns(void);
/* ... and the calling thread alone: a duet's two sides share a process. */
uint64_t thread_cpu_ns(void);

#endif
