/*
 * sum_arch.c - the headline table, the A/A controls and the ratios between
 * rows.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"
#include "report/calibrate.h"
#include "report/pooled.h"
#include "report/units.h"
#include "schema/architectures.h"

/* <<architecture-statistics>>, paper/90-appendix-report.md */
static void largest_part(const struct run_data *d, const char *arch, long *bars, long *combos)
{
    *bars = *combos = 0;
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && d->runs[i].round >= 1) {
            *bars = d->runs[i].bars > *bars ? d->runs[i].bars : *bars;
            *combos = d->runs[i].combos > *combos ? d->runs[i].combos : *combos;
        }
}

static struct sample_stats run_stats(const struct run_data *d, const char *arch)
{
    struct doubles x = {0};
    long bars, combos;
    largest_part(d, arch, &bars, &combos);
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (strcmp(r->architecture, arch) == 0 && strcmp(r->status, "ok") == 0 &&
            r->bars == bars && r->combos == combos)
            doubles_push(&x, r->seconds);
    }
    struct sample_stats st = sample_stats(x.v, x.n);
    doubles_free(&x);
    return st;
}

/* The part of the job arch ran, as the table prints it. */
static const char *part_text(const struct run_data *d, const char *arch, char *buf, size_t size)
{
    char n[64];
    long bars, combos;
    largest_part(d, arch, &bars, &combos);
    snprintf(buf, size, "whole");
    if (bars > 0 && bars < kv_number(&d->run, "bars"))
        snprintf(buf, size, "%s bars", format_fixed(n, (double)bars, 0));
    else if (combos > 0 && combos < kv_number(&d->run, "combos"))
        snprintf(buf, size, "%s combinations", format_fixed(n, (double)combos, 0));
    return buf;
}

static const struct original_row *original(const struct run_data *d, const char *key)
{
    for (size_t i = 0; i < d->n_original; i++)
        if (strcmp(d->original[i].key, key) == 0)
            return &d->original[i];
    return NULL;
}

/* <<one-row-of-the-headline-table>>, paper/90-appendix-report.md */
static void table_row(const struct run_data *d, struct store *s, struct csv_out *t,
                      struct csv_out *fig, const struct gate_row *g)
{
    char key[KEY_SIZE], buf[200], okey[KEY_SIZE], part[64], units[64];
    const char *a = g->architecture;
    int baseline = arch_is_baseline(a);
    struct sample_stats st = run_stats(d, a);
    struct estimate ratio = baseline ? (struct estimate){st.n, 1.0, 1.0, 1.0, 1.0}
                                     : ratio_to_baseline(d, a);
    if (st.n > 0) {
        put_number(s, keyf(key, "arch.%s.median_s", a), st.p50, 3);
        put_estimate(s, keyf(key, "arch.%s.ratio", a), ratio, 3, unit_name(d, a));
    }
    const struct original_row *orr = original(d, keyf(okey, "arch.%s.ratio", a));
    csv_out_text(t, a);
    if (st.n > 0) {
        cell_number(t, st.p50, 3);
        csv_out_text(t, baseline ? "1 (reference)" : format_estimate(buf, ratio, 3));
    } else {
        csv_out_text(t, "");
        csv_out_text(t, g->error[0] != '\0' ? g->error : "did not run");
    }
    snprintf(units, sizeof units, "%zu %s", baseline ? st.n : ratio.n,
             baseline ? "runs" : unit_name(d, a));
    csv_out_text(t, st.n > 0 ? units : "");
    csv_out_text(t, part_text(d, a, part, sizeof part));
    csv_out_text(t, orr != NULL ? orr->value : "");
    csv_out_end_row(t);
    if (st.n == 0)
        return;
    csv_out_text(fig, a);
    csv_out_double(fig, ratio.value);
    csv_out_double(fig, ratio.low);
    csv_out_double(fig, ratio.high);
    csv_out_double(fig, st.p50);
    if (orr != NULL)
        csv_out_text(fig, orr->value);
    else
        csv_out_empty(fig);
    csv_out_end_row(fig);
}

