/*
 * sum_roof.c - the clock, the bound, the peak, the kernels' rates and parts,
 * and callgrind's counts.
 *
 * Tangled from paper/77-roofline.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernels.h"
#include "schema/architectures.h"
#include "report/calibrate.h"
#include "report/pipes.h"
#include "report/summarize.h"
#include "report/units.h"

/* <<kernel-arithmetic>>, paper/77-roofline.md */
static double wma_operations(double n, long w)
{
    return (double)w <= n ? (n - (double)w + 1.0) * (2.0 * (double)w + 1.0) : 0.0;
}

/* Operations of the seven averages of every step-th combination of the
 * run's grid over n bars. */
static double averages_operations(const struct run_data *d, double n, long step)
{
    double total = 0;
    for (size_t k = 0; k < d->n_sweep; k++) {
        const struct sweep_row *r = &d->sweep[k];
        if (r->combo % step != 0)
            continue;
        total += wma_operations(n, r->h_half) + wma_operations(n, r->h_len) +
                 wma_operations(n, r->h_sqrt) + wma_operations(n, r->t_third) +
                 wma_operations(n, r->t_half) + 2.0 * wma_operations(n, r->t_len);
    }
    return total;
}

/* ... of the two mixes: 2a - b and (3a - b) - c, bar by bar. */
static double mixes_operations(const struct run_data *d, double n, long step)
{
    double combos = 0;
    for (size_t k = 0; k < d->n_sweep; k++)
        combos += d->sweep[k].combo % step == 0;
    return 5.0 * n * combos;
}

/* <<the-roofline-pass-by-pass>>, paper/77-roofline.md */
static long roof_passes(const struct run_data *d)
{
    long n = 0;
    for (size_t i = 0; i < d->n_roof; i++)
        n = d->roof[i].pass > n ? d->roof[i].pass : n;
    return n;
}

static long most_threads(const struct run_data *d)
{
    long n = 1;
    for (size_t i = 0; i < d->n_roof; i++)
        n = d->roof[i].threads > n ? d->roof[i].threads : n;
    return n;
}

/* The row of kind on `threads` threads in pass p, or NULL. */
static const struct roof_row *roof_row_of(const struct run_data *d, const char *kind,
                                          long threads, long p)
{
    for (size_t i = 0; i < d->n_roof; i++) {
        const struct roof_row *r = &d->roof[i];
        if (r->pass == p && r->threads == threads && strcmp(r->kind, kind) == 0)
            return r;
    }
    return NULL;
}

/* kind's rate in each pass into v[0..passes), billions a second; NAN where absent. */
static void rates(const struct run_data *d, const char *kind, long threads, long passes,
                  double *v)
{
    for (long p = 1; p <= passes; p++) {
        const struct roof_row *r = roof_row_of(d, kind, threads, p);
        v[p - 1] = r != NULL ? r->flops / r->seconds * 1e-9 : NAN;
    }
}

/* 100 a / b pass by pass into out. */
static void percent(const double *a, const double *b, long passes, double *out)
{
    for (long p = 0; p < passes; p++)
        out[p] = 100.0 * a[p] / b[p];
}

static struct estimate over_passes(const double *v, long passes)
{
    return estimate_median(v, (size_t)passes);
}

/* <<the-bound-and-the-peak>>, paper/77-roofline.md */
enum { ONE, ALL };                     /* one thread; every CPU */

struct roof {
    long passes, threads[2];           /* 1, and the most any row used */
    const struct processor_pipes *pipes;
    char widest[16];                   /* the widest width's name: "avx512", ... */
    int bits;
    double flops_per_cycle;            /* the table's at that width; 0 when it has none */
    double *clock[2];                  /* GHz per pass: the fastest CPU's; all CPUs' */
    double *bound[2], *reg[2], *peak[2];   /* GFLOP/s per pass */
    double *scratch;                   /* room for one more quantity per pass */
    char loads[16];                    /* the widest loop that loads: "avx512", ... */
    const char *source;                /* "bound", "loop" or "not measured" */
    char why[256];
};

/* Each pass's clocks: the rows whose kind is clock_cpuN. */
static void clocks(const struct run_data *d, struct roof *r)
{
    for (long p = 0; p < r->passes; p++)
        r->clock[ONE][p] = r->clock[ALL][p] = NAN;
    for (size_t i = 0; i < d->n_roof; i++) {
        const struct roof_row *row = &d->roof[i];
        if (strncmp(row->kind, "clock_cpu", 9) != 0 || row->pass < 1 || row->pass > r->passes)
            continue;
        double ghz = row->flops / row->seconds * 1e-9, *one = &r->clock[ONE][row->pass - 1];
        double *all = &r->clock[ALL][row->pass - 1];
        *one = isnan(*one) || ghz > *one ? ghz : *one;
        *all = isnan(*all) ? ghz : *all + ghz;
    }
}

