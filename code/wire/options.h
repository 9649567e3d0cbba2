/*
 * options.h - numbers given on a command line.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_OPTIONS_H
#define IPCTAX_OPTIONS_H

/* Parses text as a whole decimal number in [min, max]: 0 with *value set,
 * or -1 (nothing set) for an empty text, trailing characters, an overflow
 * or a number out of range. */
int parse_long_in_range(const char *text, long min, long max, long *value);

#endif
