/*
 * store.c - formatting, keeping and writing the paper's named values.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/csvread.h"
#include "report/store.h"

/* <<format-grouped-numbers>>, paper/90-appendix-report.md */
/* Enough for any double printed with %.*f and MAX_DECIMALS, grouped. */
enum { MAX_DECIMALS = 17, PLAIN_SIZE = 400, GROUPED_SIZE = 520 };

/* out holds GROUPED_SIZE bytes: a third more than plain, which holds PLAIN_SIZE. */
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
    char plain[PLAIN_SIZE], grouped[GROUPED_SIZE];
    decimals = decimals < 0 ? 0 : decimals > MAX_DECIMALS ? MAX_DECIMALS : decimals;
    if (!isfinite(x)) {
        snprintf(buf, FIXED_SIZE, "%s", isnan(x) ? "n/a" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    snprintf(plain, sizeof plain, "%.*f", decimals, x);
    if (strspn(plain, "-0.") == strlen(plain) && plain[0] == '-')
        memmove(plain, plain + 1, strlen(plain));        /* no "-0.00" */
    group_thousands(plain, grouped);
    if (strlen(grouped) < FIXED_SIZE)
        memcpy(buf, grouped, strlen(grouped) + 1);
    else
        snprintf(buf, FIXED_SIZE, "%.*e", decimals < 3 ? 3 : decimals, x);
    return buf;
}

/* <<start-and-end-a-store>>, paper/90-appendix-report.md */
void store_init(struct store *s, const char *out_dir)
{
    memset(s, 0, sizeof *s);
    s->out_dir = out_dir;
}

void store_free(struct store *s)
{
    free(s->values);
    memset(s, 0, sizeof *s);
}

const char *keyf(char buf[KEY_SIZE], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, KEY_SIZE, fmt, ap);
    va_end(ap);
    return buf;
}

/* <<find-a-value>>, paper/90-appendix-report.md */
static const struct value *find(const struct store *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->values[i].key, key) == 0)
            return &s->values[i];
    return NULL;
}

/* <<a-key-outside-its-families>>, paper/90-appendix-report.md */
int family_listed(const char *list, const char *key)
{
    size_t len = strcspn(key, ".");
    while (list != NULL && *(list += strspn(list, " ")) != '\0') {
        size_t n = strcspn(list, " ");
        if (n == len && strncmp(list, key, n) == 0)
            return 1;
        list += n;
    }
    return 0;
}

static void note_stray(struct read_watch *w, const char *key, int put)
{
    if (w->stray[0] != '\0')
        return;                        /* the first is the one to name */
    snprintf(w->stray, KEY_SIZE, "%s", key);
    w->stray_by = w->running;
    w->stray_put = put;
}

static void note_missed(struct read_watch *w, const char *key)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        struct missed_read *bigger = realloc(w->missed, cap * sizeof *bigger);
        if (bigger == NULL)
            return;                    /* the check then sees fewer reads */
        w->missed = bigger;
        w->cap = cap;
    }
    snprintf(w->missed[w->n].key, KEY_SIZE, "%s", key);
    w->missed[w->n++].reader = w->running;
}

const struct value *store_get(const struct store *s, const char *key)
{
    const struct value *v = find(s, key);
    if (v == NULL && s->watch != NULL && s->watch->running >= 0)
        note_missed(s->watch, key);
    if (s->watch != NULL && s->watch->reads != NULL && !family_listed(s->watch->reads, key) &&
        !family_listed(s->watch->writes, key))
        note_stray(s->watch, key, 0);
    return v;
}

double store_number(const struct store *s, const char *key)
{
    const struct value *v = store_get(s, key);
    return v != NULL ? v->number : NAN;
}

/* <<find-a-read-made-too-early>>, paper/90-appendix-report.md */
const char *store_read_too_early(const struct store *s, int *reader, int *writer)
{
    for (size_t i = 0; s->watch != NULL && i < s->watch->n; i++) {
        const struct missed_read *m = &s->watch->missed[i];
        const struct value *v = find(s, m->key);
        if (v != NULL && v->writer > m->reader) {
            *reader = m->reader, *writer = v->writer;
            return m->key;
        }
    }
    return NULL;
}

