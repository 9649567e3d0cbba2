/*
 * store.h - the named values, tables and figure files the paper reads.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_STORE_H
#define IPCTAX_STORE_H

#include <stdint.h>

#include "util/csvout.h"
#include "util/stats.h"

/* <<the-store-of-values>>, paper/90-appendix-report.md */
enum { KEY_SIZE = 128, TEXT_SIZE = 512 };

struct value {
    char key[KEY_SIZE];
    char text[TEXT_SIZE];      /* what the paper prints */
    double number;             /* NAN for a text */
    int writer;                /* the summarizer that put it (its place in their list), or -1 */
};

/* The keys looked for while a summarizer ran and not found: each must be
 * one that no later summarizer puts; and the first key a summarizer used
 * outside the families it declared (@sec:summarizer-order). */
struct read_watch {
    int running;               /* the summarizer running, or -1 */
    struct missed_read {
        char key[KEY_SIZE];
        int reader;
    } *missed;
    size_t n, cap;
    const char *writes, *reads; /* the running one's families; NULL: not checked */
    char stray[KEY_SIZE];      /* the first key outside them, or "" */
    int stray_by, stray_put;   /* who used it, and whether it put it */
};

struct store {
    const char *out_dir;       /* where values.csv, tables/ and the figures' files go */
    const char *registry;      /* the folder of claims.csv and its registration (paper/) */
    const char *kept_summaries; /* each kept run's summary, by its ID; NULL: OUT_DIR/reproductions */
    const char *chunk_hashes;  /* tangle --hashes of the chapters, or NULL: not checked */
    struct value *values;
    size_t n, cap;
    int errors;                /* anything that went wrong; the summary then fails */
    struct read_watch *watch;  /* NULL but while the summarizers run */
};

void store_init(struct store *s, const char *out_dir);
void store_free(struct store *s);
/* Writes OUT/values.csv; 0 or -1. */
int store_write(struct store *s);
/* Puts the values of a values.csv that store_write wrote (a summary kept
 * from an earlier build) into s, each as its text, with the number the
 * text shows (its commas dropped) or NAN. 0, or -1 with err. */
int store_read(struct store *s, const char *path, char *err, size_t err_size);
/* Writes OUT/numbers.csv: every number's key and its every digit (%.17g,
 * which reads back to the same double); 0 or -1. */
int store_write_numbers(struct store *s);
/* Gives each value of s the number path (a numbers.csv) holds for its key;
 * 0, or -1 with err if path cannot be read or names a key s lacks. */
int store_read_numbers(struct store *s, const char *path, char *err, size_t err_size);

/* <<putting-and-getting-values>>, paper/90-appendix-report.md */
/* Formats a key (printf-style) into buf and returns buf. */
const char *keyf(char buf[KEY_SIZE], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void put_text(struct store *s, const char *key, const char *text);
/* A list gathered as "a, b, c" put as the prose reads it: "a, b and c",
 * or "none" when it is empty. */
void put_names(struct store *s, const char *key, const char *list);
void put_number(struct store *s, const char *key, double x, int decimals);   /* 2,043.4 */
void put_count(struct store *s, const char *key, double n);                  /* 150,000 */
/* A figure computed from medians, to three significant digits and at most
 * one decimal, as a median of its size is printed: 2,200, 78.6, 9.7. */
void put_rounded(struct store *s, const char *key, double x);
/* An estimate: its value, the ends of its interval, n, the coverage the
 * interval keeps (percent) and the name of its unit (couples, passes, ...);
 * its three numbers printed as the paper prints them (decimals at most). */
void put_estimate(struct store *s, const char *key, struct estimate e, int decimals,
                  const char *unit);

/* The value put under key, or NULL (good until the next put, which may move
 * every value); its number, or NAN. */
const struct value *store_get(const struct store *s, const char *key);
/* While s->watch is set: the first key a summarizer looked for before a
 * later one put it, or NULL; *reader and *writer their places. */
const char *store_read_too_early(const struct store *s, int *reader, int *writer);
/* Whether key's family, its part before the first dot, is a word of list
 * (words separated by spaces); a family is its own key. */
int family_listed(const char *list, const char *key);
double store_number(const struct store *s, const char *key);
/* An estimate put under key (n = 0 if none). */
struct estimate store_estimate(const struct store *s, const char *key);

/* <<formatting-numbers-and-opening-tables>>, paper/90-appendix-report.md */
/* Formats x with `decimals` decimals (0 to 17) and grouped thousands into buf,
 * which holds FIXED_SIZE bytes; a number too long for that is printed as
 * 1.23e+46. Any double fits. */
enum { FIXED_SIZE = 64 };
const char *format_fixed(char *buf, double x, int decimals);
/* "value [low, high]" into buf (>= 200 bytes); an interval whose coverage
 * is below 95% carries it: "value [low, high; 93.8% coverage]". */
const char *format_estimate(char *buf, struct estimate e, int decimals);

/* Opens OUT/tables/name.csv (a table the paper shows), or OUT/name (a file
 * a figure plots), with its header; counts a failure. 0 or -1. A table's
 * header and the words of its cells are written by the summarizer that
 * fills it, in English, because the weave prints the file as it is. */
int table_open(struct store *s, const char *name, struct csv_out *out,
               const char *const *header, int n_columns);
int figure_data_open(struct store *s, const char *name, struct csv_out *out,
                     const char *const *header, int n_columns);
void table_close(struct store *s, struct csv_out *out);
/* A table cell holding x formatted like put_number, or like put_rounded. */
void cell_number(struct csv_out *out, double x, int decimals);
void cell_rounded(struct csv_out *out, double x);

#endif