/* The widest register loop's width, from its lanes, and the widest loop that
 * loads (a width's bare name; an older run's only loops). */
static void widest(const struct run_data *d, struct roof *r)
{
    static const char *const widths[] = {"scalar", "sse2", "avx2", "avx512"};
    long lanes = 0, loads = 0;
    for (size_t i = 0; i < d->n_roof; i++) {
        const struct roof_row *row = &d->roof[i];
        if (strncmp(row->kind, "reg_", 4) == 0 && row->lanes > lanes) {
            lanes = row->lanes;
            snprintf(r->widest, sizeof r->widest, "%s", row->kind + 4);
        }
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            if (strcmp(row->kind, widths[w]) == 0 && row->lanes > loads) {
                loads = row->lanes;
                snprintf(r->loads, sizeof r->loads, "%s", row->kind);
            }
    }
    r->bits = (int)lanes * 64;
}

/* A recorded whole number, or -1 where the run did not record it (NAN). */
static long whole(double x)
{
    return isfinite(x) && fabs(x) < 1e9 ? (long)x : -1;
}

static const char *text_or(const struct kv_file *f, const char *key, const char *otherwise)
{
    const char *v = kv_get(f, key);
    return v != NULL ? v : otherwise;
}

static void choose_the_peak(const struct run_data *d, struct roof *r)
{
    char reg[32];
    snprintf(reg, sizeof reg, "reg_%s", r->widest);
    for (int t = ONE; t <= ALL; t++) {
        rates(d, reg, r->threads[t], r->passes, r->reg[t]);
        for (long p = 0; p < r->passes; p++)
            r->bound[t][p] = r->flops_per_cycle > 0 ? r->flops_per_cycle * r->clock[t][p] : NAN;
    }
    percent(r->reg[ONE], r->bound[ONE], r->passes, r->scratch);
    double reached = over_passes(r->scratch, r->passes).value;
    r->source = "bound";
    if (r->bits == 0)
        r->source = "not measured";
    else if (r->pipes == NULL)
        snprintf(r->why, sizeof r->why, "the table of pipes has no %s processor of family %s, "
                 "model %s", text_or(&d->machine, "cpu_vendor", "unnamed"),
                 text_or(&d->machine, "cpu_family", "?"), text_or(&d->machine, "cpu_model", "?"));
    else if (r->flops_per_cycle == 0)
        snprintf(r->why, sizeof r->why, "the table gives no pipes of %s at %d bits",
                 r->pipes->name, r->bits);
    else if (isnan(reached))
        snprintf(r->why, sizeof r->why, "no clock was measured");
    else if (fabs(reached - 100.0) > 10.0)
        snprintf(r->why, sizeof r->why, "the register loop reached %.1f%% of the table's bound "
                 "for %s, not within a tenth of it, so the table or the clock does not "
                 "describe this machine", reached, r->pipes->name);
    r->source = r->why[0] != '\0' ? "loop" : r->source;
    for (int t = ONE; t <= ALL; t++)
        memcpy(r->peak[t], strcmp(r->source, "bound") == 0 ? r->bound[t] : r->reg[t],
               (size_t)r->passes * sizeof(double));
}

/* Everything the summary needs of the roofline; 0, or -1 out of memory. */
static int roof_open(const struct run_data *d, struct roof *r)
{
    memset(r, 0, sizeof *r);
    r->passes = roof_passes(d);
    r->threads[ONE] = 1;
    r->threads[ALL] = most_threads(d);
    double *block = calloc((size_t)(r->passes > 0 ? r->passes : 1) * 9, sizeof *block);
    if (block == NULL)
        return -1;
    double **arrays[] = {&r->clock[ONE], &r->clock[ALL], &r->bound[ONE], &r->bound[ALL],
                         &r->reg[ONE], &r->reg[ALL], &r->peak[ONE], &r->peak[ALL], &r->scratch};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        *arrays[i] = block + i * (size_t)(r->passes > 0 ? r->passes : 1);
    r->pipes = processor_pipes(kv_get(&d->machine, "cpu_vendor"),
                               whole(kv_number(&d->machine, "cpu_family")),
                               whole(kv_number(&d->machine, "cpu_model")));
    widest(d, r);
    r->flops_per_cycle = pipes_flops_per_cycle(r->pipes, r->bits);
    clocks(d, r);
    choose_the_peak(d, r);
    return 0;
}

