/*
 * sum_design.c - the pairing designs' A/A controls, the CPUs' difference,
 * the duet's bias check, and the calibration of the intervals.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"

/* <<the-earlier-rounds-pairing>>, paper/93-appendix-units.md */
struct design_units {
    double ratio[1024], minutes[1024];
    size_t n;
};

static void apart_units(const struct run_data *d, const char *control, struct design_units *out)
{
    struct unit_view *c;
    size_t n = arch_units(d, control, &c);
    out->n = 0;
    for (size_t i = 0; i < n && out->n < 1024; i++) {
        const struct run_row *x = c[i].row[0], *other = NULL;
        long nearest = LONG_MAX;
        for (size_t k = 0; x != NULL && k < d->n_runs; k++) {
            const struct run_row *r = &d->runs[k];
            long apart = labs(r->round - x->round);
            if (apart < nearest && r->unit != x->unit && r->slot == 1 &&
                r->bars == x->bars && r->combos == x->combos &&
                pairing_is(r->pairing, PAIRING_SEQUENTIAL) && arch_is_baseline(r->architecture) &&
                strcmp(r->status, "ok") == 0)
                other = r, nearest = apart;
        }
        if (x == NULL || other == NULL || strcmp(x->status, "ok") != 0)
            continue;
        out->ratio[out->n] = x->seconds / other->seconds;
        out->minutes[out->n++] = (x->seconds + other->seconds) / 60.0;
    }
    free(c);
}

/* <<a-controls-own-units>>, paper/93-appendix-units.md */
static void paired_units(const struct run_data *d, const char *control, struct design_units *out)
{
    struct unit_view *u;
    size_t n = arch_units(d, control, &u);
    out->n = 0;
    for (size_t i = 0; i < n && out->n < 1024; i++)
        if (u[i].complete) {
            out->ratio[out->n] = u[i].ratio;
            out->minutes[out->n++] = (u[i].end_s - u[i].start_s) / 60.0;
        }
    free(u);
}

/* <<one-design-row>>, paper/93-appendix-units.md */
static double log_spread(const double *x, size_t n)
{
    double logs[1024];
    size_t k = n < 1024 ? n : 1024;
    for (size_t i = 0; i < k; i++)
        logs[i] = log(x[i]);
    return robust_spread(logs, k);
}

static void design_row(struct store *s, struct csv_out *t, const char *name,
                       const char *label, const struct design_units *u, const char *unit)
{
    char key[KEY_SIZE], buf[200];
    struct estimate e = estimate_median(u->ratio, u->n);
    double minutes = 0;
    for (size_t i = 0; i < u->n; i++)
        minutes += u->minutes[i] / (double)u->n;
    double sigma = log_spread(u->ratio, u->n), per_minute = minutes > 0 ? 1.0 / minutes : NAN;
    double reach = fmax(fabs(e.low - 1.0), fabs(e.high - 1.0)) * 100.0;
    double resolution = 1.96 * 1.2533 * sigma / sqrt(per_minute) * 100.0;
    put_estimate(s, keyf(key, "design.%s.ratio", name), e, 4, unit);
    put_number(s, keyf(key, "design.%s.reach_pct", name), reach, 2);
    put_number(s, keyf(key, "design.%s.spread_pct", name), sigma * 100.0, 2);
    put_number(s, keyf(key, "design.%s.unit_minutes", name), minutes, 3);
    put_number(s, keyf(key, "design.%s.per_minute_pct", name), resolution, 2);
    csv_out_text(t, label);
    csv_out_text(t, format_estimate(buf, e, 4));
    cell_number(t, (double)e.n, 0);
    cell_number(t, reach, 2);
    cell_number(t, sigma * 100.0, 2);
    cell_number(t, minutes * 60.0, 1);
    cell_number(t, resolution, 2);
    csv_out_end_row(t);
}

