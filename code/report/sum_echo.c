/*
 * sum_echo.c - the echo curve: points, fits, and comparisons by block.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

struct echo_point {
    char client[16], transport[16], mode[24];
    long floats;
    struct doubles us;             /* round trips, microseconds */
    struct sample_stats st;
    struct estimate p50;
    double model_us;               /* the lane's fitted model at this size */
    int in_fit;                    /* 1 kept in its lane's fit, 0 left out, -1 not fitted */
};

struct echo_block {                /* one block's median in one mode */
    char client[16], transport[16], mode[24];
    long floats, pass, block;
    double median_us;
};

struct echo_view {
    struct echo_point *points;
    size_t n_points;
    struct echo_block *blocks;
    size_t n_blocks;
};

static int same_lane(const char *c1, const char *t1, const char *c2, const char *t2)
{
    return strcmp(c1, c2) == 0 && strcmp(t1, t2) == 0;
}

static struct echo_point *point_of(struct echo_view *v, const struct echo_row *r)
{
    for (size_t i = 0; i < v->n_points; i++) {
        struct echo_point *p = &v->points[i];
        if (p->floats == r->floats && strcmp(p->mode, r->mode) == 0 &&
            same_lane(p->client, p->transport, r->client, r->transport))
            return p;
    }
    struct echo_point *p = &v->points[v->n_points++];
    memset(p, 0, sizeof *p);
    snprintf(p->client, sizeof p->client, "%s", r->client);
    snprintf(p->transport, sizeof p->transport, "%s", r->transport);
    snprintf(p->mode, sizeof p->mode, "%s", r->mode);
    p->floats = r->floats;
    p->model_us = NAN;             /* until its lane is fitted; empty in the file if never */
    p->in_fit = -1;
    return p;
}

/* The samples of one block in one mode are consecutive rows of echo.csv. */
static void close_block(struct echo_view *v, const struct echo_row *first, struct doubles *in)
{
    struct echo_block *b = &v->blocks[v->n_blocks++];
    snprintf(b->client, sizeof b->client, "%s", first->client);
    snprintf(b->transport, sizeof b->transport, "%s", first->transport);
    snprintf(b->mode, sizeof b->mode, "%s", first->mode);
    b->floats = first->floats;
    b->pass = first->pass;
    b->block = first->block;
    b->median_us = sample_stats(in->v, in->n).p50;
    in->n = 0;
}

static int build_view(const struct run_data *d, struct echo_view *v)
{
    memset(v, 0, sizeof *v);
    v->points = calloc(d->n_echo ? d->n_echo : 1, sizeof *v->points);
    v->blocks = calloc(d->n_echo ? d->n_echo : 1, sizeof *v->blocks);
    if (v->points == NULL || v->blocks == NULL)
        return -1;
    enum { MODES = 3 };
    struct doubles in[MODES] = {{0}};
    const struct echo_row *first[MODES] = {NULL};
    static const char *const modes[MODES] = {"protocol", "protocol_timed", "raw"};
    for (size_t i = 0; i <= d->n_echo; i++) {
        const struct echo_row *r = i < d->n_echo ? &d->echo[i] : NULL;
        for (int m = 0; m < MODES; m++)
            if (first[m] != NULL && (r == NULL || r->block != first[m]->block)) {
                close_block(v, first[m], &in[m]);
                first[m] = NULL;
            }
        if (r == NULL)
            break;
        struct echo_point *p = point_of(v, r);
        doubles_push(&p->us, r->rtt_ns * 1e-3);
        for (int m = 0; m < MODES; m++)
            if (strcmp(r->mode, modes[m]) == 0) {
                if (first[m] == NULL)
                    first[m] = r;
                doubles_push(&in[m], r->rtt_ns * 1e-3);
            }
    }
    for (int m = 0; m < MODES; m++)
        doubles_free(&in[m]);
    for (size_t i = 0; i < v->n_points; i++) {
        v->points[i].st = sample_stats(v->points[i].us.v, v->points[i].us.n);
        v->points[i].p50 = doubles_estimate(&v->points[i].us);
    }
    return 0;
}

