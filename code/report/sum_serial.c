/*
 * sum_serial.c - the serialization tax, C and Python, paired by repetition.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

/* The samples of one language, format and operation, by repetition. */
static void samples(const struct run_data *d, const char *lang, const char *format,
                    const char *op, struct doubles *us, double *bytes)
{
    for (size_t i = 0; i < d->n_serial; i++) {
        const struct serial_row *r = &d->serial[i];
        if (strcmp(r->language, lang) == 0 && strcmp(r->format, format) == 0 &&
            strcmp(r->operation, op) == 0) {
            doubles_push(us, r->ns * 1e-3);
            *bytes = r->bytes;
        }
    }
}

/* Per repetition, a's time over b's; rows of one repetition share `rep`. */
static struct estimate paired(const struct run_data *d, const char *lang, const char *fa,
                              const char *oa, const char *fb, const char *ob)
{
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_serial; i++) {
        const struct serial_row *a = &d->serial[i];
        if (strcmp(a->language, lang) != 0 || strcmp(a->format, fa) != 0 ||
            strcmp(a->operation, oa) != 0)
            continue;
        for (size_t j = 0; j < d->n_serial; j++) {
            const struct serial_row *b = &d->serial[j];
            if (b->rep == a->rep && strcmp(b->language, lang) == 0 &&
                strcmp(b->format, fb) == 0 && strcmp(b->operation, ob) == 0)
                doubles_push(&x, a->ns / b->ns);
        }
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

struct format_row {
    const char *language, *format, *reference;     /* reference: what "over raw" divides by */
    const char *original_key;                      /* the original's figure, or NULL */
};

static const struct format_row FORMATS[] = {
    {"c", "raw", NULL, NULL},
    {"c", "memcpy", NULL, NULL},
    {"c", "json", "raw", NULL},
    {"c", "text", "raw", NULL},
    {"python", "tobytes", NULL, "serial.raw_us"},
    {"python", "pickle", "tobytes", NULL},
    {"python", "json", "tobytes", "serial.json_us"},
};

static void format_row(const struct run_data *d, struct store *s, struct csv_out *t,
                       struct csv_out *fig, const struct format_row *f)
{
    char key[KEY_SIZE], buf[200];
    struct doubles enc = {0}, dec = {0};
    double bytes = NAN;
    const char *encode_op = strcmp(f->format, "memcpy") == 0 ? "copy" : "encode";
    samples(d, f->language, f->format, encode_op, &enc, &bytes);
    samples(d, f->language, f->format, "decode", &dec, &bytes);
    struct estimate e = doubles_estimate(&enc), x = doubles_estimate(&dec);
    put_estimate(s, keyf(key, "serial.%s.%s.encode_us", f->language, f->format), e, 1,
                 "repetitions");
    if (x.n > 0)
        put_estimate(s, keyf(key, "serial.%s.%s.decode_us", f->language, f->format), x, 1,
                     "repetitions");
    put_count(s, keyf(key, "serial.%s.%s.bytes", f->language, f->format), bytes);
    struct estimate over = {0, NAN, NAN, NAN, 0.0};
    if (f->reference != NULL) {
        over = paired(d, f->language, f->format, "encode", f->reference, "encode");
        put_estimate(s, keyf(key, "serial.%s.%s.over_%s", f->language, f->format, f->reference),
                     over, 1, "repetitions");
    }
    const char *orig = "";
    for (size_t i = 0; f->original_key != NULL && i < d->n_original; i++)
        if (strcmp(d->original[i].key, f->original_key) == 0)
            orig = d->original[i].value;
    csv_out_text(t, f->language);
    csv_out_text(t, f->format);
    csv_out_text(t, format_estimate(buf, e, 1));
    csv_out_text(t, x.n > 0 ? format_estimate(buf, x, 1) : "");
    cell_number(t, bytes, 0);
    csv_out_text(t, over.n > 0 ? format_estimate(buf, over, 1) : "");
    /* The original's figure as the prose prints it (orig.*, put by summarize_run). */
    const struct value *printed =
        f->original_key != NULL ? store_get(s, keyf(key, "orig.%s", f->original_key)) : NULL;
    csv_out_text(t, printed != NULL ? printed->text : orig);
    csv_out_end_row(t);
    csv_out_text(fig, keyf(key, "%s %s", f->language, f->format));
    csv_out_double(fig, e.value);
    csv_out_double(fig, x.value);
    if (orig[0] != '\0')
        csv_out_text(fig, orig);
    else
        csv_out_empty(fig);
    const double interval[] = {e.low, e.high, x.low, x.high};     /* empty where NAN */
    for (size_t i = 0; i < sizeof interval / sizeof interval[0]; i++)
        csv_out_double(fig, interval[i]);
    csv_out_end_row(fig);
    doubles_free(&enc);
    doubles_free(&dec);
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
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        format_row(d, s, &t, &fig, &FORMATS[i]);
    table_close(s, &t);
    table_close(s, &fig);
    put_estimate(s, "serial.c.raw.over_memcpy", paired(d, "c", "raw", "encode", "memcpy", "copy"),
                 2, "repetitions");
    put_count(s, "serial.doubles", kv_number(&d->run, "bars"));
    struct estimate json = store_estimate(s, "serial.c.json.encode_us");
    put_number(s, "serial.c.json_chatty_s", json.value * 1e-6 * kv_number(&d->run, "combos"), 2);
}