/* <<what-a-unit-costs>>, paper/90-appendix-report.md */
static void put_unit_costs(const struct run_data *d, struct store *s)
{
    char key[KEY_SIZE];
    double in_units = 0.0, rounds = kv_number(&d->run, "rounds");
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        struct unit_view *u = NULL;
        struct doubles spans = {0};
        size_t n = ARCH_ROWS[i].pairing != PAIRING_NONE ? arch_units(d, ARCH_ROWS[i].name, &u)
                                                         : 0;
        for (size_t k = 0; k < n; k++)
            if (u[k].complete && u[k].end_s >= u[k].start_s) {
                doubles_push(&spans, u[k].end_s - u[k].start_s);
                in_units += u[k].end_s - u[k].start_s;
            }
        if (spans.n > 0)
            put_number(s, keyf(key, "arch.%s.unit_s", ARCH_ROWS[i].name),
                       estimate_median(spans.v, spans.n).value, 2);
        doubles_free(&spans);
        free(u);
    }
    double outside = (kv_number(&d->run, "rounds_seconds") - in_units) / rounds;
    if (rounds >= 1.0 && isfinite(outside) && outside >= 0.0)
        put_number(s, "arch.round_overhead_s", outside, 1);
}

/* <<the-headline-table>>, paper/90-appendix-report.md */
static void headline_table(const struct run_data *d, struct store *s)
{
    char ratio_to[KEY_SIZE];           /* the baseline's name from the table */
    snprintf(ratio_to, sizeof ratio_to, "Ratio to %s [95%% interval]", arch_baseline());
    const char *const header[] = {"Architecture", "Median (s)", ratio_to, "Units",
                                  "Part of the job", "The original's ratio"};
    static const char *const figure[] = {"architecture", "ratio", "low", "high", "median_s",
                                         "original_ratio"};
    struct csv_out t, fig;
    if (table_open(s, "architectures", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "architectures.csv", &fig, figure, CSV_COLUMNS(figure)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    int ran = 0, failed = 0;
    for (size_t i = 0; i < d->n_gates; i++) {
        table_row(d, s, &t, &fig, &d->gates[i]);
        ran += has_runs(d, d->gates[i].architecture);
        failed += strcmp(d->gates[i].verdict, "FAIL") == 0;
    }
    table_close(s, &t);
    table_close(s, &fig);
    put_count(s, "arch.count", ran);
    put_count(s, "gate.failed", failed);
    put_count(s, "gate.architectures", (double)d->n_gates);
    put_unit_costs(d, s);
}

/* <<architecture-pairs>>, paper/90-appendix-report.md */
/* The baseline over arch: a speed-up, the inverse of arch's ratio. */
static void speedup(const struct run_data *d, struct store *s, const char *key,
                    const char *arch, int decimals)
{
    struct estimate r = ratio_to_baseline(d, arch);
    struct estimate up = {r.n, 1.0 / r.value, 1.0 / r.high, 1.0 / r.low, r.coverage};
    if (r.n > 0)
        put_estimate(s, key, up, decimals, unit_name(d, arch));
}

/* a's time over b's, neither of them the baseline. */
static void between(const struct run_data *d, struct store *s, const char *key, const char *a,
                    const char *b, int decimals)
{
    if (has_runs(d, a) && has_runs(d, b))
        put_estimate(s, key, ratio_between(d, a, b), decimals, "rounds");
}

/* Every paired row's ratio three ways (@sec:appendix-pooled): the median
 * of its units, on the pool of all rows' noise, and Hodges-Lehmann's; with
 * the pool's own spread and the calibration of its intervals. */
static void pooled_ratios(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Architecture", "Median [95% interval]",
                                         "Pooled [bootstrap interval]", "Hodges-Lehmann [95% interval]"};
    const char *pairing[2] = {pairing_name(PAIRING_SEQUENTIAL), pairing_name(PAIRING_DUET)};
    char key[KEY_SIZE], a[200], b[200], c[200];
    struct csv_out t;
    if (table_open(s, "estimators", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (int duet = 1; duet >= 0; duet--) {
        struct pooled_fit f;
        if (pooled_fit(d, duet, &f) != 0 || f.n_rows == 0) {
            pooled_free(&f);
            continue;
        }
        for (size_t r = 0; r < f.n_rows; r++) {
            /* <<a-rows-ratio-three-ways>>, paper/90-appendix-report.md */
            double *ratios = NULL, *logs;
            size_t n = 0;
            arch_unit_ratios(d, f.rows[r], &ratios, &n);
            logs = malloc((n ? n : 1) * sizeof *logs);
            for (size_t i = 0; logs != NULL && i < n; i++)
                logs[i] = log(ratios[i]);
            struct estimate hl = logs != NULL ? estimate_hodges_lehmann(logs, n)
                                              : (struct estimate){0, NAN, NAN, NAN, 0};
            hl = (struct estimate){hl.n, exp(hl.value), exp(hl.low), exp(hl.high), hl.coverage};
            struct estimate pooled = pooled_estimate(&f, r, BOOTSTRAP_SEED);
            struct estimate median = estimate_median(ratios, n);
            /* <<put-and-tabulate-a-rows-ratios>>, paper/90-appendix-report.md */
            put_estimate(s, keyf(key, "pooled.%s.ratio", f.rows[r]), pooled, 3,
                         unit_name(d, f.rows[r]));
            put_estimate(s, keyf(key, "pooled.%s.hl_ratio", f.rows[r]), hl, 3,
                         unit_name(d, f.rows[r]));
            csv_out_text(&t, f.rows[r]);
            csv_out_text(&t, format_estimate(a, median, 3));
            csv_out_text(&t, format_estimate(b, pooled, 3));
            csv_out_text(&t, format_estimate(c, hl, 3));
            csv_out_end_row(&t);
            free(ratios);
            free(logs);
        }
        /* <<put-the-pools-spread-and-calibration>>, paper/90-appendix-report.md */
        put_number(s, keyf(key, "pooled.%s.spread_pct", pairing[duet]),
                   100.0 * robust_spread(f.pool, f.n_pool), 1);
        put_count(s, keyf(key, "pooled.%s.units", pairing[duet]), (double)f.n_units);
        put_count(s, keyf(key, "pooled.%s.rows", pairing[duet]), (double)f.n_rows);
        put_number(s, keyf(key, "pooled.%s.coverage_pct", pairing[duet]),
                   100.0 * pooled_coverage(&f, POOLED_CALIBRATION_RUNS, CALIBRATION_SEED), 1);
        pooled_free(&f);
    }
    table_close(s, &t);
}

void summarize_architectures(const struct run_data *d, struct store *s)
{
    struct sample_stats base = run_stats(d, arch_baseline());
    char key[KEY_SIZE];
    put_number(s, keyf(key, "arch.%s.min_s", arch_baseline()), base.min, 3);
    put_number(s, keyf(key, "arch.%s.max_s", arch_baseline()), base.max, 3);
    put_number(s, keyf(key, "arch.%s.spread_pct", arch_baseline()),
               (base.max - base.min) / base.p50 * 100.0, 0);
    headline_table(d, s);
    for (size_t i = 0; i < N_ARCH_COMPARISONS; i++) {   /* the table's other comparisons */
        const struct arch_comparison *c = &ARCH_COMPARISONS[i];
        if (c->over == NULL)
            speedup(d, s, c->key, c->row, c->decimals);
        else
            between(d, s, c->key, c->row, c->over, c->decimals);
    }
}

void summarize_pooled(const struct run_data *d, struct store *s)
{
    pooled_ratios(d, s);
}