static void free_view(struct echo_view *v)
{
    for (size_t i = 0; i < v->n_points; i++)
        doubles_free(&v->points[i].us);
    free(v->points);
    free(v->blocks);
}

static const struct echo_point *find_point(const struct echo_view *v, const char *client,
                                           const char *transport, const char *mode, long floats)
{
    for (size_t i = 0; i < v->n_points; i++) {
        const struct echo_point *p = &v->points[i];
        if (p->floats == floats && strcmp(p->mode, mode) == 0 &&
            same_lane(p->client, p->transport, client, transport))
            return p;
    }
    return NULL;
}

struct echo_fit {
    double floor_us, bandwidth_gbps;   /* T0, and B in GB/s */
    int points, excluded;
};

/* Weighted least squares of T = a + c x, weights 1/T^2, over the points kept. */
static void fit_line(const double *x, const double *t, const int *keep, size_t n,
                     double *a, double *c)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        double w = 1.0 / (t[i] * t[i]);
        sw += w, sx += w * x[i], sy += w * t[i], sxx += w * x[i] * x[i], sxy += w * x[i] * t[i];
    }
    double det = sw * sxx - sx * sx;
    *c = det != 0 ? (sw * sxy - sx * sy) / det : NAN;
    *a = sw != 0 ? (sy - *c * sx) / sw : NAN;
}

/* Fits one lane's mode; fills every point's model_us. */
static struct echo_fit fit_lane(struct echo_view *v, const char *client, const char *transport,
                                const char *mode)
{
    struct echo_fit f = {NAN, NAN, 0, 0};
    double x[64], t[64];
    int keep[64];
    struct echo_point *pts[64];
    size_t n = 0;
    for (size_t i = 0; i < v->n_points && n < 64; i++) {
        struct echo_point *p = &v->points[i];
        if (strcmp(p->mode, mode) == 0 && same_lane(p->client, p->transport, client, transport)) {
            pts[n] = p;
            x[n] = 2.0 * 8.0 * (double)p->floats;     /* bytes, both ways */
            t[n] = p->st.p50;
            keep[n++] = 1;
        }
    }
    if (n < 3)
        return f;
    double a, c;
    fit_line(x, t, keep, n, &a, &c);
    for (size_t i = 0; i < n; i++)
        if (fabs(t[i] - (a + c * x[i])) > 0.25 * (a + c * x[i])) {
            keep[i] = 0;
            f.excluded++;
        }
    fit_line(x, t, keep, n, &a, &c);
    for (size_t i = 0; i < n; i++) {
        pts[i]->model_us = a + c * x[i];
        pts[i]->in_fit = keep[i];
    }
    f.floor_us = a;
    f.bandwidth_gbps = 1e-3 / c;                       /* bytes per microsecond / 1000 */
    f.points = (int)n;
    return f;
}

static const struct echo_block *find_block(const struct echo_view *v, const char *client,
                                           const char *transport, const char *mode,
                                           long floats, long pass)
{
    for (size_t i = 0; i < v->n_blocks; i++) {
        const struct echo_block *b = &v->blocks[i];
        if (b->floats == floats && b->pass == pass && strcmp(b->mode, mode) == 0 &&
            same_lane(b->client, b->transport, client, transport))
            return b;
    }
    return NULL;
}

enum pair_kind { RATIO, DIFFERENCE };

