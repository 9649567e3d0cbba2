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
uint32_t mt19937_next32(struct mt19937 *mt);
double legacy_random_sample(struct legacy_rng *rng);
double legacy_standard_normal(struct legacy_rng *rng);
void legacy_rng_seed(struct legacy_rng *rng, uint32_t seed);

#endif
