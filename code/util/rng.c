/*
 * rng.c - numpy's legacy RandomState generator, bit for bit.
 *
 * Tangled from paper/20-data.md.
 */
#include <math.h>

#include "util/rng.h"

/* <<mt-seed>>, paper/20-data.md */
void mt19937_seed(struct mt19937 *mt, uint32_t seed)
{
    mt->word[0] = seed;
    for (uint32_t i = 1; i < MT_WORDS; i++) {
        uint32_t prev = mt->word[i - 1];
        mt->word[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
    mt->next = MT_WORDS;       /* the first draw refills the whole state */
}

/* <<mt-refill>>, paper/20-data.md */
enum { MT_SHIFT = 397 };

static uint32_t mt_twist(uint32_t upper_from, uint32_t lower_from, uint32_t far)
{
    uint32_t y = (upper_from & 0x80000000u) | (lower_from & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
}

void mt19937_refill(struct mt19937 *mt)
{
    uint32_t *w = mt->word;
    int i = 0;
    for (; i < MT_WORDS - MT_SHIFT; i++)       /* the word ahead is still old */
        w[i] = mt_twist(w[i], w[i + 1], w[i + MT_SHIFT]);
    for (; i < MT_WORDS - 1; i++)              /* ... already new: it wrapped */
        w[i] = mt_twist(w[i], w[i + 1], w[i + MT_SHIFT - MT_WORDS]);
    w[i] = mt_twist(w[i], w[0], w[MT_SHIFT - 1]);
    mt->next = 0;
}

/* <<legacy-random-sample>>, paper/20-data.md */
void legacy_rng_seed(struct legacy_rng *rng, uint32_t seed)
{
    mt19937_seed(&rng->mt, seed);
    rng->has_spare = 0;
    rng->spare = 0.0;
}

double legacy_random_sample(struct legacy_rng *rng)
{
    uint32_t a = mt19937_next32(&rng->mt) >> 5;
    uint32_t b = mt19937_next32(&rng->mt) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;   /* (a * 2^26 + b) / 2^53 */
}

/* <<legacy-standard-normal>>, paper/20-data.md */
double legacy_standard_normal(struct legacy_rng *rng)
{
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * legacy_random_sample(rng) - 1.0;
        x2 = 2.0 * legacy_random_sample(rng) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    rng->spare = f * x1;
    rng->has_spare = 1;
    return f * x2;
}