/* Per pass, a's block median against b's; their median and interval. */
static struct estimate pair_blocks(const struct echo_view *v, const char *ca, const char *ta,
                                   const char *ma, long fa, const char *cb, const char *tb,
                                   const char *mb, long fb, enum pair_kind kind)
{
    struct doubles x = {0};
    for (size_t i = 0; i < v->n_blocks; i++) {
        const struct echo_block *a = &v->blocks[i];
        if (a->floats != fa || strcmp(a->mode, ma) != 0 || !same_lane(a->client, a->transport, ca, ta))
            continue;
        const struct echo_block *b = find_block(v, cb, tb, mb, fb, a->pass);
        if (b != NULL)
            doubles_push(&x, kind == RATIO ? a->median_us / b->median_us
                                           : a->median_us - b->median_us);
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

static const long QUOTED_SIZES[] = {1, 1000, 150000};

/* A fit as the figure draws it: the constants unrounded, beside the values' text. */
static void write_fit(struct csv_out *out, const char *c, const char *t, const char *mode,
                      struct echo_fit f)
{
    csv_out_text(out, c);
    csv_out_text(out, t);
    csv_out_text(out, mode);
    csv_out_double(out, f.floor_us);
    csv_out_double(out, f.bandwidth_gbps);
    csv_out_int(out, f.points);
    csv_out_int(out, f.excluded);
    csv_out_end_row(out);
}

static void put_points_and_fits(struct echo_view *v, struct store *s)
{
    static const char *const lanes[][2] = {{"c", "unix"}, {"c", "tcp"}, {"c", "pipe"},
                                           {"c", "shm_futex"}, {"c", "shm_spin"},
                                           {"python", "unix"}};
    static const char *const modes[] = {"protocol", "raw"};
    static const char *const fit_header[] = {"client", "transport", "mode", "floor_us",
                                             "bandwidth_gbps", "points", "excluded"};
    char key[KEY_SIZE];
    struct csv_out fits;
    int have_fits = figure_data_open(s, "echo_fits.csv", &fits, fit_header, 7) == 0;
    for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; l++)
        for (size_t m = 0; m < 2; m++) {
            const char *c = lanes[l][0], *t = lanes[l][1], *mode = modes[m];
            struct echo_fit f = fit_lane(v, c, t, mode);
            if (f.points == 0)
                continue;
            if (have_fits)
                write_fit(&fits, c, t, mode, f);
            put_number(s, keyf(key, "echo.%s.%s.%s.floor_us", c, t, mode), f.floor_us, 1);
            put_number(s, keyf(key, "echo.%s.%s.%s.bandwidth_gbps", c, t, mode),
                       f.bandwidth_gbps, 2);
            put_count(s, keyf(key, "echo.%s.%s.%s.excluded", c, t, mode), f.excluded);
            for (size_t k = 0; k < sizeof QUOTED_SIZES / sizeof QUOTED_SIZES[0]; k++) {
                const struct echo_point *p = find_point(v, c, t, mode, QUOTED_SIZES[k]);
                if (p != NULL)
                    put_estimate(s, keyf(key, "echo.%s.%s.%s.p50_us.%ld", c, t, mode,
                                         QUOTED_SIZES[k]), p->p50, 1);
            }
            const struct echo_point *big = find_point(v, c, t, mode, 150000);
            if (big != NULL)
                put_number(s, keyf(key, "echo.%s.%s.%s.throughput_gbps", c, t, mode),
                           2.0 * 8.0 * 150000 / big->p50.value * 1e-3, 2);
        }
    if (have_fits)
        table_close(s, &fits);
}

static void put_pairs(const struct echo_view *v, struct store *s)
{
    put_estimate(s, "echo.flat_ratio", pair_blocks(v, "c", "unix", "protocol", 1000, "c", "unix",
                                                   "protocol", 1, RATIO), 2);
    put_estimate(s, "echo.shm_below_unix", pair_blocks(v, "c", "unix", "protocol", 1, "c",
                                                       "shm_spin", "protocol", 1, RATIO), 1);
    put_estimate(s, "echo.proto_over_raw.1", pair_blocks(v, "c", "unix", "protocol", 1, "c",
                                                         "unix", "raw", 1, RATIO), 2);
    put_estimate(s, "echo.proto_over_raw.150000", pair_blocks(v, "c", "unix", "protocol",
                                                              150000, "c", "unix", "raw",
                                                              150000, RATIO), 2);
    put_estimate(s, "echo.timing_cost_us", pair_blocks(v, "c", "unix", "protocol_timed", 1, "c",
                                                       "unix", "protocol", 1, DIFFERENCE), 2);
    put_estimate(s, "echo.python_over_c.1", pair_blocks(v, "python", "unix", "protocol", 1, "c",
                                                        "unix", "protocol", 1, RATIO), 2);
    put_estimate(s, "echo.python_over_c.150000",
                 pair_blocks(v, "python", "unix", "protocol", 150000, "c", "unix", "protocol",
                             150000, RATIO), 2);
}

static void write_points(const struct echo_view *v, struct store *s)
{
    static const char *const header[] = {"client", "transport", "mode", "floats", "bytes", "n",
                                         "p50_us", "low_us", "high_us", "min_us", "p99_us",
                                         "model_us", "residual_pct", "in_fit"};
    struct csv_out out;
    if (figure_data_open(s, "echo_points.csv", &out, header, 14) != 0)
        return;
    for (size_t i = 0; i < v->n_points; i++) {
        const struct echo_point *p = &v->points[i];
        csv_out_text(&out, p->client);
        csv_out_text(&out, p->transport);
        csv_out_text(&out, p->mode);
        csv_out_int(&out, p->floats);
        csv_out_int(&out, p->floats * 8);
        csv_out_int(&out, (int64_t)p->st.n);
        const double cols[] = {p->st.p50, p->p50.low, p->p50.high, p->st.min, p->st.p99,
                               p->model_us, (p->st.p50 - p->model_us) / p->model_us * 100.0};
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
            csv_out_double(&out, cols[c]);
        if (p->in_fit >= 0)
            csv_out_int(&out, p->in_fit);
        else
            csv_out_empty(&out);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
}

/* The original's echo points and model, for the figure. */
static void write_original(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"floats", "bytes", "p50_us"};
    struct csv_out out;
    if (figure_data_open(s, "echo_original.csv", &out, header, 3) != 0)
        return;
    for (size_t i = 0; i < d->n_original; i++) {
        long floats;
        if (sscanf(d->original[i].key, "echo.p50_us.%ld", &floats) != 1)
            continue;
        csv_out_int(&out, floats);
        csv_out_int(&out, floats * 8);
        csv_out_text(&out, d->original[i].value);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
}

static void write_table(const struct echo_view *v, const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Client", "Transport", "Mode", "Doubles",
                                         "Median (µs) [95% interval]", "99th pct (µs)",
                                         "Samples", "The original's median (µs)"};
    struct csv_out out;
    char buf[200];
    if (table_open(s, "echo", &out, header, 8) != 0)
        return;
    for (size_t i = 0; i < v->n_points; i++) {
        const struct echo_point *p = &v->points[i];
        int quoted = 0;
        for (size_t k = 0; k < sizeof QUOTED_SIZES / sizeof QUOTED_SIZES[0]; k++)
            quoted |= p->floats == QUOTED_SIZES[k];
        if (!quoted || strcmp(p->mode, "protocol_timed") == 0)
            continue;
        csv_out_text(&out, p->client);
        csv_out_text(&out, p->transport);
        csv_out_text(&out, p->mode);
        cell_number(&out, (double)p->floats, 0);
        csv_out_text(&out, format_estimate(buf, p->p50, 1));
        cell_number(&out, p->st.p99, 1);
        cell_number(&out, (double)p->st.n, 0);
        char okey[64];
        snprintf(okey, sizeof okey, "echo.p50_us.%ld", p->floats);
        const char *orig = "";
        for (size_t k = 0; k < d->n_original && strcmp(p->client, "python") == 0 &&
                           strcmp(p->mode, "protocol") == 0; k++)
            if (strcmp(d->original[k].key, okey) == 0)
                orig = d->original[k].value;
        csv_out_text(&out, orig);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
}

void summarize_echo(const struct run_data *d, struct store *s)
{
    struct echo_view v;
    if (build_view(d, &v) != 0) {
        s->errors++;
        free_view(&v);
        return;
    }
    put_points_and_fits(&v, s);
    put_pairs(&v, s);
    write_points(&v, s);
    write_table(&v, d, s);
    write_original(d, s);
    put_count(s, "echo.passes", kv_number(&d->echo_settings, "passes"));
    put_count(s, "echo.warmup", kv_number(&d->echo_settings, "warmup"));
    put_count(s, "echo.reps_small", kv_number(&d->echo_settings, "reps_small"));
    put_count(s, "echo.reps_large", kv_number(&d->echo_settings, "reps_large"));
    put_count(s, "echo.sizes", kv_number(&d->echo_settings, "sizes"));
    free_view(&v);
}
