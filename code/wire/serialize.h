/*
 * serialize.h - the close series in three encodings: the protocol's raw
 * binary, JSON through jansson, and decimal text. Each decoder gives back
 * exactly the doubles its encoder was given, or fails.
 *
 * Tangled from paper/70-serialization.md.
 */
#ifndef IPCTAX_SERIALIZE_H
#define IPCTAX_SERIALIZE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* <<raw-series-interface>>, paper/70-serialization.md */
/* Bytes of the request body that carries n doubles (n fits the u32 count). */
size_t raw_series_size(size_t n);
/* Writes the echo request for x[0 .. n) into body[0 .. raw_series_size(n)). */
void raw_series_encode(uint8_t *body, const double *x, size_t n);
/* Reads n doubles from a request body; returns 0, or -1 if it is not one. */
int raw_series_decode(const uint8_t *body, size_t len, double *x, size_t n);

/* <<json-series-interface>>, paper/70-serialization.md */
/* The series as a jansson array of reals (json_decref it); NULL if a value
   is NaN or infinite, or memory ran out. */
json_t *json_series_array(const double *x, size_t n);
/* Copies the n numbers of a JSON array into x; returns 0, or -1 if it is
   not an array of exactly n numbers. */
int json_series_values(const json_t *array, double *x, size_t n);
/* jansson's flags for printing: compact, and 17 significant digits, which
   every double needs to come back as itself. */
#define JSON_PRINT_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

/* The series as a compact JSON array, NUL-terminated, its length in *len;
   free() it. NULL if a value is NaN or infinite, or memory ran out. */
char *json_series_encode(const double *x, size_t n, size_t *len);
/* Parses a JSON array of exactly n numbers into x; returns 0 or -1. */
int json_series_decode(const char *text, size_t len, double *x, size_t n);

/* <<text-series-interface>>, paper/70-serialization.md */
/* Bytes text_series_encode may write for n doubles, final NUL included. */
size_t text_series_capacity(size_t n);
/* Writes x as "%.17g" numbers joined by commas, NUL-terminated; returns
   the length. buf holds text_series_capacity(n) bytes. */
size_t text_series_encode(char *buf, const double *x, size_t n);
/* Reads exactly n comma-separated numbers from NUL-terminated text. */
int text_series_decode(const char *text, double *x, size_t n);

#endif
