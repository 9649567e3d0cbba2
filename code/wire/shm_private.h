/*
 * shm_private.h - what shm_ring.c and shm_segment.c share, and nothing else
 * includes: the time limits, and the functions each calls of the other.
 *
 * Tangled from paper/84-shm.md.
 */
#ifndef IPCTAX_SHM_PRIVATE_H
#define IPCTAX_SHM_PRIVATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "wire/shm_ring.h"

/* <<shm-time-limits>>, paper/84-shm.md */
enum { SHM_SPINS_PER_LOOK = 256 };                 /* polls between looks at the clock */
#define SHM_CHECK_NS 10000000ull                   /* 10 ms: longest sleep without a check */
#define SHM_SPIN_PATIENCE_NS 100000000ull          /* 100 ms of spinning, then sleep */
#define SHM_LEAVE_NS 1000000000ull                 /* 1 s for a client to leave */
#define SHM_DAMAGED "its size changed under it"    /* why a damaged segment is replaced */

/* The data path's, for the segment's side. */
void shm_bind_side(struct shm_channel *ch, int is_engine);
int shm_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t timeout_ns);
void shm_futex_bump(_Atomic uint32_t *word);
/* How long a sleep may last before the deadline, at most SHM_CHECK_NS. */
uint64_t shm_nap_before(uint64_t deadline_ns);
/* The segment's side's, for the data path: whether the session is over. */
int shm_session_over(struct shm_channel *ch, uint64_t now);

#endif
