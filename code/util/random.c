/*
 * random.c - Lemire's unbiased bounded integers and the Fisher-Yates shuffle.
 *
 * Tangled from paper/40-harness.md.
 */
#include "util/random.h"

uint32_t random_below(struct mt19937 *mt, uint32_t n)
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

void random_order(struct mt19937 *mt, size_t *order, size_t n)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = random_below(mt, (uint32_t)i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

/* A large odd multiplier spreads consecutive rounds over the seed space. */
uint32_t round_seed(uint32_t seed, int round)
{
    return seed * 2654435761u + (uint32_t)round;
}
