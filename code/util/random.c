/*
 * random.c - Lemire's unbiased bounded integers and the Fisher-Yates shuffle.
 *
 * Tangled from paper/40-harness.md.
 */
#include "util/random.h"

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
