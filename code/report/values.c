/*
 * values.c - formatting and writing the paper's named values.
 *
 * Tangled from paper/91-appendix-data-to-prose.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/values.h"

/* Inserts a comma every three digits of the integer part of a printed number. */
static void group_thousands(const char *plain, char *out)
{
    const char *digits = plain + (plain[0] == '-');
    size_t int_len = strspn(digits, "0123456789");
    if (digits != plain)
        *out++ = '-';
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            *out++ = ',';
        *out++ = digits[i];
    }
    strcpy(out, digits + int_len);
}

const char *format_fixed(char *buf, double x, int decimals)
{
    char plain[64];
    if (!isfinite(x)) {
        snprintf(buf, 64, "%s", isnan(x) ? "n/a" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    snprintf(plain, sizeof plain, "%.*f", decimals, x);
    if (strspn(plain, "-0.") == strlen(plain) && plain[0] == '-')
        memmove(plain, plain + 1, strlen(plain));        /* no "-0.00" */
    group_thousands(plain, buf);
    return buf;
}

const char *keyf(char buf[KEY_SIZE], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, KEY_SIZE, fmt, ap);
    va_end(ap);
    return buf;
}

void put_text(struct summary *s, const char *key, const char *text)
{
    csv_out_text(&s->values, key);
    csv_out_text(&s->values, text);
    csv_out_end_row(&s->values);
}

static void remember(struct summary *s, const char *key, double value, const char *text)
{
    if (s->n_numbers == s->numbers_cap) {
        size_t cap = s->numbers_cap ? 2 * s->numbers_cap : 256;
        struct number *bigger = realloc(s->numbers, cap * sizeof *bigger);
        if (bigger == NULL) {
            s->errors++;
            return;
        }
        s->numbers = bigger;
        s->numbers_cap = cap;
    }
    struct number *n = &s->numbers[s->n_numbers++];
    snprintf(n->key, sizeof n->key, "%s", key);
    snprintf(n->text, sizeof n->text, "%s", text);
    n->value = value;
}

const struct number *value_number(const struct summary *s, const char *key)
{
    for (size_t i = s->n_numbers; i-- > 0;)        /* the latest put wins */
        if (strcmp(s->numbers[i].key, key) == 0)
            return &s->numbers[i];
    return NULL;
}

void put_count(struct summary *s, const char *key, int64_t n)
{
    char plain[32], grouped[48];
    snprintf(plain, sizeof plain, "%" PRId64, n);
    group_thousands(plain, grouped);
    put_text(s, key, grouped);
    remember(s, key, (double)n, grouped);
}

void put_fixed(struct summary *s, const char *key, double x, int decimals)
{
    char buf[64];
    put_text(s, key, format_fixed(buf, x, decimals));
    remember(s, key, x, buf);
}

double fastest_run_seconds(const struct csv_table *runs, const char *arch)
{
    int a = csv_table_column(runs, "architecture"), sec = csv_table_column(runs, "seconds");
    double fastest = NAN, x;
    for (size_t r = 0; a >= 0 && sec >= 0 && r < runs->n_rows; r++)
        if (strcmp(csv_table_cell(runs, r, a), arch) == 0 &&
            csv_table_number(runs, r, sec, &x) == 0 && !(x >= fastest))
            fastest = x;
    return fastest;
}

int load_data(struct summary *s, const char *name, struct csv_table *t)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", s->data_dir, name);
    if (csv_table_load(path, t, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return -1;
    }
    return 0;
}

static int open_with_header(struct summary *s, const char *path, struct csv_out *out,
                            const char *const *header, int n_columns)
{
    if (csv_out_open(out, path) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", path);
        s->errors++;
        return -1;
    }
    csv_out_header(out, header, n_columns);
    return 0;
}

int open_table(struct summary *s, const char *name, struct csv_out *out,
               const char *const *header, int n_columns)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tables/%s.csv", s->out_dir, name);
    return open_with_header(s, path, out, header, n_columns);
}

int open_derived(struct summary *s, const char *name, struct csv_out *out,
                 const char *const *header, int n_columns)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->out_dir, name);
    return open_with_header(s, path, out, header, n_columns);
}
