/*
 * summarize.c - what the summarizers share.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

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

long run_rounds(const struct run_data *d)
{
    long n = 0;
    for (size_t i = 0; i < d->n_runs; i++)
        if (d->runs[i].round > n)
            n = d->runs[i].round;
    return n;
}

double *seconds_by_round(const struct run_data *d, const char *arch, long n_rounds)
{
    double *s = malloc((size_t)(n_rounds > 0 ? n_rounds : 1) * sizeof *s);
    for (long r = 0; s != NULL && r < n_rounds; r++)
        s[r] = NAN;
    for (size_t i = 0; s != NULL && i < d->n_runs; i++) {
        const struct run_row *row = &d->runs[i];
        if (strcmp(row->architecture, arch) == 0 && strcmp(row->status, "ok") == 0 &&
            row->round >= 1 && row->round <= n_rounds)
            s[row->round - 1] = row->seconds;
    }
    return s;
}

struct estimate paired_ratio(const struct run_data *d, const char *a, const char *b)
{
    long n = run_rounds(d);
    double *x = seconds_by_round(d, a, n), *y = seconds_by_round(d, b, n);
    struct doubles ratios = {0};
    for (long r = 0; x != NULL && y != NULL && r < n; r++)
        doubles_push(&ratios, x[r] / y[r]);            /* NAN where either is missing */
    struct estimate e = doubles_estimate(&ratios);
    doubles_free(&ratios);
    free(x);
    free(y);
    return e;
}

int has_runs(const struct run_data *d, const char *arch)
{
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && strcmp(d->runs[i].status, "ok") == 0)
            return 1;
    return 0;
}
