/*
 * sum_roof.c - the peak, the kernels' rates, and callgrind's counts.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"

static double wma_operations(double n, long w)
{
    return (double)w <= n ? (n - (double)w + 1.0) * (2.0 * (double)w + 1.0) : 0.0;
}

/* Operations of one sweep of the run's grid over n bars, by the definition. */
static double sweep_operations(const struct run_data *d, double n)
{
    double total = 0;
    for (size_t k = 0; k < d->n_sweep; k++) {
        const struct sweep_row *r = &d->sweep[k];
        total += wma_operations(n, r->h_half) + wma_operations(n, r->h_len) +
                 wma_operations(n, r->h_sqrt) + wma_operations(n, r->t_third) +
                 wma_operations(n, r->t_half) + 2.0 * wma_operations(n, r->t_len) + 5.0 * n;
    }
    return total;
}

/* The median rate of one kind of loop on `threads` threads, GFLOP/s. */
static struct estimate peak(const struct run_data *d, const char *kind, long threads)
{
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_roof; i++)
        if (strcmp(d->roof[i].kind, kind) == 0 && d->roof[i].threads == threads)
            doubles_push(&x, d->roof[i].flops / d->roof[i].seconds * 1e-9);
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

/* The fastest kind's median on `threads` threads; its name into *kind. */
static struct estimate best_peak(const struct run_data *d, long threads, const char **kind)
{
    struct estimate best = {0, NAN, NAN, NAN, 0.0};
    for (size_t i = 0; i < d->n_roof; i++)
        if (d->roof[i].threads == threads) {
            struct estimate e = peak(d, d->roof[i].kind, threads);
            if (!(e.value <= best.value)) {
                best = e;
                *kind = d->roof[i].kind;
            }
        }
    return best;
}

static long most_threads(const struct run_data *d)
{
    long n = 1;
    for (size_t i = 0; i < d->n_roof; i++)
        n = d->roof[i].threads > n ? d->roof[i].threads : n;
    return n;
}

static double percent_of(const double *m, const void *ctx)
{
    (void)ctx;
    return 100.0 * m[0] / m[1];
}

/* arch's rate in each unit: its runs' operations over their time, GFLOP/s. */
static void unit_rates(const struct run_data *d, const char *arch, double operations,
                       struct doubles *rate)
{
    struct unit_view *u;
    size_t n = arch_units(d, arch, &u);
    for (size_t i = 0; i < n; i++) {
        if (!u[i].complete)
            continue;
        double seconds = u[i].duet ? (u[i].row[0]->seconds + u[i].row[1]->seconds) / 2.0
                                   : u[i].row[0]->seconds;
        doubles_push(rate, operations / seconds * 1e-9);
    }
    free(u);
}

/* The peak's passes on `threads` threads of one kind, GFLOP/s. */
static void peak_passes(const struct run_data *d, const char *kind, long threads,
                        struct doubles *x)
{
    for (size_t i = 0; i < d->n_roof; i++)
        if (strcmp(d->roof[i].kind, kind) == 0 && d->roof[i].threads == threads)
            doubles_push(x, d->roof[i].flops / d->roof[i].seconds * 1e-9);
}

/* arch's rate, and its share of the peak: a composite of its units and the
 * peak's passes, the peak no more exact than the rate. */
static void kernel_rate(const struct run_data *d, struct store *s, struct csv_out *t,
                        struct csv_out *fig, const char *arch, double operations,
                        struct estimate top, const char *top_kind, long threads)
{
    char key[KEY_SIZE], buf[200];
    struct doubles rate = {0}, peaks = {0};
    unit_rates(d, arch, operations, &rate);
    peak_passes(d, top_kind, threads, &peaks);
    struct estimate e = doubles_estimate(&rate);
    const double *groups[] = {rate.v, peaks.v};
    size_t n[] = {rate.n, peaks.n};
    struct estimate f = e.n > 0 ? calibrated_composite(2, groups, n, percent_of, NULL, NULL) : e;
    doubles_free(&rate);
    doubles_free(&peaks);
    if (e.n == 0)
        return;
    put_estimate(s, keyf(key, "roof.%s.gflops", arch), e, 2, unit_name(d, arch));
    put_estimate(s, keyf(key, "roof.%s.fraction_pct", arch), f, 1, "units and peak passes");
    csv_out_text(t, arch);
    cell_number(t, (double)threads, 0);
    csv_out_text(t, format_estimate(buf, e, 2));
    csv_out_text(t, format_estimate(buf, f, 1));
    csv_out_end_row(t);
    csv_out_text(fig, arch);
    const double cols[] = {e.value, e.low, e.high, top.value, (double)threads};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        csv_out_double(fig, cols[i]);
    csv_out_end_row(fig);
}

