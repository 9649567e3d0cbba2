/*
 * units.c - couples and triples from architectures.csv, and their calls.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"
#include "schema/architectures.h"
#include "util/stats.h"

/* <<find-a-units-runs>>, paper/93-appendix-units.md */
static const struct run_row *run_numbered(const struct run_data *d, long run)
{
    for (size_t i = 0; i < d->n_runs; i++)
        if (d->runs[i].run == run)
            return &d->runs[i];
    return NULL;
}

static const struct run_row *slot_of(const struct run_data *d, long unit, const char *arch,
                                     long slot)
{
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (r->unit == unit && r->slot == slot && strcmp(r->architecture, arch) == 0)
            return r;
    }
    return NULL;
}

static int ok(const struct run_row *r)
{
    return r != NULL && strcmp(r->status, "ok") == 0 && r->seconds > 0;
}

static double end_of(const struct run_row *r)
{
    return r != NULL ? r->start_s + r->seconds : NAN;
}

/* <<gather-a-rows-units>>, paper/93-appendix-units.md */
static void find_unit_runs(const struct run_data *d, const char *arch, enum arch_pairing p,
                           struct unit_view *u)
{
    const struct unit_layout *l = unit_layout(p);
    for (int slot = 1; slot <= l->slots; slot++) {
        enum slot_sides in = l->sides[slot - 1];
        const struct run_row *x = in & SLOT_ROW ? slot_of(d, u->unit, arch, slot) : NULL;
        if (in & SLOT_ROW)
            u->row[u->n_row++] = x;
        if (in == SLOT_BOTH)                   /* at once: the baseline's is the partner */
            u->base[u->n_base++] = x != NULL && !isnan(x->partner)
                                       ? run_numbered(d, (long)x->partner) : NULL;
        else if (in == SLOT_BASELINE)
            u->base[u->n_base++] = slot_of(d, u->unit, arch_baseline(), slot);
    }
}

/* Whether there are runs and every one is there and "ok"; their times into seconds. */
static int all_ok(const struct run_row *const *runs, size_t n, double *seconds)
{
    int all = n > 0;
    for (size_t k = 0; k < n; k++) {
        all = all && ok(runs[k]);
        seconds[k] = runs[k] != NULL ? runs[k]->seconds : NAN;
    }
    return all;
}

static void span(const struct run_row *r, struct unit_view *u)
{
    u->start_s = r != NULL ? fmin(u->start_s, r->start_s) : u->start_s;
    u->end_s = fmax(u->end_s, end_of(r));      /* fmax passes over a missing run's NAN */
}

static void fill_unit(const struct run_data *d, const struct run_row *first, const char *arch,
                      struct unit_view *u)
{
    double row_s[MAX_UNIT_SLOTS], base_s[MAX_UNIT_SLOTS];
    memset(u, 0, sizeof *u);
    u->unit = first->unit;
    u->round = first->round;
    u->duet = pairing_is(first->pairing, PAIRING_DUET);
    enum arch_pairing p = u->duet ? PAIRING_DUET : PAIRING_SEQUENTIAL;
    find_unit_runs(d, arch, p, u);
    int rows_ok = all_ok(u->row, u->n_row, row_s), bases_ok = all_ok(u->base, u->n_base, base_s);
    u->complete = rows_ok && bases_ok;
    u->ratio = u->complete ? paired_ratio(p, row_s, base_s) : NAN;
    u->start_s = first->start_s;
    u->end_s = NAN;
    for (size_t k = 0; k < u->n_row; k++)
        span(u->row[k], u);
    for (size_t k = 0; k < u->n_base; k++)
        span(u->base[k], u);
}

size_t arch_units(const struct run_data *d, const char *arch, struct unit_view **units)
{
    size_t n = 0;
    *units = calloc(d->n_runs ? d->n_runs : 1, sizeof **units);
    for (size_t i = 0; *units != NULL && i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (strcmp(r->architecture, arch) != 0 || r->round < 1 || (n > 0 && (*units)[n - 1].unit == r->unit))
            continue;                          /* another row's, a failed set-up, or seen */
        fill_unit(d, r, arch, &(*units)[n++]);
    }
    return n;
}

