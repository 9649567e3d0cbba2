/*
 * values.h - the named values and tables the paper's placeholders read.
 *
 * Tangled from paper/91-appendix-data-to-prose.md.
 */
#ifndef IPCTAX_VALUES_H
#define IPCTAX_VALUES_H

#include <stdint.h>

#include "harness/csvout.h"
#include "report/csvread.h"

enum { KEY_SIZE = 128 };

/* A number the summary put, kept so that later summarizers (the claims)
 * can judge it without parsing the text it was printed as. */
struct number {
    char key[KEY_SIZE];
    double value;
    char text[64];
};

struct summary {
    const char *data_dir;      /* where the run's CSV files are */
    const char *out_dir;       /* where values.csv and tables/ go */
    const char *published_dir; /* a summary of the published run, or NULL */
    struct csv_out values;
    int errors;
    struct number *numbers;
    size_t n_numbers, numbers_cap;
};

/* Formats a key (printf-style) into buf and returns buf. */
const char *keyf(char buf[KEY_SIZE], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void put_text(struct summary *s, const char *key, const char *text);
void put_count(struct summary *s, const char *key, int64_t n);           /* 150,000 */
void put_fixed(struct summary *s, const char *key, double x, int decimals); /* 2,043.4 */

/* Formats x like put_fixed into buf (at least 64 bytes) and returns buf. */
const char *format_fixed(char *buf, double x, int decimals);

/* The number put under key (and its printed text); NULL if none was put. */
const struct number *value_number(const struct summary *s, const char *key);

/* The fastest timed run of an architecture in architectures.csv, in
 * seconds, or NAN if it has none: what every comparison of architectures
 * uses (@sec:harness). */
double fastest_run_seconds(const struct csv_table *runs, const char *arch);

/* Loads DATA_DIR/name; a failure is reported and counted, and returns -1. */
int load_data(struct summary *s, const char *name, struct csv_table *t);
/* Opens OUT_DIR/tables/name.csv (a table the paper shows) with its header. */
int open_table(struct summary *s, const char *name, struct csv_out *out,
               const char *const *header, int n_columns);
/* Opens OUT_DIR/name (a derived file a figure plots) with its header. */
int open_derived(struct summary *s, const char *name, struct csv_out *out,
                 const char *const *header, int n_columns);

#endif
