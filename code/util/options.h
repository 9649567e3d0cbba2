/*
 * options.h - the command-line convention of every ipctax program: numbers
 * parsed whole, one-line refusals, --help and --version.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_OPTIONS_H
#define IPCTAX_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The exit status of a refused command line. */
enum { EXIT_USAGE = 2 };

/* Parses text as a whole decimal number in [min, max]: digits, after one
 * '-' for a negative number, and nothing else (no space, no '+'). 0 with
 * *value set, or -1 (nothing set) for anything else or out of range. */
int parse_long_in_range(const char *text, long min, long max, long *value);

/* The value `text` of option `name` as a whole number in [min, max]: 0 with
 * *value set, or -1 with a message in err that names the option and the range. */
int option_long(const char *name, const char *text, long min, long max, long *value,
                char *err, size_t err_size);
/* The same for a decimal real number (no inf, nan or hexadecimal). */
int option_double(const char *name, const char *text, double min, double max,
                  double *value, char *err, size_t err_size);
/* Exactly `count` whole numbers in [min, max], separated by single commas. */
int option_longs(const char *name, const char *text, int count, long min, long max,
                 long *values, char *err, size_t err_size);

/* getopt_long for every program: the next option's value (its short
 * name, or its `val`), -1 after the last, or '?' with the message in err
 * for an unknown option, a missing value, or a long option not written
 * whole ("--bar" for "--bars"). shorts starts with ':', and opterr is 0.
 * struct option is getopt.h's, included above. */
int option_next(int argc, char **argv, const char *shorts, const struct option *options,
                char *err, size_t err_size);

/* For a program whose arguments are operands (ipctax-summary, -record,
 * -kernel): answers -h, --help and --version wherever they are, and refuses
 * any other argument that starts with '-'. 1 when the command line has been
 * answered, with *status the exit status; 0 to go on. */
int options_of_operands(int argc, char **argv, const char *program, const char *commit,
                        void (*usage)(FILE *to), int *status);

/* Prints "PROGRAM: MESSAGE (see --help)" on standard error; returns EXIT_USAGE. */
int usage_error(const char *program, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "PROGRAM RELEASE (commit COMMIT)" on standard output; returns 0.
 * The release is CITATION.cff's version, which the Makefile gives this
 * module as IPCTAX_RELEASE. */
int print_version(const char *program, const char *commit);

#endif
