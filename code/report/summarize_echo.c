/*
 * summarize_echo.c - order statistics per size and the fitted model.
 *
 * Tangled from paper/65-echo.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"
#include "wire/timing.h"

enum { MAX_ECHO_POINTS = 256 };

struct echo_point {
    char transport[32];
    long floats;
    struct sample_stats us;        /* round-trip times in microseconds */
};

/* Collects the samples of echo.csv into points, in file order. */
static size_t echo_points(const struct csv_table *t, struct echo_point *points)
{
    int tc = csv_table_column(t, "transport"), fc = csv_table_column(t, "floats");
    int rc = csv_table_column(t, "rtt_ns");
    size_t n = 0, start = 0;
    double *samples = malloc((t->n_rows + 1) * sizeof *samples);
    if (tc < 0 || fc < 0 || rc < 0 || samples == NULL) {
        free(samples);
        return 0;
    }
    for (size_t r = 0; r <= t->n_rows; r++) {
        int boundary = r == t->n_rows ||
            (r > start && (strcmp(csv_table_cell(t, r, tc), csv_table_cell(t, start, tc)) != 0 ||
                           strcmp(csv_table_cell(t, r, fc), csv_table_cell(t, start, fc)) != 0));
        if (boundary && r > start && n < MAX_ECHO_POINTS) {
            for (size_t i = start; i < r; i++) {
                csv_table_number(t, i, rc, &samples[i - start]);
                samples[i - start] /= 1000.0;
            }
            snprintf(points[n].transport, sizeof points[n].transport, "%s",
                     csv_table_cell(t, start, tc));
            points[n].floats = strtol(csv_table_cell(t, start, fc), NULL, 10);
            points[n].us = sample_stats(samples, r - start);
            n++;
            start = r;
        }
    }
    free(samples);
    return n;
}

static const struct echo_point *find_point(const struct echo_point *p, size_t n,
                                           const char *transport, long floats)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].floats == floats && strcmp(p[i].transport, transport) == 0)
            return &p[i];
    return NULL;
}

struct echo_model {
    double floor_us;           /* T0 */
    double bandwidth_gbps;     /* B, so that T = T0 + 2b/B */
};

/* Weighted least squares of p50 = T0 + c*b over one transport's points. */
static int fit_model(const struct echo_point *p, size_t n, const char *transport,
                     struct echo_model *m)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    int used = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(p[i].transport, transport) != 0 || p[i].us.p50 <= 0)
            continue;
        double x = 8.0 * p[i].floats, y = p[i].us.p50, w = 1.0 / (y * y);
        sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
        used++;
    }
    double det = sw * sxx - sx * sx;
    if (used < 2 || det <= 0)
        return -1;
    double slope = (sw * sxy - sx * sy) / det;      /* microseconds per byte */
    m->floor_us = (sy - slope * sx) / sw;
    /* 2b bytes cross per round trip: B = 2 / slope bytes per microsecond. */
    m->bandwidth_gbps = slope > 0 ? 2.0 / slope * 1e6 / 1e9 : INFINITY;
    return 0;
}

static const long QUOTED_SIZES[] = {1, 1000, 150000};

static void put_point_values(struct summary *s, const struct echo_point *p)
{
    char key[KEY_SIZE];
    for (size_t q = 0; q < sizeof QUOTED_SIZES / sizeof QUOTED_SIZES[0]; q++) {
        if (p->floats != QUOTED_SIZES[q])
            continue;
        put_fixed(s, keyf(key, "echo.%s.p50_us.%ld", p->transport, p->floats), p->us.p50, 1);
        put_fixed(s, keyf(key, "echo.%s.p99_us.%ld", p->transport, p->floats), p->us.p99, 1);
        put_fixed(s, keyf(key, "echo.%s.min_us.%ld", p->transport, p->floats), p->us.min, 1);
    }
}

/* Ratios compare the fastest round trips: the two transports were sampled
 * at different moments, and a shared machine only ever adds time. */
