/*
 * sum_echo.c - the echo curve: points by pass, fits, and comparisons by pass.
 *
 * Tangled from paper/65-echo.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

/* <<echo-points-by-pass>>, paper/65-echo.md */
enum { MAX_PASSES = MAX_ECHO_PASSES };   /* echo.csv's pass column holds no more */

struct echo_point {
    char client[16], transport[16], placement[8], mode[24];
    long floats;
    struct doubles us;                 /* every round trip, microseconds */
    struct doubles pass_of;            /* ... and the pass it was taken in */
    double pass_us[MAX_PASSES];        /* the block median of each pass; NAN if none */
    long passes;                       /* passes seen */
    struct sample_stats st;
    struct estimate p50;               /* over the passes */
    double model_us;                   /* the lane's fitted model at this size */
    int in_fit;                        /* 1 kept in its lane's fit, 0 left out, -1 not fitted */
};

struct echo_view {
    struct echo_point *points;
    size_t n_points;
    long passes;
};

static int same_point(const struct echo_point *p, const char *client, const char *transport,
                      const char *placement, const char *mode, long floats)
{
    return p->floats == floats && strcmp(p->mode, mode) == 0 &&
           strcmp(p->client, client) == 0 && strcmp(p->transport, transport) == 0 &&
           strcmp(p->placement, placement) == 0;
}

/* <<find-or-add-a-point>>, paper/65-echo.md */
static struct echo_point *point_of(struct echo_view *v, const struct echo_row *r)
{
    for (size_t i = 0; i < v->n_points; i++)
        if (same_point(&v->points[i], r->client, r->transport, r->placement, r->mode, r->floats))
            return &v->points[i];
    struct echo_point *p = &v->points[v->n_points++];
    memset(p, 0, sizeof *p);
    snprintf(p->client, sizeof p->client, "%s", r->client);
    snprintf(p->transport, sizeof p->transport, "%s", r->transport);
    snprintf(p->placement, sizeof p->placement, "%s", r->placement);
    snprintf(p->mode, sizeof p->mode, "%s", r->mode);
    p->floats = r->floats;
    p->model_us = NAN;             /* until its lane is fitted; empty in the file if never */
    p->in_fit = -1;
    for (int k = 0; k < MAX_PASSES; k++)
        p->pass_us[k] = NAN;
    return p;
}

static const struct echo_point *find_point(const struct echo_view *v, const char *client,
                                           const char *transport, const char *placement,
                                           const char *mode, long floats)
{
    for (size_t i = 0; i < v->n_points; i++)
        if (same_point(&v->points[i], client, transport, placement, mode, floats))
            return &v->points[i];
    return NULL;
}

/* <<a-points-value-in-each-pass>>, paper/65-echo.md */
/* The median of p's samples taken in pass `pass`, or NAN. */
static double pass_value(const struct echo_point *p, long pass, struct doubles *scratch)
{
    scratch->n = 0;
    for (size_t i = 0; i < p->us.n; i++)
        if (p->pass_of.v[i] == (double)pass)
            doubles_push(scratch, p->us.v[i]);
    return scratch->n > 0 ? sample_stats(scratch->v, scratch->n).p50 : NAN;
}

static int build_view(const struct run_data *d, struct echo_view *v)
{
    memset(v, 0, sizeof *v);
    v->points = calloc(d->n_echo ? d->n_echo : 1, sizeof *v->points);
    if (v->points == NULL)
        return -1;
    for (size_t i = 0; i < d->n_echo; i++) {
        const struct echo_row *r = &d->echo[i];
        struct echo_point *p = point_of(v, r);
        doubles_push(&p->us, r->rtt_ns * 1e-3);
        doubles_push(&p->pass_of, (double)r->pass);
        v->passes = r->pass > v->passes ? r->pass : v->passes;
    }
    struct doubles scratch = {0};
    for (size_t i = 0; i < v->n_points; i++) {
        struct echo_point *p = &v->points[i];
        p->st = sample_stats(p->us.v, p->us.n);
        p->passes = v->passes < MAX_PASSES ? v->passes : MAX_PASSES;
        for (long k = 0; k < p->passes; k++)
            p->pass_us[k] = pass_value(p, k + 1, &scratch);
        p->p50 = estimate_median(p->pass_us, (size_t)p->passes);
    }
    doubles_free(&scratch);
    return 0;
}

