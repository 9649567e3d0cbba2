/*
 * sum_calls.c - the boundary's cost measured inside each call, by unit,
 * phase by phase, and over the witnesses made beside it.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/architectures.h"
#include "report/summarize.h"
#include "report/units.h"

/* The phases the paper reports, each a field of struct call_phases. */
struct phase_key {
    const char *name;
    size_t at;
    int decimals;
};

enum { P_ENCODE, P_REQUEST, P_ENGINE_DECODE, P_ENGINE_ENCODE, P_REPLY, P_DECODE,
       P_CLIENT_FAULTS, P_ENGINE_FAULTS };
static const struct phase_key PHASE_KEYS[] = {
    {"encode_us", offsetof(struct call_phases, encode_us), 1},
    {"request_us", offsetof(struct call_phases, request_us), 1},
    {"engine_decode_us", offsetof(struct call_phases, engine_decode_us), 1},
    {"engine_encode_us", offsetof(struct call_phases, engine_encode_us), 1},
    {"reply_us", offsetof(struct call_phases, reply_us), 1},
    {"decode_us", offsetof(struct call_phases, decode_us), 1},
    {"client_faults", offsetof(struct call_phases, client_faults), 0},
    {"engine_faults", offsetof(struct call_phases, engine_faults), 0},
    {"request_bytes", offsetof(struct call_phases, request_bytes), 0},
    {"reply_bytes", offsetof(struct call_phases, reply_bytes), 0},
};
enum { N_PHASE_KEYS = sizeof PHASE_KEYS / sizeof PHASE_KEYS[0] };

/* What the witnesses give a unit, in the order of WITNESS_KEYS. */
enum { W_FLOOR, W_AFTER, W_PAYLOAD, W_WARM, W_OVER_FLOOR, W_OVER_AFTER, W_OVER_PAYLOAD,
       W_OVER_WARM, N_WITNESS_VALUES };
static const char *const WITNESS_KEYS[N_WITNESS_VALUES] = {
    "witness.%s.floor_us", "witness.%s.after_us", "witness.%s.payload_us", "witness.%s.warm_us",
    "cross.%s.over_floor", "cross.%s.over_after", "cross.%s.over_payload",
    "call.%s.over_warm_us"};

/* The call values of every complete unit of arch: one array per quantity. */
struct call_values {
    struct doubles share, per_call, compute, rtt, sweep_ms, process_ms, faults;
    struct doubles phase[N_PHASE_KEYS], witness[N_WITNESS_VALUES];
    double calls;                      /* per sweep, from the last unit */
};

/* The unit's witnesses, and its boundary over them (NAN where it has none). */
static void unit_witness_values(const struct run_data *d, const struct unit_view *u,
                                const struct unit_calls *c, double w[N_WITNESS_VALUES])
{
    w[W_FLOOR] = unit_witness(d, u, "floor", 0);
    w[W_AFTER] = unit_witness(d, u, "floor", 1);
    w[W_PAYLOAD] = unit_witness(d, u, "payload", 0);
    w[W_WARM] = unit_witness(d, u, "warm", 0);
    w[W_OVER_FLOOR] = c->boundary_us / w[W_FLOOR];
    w[W_OVER_AFTER] = c->boundary_us / w[W_AFTER];
    w[W_OVER_PAYLOAD] = c->boundary_us / w[W_PAYLOAD];
    w[W_OVER_WARM] = unit_last_rtt(d, u) - w[W_WARM];
}

static void collect_call_values(const struct run_data *d, const char *arch,
                                struct call_values *v)
{
    struct unit_view *units;
    size_t n = arch_units(d, arch, &units);
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        struct unit_calls c;
        double w[N_WITNESS_VALUES];
        if (!units[i].complete || unit_calls(d, &units[i], &c) != 0)
            continue;
        v->calls = calls_per_whole_sweep(d, arch);
        doubles_push(&v->share, c.share_pct);
        doubles_push(&v->per_call, c.boundary_us);
        doubles_push(&v->compute, c.compute_us);
        doubles_push(&v->rtt, c.rtt_us);
        doubles_push(&v->sweep_ms, unit_sweep_boundary_ms(&c, v->calls));
        if (!isnan(c.process_ms)) {
            doubles_push(&v->process_ms, c.process_ms);
            doubles_push(&v->faults, c.faults);
        }
        for (size_t p = 0; p < N_PHASE_KEYS; p++) {
            double x = *(const double *)((const char *)&c.phase + PHASE_KEYS[p].at);
            if (!isnan(x))
                doubles_push(&v->phase[p], x);
        }
        unit_witness_values(d, &units[i], &c, w);
        for (int k = 0; k < N_WITNESS_VALUES; k++)
            if (isfinite(w[k]))
                doubles_push(&v->witness[k], w[k]);
    }
    free(units);
}