/* <<put-a-value-once>>, paper/90-appendix-report.md */
static void put(struct store *s, const char *key, const char *text, double number)
{
    if (find(s, key) != NULL) {
        fprintf(stderr, "ipctax-summary: the value %s is put twice\n", key);
        s->errors++;
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 512;
        struct value *bigger = realloc(s->values, cap * sizeof *bigger);
        if (bigger == NULL) {
            s->errors++;
            return;
        }
        s->values = bigger;
        s->cap = cap;
    }
    struct value *v = &s->values[s->n++];
    snprintf(v->key, sizeof v->key, "%s", key);
    snprintf(v->text, sizeof v->text, "%s", text);
    v->number = number;
    v->writer = s->watch != NULL ? s->watch->running : -1;
    if (s->watch != NULL && s->watch->writes != NULL && !family_listed(s->watch->writes, key))
        note_stray(s->watch, key, 1);
}

/* <<decimals-of-an-estimate>>, paper/90-appendix-report.md */
enum { MOST_PROSE_DECIMALS = 6 };

/* x to `decimals` decimals (below zero: to tens, hundreds, ...), grouped. */
static const char *format_rounded(char *buf, double x, int decimals)
{
    if (decimals >= 0 || !isfinite(x))
        return format_fixed(buf, x, decimals);
    double step = pow(10.0, -decimals);
    return format_fixed(buf, round(x / step) * step, 0);
}

/* 1 when y differs from x but prints as x at `decimals`. */
static int prints_as(double y, double x, int decimals)
{
    char a[FIXED_SIZE], b[FIXED_SIZE];
    return isfinite(y) && y != x &&
           strcmp(format_rounded(a, y, decimals), format_rounded(b, x, decimals)) == 0;
}

static int estimate_decimals(struct estimate e, int most)
{
    if (!isfinite(e.value))
        return most;
    int d = e.value != 0 ? 2 - (int)floor(log10(fabs(e.value))) : 2;
    if (isfinite(e.low) && isfinite(e.high) && e.high > e.low)
        d = (int)fmax(d, -floor(log10((e.high - e.low) / 2)));
    d = d < MOST_PROSE_DECIMALS ? d : MOST_PROSE_DECIMALS;
    while (d < MOST_PROSE_DECIMALS && (prints_as(e.low, e.value, d) || prints_as(e.high, e.value, d)))
        d++;
    /* an end far below a value rounded to tens or more keeps two digits
     * of its own, which rounding to the value's tens would take */
    for (int k = 0; k < 2; k++)
        while (d < 0 && fabs(k ? e.high : e.low) > 0 &&
               fabs(k ? e.high : e.low) < pow(10.0, 1 - d))
            d++;
    d = d < most ? d : most;
    /* a ratio's verdict is drawn at 1: an interval that leaves 1 out keeps
     * the digits that show it, past the summarizer's if it must */
    while (d < MOST_PROSE_DECIMALS &&
           ((e.low > 1.0 && prints_as(e.low, 1.0, d)) || (e.high < 1.0 && prints_as(e.high, 1.0, d))))
        d++;
    return d;
}

/* An estimate's value, low and high end (FIXED_SIZE bytes each) at its digits. */
static void format_estimate_parts(char *value, char *low, char *high, struct estimate e,
                                  int decimals)
{
    int d = estimate_decimals(e, decimals);
    format_rounded(value, e.value, d);
    format_rounded(low, e.low, d);
    format_rounded(high, e.high, d);
}