static void free_view(struct echo_view *v)
{
    for (size_t i = 0; i < v->n_points; i++) {
        doubles_free(&v->points[i].us);
        doubles_free(&v->points[i].pass_of);
    }
    free(v->points);
}

/* <<echo-fit>>, paper/65-echo.md */
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

/* Fits one lane's mode in one placement; fills every point's model_us. */
static struct echo_fit fit_lane(struct echo_view *v, const char *client, const char *transport,
                                const char *placement, const char *mode)
{
    struct echo_fit f = {NAN, NAN, 0, 0};
    double x[64], t[64];
    int keep[64];
    struct echo_point *pts[64];
    size_t n = 0;
    for (size_t i = 0; i < v->n_points && n < 64; i++) {
        struct echo_point *p = &v->points[i];
        if (same_point(p, client, transport, placement, mode, p->floats) && isfinite(p->p50.value)) {
            pts[n] = p;
            x[n] = 2.0 * 8.0 * (double)p->floats;     /* bytes, both ways */
            t[n] = p->p50.value;
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

/* <<echo-pass-pairs>>, paper/65-echo.md */
enum pair_kind { RATIO, DIFFERENCE };

static struct estimate pair_passes(const struct echo_point *a, const struct echo_point *b,
                                   enum pair_kind kind)
{
    double x[MAX_PASSES];
    size_t n = 0;
    for (long k = 0; a != NULL && b != NULL && k < a->passes && k < b->passes; k++)
        if (isfinite(a->pass_us[k]) && isfinite(b->pass_us[k]))
            x[n++] = kind == RATIO ? a->pass_us[k] / b->pass_us[k]
                                   : a->pass_us[k] - b->pass_us[k];
    return estimate_median(x, n);
}

static double pass_spread(const struct echo_point *p)
{
    double lo = INFINITY, hi = 0;
    for (long k = 0; p != NULL && k < p->passes; k++)
        if (isfinite(p->pass_us[k]))
            lo = fmin(lo, p->pass_us[k]), hi = fmax(hi, p->pass_us[k]);
    return hi > 0 && isfinite(lo) ? hi / lo : NAN;
}

/* A comparison of two named points, put under key. */
struct echo_pair {
    const char *key;
    const char *a[5], *b[5];           /* client, transport, placement, mode, floats */
    enum pair_kind kind;
    int decimals;
};

static void put_pair(const struct echo_view *v, struct store *s, const struct echo_pair *p)
{
    const struct echo_point *a = find_point(v, p->a[0], p->a[1], p->a[2], p->a[3], atol(p->a[4]));
    const struct echo_point *b = find_point(v, p->b[0], p->b[1], p->b[2], p->b[3], atol(p->b[4]));
    struct estimate none = {0, NAN, NAN, NAN, 0.0};    /* a run without the lane: not measured */
    put_estimate(s, p->key, a != NULL && b != NULL ? pair_passes(a, b, p->kind) : none,
                 p->decimals, "passes");
}

/* <<the-quoted-comparisons>>, paper/65-echo.md */
#define SAME(t, m, f) {"c", t, "same", m, #f}
#define CROSS(t, m, f) {"c", t, "cross", m, #f}
static const struct echo_pair PAIRS[] = {
    {"echo.flat_ratio", SAME("unix", "protocol", 1000), SAME("unix", "protocol", 1), RATIO, 2},
    {"echo.shm_below_unix", CROSS("unix", "protocol", 1), CROSS("shm_spin", "protocol", 1),
     RATIO, 1},
    {"echo.proto_over_raw.1", SAME("unix", "protocol", 1), SAME("unix", "raw", 1), RATIO, 2},
    {"echo.proto_over_raw.150000", SAME("unix", "protocol", 150000),
     SAME("unix", "raw", 150000), RATIO, 2},
    {"echo.tcp_over_raw.10000", SAME("tcp", "protocol", 10000), SAME("tcp", "raw", 10000),
     RATIO, 2},
    {"echo.tcp_over_raw.150000", SAME("tcp", "protocol", 150000), SAME("tcp", "raw", 150000),
     RATIO, 2},
    {"echo.tcp_cross_over_raw.150000", CROSS("tcp", "protocol", 150000),
     CROSS("tcp", "raw", 150000), RATIO, 2},
    {"echo.timing_cost_us", SAME("unix", "protocol_timed", 1), SAME("unix", "protocol", 1),
     DIFFERENCE, 2},
    {"echo.cross_over_same.1", CROSS("unix", "protocol", 1), SAME("unix", "protocol", 1),
     RATIO, 2},
    {"echo.cross_over_same.150000", CROSS("unix", "protocol", 150000),
     SAME("unix", "protocol", 150000), RATIO, 2},
    {"echo.python_over_c.1", {"python", "unix", "same", "protocol", "1"},
     SAME("unix", "protocol", 1), RATIO, 2},
    {"echo.python_over_c.150000", {"python", "unix", "same", "protocol", "150000"},
     SAME("unix", "protocol", 150000), RATIO, 2},
    {"echo.python_over_c.100000", {"python", "unix", "same", "protocol", "100000"},
     SAME("unix", "protocol", 100000), RATIO, 2},
    {"echo.python_copying_over_c.1", {"python_copying", "unix", "same", "protocol", "1"},
     SAME("unix", "protocol", 1), RATIO, 2},
    {"echo.python_copying_over_c.100000",
     {"python_copying", "unix", "same", "protocol", "100000"}, SAME("unix", "protocol", 100000),
     RATIO, 2},
    {"echo.python_copying_over_c.150000",
     {"python_copying", "unix", "same", "protocol", "150000"}, SAME("unix", "protocol", 150000),
     RATIO, 2},
};
#undef SAME
#undef CROSS

/* <<put-the-worst-tcp-size>>, paper/65-echo.md */
enum { TCP_WORST_FROM = 10000 };

/* TCP's protocol over its raw floor at its worst size from TCP_WORST_FROM up. */
static void put_tcp_worst(const struct echo_view *v, struct store *s, const char *placement)
{
    char key[KEY_SIZE];
    struct estimate worst = {0};
    long at = 0;
    for (size_t i = 0; i < v->n_points; i++) {
        const struct echo_point *a = &v->points[i];
        if (a->floats < TCP_WORST_FROM || !same_point(a, "c", "tcp", placement, "protocol",
                                                      a->floats))
            continue;
        const struct echo_point *b = find_point(v, "c", "tcp", placement, "raw", a->floats);
        struct estimate e = b != NULL ? pair_passes(a, b, RATIO) : worst;
        if (b != NULL && isfinite(e.value) && (at == 0 || e.value > worst.value))
            worst = e, at = a->floats;
    }
    if (at == 0)
        return;
    put_estimate(s, keyf(key, "echo.tcp_over_raw.worst.%s", placement), worst, 2, "passes");
    put_count(s, keyf(key, "echo.tcp_over_raw.worst.%s.floats", placement), (double)at);
}

/* <<the-lanes-and-their-fits-file>>, paper/65-echo.md */
static const long QUOTED_SIZES[] = {1, 1000, 150000};
static const char *const LANES[][2] = {{"c", "unix"}, {"c", "tcp"}, {"c", "pipe"},
                                       {"c", "shm_futex"}, {"c", "shm_spin"}, {"python", "unix"},
                                       {"python_copying", "unix"}};
static const char *const PLACEMENTS[] = {"same", "cross"};
static const char *const MODES[] = {"protocol", "raw"};

/* A fit as the figure draws it: the constants unrounded, beside the values' text. */
static void write_fit(struct csv_out *out, const char *const lane[2], const char *placement,
                      const char *mode, struct echo_fit f)
{
    csv_out_text(out, lane[0]);
    csv_out_text(out, lane[1]);
    csv_out_text(out, placement);
    csv_out_text(out, mode);
    csv_out_double(out, f.floor_us);
    csv_out_double(out, f.bandwidth_gbps);
    csv_out_int(out, f.points);
    csv_out_int(out, f.excluded);
    csv_out_end_row(out);
}

/* <<put-a-lanes-fit-and-quoted-points>>, paper/65-echo.md */
/* One lane's fit in one placement and mode, and its quoted points. */
static void put_lane(struct echo_view *v, struct store *s, struct csv_out *fits,
                     const char *const lane[2], const char *placement, const char *mode)
{
    char key[KEY_SIZE];
    const char *c = lane[0], *t = lane[1];
    struct echo_fit f = fit_lane(v, c, t, placement, mode);
    if (f.points == 0)
        return;
    if (fits != NULL)
        write_fit(fits, lane, placement, mode, f);
    put_number(s, keyf(key, "echo.%s.%s.%s.%s.floor_us", c, t, placement, mode), f.floor_us, 1);
    put_number(s, keyf(key, "echo.%s.%s.%s.%s.bandwidth_gbps", c, t, placement, mode),
               f.bandwidth_gbps, 2);
    put_count(s, keyf(key, "echo.%s.%s.%s.%s.excluded", c, t, placement, mode), f.excluded);
    for (size_t k = 0; k < sizeof QUOTED_SIZES / sizeof QUOTED_SIZES[0]; k++) {
        const struct echo_point *p = find_point(v, c, t, placement, mode, QUOTED_SIZES[k]);
        if (p == NULL)
            continue;
        put_estimate(s, keyf(key, "echo.%s.%s.%s.%s.p50_us.%ld", c, t, placement, mode,
                             QUOTED_SIZES[k]), p->p50, 1, "passes");
        put_number(s, keyf(key, "echo.%s.%s.%s.%s.spread.%ld", c, t, placement, mode,
                           QUOTED_SIZES[k]), pass_spread(p), 2);
    }
    const struct echo_point *big = find_point(v, c, t, placement, mode, 150000);
    if (big != NULL)
        put_number(s, keyf(key, "echo.%s.%s.%s.%s.throughput_gbps", c, t, placement, mode),
                   2.0 * 8.0 * 150000 / big->p50.value * 1e-3, 2);
}

static void put_points_and_fits(struct echo_view *v, struct store *s)
{
    static const char *const fit_header[] = {"client", "transport", "placement", "mode",
                                             "floor_us", "bandwidth_gbps", "points", "excluded"};
    struct csv_out fits;
    int have_fits = figure_data_open(s, "echo_fits.csv", &fits, fit_header, CSV_COLUMNS(fit_header)) == 0;
    for (size_t l = 0; l < sizeof LANES / sizeof LANES[0]; l++)
        for (size_t p = 0; p < 2; p++)
            for (size_t m = 0; m < 2; m++)
                put_lane(v, s, have_fits ? &fits : NULL, LANES[l], PLACEMENTS[p], MODES[m]);
    if (have_fits)
        table_close(s, &fits);
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
        put_pair(v, s, &PAIRS[i]);
    for (size_t p = 0; p < 2; p++)
        put_tcp_worst(v, s, PLACEMENTS[p]);
}

/* <<write-the-points-for-the-figure>>, paper/65-echo.md */
static void write_points(const struct echo_view *v, struct store *s)
{
    static const char *const header[] = {"client", "transport", "placement", "mode", "floats",
                                         "bytes", "n", "passes", "p50_us", "low_us", "high_us",
                                         "min_us", "p99_us", "model_us", "residual_pct",
                                         "in_fit"};
    struct csv_out out;
    if (figure_data_open(s, "echo_points.csv", &out, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < v->n_points; i++) {
        const struct echo_point *p = &v->points[i];
        csv_out_text(&out, p->client);
        csv_out_text(&out, p->transport);
        csv_out_text(&out, p->placement);
        csv_out_text(&out, p->mode);
        csv_out_int(&out, p->floats);
        csv_out_int(&out, p->floats * 8);
        csv_out_int(&out, (int64_t)p->st.n);
        csv_out_int(&out, (int64_t)p->p50.n);
        const double cols[] = {p->p50.value, p->p50.low, p->p50.high, p->st.min, p->st.p99,
                               p->model_us, (p->p50.value - p->model_us) / p->model_us * 100.0};
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
    if (figure_data_open(s, "echo_original.csv", &out, header, CSV_COLUMNS(header)) != 0)
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

/* <<the-echo-table>>, paper/65-echo.md */
static const char *original_echo(const struct run_data *d, const struct echo_point *p)
{
    char okey[64];
    snprintf(okey, sizeof okey, "echo.p50_us.%ld", p->floats);
    for (size_t k = 0; k < d->n_original && strncmp(p->client, "python", 6) == 0 &&
                       strcmp(p->mode, "protocol") == 0; k++)
        if (strcmp(d->original[k].key, okey) == 0)
            return d->original[k].value;
    return "";
}

static void write_table(const struct echo_view *v, const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Client", "Transport", "Placement", "Mode", "Doubles",
                                         "Median (µs) [95% interval]", "99th pct (µs)",
                                         "Passes", "The original's median (µs)"};
    struct csv_out out;
    char buf[200];
    if (table_open(s, "echo", &out, header, CSV_COLUMNS(header)) != 0)
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
        csv_out_text(&out, p->placement);
        csv_out_text(&out, p->mode);
        cell_number(&out, (double)p->floats, 0);
        csv_out_text(&out, format_estimate(buf, p->p50, 1));
        cell_number(&out, p->st.p99, 1);
        cell_number(&out, (double)p->p50.n, 0);
        csv_out_text(&out, original_echo(d, p));
        csv_out_end_row(&out);
    }
    table_close(s, &out);
}

/* <<one-points-pass-values>>, paper/65-echo.md */
/* The pass values of one point, for a composite that needs the echo (@sec:appendix-derived). */
size_t echo_pass_values(const struct run_data *d, const char *client, const char *transport,
                        const char *placement, const char *mode, long floats, double *out,
                        size_t room)
{
    struct echo_view v;
    size_t n = 0;
    if (build_view(d, &v) == 0) {
        const struct echo_point *p = find_point(&v, client, transport, placement, mode, floats);
        for (long k = 0; p != NULL && k < p->passes && n < room; k++)
            out[n++] = p->pass_us[k];
    }
    free_view(&v);
    return n;
}

/* <<summarize-echo>>, paper/65-echo.md */
void summarize_echo(const struct run_data *d, struct store *s)
{
    struct echo_view v;
    if (build_view(d, &v) != 0) {
        s->errors++;
        free_view(&v);
        return;
    }
    put_points_and_fits(&v, s);
    write_points(&v, s);
    write_table(&v, d, s);
    write_original(d, s);
    put_count(s, "echo.passes", (double)v.passes);
    put_count(s, "echo.warmup", kv_number(&d->echo_settings, "warmup"));
    put_count(s, "echo.reps_small", kv_number(&d->echo_settings, "reps_small"));
    put_count(s, "echo.reps_large", kv_number(&d->echo_settings, "reps_large"));
    put_count(s, "echo.sizes", kv_number(&d->echo_settings, "sizes"));
    free_view(&v);
}
