/*
 * sum_calls.c - the boundary's cost measured inside each call.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arch.h"
#include "report/summarize.h"

/* What one round's calls of one architecture add up to. */
struct round_calls {
    double rtt, boundary, process;     /* summed, ns */
    long calls, timed;
};

/* Calls an architecture makes per sweep (the per-bar one times a sample). */
static double calls_per_sweep(const struct run_data *d, const char *arch, double recorded)
{
    int i = arch_row_named(arch);
    if (i >= 0 && ARCH_ROWS[i].grain == GRAIN_BAR)
        return kv_number(&d->run, "bars") + 2.0;
    return recorded;
}

static void summarize_arch_calls(const struct run_data *d, struct store *s, const char *arch,
                                 struct csv_out *table, struct csv_out *figure)
{
    char key[KEY_SIZE], buf[200];
    long n_rounds = run_rounds(d);
    struct round_calls *rc = calloc((size_t)(n_rounds > 0 ? n_rounds : 1), sizeof *rc);
    struct doubles per_call = {0}, transit = {0}, engine_extra = {0}, process = {0}, faults = {0},
                   rtt = {0}, share = {0}, sweep_boundary = {0}, compute = {0};
    for (size_t i = 0; rc != NULL && i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        if (strcmp(c->architecture, arch) != 0 || c->round < 1 || c->round > n_rounds)
            continue;
        struct round_calls *r = &rc[c->round - 1];
        r->calls++;
        doubles_push(&rtt, c->rtt_ns);
        if (!isnan(c->process_ns)) {
            doubles_push(&process, c->process_ns);
            doubles_push(&faults, c->process_minor_faults);
        }
        if (isnan(c->compute_ns))
            continue;
        r->timed++;
        r->rtt += c->rtt_ns;
        r->boundary += c->rtt_ns - c->compute_ns;
        doubles_push(&per_call, c->rtt_ns - c->compute_ns);
        doubles_push(&compute, c->compute_ns * 1e-3);
        doubles_push(&transit, c->rtt_ns - c->engine_ns);
        doubles_push(&engine_extra, c->engine_ns - c->compute_ns);
    }
    double calls = 0;
    for (long r = 0; rc != NULL && r < n_rounds; r++) {
        if (rc[r].timed == 0)
            continue;
        calls = calls_per_sweep(d, arch, (double)rc[r].calls);
        doubles_push(&share, rc[r].boundary / rc[r].rtt * 100.0);
        doubles_push(&sweep_boundary, rc[r].boundary / (double)rc[r].timed * calls * 1e-6);
    }
    if (per_call.n > 0) {
        struct estimate e_share = doubles_estimate(&share);
        for (size_t i = 0; i < per_call.n; i++)
            per_call.v[i] *= 1e-3;                     /* microseconds */
        struct estimate e_call = doubles_estimate(&per_call);
        put_estimate(s, keyf(key, "call.%s.share_pct", arch), e_share, 3);
        put_estimate(s, keyf(key, "call.%s.per_call_us", arch), e_call, 1);
        put_estimate(s, keyf(key, "call.%s.sweep_boundary_ms", arch),
                     doubles_estimate(&sweep_boundary), 2);
        struct estimate e_transit = doubles_estimate(&transit);
        put_number(s, keyf(key, "call.%s.transit_us", arch), e_transit.value * 1e-3, 1);
        put_number(s, keyf(key, "call.%s.engine_extra_us", arch),
                   doubles_estimate(&engine_extra).value * 1e-3, 1);
        put_count(s, keyf(key, "call.%s.calls", arch), calls);
        csv_out_text(table, arch);
        cell_number(table, calls, 0);
        cell_number(table, doubles_estimate(&rtt).value * 1e-3, 1);
        csv_out_text(table, format_estimate(buf, e_call, 1));
        csv_out_text(table, format_estimate(buf, e_share, 3));
        csv_out_end_row(table);
        double compute_us = doubles_estimate(&compute).value;
        put_number(s, keyf(key, "call.%s.compute_us", arch), compute_us, 1);
        csv_out_text(figure, arch);
        const double cols[] = {e_share.value, e_share.low, e_share.high, e_call.value,
                               compute_us};
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
            csv_out_double(figure, cols[i]);
        csv_out_end_row(figure);
    }
    if (process.n > 0) {
        for (size_t i = 0; i < process.n; i++)
            process.v[i] *= 1e-6;
        put_estimate(s, keyf(key, "call.%s.process_ms", arch), doubles_estimate(&process), 2);
        put_count(s, keyf(key, "call.%s.faults", arch), doubles_estimate(&faults).value);
    }
    doubles_free(&per_call);
    doubles_free(&transit);
    doubles_free(&engine_extra);
    doubles_free(&process);
    doubles_free(&faults);
    doubles_free(&rtt);
    doubles_free(&share);
    doubles_free(&sweep_boundary);
    doubles_free(&compute);
    free(rc);
}

void summarize_calls(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {
        "Architecture", "Calls per sweep", "Round trip per call (µs)",
        "Boundary per call (µs) [95% interval]", "Boundary share of the sweep (%) [95% interval]"};
    static const char *const figure_header[] = {"architecture", "share_pct", "low", "high",
                                                "boundary_us", "compute_us"};
    struct csv_out table, figure;
    if (table_open(s, "calls", &table, header, 5) != 0)
        return;
    if (figure_data_open(s, "calls.csv", &figure, figure_header, 6) != 0) {
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
