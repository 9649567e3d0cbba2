/*
 * random.h - reproducible draws: uniform integers and random orders.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_RANDOM_H
#define IPCTAX_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

/* <<random-below>>, paper/40-harness.md */
/* A uniform integer in [0, n), for 1 <= n; never biased. */
static inline uint32_t random_below(struct mt19937 *mt, uint32_t n)
{
    uint64_t m = (uint64_t)mt19937_next32(mt) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)-n % n;      /* 2^32 mod n */
        while (low < threshold) {
            m = (uint64_t)mt19937_next32(mt) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* order[0..n) becomes a uniformly random permutation of 0..n-1. */
void random_order(struct mt19937 *mt, size_t *order, size_t n);

/* The seed of round `round` of a run seeded with `seed`. */
uint32_t round_seed(uint32_t seed, int round);

#endif