/* <<the-cpus-difference>>, paper/93-appendix-units.md */
/* How much slower a duet's row ran on the pair's first CPU than on its second. */
static void cpu_difference(const struct run_data *d, struct store *s, const char *control)
{
    struct unit_view *u;
    size_t n = arch_units(d, control, &u), k = 0;
    double c[1024];
    for (size_t i = 0; i < n && k < 1024; i++) {
        if (!u[i].complete || !u[i].duet)
            continue;
        double r0 = u[i].row[0]->seconds / u[i].base[0]->seconds;
        double r1 = u[i].row[1]->seconds / u[i].base[1]->seconds;
        int first_low = u[i].row[0]->cpu_start < u[i].row[1]->cpu_start;
        c[k++] = sqrt(first_low ? r0 / r1 : r1 / r0);
    }
    free(u);
    put_estimate(s, "design.cpu_difference", estimate_median(c, k), 4, "couples");
}

/* <<calibration-report>>, paper/93-appendix-units.md */
static void calibration_row(struct store *s, struct csv_out *t, const char *name,
                            const char *label, const double *x, size_t n)
{
    char key[KEY_SIZE];
    struct noise_model m = noise_fit(x, n);
    double order = median_coverage(m, n, CALIBRATION_SEED);
    /* the earlier versions' interval, the percentile bootstrap, on the same model */
    double boot = composite_coverage(1, &m, &n, median_of_one, NULL, 0.95, CALIBRATION_SEED);
    put_number(s, keyf(key, "calibration.%s.order_pct", name), order * 100.0, 1);
    put_number(s, keyf(key, "calibration.%s.bootstrap_pct", name), boot * 100.0, 1);
    put_number(s, keyf(key, "calibration.%s.drift", name), m.drift, 2);
    csv_out_text(t, label);
    cell_number(t, (double)n, 0);
    cell_number(t, m.drift, 2);
    cell_number(t, order * 100.0, 1);
    cell_number(t, boot * 100.0, 1);
    csv_out_end_row(t);
}

/* <<the-cost-of-pooling-calls>>, paper/93-appendix-units.md */
static void pooling(const struct run_data *d, struct store *s, const char *arch)
{
    struct unit_view *u;
    size_t n = arch_units(d, arch, &u), k = 0;
    double medians[1024], within[1024], calls = 0;
    for (size_t i = 0; i < n && k < 1024; i++) {
        struct unit_calls c;
        if (!u[i].complete || unit_calls(d, &u[i], &c) != 0)
            continue;
        double logs[4096];
        size_t m = 0;
        for (size_t j = 0; j < d->n_calls && m < 4096; j++) {
            const struct call_row *r = &d->calls[j];
            if ((r->run == u[i].row[0]->run || (u[i].duet && r->run == u[i].row[1]->run)) &&
                !isnan(r->compute_ns) && r->rtt_ns > r->compute_ns)
                logs[m++] = log(r->rtt_ns - r->compute_ns);
        }
        within[k] = robust_spread(logs, m);
        medians[k++] = log(c.boundary_us);
        calls = (double)m;
    }
    free(u);
    if (k < 2 || calls < 1)
        return;
    double between = robust_spread(medians, k);
    struct sample_stats w = sample_stats(within, k);
    struct pooling_check p = pooled_against_units(k, (size_t)calls, between, w.p50,
                                                  CALIBRATION_SEED);
    put_number(s, "calibration.pooled.coverage_pct", p.pooled_coverage * 100.0, 1);
    put_number(s, "calibration.pooled.unit_coverage_pct", p.unit_coverage * 100.0, 1);
    put_number(s, "calibration.pooled.width_ratio", p.unit_width / p.pooled_width, 1);
    put_count(s, "calibration.pooled.units", (double)k);
    put_count(s, "calibration.pooled.calls", calls);
}