static void roof_close(struct roof *r)
{
    free(r->clock[ONE]);
}

/* A line of the figure: what it is, the loop behind it, its threads and estimate. */
static void peak_line(struct csv_out *out, const char *line, const char *kind, long threads,
                      struct estimate e)
{
    if (e.n == 0)
        return;
    csv_out_text(out, line);
    csv_out_text(out, kind);
    csv_out_int(out, threads);
    csv_out_double(out, e.value);
    csv_out_double(out, e.low);
    csv_out_double(out, e.high);
    csv_out_end_row(out);
}

/* <<a-kernels-rate-in-each-unit>>, paper/77-roofline.md */
static double percent_of(const double *m, const void *ctx)
{
    (void)ctx;
    return 100.0 * m[0] / m[1];
}

/* The operations of a complete unit's part of the job: its runs' bars, and
 * the combinations of the part of the row that is not the baseline (the
 * baseline runs its partner's). */
static double unit_operations(const struct run_data *d, const struct unit_view *u)
{
    const struct run_row *run = u->row[0];
    int i = arch_row_named(run->architecture);
    if (i >= 0 && ARCH_ROWS[i].pairing == PAIRING_NONE && u->base[0] != NULL)
        i = arch_row_named(u->base[0]->architecture);
    long step = i >= 0 && ARCH_ROWS[i].part.combo_step > 0 ? ARCH_ROWS[i].part.combo_step : 1;
    double bars = (double)run->bars;
    return averages_operations(d, bars, step) + mixes_operations(d, bars, step);
}

/* arch's rate in each unit: its runs' operations over their time, GFLOP/s. */
static void unit_rates(const struct run_data *d, const char *arch, struct doubles *rate)
{
    struct unit_view *u;
    size_t n = arch_units(d, arch, &u);
    for (size_t i = 0; i < n; i++) {
        if (!u[i].complete)
            continue;
        double seconds = u[i].duet ? (u[i].row[0]->seconds + u[i].row[1]->seconds) / 2.0
                                   : u[i].row[0]->seconds;
        doubles_push(rate, unit_operations(d, &u[i]) / seconds * 1e-9);
    }
    free(u);
}

/* <<a-kernels-rate-and-share-of-the-peak>>, paper/77-roofline.md */
/* Whether row i is the first of the table's rows without a boundary that
 * runs its kernel: the A/A controls and the sequential twin run the same
 * kernel as an earlier row, and are not rated again. */
static int first_of_its_kernel(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (ARCH_ROWS[j].transport == TRANSPORT_NONE &&
            strcmp(ARCH_ROWS[j].kernel, ARCH_ROWS[i].kernel) == 0)
            return 0;
    return 1;
}

/* arch's rate, and its share of the peak on `threads` threads: a composite of
 * its units and the peak's passes, the peak no more exact than the rate. */
static void kernel_rate(const struct run_data *d, struct store *s, struct csv_out *t,
                        struct csv_out *fig, const char *arch, const struct roof *r,
                        int threads)
{
    char key[KEY_SIZE], buf[200];
    struct doubles rate = {0}, peaks = {0};
    unit_rates(d, arch, &rate);
    for (long p = 0; strcmp(r->source, "not measured") != 0 && p < r->passes; p++)
        if (isfinite(r->peak[threads][p]))
            doubles_push(&peaks, r->peak[threads][p]);
    struct estimate e = doubles_estimate(&rate), f = {0, NAN, NAN, NAN, 0.0};
    const double *groups[] = {rate.v, peaks.v};
    size_t n[] = {rate.n, peaks.n};
    if (e.n > 0 && peaks.n > 0)
        f = calibrated_composite(2, groups, n, percent_of, NULL, NULL);
    doubles_free(&rate);
    doubles_free(&peaks);
    if (e.n == 0)
        return;
    if (f.n > 0 && f.value > 100.0) {
        fprintf(stderr, "ipctax-summary: %s ran at %.1f%% of the peak of %ld thread(s) (%s): "
                "no kernel outruns the machine, so the peak is wrong\n", arch, f.value,
                r->threads[threads], r->source);
        s->errors++;
    }
    put_estimate(s, keyf(key, "roof.%s.gflops", arch), e, 2, unit_name(d, arch));
    put_estimate(s, keyf(key, "roof.%s.fraction_pct", arch), f, 1, "units and peak passes");
    csv_out_text(t, arch);
    cell_number(t, (double)r->threads[threads], 0);
    csv_out_text(t, format_estimate(buf, e, 2));
    csv_out_text(t, f.n > 0 ? format_estimate(buf, f, 1) : "n/a");
    csv_out_end_row(t);
    csv_out_text(fig, arch);
    const double cols[] = {e.value, e.low, e.high, f.value, (double)r->threads[threads]};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        csv_out_double(fig, cols[i]);
    csv_out_end_row(fig);
}