static void put_ratio(struct summary *s, const char *key, const struct echo_point *a,
                      const struct echo_point *b)
{
    if (a != NULL && b != NULL && b->us.min > 0)
        put_fixed(s, key, a->us.min / b->us.min, 2);
}
static void write_echo_table(struct summary *s, const struct echo_point *p, size_t n)
{
    static const char *const header[] = {"Doubles", "Bytes each way", "Echo p50 (µs)",
        "Echo p99 (µs)", "Raw p50 (µs)", "Original p50 (µs)"};
    static const long rows[] = {1, 10, 100, 1000, 10000, 100000, 150000};
    static const char *const original[] = {"14.1", "", "", "18.1", "", "", "2,043.4"};
    struct csv_out out;
    char buf[64];
    if (open_table(s, "echo", &out, header, 6) != 0)
        return;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const struct echo_point *e = find_point(p, n, "unix", rows[r]);
        const struct echo_point *raw = find_point(p, n, "unix_raw", rows[r]);
        if (e == NULL)
            continue;
        csv_out_text(&out, format_fixed(buf, (double)rows[r], 0));
        csv_out_text(&out, format_fixed(buf, 8.0 * rows[r], 0));
        csv_out_text(&out, format_fixed(buf, e->us.p50, 1));
        csv_out_text(&out, format_fixed(buf, e->us.p99, 1));
        csv_out_text(&out, raw ? format_fixed(buf, raw->us.p50, 1) : "");
        csv_out_text(&out, original[r]);
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}
static void write_echo_derived(struct summary *s, const struct echo_point *p, size_t n)
{
    static const char *const header[] = {"transport", "floats", "bytes", "min_us", "p50_us",
                                         "p90_us", "p99_us", "max_us"};
    static const char *const fit_header[] = {"transport", "floor_us", "bandwidth_gbps"};
    struct csv_out out, fits;
    char last[32] = "";
    if (open_derived(s, "echo_stats.csv", &out, header, 8) != 0)
        return;
    if (open_derived(s, "echo_fit.csv", &fits, fit_header, 3) != 0) {
        csv_out_close(&out);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct sample_stats *u = &p[i].us;
        const double cols[] = {u->min, u->p50, u->p90, u->p99, u->max};
        csv_out_text(&out, p[i].transport);
        csv_out_int(&out, p[i].floats);
        csv_out_int(&out, 8 * p[i].floats);
        for (int c = 0; c < 5; c++)
            csv_out_double(&out, cols[c]);
        csv_out_end_row(&out);
        struct echo_model m;
        if (strcmp(last, p[i].transport) != 0 && fit_model(p, n, p[i].transport, &m) == 0) {
            csv_out_text(&fits, p[i].transport);
            csv_out_double(&fits, m.floor_us);
            csv_out_double(&fits, m.bandwidth_gbps);
            csv_out_end_row(&fits);
        }
        snprintf(last, sizeof last, "%s", p[i].transport);
    }
    if (csv_out_close(&out) != 0 || csv_out_close(&fits) != 0)
        s->errors++;
}

static void put_echo_settings(struct summary *s)
{
    struct csv_table t;
    char key[KEY_SIZE];
    if (load_data(s, "echo_settings.csv", &t) != 0)
        return;
    for (size_t r = 0; r < t.n_rows; r++) {
        double v;
        if (csv_table_number(&t, r, 1, &v) == 0)
            put_count(s, keyf(key, "echo.%s", csv_table_cell(&t, r, 0)), (int64_t)v);
    }
    csv_table_free(&t);
}

void summarize_echo(struct summary *s)
{
    struct csv_table t;
    struct echo_point *points = malloc(MAX_ECHO_POINTS * sizeof *points);
    char key[KEY_SIZE];
    if (points == NULL || load_data(s, "echo.csv", &t) != 0) {
        free(points);
        return;
    }
    size_t n = echo_points(&t, points);
    char seen[16][32];
    size_t n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        put_point_values(s, &points[i]);
        size_t j = 0;
        while (j < n_seen && strcmp(seen[j], points[i].transport) != 0)
            j++;
        struct echo_model m;
        if (j == n_seen && n_seen < 16 && fit_model(points, n, points[i].transport, &m) == 0) {
            snprintf(seen[n_seen++], 32, "%s", points[i].transport);
            put_fixed(s, keyf(key, "echo.%s.floor_us", points[i].transport), m.floor_us, 1);
            put_fixed(s, keyf(key, "echo.%s.bandwidth_gbps", points[i].transport),
                      m.bandwidth_gbps, 2);
        }
    }
    put_ratio(s, "echo.floor_ratio", find_point(points, n, "unix", 1),
              find_point(points, n, "unix_raw", 1));
    put_ratio(s, "echo.big_ratio", find_point(points, n, "unix", 150000),
              find_point(points, n, "unix_raw", 150000));
    write_echo_table(s, points, n);
    write_echo_derived(s, points, n);
    put_echo_settings(s);
    csv_table_free(&t);
    free(points);
}