void arch_unit_ratios(const struct run_data *d, const char *arch, double **ratios, size_t *n)
{
    struct unit_view *u;
    size_t k = arch_units(d, arch, &u);
    double *grown = realloc(*ratios, (*n + k + 1) * sizeof *grown);
    if (grown != NULL) {
        *ratios = grown;
        for (size_t i = 0; i < k; i++)
            if (u[i].complete)
                (*ratios)[(*n)++] = u[i].ratio;
    }
    free(u);
}

/* <<phases-of-a-call>>, paper/93-appendix-units.md */
static double median_of(double *x, size_t n)
{
    struct sample_stats st = sample_stats(x, n);
    return st.n > 0 ? st.p50 : NAN;
}

struct phase_place {
    size_t in_call, in_phases;         /* offsets of the double in each */
    double scale;                      /* to µs for a time, 1 for a count */
};

#define PHASE(call, phases, scale) \
    {offsetof(struct call_row, call), offsetof(struct call_phases, phases), scale}
static const struct phase_place PHASES[] = {
    PHASE(encode_ns, encode_us, 1e-3),          PHASE(request_ns, request_us, 1e-3),
    PHASE(engine_decode_ns, engine_decode_us, 1e-3),
    PHASE(engine_encode_ns, engine_encode_us, 1e-3),
    PHASE(reply_ns, reply_us, 1e-3),            PHASE(decode_ns, decode_us, 1e-3),
    PHASE(client_minor_faults, client_faults, 1), PHASE(engine_minor_faults, engine_faults, 1),
    PHASE(request_bytes, request_bytes, 1),     PHASE(reply_bytes, reply_bytes, 1),
};
#undef PHASE
enum { N_PHASES = sizeof PHASES / sizeof PHASES[0] };

/* Each phase's median over the n timed calls whose rows are in `timed`. */
static void phase_medians(const struct call_row *const *timed, size_t n, double *scratch,
                          struct call_phases *out)
{
    for (size_t p = 0; p < N_PHASES; p++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            double v = *(const double *)((const char *)timed[i] + PHASES[p].in_call);
            if (!isnan(v))
                scratch[k++] = v * PHASES[p].scale;
        }
        *(double *)((char *)out + PHASES[p].in_phases) = median_of(scratch, k);
    }
}

/* <<sum-a-units-calls>>, paper/93-appendix-units.md */
int unit_calls(const struct run_data *d, const struct unit_view *u, struct unit_calls *out)
{
    long runs[2] = {u->row[0] != NULL ? u->row[0]->run : -1,
                    u->duet && u->row[1] != NULL ? u->row[1]->run : -1};
    size_t room = d->n_calls ? d->n_calls : 1, n_process = 0, n_faults = 0;
    double *boundary = malloc(6 * room * sizeof *boundary);
    double *compute = boundary + room, *rtt = compute + room, *process = rtt + room;
    double *faults = process + room, *scratch = faults + room, sum_rtt = 0, sum_boundary = 0;
    double sum_first = 0, sum_later = 0;
    long n_first = 0;
    const struct call_row **timed = malloc(room * sizeof *timed);
    memset(out, 0, sizeof *out);
    if (boundary == NULL || timed == NULL) {
        free(boundary);
        free(timed);
        return -1;
    }
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        /* <<count-a-call-of-the-units-runs>>, paper/93-appendix-units.md */
        if (c->run != runs[0] && c->run != runs[1])
            continue;
        out->calls++;
        if (!isnan(c->process_ns))
            process[n_process++] = c->process_ns * 1e-6;
        if (!isnan(c->process_minor_faults))
            faults[n_faults++] = c->process_minor_faults;
        /* <<keep-a-timed-calls-times>>, paper/93-appendix-units.md */
        if (isnan(c->compute_ns))
            continue;
        timed[out->timed] = c;
        boundary[out->timed] = (c->rtt_ns - c->compute_ns) * 1e-3;
        compute[out->timed] = c->compute_ns * 1e-3;
        rtt[out->timed] = c->rtt_ns * 1e-3;
        sum_rtt += c->rtt_ns;
        sum_boundary += c->rtt_ns - c->compute_ns;
        *(c->call == 0 ? &sum_first : &sum_later) += c->rtt_ns - c->compute_ns;
        n_first += c->call == 0;
        out->timed++;
    }
    /* <<take-the-units-means-and-medians>>, paper/93-appendix-units.md */
    out->share_pct = sum_rtt > 0 ? 100.0 * sum_boundary / sum_rtt : NAN;
    out->first_mean_us = n_first > 0 ? sum_first * 1e-3 / (double)n_first : NAN;
    out->later_mean_us = out->timed > n_first
                             ? sum_later * 1e-3 / (double)(out->timed - n_first) : NAN;
    out->boundary_us = median_of(boundary, (size_t)out->timed);
    out->compute_us = median_of(compute, (size_t)out->timed);
    out->rtt_us = median_of(rtt, (size_t)out->timed);
    out->process_ms = median_of(process, n_process);
    out->faults = median_of(faults, n_faults);
    phase_medians(timed, (size_t)out->timed, scratch, &out->phase);
    free(boundary);
    free(timed);
    return out->timed > 0 ? 0 : -1;
}

