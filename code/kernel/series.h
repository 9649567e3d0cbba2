/*
 * series.h - the synthetic close series the sweep runs on.
 *
 * Tangled from paper/20-data.md.
 */
#ifndef IPCTAX_SERIES_H
#define IPCTAX_SERIES_H

#include <stddef.h>
#include <stdint.h>

enum { DEFAULT_BARS = 150000, DEFAULT_SEED = 42 };

void gbm_series(double *close, size_t n_bars, uint32_t seed);

/* <<series-fingerprint-interface>>, paper/20-data.md */
/* SHA-256 of the series of kernel-spec.md (150,000 bars, seed 42). */
#define SPEC_SERIES_SHA256 "b009ebcaa7b72ba6778188046260512bf781587a7abe6445a076dd07a1fb8576"

/* Hex SHA-256 of the closes as little-endian f64 bytes, into hex[65]. */
void series_sha256_hex(const double *close, size_t n_bars, char hex[65]);

#endif
