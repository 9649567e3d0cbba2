/*
 * summarize.c - what the summarizers share.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"

void doubles_push(struct doubles *a, double x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        double *bigger = realloc(a->v, cap * sizeof *bigger);
        if (bigger == NULL)
            return;                    /* the estimate then rests on fewer values */
        a->v = bigger;
        a->cap = cap;
    }
    a->v[a->n++] = x;
}

void doubles_free(struct doubles *a)
{
    free(a->v);
    memset(a, 0, sizeof *a);
}

struct estimate doubles_estimate(const struct doubles *a)
{
    return estimate_median(a->v, a->n);
}

struct estimate ratio_to_baseline(const struct run_data *d, const char *arch)
{
    double *ratios = NULL;
    size_t n = 0;
    arch_unit_ratios(d, arch, &ratios, &n);
    struct estimate e = estimate_median(ratios, n);
    free(ratios);
    return e;
}

const char *unit_name(const struct run_data *d, const char *arch)
{
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && d->runs[i].round > 0)
            return strcmp(d->runs[i].pairing, "duet") == 0 ? "couples" : "triples";
    return "units";
}

static double quotient(const double *medians, const void *ctx)
{
    (void)ctx;
    return medians[0] / medians[1];
}

struct estimate ratio_between(const struct run_data *d, const char *a, const char *b)
{
    double *ra = NULL, *rb = NULL;
    size_t na = 0, nb = 0;
    arch_unit_ratios(d, a, &ra, &na);
    arch_unit_ratios(d, b, &rb, &nb);
    const double *groups[] = {ra, rb};
    size_t n[] = {na, nb};
    struct estimate e = calibrated_composite(2, groups, n, quotient, NULL, NULL);
    free(ra);
    free(rb);
    return e;
}

int has_runs(const struct run_data *d, const char *arch)
{
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && strcmp(d->runs[i].status, "ok") == 0)
            return 1;
    return 0;
}
