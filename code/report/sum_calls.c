/*
 * sum_calls.c - the boundary's cost measured inside each call, by unit.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/architectures.h"
#include "report/summarize.h"
#include "report/units.h"

/* Calls an architecture makes per sweep (the per-bar one times a sample). */
static double calls_per_sweep(const struct unit_view *u, const struct unit_calls *c)
{
    int i = arch_row_named(u->row[0]->architecture);
    if (i >= 0 && ARCH_ROWS[i].grain == GRAIN_BAR)
        return (double)u->row[0]->bars + 2.0;
    return (double)c->calls / (u->duet ? 2.0 : 1.0);
}

/* The call values of every complete unit of arch: one array per quantity. */
struct call_values {
    struct doubles share, per_call, compute, rtt, sweep_ms, process_ms, faults;
    double calls;                      /* per sweep, from the last unit */
};

static void collect_call_values(const struct run_data *d, const char *arch,
                                struct call_values *v)
{
    struct unit_view *units;
    size_t n = arch_units(d, arch, &units);
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        struct unit_calls c;
        if (!units[i].complete || unit_calls(d, &units[i], &c) != 0)
            continue;
        v->calls = calls_per_sweep(&units[i], &c);
        doubles_push(&v->share, c.share_pct);
        doubles_push(&v->per_call, c.boundary_us);
        doubles_push(&v->compute, c.compute_us);
        doubles_push(&v->rtt, c.rtt_us);
        doubles_push(&v->sweep_ms, c.mean_boundary_us * v->calls * 1e-3);
        if (!isnan(c.process_ms)) {
            doubles_push(&v->process_ms, c.process_ms);
            doubles_push(&v->faults, c.faults);
        }
    }
    free(units);
}

static void free_call_values(struct call_values *v)
{
    struct doubles *all[] = {&v->share, &v->per_call, &v->compute, &v->rtt, &v->sweep_ms,
                             &v->process_ms, &v->faults};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        doubles_free(all[i]);
}

static void summarize_arch_calls(const struct run_data *d, struct store *s, const char *arch,
                                 struct csv_out *table, struct csv_out *figure)
{
    char key[KEY_SIZE], buf[200];
    const char *unit = unit_name(d, arch);
    struct call_values v;
    collect_call_values(d, arch, &v);
    if (v.per_call.n > 0) {
        struct estimate e_share = doubles_estimate(&v.share), e_call = doubles_estimate(&v.per_call);
        struct estimate e_compute = doubles_estimate(&v.compute);
        put_estimate(s, keyf(key, "call.%s.share_pct", arch), e_share, 3, unit);
        put_estimate(s, keyf(key, "call.%s.per_call_us", arch), e_call, 1, unit);
        put_estimate(s, keyf(key, "call.%s.sweep_boundary_ms", arch),
                     doubles_estimate(&v.sweep_ms), 2, unit);
        put_estimate(s, keyf(key, "call.%s.compute_us", arch), e_compute, 1, unit);
        put_count(s, keyf(key, "call.%s.calls", arch), v.calls);
        csv_out_text(table, arch);
        cell_number(table, v.calls, 0);
        cell_number(table, doubles_estimate(&v.rtt).value, 1);
        csv_out_text(table, format_estimate(buf, e_call, 1));
        csv_out_text(table, format_estimate(buf, e_share, 3));
        cell_number(table, (double)e_share.n, 0);
        csv_out_end_row(table);
        csv_out_text(figure, arch);
        const double cols[] = {e_share.value, e_share.low, e_share.high, e_call.value,
                               e_compute.value};
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
            csv_out_double(figure, cols[i]);
        csv_out_end_row(figure);
    }
    if (v.process_ms.n > 0) {
        put_estimate(s, keyf(key, "call.%s.process_ms", arch), doubles_estimate(&v.process_ms), 2,
                     unit);
        put_count(s, keyf(key, "call.%s.faults", arch), doubles_estimate(&v.faults).value);
    }
    free_call_values(&v);
}

void summarize_calls(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {
        "Architecture", "Calls per sweep", "Round trip per call (µs)",
        "Boundary per call (µs) [95% interval]", "Boundary share of the sweep (%) [95% interval]",
        "Units"};
    static const char *const figure_header[] = {"architecture", "share_pct", "low", "high",
                                                "boundary_us", "compute_us"};
    struct csv_out table, figure;
    if (table_open(s, "calls", &table, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "calls.csv", &figure, figure_header, CSV_COLUMNS(figure_header)) != 0) {
        csv_out_abandon(&table);
        return;
    }
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (ARCH_ROWS[i].transport != TRANSPORT_NONE)
            summarize_arch_calls(d, s, ARCH_ROWS[i].name, &table, &figure);
    table_close(s, &table);
    table_close(s, &figure);
    put_count(s, "calls.per_bar_sample", PER_BAR_SAMPLE);
}