static void free_call_values(struct call_values *v)
{
    struct doubles *all[] = {&v->share, &v->per_call, &v->compute, &v->rtt, &v->sweep_ms,
                             &v->process_ms, &v->faults};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        doubles_free(all[i]);
    for (size_t p = 0; p < N_PHASE_KEYS; p++)
        doubles_free(&v->phase[p]);
    for (int k = 0; k < N_WITNESS_VALUES; k++)
        doubles_free(&v->witness[k]);
}

/* The phases and the witnesses' keys of arch, where its calls had them. */
static void put_phases_and_witnesses(struct store *s, const char *arch, const char *unit,
                                     const struct call_values *v)
{
    char key[KEY_SIZE], name[KEY_SIZE];
    for (size_t p = 0; p < N_PHASE_KEYS; p++)
        if (v->phase[p].n > 0)
            put_estimate(s, keyf(key, "call.%s.%s", arch, PHASE_KEYS[p].name),
                         doubles_estimate(&v->phase[p]), PHASE_KEYS[p].decimals, unit);
    for (int k = 0; k < N_WITNESS_VALUES; k++) {
        if (v->witness[k].n == 0)
            continue;
        snprintf(name, sizeof name, WITNESS_KEYS[k], arch);
        put_estimate(s, name, doubles_estimate(&v->witness[k]), k >= W_OVER_FLOOR &&
                     k != W_OVER_WARM ? 2 : 1, unit);
    }
}

/* A phase's median over the units, or NAN. */
static double phase_median(const struct call_values *v, int p)
{
    return v->phase[p].n > 0 ? doubles_estimate(&v->phase[p]).value : NAN;
}

/* A row of the table of phases: each phase's median over the units, in µs;
 * the engine's decoding and encoding in one column. */
static void breakdown_row(struct csv_out *t, const char *arch, const struct call_values *v)
{
    char faults[64];
    csv_out_text(t, arch);
    cell_number(t, doubles_estimate(&v->per_call).value, 1);
    cell_number(t, phase_median(v, P_ENCODE), 1);
    cell_number(t, phase_median(v, P_REQUEST), 1);
    cell_number(t, phase_median(v, P_ENGINE_DECODE) + phase_median(v, P_ENGINE_ENCODE), 1);
    cell_number(t, phase_median(v, P_REPLY), 1);
    cell_number(t, phase_median(v, P_DECODE), 1);
    snprintf(faults, sizeof faults, "%.0f / %.0f", phase_median(v, P_CLIENT_FAULTS),
             phase_median(v, P_ENGINE_FAULTS));
    csv_out_text(t, faults);
    csv_out_end_row(t);
}

static void summarize_arch_calls(const struct run_data *d, struct store *s, const char *arch,
                                 struct csv_out *table, struct csv_out *figure,
                                 struct csv_out *breakdown)
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
        put_estimate(s, keyf(key, "call.%s.rtt_us", arch), doubles_estimate(&v.rtt), 1, unit);
        put_count(s, keyf(key, "call.%s.calls", arch), v.calls);
        put_phases_and_witnesses(s, arch, unit, &v);
        csv_out_text(table, arch);
        cell_number(table, v.calls, 0);
        cell_number(table, doubles_estimate(&v.rtt).value, 0);   /* µs: a tenth is noise */
        csv_out_text(table, format_estimate(buf, e_call, 1));
        csv_out_text(table, format_estimate(buf, e_share, 3));
        cell_number(table, (double)e_share.n, 0);
        csv_out_end_row(table);
        if (v.phase[P_REQUEST].n > 0)
            breakdown_row(breakdown, arch, &v);
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
    static const char *const breakdown_header[] = {
        "Architecture", "Boundary", "Encode", "Request", "Engine", "Reply", "Decode",
        "Faults (client / engine)"};
    static const char *const figure_header[] = {"architecture", "share_pct", "low", "high",
                                                "boundary_us", "compute_us"};
    struct csv_out table, figure, breakdown;
    if (table_open(s, "calls", &table, header, CSV_COLUMNS(header)) != 0)
        return;
    if (table_open(s, "breakdown", &breakdown, breakdown_header,
                   CSV_COLUMNS(breakdown_header)) != 0) {
        csv_out_abandon(&table);
        return;
    }
    if (figure_data_open(s, "calls.csv", &figure, figure_header, CSV_COLUMNS(figure_header)) != 0) {
        csv_out_abandon(&table);
        csv_out_abandon(&breakdown);
        return;
    }
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (ARCH_ROWS[i].transport != TRANSPORT_NONE)
            summarize_arch_calls(d, s, ARCH_ROWS[i].name, &table, &figure, &breakdown);
    table_close(s, &table);
    table_close(s, &breakdown);
    table_close(s, &figure);
    put_count(s, "calls.per_bar_sample", PER_BAR_SAMPLE);
    long reps = 0;
    for (size_t i = 0; i < d->n_witnesses; i++)
        reps = d->witnesses[i].seq > reps ? d->witnesses[i].seq : reps;
    if (reps > 0)
        put_count(s, "witness.reps", (double)reps);
}