/* <<the-tuned-kernels-parts-summarized>>, paper/77-roofline.md */
static void tuned_parts(const struct run_data *d, struct store *s, const struct roof *r,
                        double averages, double mixes)
{
    static const char *const parts[] = {"averages", "mixes", "crossings", "steps"};
    char key[KEY_SIZE], kind[KEY_SIZE];
    size_t room = (size_t)(r->passes > 0 ? r->passes : 1);
    double *sweep = calloc(3 * room, sizeof *sweep), *part = sweep + room, *v = part + room;
    if (sweep == NULL) {
        s->errors++;
        return;
    }
    for (long p = 1; p <= r->passes; p++) {
        const struct roof_row *row = roof_row_of(d, "tuned_sweep", 1, p);
        sweep[p - 1] = row != NULL ? row->seconds : NAN;
    }
    int measured = over_passes(sweep, r->passes).n > 0;
    put_text(s, "roof.parts", measured ? "measured" : "not measured");
    for (long p = 0; p < r->passes; p++)
        v[p] = (averages + mixes) / sweep[p] * 1e-9;
    put_estimate(s, "roof.part.sweep.gflops", over_passes(v, r->passes), 2, "passes");
    percent(v, r->peak[ONE], r->passes, v);
    put_estimate(s, "roof.part.sweep.fraction_pct", over_passes(v, r->passes), 1, "passes");
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        for (long p = 1; p <= r->passes; p++) {
            const struct roof_row *row = roof_row_of(d, keyf(kind, "tuned_%s", parts[i]), 1, p);
            part[p - 1] = row != NULL ? row->seconds : NAN;
        }
        percent(part, sweep, r->passes, v);
        put_estimate(s, keyf(key, "roof.part.%s.share_pct", parts[i]), over_passes(v, r->passes),
                     1, "passes");
        if (i == 0) {                  /* the averages' rate, on their own operations */
            for (long p = 0; p < r->passes; p++)
                v[p] = averages / part[p] * 1e-9;
            percent(v, r->peak[ONE], r->passes, v);
            put_estimate(s, "roof.part.averages.fraction_pct", over_passes(v, r->passes), 1,
                         "passes");
        }
    }
    free(sweep);
}

/* <<summarize-roofline>>, paper/77-roofline.md */
enum { TUNED_GOAL_PCT = 75 };          /* of one core's peak, the tuned kernel's goal */