double unit_sweep_boundary_ms(const struct unit_calls *c, double calls)
{
    if (isnan(c->later_mean_us))              /* one call a run: every call is a first */
        return c->first_mean_us * calls * 1e-3;
    if (isnan(c->first_mean_us))              /* no first call was timed */
        return c->later_mean_us * calls * 1e-3;
    return (c->first_mean_us + (calls - 1.0) * c->later_mean_us) * 1e-3;
}

/* <<a-units-witnesses>>, paper/93-appendix-units.md */
double unit_witness(const struct run_data *d, const struct unit_view *u, const char *kind,
                    int first)
{
    long runs[2] = {u->row[0] != NULL ? u->row[0]->run : -1,
                    u->duet && u->row[1] != NULL ? u->row[1]->run : -1};
    double *rtt = malloc((d->n_witnesses ? d->n_witnesses : 1) * sizeof *rtt);
    size_t n = 0;
    for (size_t i = 0; rtt != NULL && i < d->n_witnesses; i++) {
        const struct witness_row *w = &d->witnesses[i];
        if ((w->run == runs[0] || w->run == runs[1]) && strcmp(w->kind, kind) == 0 &&
            (w->seq == 1) == (first != 0))
            rtt[n++] = w->rtt_ns * 1e-3;
    }
    double m = rtt != NULL ? median_of(rtt, n) : NAN;
    free(rtt);
    return m;
}

double calls_per_whole_sweep(const struct run_data *d, const char *arch)
{
    int i = arch_row_named(arch);
    if (i < 0)
        return NAN;
    switch (ARCH_ROWS[i].grain) {
    case GRAIN_SWEEP:
        return 1.0;
    case GRAIN_COMBO:
    case GRAIN_LOADED:
        return kv_number(&d->run, "combos");
    case GRAIN_BAR:
        return kv_number(&d->run, "bars") + 2.0;
    }
    return NAN;
}

double unit_last_rtt(const struct run_data *d, const struct unit_view *u)
{
    double last[2];
    size_t n = 0;
    for (int r = 0; r < (u->duet ? 2 : 1); r++) {
        const struct call_row *at = NULL;
        for (size_t i = 0; u->row[r] != NULL && i < d->n_calls; i++)
            if (d->calls[i].run == u->row[r]->run && (at == NULL || d->calls[i].call > at->call))
                at = &d->calls[i];
        if (at != NULL)
            last[n++] = at->rtt_ns * 1e-3;
    }
    return median_of(last, n);
}
