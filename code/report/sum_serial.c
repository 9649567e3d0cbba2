/*
 * sum_serial.c - the serialization tax, C and Python, paired by repetition.
 *
 * Tangled from paper/70-serialization.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

/* <<serial-picking-rows>>, paper/70-serialization.md */
/* Rows of one language, format and operation, and, where it says, one buffer. */
struct pick {
    const char *language, *format, *operation;
    const char *buffer;            /* NULL: any, the column included; else as the rows say */
};

static int picked(const struct serial_row *r, const struct pick *p)
{
    return strcmp(r->language, p->language) == 0 && strcmp(r->format, p->format) == 0 &&
           strcmp(r->operation, p->operation) == 0 &&
           (p->buffer == NULL || strcmp(r->buffer, p->buffer) == 0);
}

/* The picked rows' microseconds and their faults (NAN where not recorded), by repetition. */
static void samples(const struct run_data *d, const struct pick *p, struct doubles *us,
                    struct doubles *faults, double *bytes)
{
    for (size_t i = 0; i < d->n_serial; i++)
        if (picked(&d->serial[i], p)) {
            doubles_push(us, d->serial[i].ns * 1e-3);
            doubles_push(faults, d->serial[i].minor_faults);
            *bytes = d->serial[i].bytes;
        }
}

/* A within-repetition comparison of two rows: a ratio, or microseconds per fault of a. */
enum pairing { RATIO, US_PER_FAULT };

static double combine(enum pairing how, const struct serial_row *a, const struct serial_row *b)
{
    if (how == RATIO)
        return a->ns / b->ns;
    return a->minor_faults > 0 ? (a->ns - b->ns) * 1e-3 / a->minor_faults : NAN;
}

/* Per repetition, a combined with b; rows of one repetition share `rep`. */
static struct estimate paired(const struct run_data *d, const struct pick *a,
                              const struct pick *b, enum pairing how)
{
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_serial; i++) {
        if (!picked(&d->serial[i], a))
            continue;
        for (size_t j = 0; j < d->n_serial; j++)
            if (d->serial[j].rep == d->serial[i].rep && picked(&d->serial[j], b))
                doubles_push(&x, combine(how, &d->serial[i], &d->serial[j]));
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

/* How far the interval reaches from the median, in percent of it. */
static double spread_pct(struct estimate e)
{
    return fmax(e.high - e.value, e.value - e.low) / e.value * 100.0;
}

/* <<serial-formats-and-their-references>>, paper/70-serialization.md */
struct format_row {
    const char *language, *format;
    const char *buffer;            /* the buffer its rows must name, or NULL for any */
    const char *reference;         /* what "over" divides by (its reused raw), or NULL */
    const char *original_key;      /* the original's figure, or NULL */
};

static const struct format_row FORMATS[] = {
    {"c", "raw", NULL, NULL, NULL},
    {"c", "raw_fresh", "fresh", NULL, NULL},
    {"c", "memcpy", NULL, NULL, NULL},
    {"c", "json", NULL, "raw", NULL},
    {"c", "json_cold", NULL, "json", NULL},
    {"c", "json_busy", NULL, "json", NULL},
    {"c", "text", NULL, "raw", NULL},
    {"python", "tobytes", "reused", NULL, "serial.raw_us"},
    {"python", "tobytes_fresh", "fresh", NULL, NULL},
    {"python", "pickle", NULL, "tobytes", NULL},
    {"python", "json", NULL, "tobytes", "serial.json_us"},
};
enum { N_FORMATS = sizeof FORMATS / sizeof FORMATS[0] };

/* The encode (or copy) of a format: its pick. */
static struct pick encode_of(const struct format_row *f)
{
    const char *op = strcmp(f->format, "memcpy") == 0 ? "copy" : "encode";
    return (struct pick){f->language, f->format, op, f->buffer};
}

/* The format row of language's format, for a reference's own buffer rule. */
static const struct format_row *format_named(const char *language, const char *format)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (strcmp(FORMATS[i].language, language) == 0 && strcmp(FORMATS[i].format, format) == 0)
            return &FORMATS[i];
    return NULL;
}

/* <<serial-a-formats-values-and-row>>, paper/70-serialization.md */
struct format_values {
    struct estimate encode, decode, over, faults;
    double bytes, spread;
};

static struct format_values put_format(const struct run_data *d, struct store *s,
                                       const struct format_row *f)
{
    char key[KEY_SIZE];
    struct format_values v = {.bytes = NAN};
    struct doubles enc = {0}, dec = {0}, rel = {0}, faults = {0}, unused = {0};
    struct pick e = encode_of(f), x = {f->language, f->format, "decode", NULL},
                r = {f->language, f->format, "release", NULL};
    samples(d, &e, &enc, &faults, &v.bytes);
    if (enc.n > 0) {               /* a format the run did not measure has no decode either */
        samples(d, &x, &dec, &unused, &v.bytes);
        samples(d, &r, &rel, &unused, &v.bytes);
    }
    v.encode = doubles_estimate(&enc), v.decode = doubles_estimate(&dec);
    v.faults = doubles_estimate(&faults);
    v.spread = v.encode.n > 0 ? spread_pct(v.encode) : NAN;
    const char *L = f->language, *F = f->format;
    put_estimate(s, keyf(key, "serial.%s.%s.encode_us", L, F), v.encode, 1, "repetitions");
    put_number(s, keyf(key, "serial.%s.%s.spread_pct", L, F), v.spread, 0);
    put_number(s, keyf(key, "serial.%s.%s.faults", L, F), v.faults.value, 0);
    if (v.decode.n > 0 || strcmp(F, "memcpy") != 0)
        put_estimate(s, keyf(key, "serial.%s.%s.decode_us", L, F), v.decode, 1, "repetitions");
    if (strcmp(L, "python") == 0)
        put_estimate(s, keyf(key, "serial.%s.%s.release_us", L, F), doubles_estimate(&rel), 1,
                     "repetitions");
    put_count(s, keyf(key, "serial.%s.%s.bytes", L, F), v.bytes);
    v.over = (struct estimate){0, NAN, NAN, NAN, 0.0};
    if (f->reference != NULL) {
        struct pick ref = encode_of(format_named(L, f->reference));
        v.over = paired(d, &e, &ref, RATIO);
        /* two decimals at most: a ratio near one (a pair against its
         * own format) would print its interval as one point at one */
        put_estimate(s, keyf(key, "serial.%s.%s.over_%s", L, F, f->reference), v.over, 2,
                     "repetitions");
    }
    doubles_free(&enc), doubles_free(&dec), doubles_free(&rel), doubles_free(&faults);
    doubles_free(&unused);
    return v;
}