/* <<summarize-design>>, paper/93-appendix-units.md */
void summarize_design(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Pairing", "A/A ratio [95% interval]", "Units",
                                         "Reach from 1 (%)", "Spread (%)", "Seconds a unit",
                                         "Resolution per minute (%)"};
    struct design_units duet, turn, apart;
    struct csv_out t;
    const char *duet_control = arch_control(PAIRING_DUET);
    const char *turn_control = arch_control(PAIRING_SEQUENTIAL);
    /* <<compare-the-three-designs>>, paper/93-appendix-units.md */
    paired_units(d, duet_control, &duet);
    paired_units(d, turn_control, &turn);
    apart_units(d, turn_control, &apart);
    if (table_open(s, "designs", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    design_row(s, &t, pairing_name(PAIRING_DUET), "duets, CPUs swapped (couples)", &duet, "couples");
    design_row(s, &t, pairing_name(PAIRING_SEQUENTIAL), "in turn (triples)", &turn, "triples");
    design_row(s, &t, "apart", "the earlier rounds (runs apart)", &apart, "rounds");
    table_close(s, &t);
    /* <<name-the-best-design-and-the-goal>>, paper/93-appendix-units.md */
    const char *names[] = {pairing_name(PAIRING_DUET), pairing_name(PAIRING_SEQUENTIAL), "apart"};
    const char *best = "not measured";         /* a run without A/A controls names none */
    double least = INFINITY;
    for (size_t i = 0; i < 3; i++) {
        char a[KEY_SIZE];
        double x = store_number(s, keyf(a, "design.%s.per_minute_pct", names[i]));
        if (x < least)                         /* NAN, a pairing not measured, never is */
            least = x, best = names[i];
    }
    put_text(s, "design.best", best);
    put_text(s, "design.goal_met", store_number(s, "design.duet.reach_pct") <= 0.5 &&
                                           kv_number(&d->run, "rounds_seconds") <= 600.0
                                       ? "yes" : "no");
    /* <<check-the-duets-cpus-and-bias>>, paper/93-appendix-units.md */
    cpu_difference(d, s, duet_control);
    const char *bias_duet = arch_bias_check();
    const char *bias_turn = bias_duet != NULL ? arch_twin(bias_duet, PAIRING_SEQUENTIAL) : NULL;
    if (bias_turn != NULL && has_runs(d, bias_duet) && has_runs(d, bias_turn)) {
        struct estimate bias = ratio_between(d, bias_duet, bias_turn);
        put_estimate(s, "design.duet_bias", bias, 3, "rounds");
        put_text(s, "design.unbiased", bias.low <= 1.0 && 1.0 <= bias.high ? "yes" : "no");
    }
}

/* <<summarize-calibration>>, paper/93-appendix-units.md */
void summarize_calibration(const struct run_data *d, struct store *s)
{
    static const char *const cal_header[] = {"A/A control", "Units", "Drift",
                                             "Order statistics cover (%)",
                                             "Percentile bootstrap covers (%)"};
    struct design_units duet, turn, apart;
    struct csv_out cal;
    paired_units(d, arch_control(PAIRING_DUET), &duet);
    paired_units(d, arch_control(PAIRING_SEQUENTIAL), &turn);
    apart_units(d, arch_control(PAIRING_SEQUENTIAL), &apart);
    /* <<calibrate-the-designs-intervals>>, paper/93-appendix-units.md */
    if (table_open(s, "calibration", &cal, cal_header, CSV_COLUMNS(cal_header)) != 0)
        return;
    calibration_row(s, &cal, pairing_name(PAIRING_DUET), "duets (couples)", duet.ratio, duet.n);
    calibration_row(s, &cal, pairing_name(PAIRING_SEQUENTIAL), "in turn (triples)", turn.ratio, turn.n);
    calibration_row(s, &cal, "apart", "the earlier rounds", apart.ratio, apart.n);
    table_close(s, &cal);
    pooling(d, s, arch_like(CLIENT_C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_COMBO));
    put_count(s, "calibration.runs", CALIBRATION_RUNS);
}