void summarize_roofline(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"What", "Threads", "GFLOP/s [95% interval]",
                                         "Share of the peak (%) [95% interval]"};
    char key[KEY_SIZE], buf[200];
    const char *kind_one = "none", *kind_all = "none";
    long all = most_threads(d);
    struct estimate one = best_peak(d, 1, &kind_one), every = best_peak(d, all, &kind_all);
    put_estimate(s, "roof.peak_one", one, 2, "passes");
    put_text(s, "roof.peak_one_kind", kind_one);
    put_estimate(s, "roof.peak_all", every, 2, "passes");
    put_text(s, "roof.peak_all_kind", kind_all);
    const char *path = kv_get(&d->roof_settings, "tuned_path");   /* absent before it was kept */
    put_text(s, "roof.tuned_path", path != NULL ? path : "unrecorded");
    put_count(s, "roof.threads_all", (double)all);
    put_estimate(s, "roof.scalar_one", peak(d, "scalar", 1), 2, "passes");
    double operations = sweep_operations(d, kv_number(&d->run, "bars"));
    put_number(s, "roof.kernel_gflop", operations * 1e-9, 1);
    put_count(s, "roof.chains", kv_number(&d->roof_settings, "chains"));
    put_count(s, "roof.passes", kv_number(&d->roof_settings, "passes"));
    static const char *const figure_header[] = {"kernel", "gflops", "low", "high", "peak",
                                                "threads"};
    static const char *const peaks_header[] = {"kind", "threads", "gflops", "low", "high"};
    struct csv_out t, fig, peaks;
    if (table_open(s, "roofline", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "roofline.csv", &fig, figure_header, CSV_COLUMNS(figure_header)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    if (figure_data_open(s, "roofline_peaks.csv", &peaks, peaks_header, CSV_COLUMNS(peaks_header)) != 0) {
        csv_out_abandon(&t);
        csv_out_abandon(&fig);
        return;
    }
    static const char *const kinds[] = {"scalar", "sse2", "avx2", "avx512"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (long th = 1; th <= all; th += all > 1 ? all - 1 : 1) {
            struct estimate e = peak(d, kinds[k], th);
            if (e.n == 0)
                continue;
            put_estimate(s, keyf(key, "roof.%s.%ld", kinds[k], th), e, 2, "passes");
            csv_out_text(&t, keyf(key, "peak, %s", kinds[k]));
            cell_number(&t, (double)th, 0);
            csv_out_text(&t, format_estimate(buf, e, 2));
            csv_out_text(&t, "");
            csv_out_end_row(&t);
            csv_out_text(&peaks, kinds[k]);
            csv_out_int(&peaks, th);
            csv_out_double(&peaks, e.value);
            csv_out_double(&peaks, e.low);
            csv_out_double(&peaks, e.high);
            csv_out_end_row(&peaks);
        }
    table_close(s, &peaks);
    kernel_rate(d, s, &t, &fig, "in_process", operations, one, kind_one, 1);
    kernel_rate(d, s, &t, &fig, "numba_in_process", operations, one, kind_one, 1);
    kernel_rate(d, s, &t, &fig, "in_process_tuned_1core", operations, one, kind_one, 1);
    kernel_rate(d, s, &t, &fig, "in_process_tuned", operations, every, kind_all, all);
    table_close(s, &t);
    table_close(s, &fig);
}

static double count_of(const struct run_data *d, const char *side, const char *what,
                       long requests)
{
    for (size_t i = 0; i < d->n_counts; i++)
        if (strcmp(d->counts[i].side, side) == 0 && strcmp(d->counts[i].what, what) == 0 &&
            d->counts[i].requests == requests)
            return d->counts[i].value;
    return NAN;
}

void summarize_counts(const struct run_data *d, struct store *s)
{
    double in_process = count_of(d, "in_process", "kernel_instructions", 1);
    double engine = count_of(d, "engine", "kernel_instructions", 2) / 2.0;
    double request = (count_of(d, "engine", "total_instructions", 3) -
                      count_of(d, "engine", "total_instructions", 1)) / 2.0;
    double calls = (count_of(d, "engine", "syscalls", 3) - count_of(d, "engine", "syscalls", 1))
                   / 2.0;
    put_count(s, "counts.kernel_in_process", in_process);
    put_count(s, "counts.kernel_engine", engine);
    put_text(s, "counts.kernel_equal", in_process == engine ? "yes" : "no");
    put_number(s, "counts.kernel_difference_ppm", (engine - in_process) / in_process * 1e6, 1);
    put_count(s, "counts.request_instructions", request);
    put_count(s, "counts.boundary_instructions", request - engine);
    put_number(s, "counts.boundary_share_ppm", (request - engine) / request * 1e6, 1);
    put_count(s, "counts.syscalls_per_request", calls);
    put_count(s, "counts.bars", count_of(d, "job", "bars", 0));
    put_count(s, "counts.combos", count_of(d, "job", "combos", 0));
}