void summarize_roofline(const struct run_data *d, struct store *s)
{
    struct roof r;
    if (roof_open(d, &r) != 0) {
        s->errors++;
        return;
    }
    double bars = kv_number(&d->run, "bars");
    double averages = averages_operations(d, bars, 1), mixes = mixes_operations(d, bars, 1);
    static const char *const header[] = {"What", "Threads", "GFLOP/s [95% interval]",
                                         "Share of the peak (%) [95% interval]"};
    char key[KEY_SIZE], buf[200], kind[KEY_SIZE];
    int measured = strcmp(r.source, "not measured") != 0;
    /* <<put-the-peak-and-what-it-rests-on>>, paper/77-roofline.md */
    put_text(s, "roof.peak_source", r.source);
    put_text(s, "roof.peak_why", r.why[0] != '\0' ? r.why : "none");
    put_text(s, "roof.processor", r.pipes != NULL ? r.pipes->name : "not in the table");
    put_text(s, "roof.pipes_source", r.pipes != NULL ? r.pipes->source : "none");
    put_text(s, "roof.bound_kind", measured ? r.widest : "none");
    put_number(s, "roof.flops_per_cycle", r.flops_per_cycle > 0 ? r.flops_per_cycle : NAN, 0);
    put_estimate(s, "roof.clock_ghz", over_passes(r.clock[ONE], r.passes), 2, "passes");
    for (size_t i = 0; i < d->n_roof; i++)
        if (strncmp(d->roof[i].kind, "clock_cpu", 9) == 0 && d->roof[i].pass == 1) {
            rates(d, d->roof[i].kind, 1, r.passes, r.scratch);
            put_estimate(s, keyf(key, "roof.clock_ghz.%s", d->roof[i].kind + 6),
                         over_passes(r.scratch, r.passes), 2, "passes");
        }
    /* <<put-how-near-the-loops-came-to-the-bound>>, paper/77-roofline.md */
    const char *kinds[] = {"first", "convert", ""};
    const char *pct_keys[] = {"roof.first_pct", "roof.convert_pct", "roof.loads_pct"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        snprintf(kind, sizeof kind, "%s%s%s", kinds[i], kinds[i][0] ? "_" : "", r.widest);
        rates(d, kind, 1, r.passes, r.scratch);
        percent(r.scratch, r.bound[ONE], r.passes, r.scratch);
        put_estimate(s, pct_keys[i], over_passes(r.scratch, r.passes), 1, "passes");
    }
    for (int t = ONE; t <= ALL; t++) {
        percent(r.reg[t], r.bound[t], r.passes, r.scratch);
        put_estimate(s, t == ONE ? "roof.reg_one_pct" : "roof.reg_all_pct",
                     over_passes(r.scratch, r.passes), 1, "passes");
        put_estimate(s, t == ONE ? "roof.bound_one" : "roof.bound_all",
                     over_passes(r.bound[t], r.passes), 2, "passes");
        put_estimate(s, t == ONE ? "roof.peak_one" : "roof.peak_all",
                     over_passes(r.peak[t], measured ? r.passes : 0), 2, "passes");
        put_text(s, t == ONE ? "roof.peak_one_kind" : "roof.peak_all_kind",
                 measured ? r.widest : "none");
    }
    /* <<put-the-tuned-path-and-the-settings>>, paper/77-roofline.md */
    const char *path = kv_get(&d->roof_settings, "tuned_path");   /* absent before it was kept */
    put_text(s, "roof.tuned_path", path != NULL ? path : "unrecorded");
    double tuned = pipes_flops_per_cycle(r.pipes, (int)whole(kv_number(&d->roof_settings,
                                                                        "tuned_bytes")) * 8),
           most = 0;
    for (int bits = 64; bits <= 512; bits *= 2)
        most = fmax(most, pipes_flops_per_cycle(r.pipes, bits));
    put_text(s, "roof.tuned_path_native", !(tuned > 0) ? "unknown" : tuned == most ? "yes" : "no");
    put_count(s, "roof.threads_all", (double)r.threads[ALL]);
    rates(d, "scalar", 1, r.passes, r.scratch);
    put_estimate(s, "roof.scalar_one", over_passes(r.scratch, r.passes), 2, "passes");
    put_number(s, "roof.kernel_gflop", (averages + mixes) * 1e-9, 1);
    static const char *const settings[] = {"chains", "passes", "lost_timings", "lost_kept"};
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        put_count(s, keyf(key, "roof.%s", settings[i]), kv_number(&d->roof_settings, settings[i]));
    /* <<open-the-rooflines-table-and-files>>, paper/77-roofline.md */
    static const char *const figure_header[] = {"kernel", "gflops", "low", "high", "share",
                                                "threads"};
    static const char *const peaks_header[] = {"line", "kind", "threads", "gflops", "low", "high"};
    struct csv_out t, fig, peaks;
    if (table_open(s, "roofline", &t, header, CSV_COLUMNS(header)) != 0) {
        roof_close(&r);
        return;
    }
    if (figure_data_open(s, "roofline.csv", &fig, figure_header, CSV_COLUMNS(figure_header)) != 0) {
        csv_out_abandon(&t);
        roof_close(&r);
        return;
    }
    if (figure_data_open(s, "roofline_peaks.csv", &peaks, peaks_header, CSV_COLUMNS(peaks_header)) != 0) {
        csv_out_abandon(&t);
        csv_out_abandon(&fig);
        roof_close(&r);
        return;
    }
    /* <<a-row-for-the-peak-on-each-thread-count>>, paper/77-roofline.md */
    for (int th = ONE; th <= ALL; th++) {
        struct estimate e = over_passes(r.peak[th], measured ? r.passes : 0);
        if (e.n == 0)
            continue;
        csv_out_text(&t, strcmp(r.source, "bound") == 0 ? "peak: the bound of the pipes"
                                                        : "peak: the register loop");
        cell_number(&t, (double)r.threads[th], 0);
        csv_out_text(&t, format_estimate(buf, e, 2));
        csv_out_text(&t, "");
        csv_out_end_row(&t);
        peak_line(&peaks, "peak", r.widest, r.threads[th], e);
    }
    /* <<a-row-for-every-kind-of-peak-loop>>, paper/77-roofline.md */
    for (size_t i = 0; i < d->n_roof; i++) {
        const struct roof_row *row = &d->roof[i];
        if (row->pass != 1 || strncmp(row->kind, "clock", 5) == 0 || strncmp(row->kind, "tuned", 5) == 0)
            continue;
        rates(d, row->kind, row->threads, r.passes, r.scratch);
        struct estimate e = over_passes(r.scratch, r.passes);
        put_estimate(s, keyf(key, "roof.%s.%ld", row->kind, row->threads), e, 2, "passes");
        csv_out_text(&t, keyf(key, "loop, %s", row->kind));
        cell_number(&t, (double)row->threads, 0);
        csv_out_text(&t, format_estimate(buf, e, 2));
        csv_out_text(&t, "");
        csv_out_end_row(&t);
        const char *line = measured && strncmp(row->kind, "reg_", 4) == 0 &&
                                   strcmp(row->kind + 4, r.widest) == 0 ? "registers"
                         : strcmp(row->kind, r.loads) == 0 ? "loads"
                         : strcmp(row->kind, measured ? "reg_scalar" : "scalar") == 0 ? "one double"
                         : NULL;
        if (line != NULL)
            peak_line(&peaks, line, row->kind, row->threads, e);
    }
    table_close(s, &peaks);
    /* <<a-rate-for-every-kernel-and-the-tuned-goal>>, paper/77-roofline.md */
    /* every kernel, in the first row that runs it without a boundary, on
     * as many threads as it takes: the table's rows, not names typed here */
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *row = &ARCH_ROWS[i];
        const struct kernel_entry *k = kernel_named(row->kernel);
        if (row->transport == TRANSPORT_NONE && first_of_its_kernel(i))
            kernel_rate(d, s, &t, &fig, row->name, &r, k != NULL && k->threads == 0 ? ALL : ONE);
    }
    char goal_key[KEY_SIZE];           /* the goal is the tuned kernel's on one thread */
    struct estimate goal = store_estimate(
        s, keyf(goal_key, "roof.%s.fraction_pct",
                arch_like(CLIENT_NONE, TRANSPORT_NONE, "tuned", ENCODING_BINARY, GRAIN_SWEEP)));
    put_text(s, "roof.tuned_goal", goal.n == 0 ? "not measured"
                                 : goal.value >= TUNED_GOAL_PCT ? "reached" : "missed");
    put_number(s, "roof.tuned_goal_pct", TUNED_GOAL_PCT, 0);
    table_close(s, &t);
    table_close(s, &fig);
    tuned_parts(d, s, &r, averages, mixes);
    roof_close(&r);
}