static void format_row(const struct run_data *d, struct store *s, struct csv_out *t,
                       struct csv_out *fig, const struct format_row *f)
{
    char key[KEY_SIZE], buf[200];
    struct format_values v = put_format(d, s, f);
    const char *orig = "";
    for (size_t i = 0; f->original_key != NULL && i < d->n_original; i++)
        if (strcmp(d->original[i].key, f->original_key) == 0)
            orig = d->original[i].value;
    if (v.encode.n == 0 && orig[0] == '\0')
        return;                    /* not measured in this run, nor by the original: no row */
    csv_out_text(t, f->language);
    csv_out_text(t, f->format);
    csv_out_text(t, v.encode.n > 0 ? format_estimate(buf, v.encode, 1) : "not measured");
    csv_out_text(t, v.decode.n > 0 ? format_estimate(buf, v.decode, 1) : "");
    cell_number(t, v.bytes, 0);
    csv_out_text(t, v.over.n > 0 ? format_estimate(buf, v.over, 2) : "");
    /* The original's figure as the prose prints it (orig.*, put by summarize_run). */
    const struct value *printed =
        f->original_key != NULL ? store_get(s, keyf(key, "orig.%s", f->original_key)) : NULL;
    csv_out_text(t, printed != NULL ? printed->text : orig);
    csv_out_end_row(t);
    if (v.encode.n == 0)
        return;                    /* nothing to draw */
    csv_out_text(fig, keyf(key, "%s %s", f->language, f->format));
    csv_out_double(fig, v.encode.value);
    csv_out_double(fig, v.decode.value);
    if (orig[0] != '\0')
        csv_out_text(fig, orig);
    else
        csv_out_empty(fig);
    const double interval[] = {v.encode.low, v.encode.high, v.decode.low, v.decode.high};
    for (size_t i = 0; i < sizeof interval / sizeof interval[0]; i++)
        csv_out_double(fig, interval[i]);      /* empty where NAN */
    csv_out_end_row(fig);
}

/* <<serial-comparisons-and-the-summarizer>>, paper/70-serialization.md */
static void put_comparisons(const struct run_data *d, struct store *s)
{
    const struct pick py_json = {"python", "json", "encode", NULL},
                      py_fresh = {"python", "tobytes_fresh", "encode", "fresh"},
                      py_reused = {"python", "tobytes", "encode", "reused"},
                      c_raw = {"c", "raw", "encode", NULL},
                      c_fresh = {"c", "raw_fresh", "encode", "fresh"},
                      c_copy = {"c", "memcpy", "copy", NULL};
    put_estimate(s, "serial.python.json.over_tobytes_fresh", paired(d, &py_json, &py_fresh, RATIO),
                 1, "repetitions");
    put_estimate(s, "serial.c.raw.over_memcpy", paired(d, &c_raw, &c_copy, RATIO), 2,
                 "repetitions");
    put_estimate(s, "serial.c.us_per_fault", paired(d, &c_fresh, &c_raw, US_PER_FAULT), 2,
                 "repetitions");
    put_estimate(s, "serial.python.us_per_fault", paired(d, &py_fresh, &py_reused, US_PER_FAULT),
                 2, "repetitions");
}

void summarize_serialization(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Language", "Format", "Encode (µs) [95% interval]",
                                         "Decode (µs) [95% interval]", "Bytes",
                                         "Encode ÷ reference [95% interval]",
                                         "The original's encode (µs)"};
    static const char *const figure[] = {"label", "encode_us", "decode_us", "original_us",
                                         "encode_low", "encode_high", "decode_low",
                                         "decode_high"};
    struct csv_out t, fig;
    if (table_open(s, "serialization", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "serialization.csv", &fig, figure, CSV_COLUMNS(figure)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    for (size_t i = 0; i < N_FORMATS; i++)
        format_row(d, s, &t, &fig, &FORMATS[i]);
    table_close(s, &t);
    table_close(s, &fig);
    put_comparisons(d, s);
    put_count(s, "serial.doubles", kv_number(&d->run, "bars"));
    put_text(s, "serial.cold.measured",
             store_estimate(s, "serial.c.json_cold.encode_us").n > 0 ? "yes" : "no");
    put_text(s, "serial.busy.measured",
             store_estimate(s, "serial.c.json_busy.encode_us").n > 0 ? "yes" : "no");
    struct estimate json = store_estimate(s, "serial.c.json.encode_us");
    put_number(s, "serial.c.json_chatty_s", json.value * 1e-6 * kv_number(&d->run, "combos"), 2);
}
