/*
 * rng.h - numpy's legacy RandomState generator (MT19937 + polar normals).
 *
 * Tangled from paper/20-data.md.
 */
#ifndef IPCTAX_RNG_H
#define IPCTAX_RNG_H

#include <stdint.h>

/* <<rng-state>>, paper/20-data.md */
enum { MT_WORDS = 624 };

struct mt19937 {
    uint32_t word[MT_WORDS];
    int next;                  /* index of the next word to temper; MT_WORDS = refill */
};

/* numpy's RandomState: the twister plus the polar method's spare normal. */
struct legacy_rng {
    struct mt19937 mt;
    int has_spare;
    double spare;
};

/* <<rng-interface>>, paper/20-data.md */
void mt19937_seed(struct mt19937 *mt, uint32_t seed);
void mt19937_refill(struct mt19937 *mt);
double legacy_random_sample(struct legacy_rng *rng);
double legacy_standard_normal(struct legacy_rng *rng);
void legacy_rng_seed(struct legacy_rng *rng, uint32_t seed);

/* <<mt-next32>>, paper/20-data.md */
static inline uint32_t mt19937_next32(struct mt19937 *mt)
{
    if (mt->next >= MT_WORDS)
        mt19937_refill(mt);
    uint32_t y = mt->word[mt->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

#endif
