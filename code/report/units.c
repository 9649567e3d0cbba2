/*
 * units.c - couples and triples from architectures.csv, and their calls.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/units.h"
#include "util/stats.h"

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

static void fill_unit(const struct run_data *d, const struct run_row *first, const char *arch,
                      struct unit_view *u)
{
    memset(u, 0, sizeof *u);
    u->unit = first->unit;
    u->round = first->round;
    u->duet = strcmp(first->pairing, "duet") == 0;
    if (u->duet) {
        for (int s = 0; s < 2; s++) {
            u->row[s] = slot_of(d, u->unit, arch, s + 1);
            u->base[s] = u->row[s] != NULL && !isnan(u->row[s]->partner)
                             ? run_numbered(d, (long)u->row[s]->partner) : NULL;
        }
        u->complete = ok(u->row[0]) && ok(u->row[1]) && ok(u->base[0]) && ok(u->base[1]);
        u->ratio = u->complete ? couple_ratio(u->row[0]->seconds, u->base[0]->seconds,
                                              u->row[1]->seconds, u->base[1]->seconds)
                               : NAN;
        u->end_s = fmax(fmax(end_of(u->row[0]), end_of(u->base[0])),
                        fmax(end_of(u->row[1]), end_of(u->base[1])));
    } else {
        u->row[0] = slot_of(d, u->unit, arch, 2);
        u->base[0] = slot_of(d, u->unit, "in_process", 1);
        u->base[1] = slot_of(d, u->unit, "in_process", 3);
        u->complete = ok(u->row[0]) && ok(u->base[0]) && ok(u->base[1]);
        u->ratio = u->complete ? turn_ratio(u->base[0]->seconds, u->row[0]->seconds,
                                            u->base[1]->seconds)
                               : NAN;
        u->end_s = end_of(u->base[1]);
    }
    u->start_s = u->base[0] != NULL ? fmin(first->start_s, u->base[0]->start_s) : first->start_s;
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

static double median_of(double *x, size_t n)
{
    struct sample_stats st = sample_stats(x, n);
    return st.n > 0 ? st.p50 : NAN;
}

int unit_calls(const struct run_data *d, const struct unit_view *u, struct unit_calls *out)
{
    long runs[2] = {u->row[0] != NULL ? u->row[0]->run : -1,
                    u->duet && u->row[1] != NULL ? u->row[1]->run : -1};
    size_t room = d->n_calls ? d->n_calls : 1, n_process = 0, n_faults = 0;
    double *boundary = malloc(5 * room * sizeof *boundary);
    double *compute = boundary + room, *rtt = compute + room, *process = rtt + room;
    double *faults = process + room, sum_rtt = 0, sum_boundary = 0;
    memset(out, 0, sizeof *out);
    if (boundary == NULL)
        return -1;
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        if (c->run != runs[0] && c->run != runs[1])
            continue;
        out->calls++;
        if (!isnan(c->process_ns))
            process[n_process++] = c->process_ns * 1e-6;
        if (!isnan(c->process_minor_faults))
            faults[n_faults++] = c->process_minor_faults;
        if (isnan(c->compute_ns))
            continue;
        boundary[out->timed] = (c->rtt_ns - c->compute_ns) * 1e-3;
        compute[out->timed] = c->compute_ns * 1e-3;
        rtt[out->timed] = c->rtt_ns * 1e-3;
        sum_rtt += c->rtt_ns;
        sum_boundary += c->rtt_ns - c->compute_ns;
        out->timed++;
    }
    out->share_pct = sum_rtt > 0 ? 100.0 * sum_boundary / sum_rtt : NAN;
    out->mean_boundary_us = out->timed > 0 ? sum_boundary * 1e-3 / (double)out->timed : NAN;
    out->boundary_us = median_of(boundary, (size_t)out->timed);
    out->compute_us = median_of(compute, (size_t)out->timed);
    out->rtt_us = median_of(rtt, (size_t)out->timed);
    out->process_ms = median_of(process, n_process);
    out->faults = median_of(faults, n_faults);
    free(boundary);
    return out->timed > 0 ? 0 : -1;
}