/* <<summarize-counts>>, paper/78-counts.md */
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
    double in_process = count_of(d, IN_PROCESS_SIDE, "kernel_instructions", 1);
    double engine = count_of(d, "engine", "kernel_instructions", 2) / 2.0;
    double request = (count_of(d, "engine", "total_instructions", 3) -
                      count_of(d, "engine", "total_instructions", 1)) / 2.0;
    long more = isfinite(count_of(d, "engine", "syscalls", STRACE_REQUESTS)) ? STRACE_REQUESTS : 3;
    double calls = (count_of(d, "engine", "syscalls", more) - count_of(d, "engine", "syscalls", 1))
                   / (double)(more - 1);
    put_count(s, "counts.kernel_in_process", in_process);
    put_count(s, "counts.kernel_engine", engine);
    put_text(s, "counts.kernel_equal", in_process == engine ? "yes" : "no");
    put_number(s, "counts.kernel_difference_ppm", (engine - in_process) / in_process * 1e6, 1);
    put_count(s, "counts.request_instructions", request);
    put_count(s, "counts.boundary_instructions", request - engine);
    put_number(s, "counts.boundary_share_ppm", (request - engine) / request * 1e6, 1);
    put_number(s, "counts.syscalls_per_request", calls, 1);
    put_count(s, "counts.bars", count_of(d, "job", "bars", 0));
    put_count(s, "counts.combos", count_of(d, "job", "combos", 0));
}
