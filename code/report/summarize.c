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

static summarizer *const SUMMARIZERS[] = {
    summarize_run, summarize_sweep, summarize_architectures, summarize_calls, summarize_echo,
    summarize_cold, summarize_serialization, summarize_spawn, summarize_mechanisms,
    summarize_layout, summarize_roofline, summarize_counts, summarize_robustness,
    summarize_derived, summarize_model, summarize_design, summarize_claims,
};

void summarize_all(const struct run_data *d, struct store *s)
{
    for (size_t i = 0; i < sizeof SUMMARIZERS / sizeof SUMMARIZERS[0]; i++)
        SUMMARIZERS[i](d, s);
}

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

/* The ratio of the complete unit of arch in round `round` (the first, if several). */
static double round_ratio(const struct unit_view *u, size_t n, long round)
{
    for (size_t i = 0; i < n; i++)
        if (u[i].round == round && u[i].complete)
            return u[i].ratio;
    return NAN;
}

struct estimate ratio_between(const struct run_data *d, const char *a, const char *b)
{
    struct unit_view *ua, *ub;
    size_t na = arch_units(d, a, &ua), nb = arch_units(d, b, &ub), k = 0;
    long rounds = (long)kv_number(&d->run, "rounds");
    double *x = malloc((size_t)(rounds > 0 ? rounds : 1) * sizeof *x);
    for (long r = 1; x != NULL && r <= rounds; r++) {
        double q = round_ratio(ua, na, r) / round_ratio(ub, nb, r);
        if (isfinite(q))
            x[k++] = q;
    }
    struct estimate e = estimate_median(x, k);
    free(x);
    free(ua);
    free(ub);
    return e;
}

int has_runs(const struct run_data *d, const char *arch)
{
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && strcmp(d->runs[i].status, "ok") == 0)
            return 1;
    return 0;
}