const char *format_estimate(char *buf, struct estimate e, int decimals)
{
    char v[FIXED_SIZE], lo[FIXED_SIZE], hi[FIXED_SIZE];
    if (e.n == 0) {
        snprintf(buf, 200, "n/a");
        return buf;
    }
    /* an interval that holds the median less often than 95% (too few
     * units) says how often, as the prose's does (paper/filters/values.lua) */
    char cover[FIXED_SIZE + 16] = "";
    if (e.coverage > 0.0 && round(e.coverage * 1000.0) < 950.0) {   /* as printed, 0.1% */
        char c[FIXED_SIZE];
        snprintf(cover, sizeof cover, "; %s%% coverage", format_fixed(c, e.coverage * 100.0, 1));
    }
    format_estimate_parts(v, lo, hi, e, decimals);
    snprintf(buf, 200, "%s [%s, %s%s]", v, lo, hi, cover);
    return buf;
}

/* <<put-each-kind-of-value>>, paper/90-appendix-report.md */
void put_text(struct store *s, const char *key, const char *text)
{
    put(s, key, text, NAN);
}

void put_names(struct store *s, const char *key, const char *list)
{
    char text[TEXT_SIZE];
    const char *last = NULL;
    for (const char *p = strstr(list, ", "); p != NULL; p = strstr(p + 2, ", "))
        last = p;
    if (list[0] == '\0')
        snprintf(text, sizeof text, "none");
    else if (last == NULL)
        snprintf(text, sizeof text, "%s", list);
    else
        snprintf(text, sizeof text, "%.*s and %s", (int)(last - list), list, last + 2);
    put(s, key, text, NAN);
}

void put_number(struct store *s, const char *key, double x, int decimals)
{
    char buf[64];
    put(s, key, format_fixed(buf, x, decimals), x);
}

void put_count(struct store *s, const char *key, double n)
{
    put_number(s, key, n, 0);
}

/* x at the decimals of an estimate with no interval: its median's */
static const char *format_three_digits(char buf[FIXED_SIZE], double x)
{
    return format_rounded(buf, x, estimate_decimals((struct estimate){1, x, NAN, NAN, 0.0}, 1));
}

void put_rounded(struct store *s, const char *key, double x)
{
    char buf[FIXED_SIZE];
    put(s, key, format_three_digits(buf, x), x);
}

void put_estimate(struct store *s, const char *key, struct estimate e, int decimals,
                  const char *unit)
{
    char k[KEY_SIZE], buf[FIXED_SIZE];
    int d = estimate_decimals(e, decimals);
    put(s, key, format_rounded(buf, e.value, d), e.value);
    put(s, keyf(k, "%s.low", key), format_rounded(buf, e.low, d), e.low);
    put(s, keyf(k, "%s.high", key), format_rounded(buf, e.high, d), e.high);
    put_count(s, keyf(k, "%s.n", key), (double)e.n);
    put_number(s, keyf(k, "%s.coverage_pct", key), e.coverage * 100.0, 1);
    put_text(s, keyf(k, "%s.unit", key), unit);
}

/* <<read-an-estimate-back>>, paper/90-appendix-report.md */
struct estimate store_estimate(const struct store *s, const char *key)
{
    char k[KEY_SIZE];
    struct estimate e = {0, NAN, NAN, NAN, 0.0};
    double n = store_number(s, keyf(k, "%s.n", key));
    if (!(n > 0))
        return e;
    e.n = (size_t)n;
    e.value = store_number(s, key);
    e.low = store_number(s, keyf(k, "%s.low", key));
    e.high = store_number(s, keyf(k, "%s.high", key));
    e.coverage = store_number(s, keyf(k, "%s.coverage_pct", key)) / 100.0;
    return e;
}

