/*
 * series.c - geometric Brownian motion from numpy's legacy normals.
 *
 * Tangled from paper/20-data.md.
 */
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

#include "kernel/series.h"
#include "util/rng.h"

/* <<gbm-constants>>, paper/20-data.md */
static const double SIGMA = 0.001;        /* volatility per bar */
static const double START_PRICE = 100.0;  /* P0 */

/* <<gbm-series>>, paper/20-data.md */
void gbm_series(double *close, size_t n_bars, uint32_t seed)
{
    struct legacy_rng rng;
    legacy_rng_seed(&rng, seed);
    const double drift = -0.5 * SIGMA * SIGMA;
    double log_price = 0.0;
    for (size_t t = 0; t < n_bars; t++) {
        log_price = log_price + (drift + SIGMA * legacy_standard_normal(&rng));
        close[t] = START_PRICE * exp(log_price);
    }
}

/* <<series-fingerprint>>, paper/20-data.md */
void series_sha256_hex(const double *close, size_t n_bars, char hex[65])
{
    struct sha256_ctx ctx;
    uint8_t block[8 * 512], digest[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    for (size_t t = 0; t < n_bars;) {
        size_t n = 0;
        for (; t < n_bars && n < sizeof block; t++, n += 8) {
            uint64_t bits;
            memcpy(&bits, &close[t], sizeof bits);
            for (int i = 0; i < 8; i++)
                block[n + i] = (uint8_t)(bits >> (8 * i));
        }
        sha256_update(&ctx, n, block);
    }
    sha256_digest(&ctx, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}