/* <<write-the-values>>, paper/90-appendix-report.md */
int store_write(struct store *s)
{
    static const char *const header[] = {"key", "value"};
    char path[4096];
    struct csv_out out;
    snprintf(path, sizeof path, "%s/values.csv", s->out_dir);
    if (csv_out_open(&out, path, header, CSV_COLUMNS(header)) != 0)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        csv_out_text(&out, s->values[i].key);
        csv_out_text(&out, s->values[i].text);
        csv_out_end_row(&out);
    }
    return csv_out_close(&out);
}
/* The number text shows ("2,043.4" is 2043.4), or NAN. */
static double number_shown(const char *text)
{
    char plain[TEXT_SIZE], *end;
    size_t n = 0;
    for (const char *p = text; *p != '\0' && n + 1 < sizeof plain; p++)
        if (*p != ',')
            plain[n++] = *p;
    plain[n] = '\0';
    double x = strtod(plain, &end);
    return n > 0 && *end == '\0' && (plain[0] == '-' || (plain[0] >= '0' && plain[0] <= '9'))
               ? x
               : NAN;
}

int store_read(struct store *s, const char *path, char *err, size_t err_size)
{
    struct csv_table t;
    if (csv_table_load(path, &t, err, err_size) != 0)
        return -1;
    int k = csv_table_column(&t, "key"), v = csv_table_column(&t, "value");
    int status = k < 0 || v < 0 ? -1 : 0;
    if (status != 0)
        snprintf(err, err_size, "%s has no key and value columns", path);
    for (size_t r = 0; status == 0 && r < t.n_rows; r++)
        put(s, csv_table_cell(&t, r, k), csv_table_cell(&t, r, v),
            number_shown(csv_table_cell(&t, r, v)));
    csv_table_free(&t);
    return status;
}
int store_write_numbers(struct store *s)
{
    static const char *const header[] = {"key", "number"};
    char path[4096], digits[32];
    struct csv_out out;
    snprintf(path, sizeof path, "%s/numbers.csv", s->out_dir);
    if (csv_out_open(&out, path, header, CSV_COLUMNS(header)) != 0)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(s->values[i].number))
            continue;
        snprintf(digits, sizeof digits, "%.17g", s->values[i].number);
        csv_out_text(&out, s->values[i].key);
        csv_out_text(&out, digits);
        csv_out_end_row(&out);
    }
    return csv_out_close(&out);
}

int store_read_numbers(struct store *s, const char *path, char *err, size_t err_size)
{
    struct csv_table t;
    if (csv_table_load(path, &t, err, err_size) != 0)
        return -1;
    int k = csv_table_column(&t, "key"), x = csv_table_column(&t, "number");
    int status = k < 0 || x < 0 ? -1 : 0;
    if (status != 0)
        snprintf(err, err_size, "%s has no key and number columns", path);
    for (size_t r = 0; status == 0 && r < t.n_rows; r++) {
        struct value *v = (struct value *)store_get(s, csv_table_cell(&t, r, k));
        char *end;
        double number = strtod(csv_table_cell(&t, r, x), &end);
        if (v == NULL || *end != '\0') {
            snprintf(err, err_size, "%s: row %zu names no value of the summary", path, r + 1);
            status = -1;
        } else {
            v->number = number;
        }
    }
    csv_table_free(&t);
    return status;
}

/* <<tables-and-figure-files>>, paper/90-appendix-report.md */
static int open_at(struct store *s, const char *path, struct csv_out *out,
                   const char *const *header, int n_columns)
{
    if (csv_out_open(out, path, header, n_columns) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", path);
        s->errors++;
        return -1;
    }
    return 0;
}

int table_open(struct store *s, const char *name, struct csv_out *out,
               const char *const *header, int n_columns)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tables", s->out_dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/tables/%s.csv", s->out_dir, name);
    return open_at(s, path, out, header, n_columns);
}

int figure_data_open(struct store *s, const char *name, struct csv_out *out,
                     const char *const *header, int n_columns)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->out_dir, name);
    return open_at(s, path, out, header, n_columns);
}

void table_close(struct store *s, struct csv_out *out)
{
    if (csv_out_close(out) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", out->path);
        s->errors++;
    }
}

void cell_number(struct csv_out *out, double x, int decimals)
{
    char buf[64];
    csv_out_text(out, format_fixed(buf, x, decimals));
}

void cell_rounded(struct csv_out *out, double x)
{
    char buf[FIXED_SIZE];
    csv_out_text(out, format_three_digits(buf, x));
}
