/*
 * plan.c - the units each row needs for the claims resting on it, from the
 * kept runs' intervals (@sec:plan).
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/claims.h"
#include "report/plan.h"
#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"

/* <<plan-the-noise-a-kept-interval-says>>, paper/90-appendix-report.md */
static double normal_quantile(double p)
{
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 60; i++) {
        double mid = (lo + hi) / 2.0;
        if (0.5 * erfc(-mid / sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

enum { MEDIAN_INEFFICIENCY_X10000 = 12533 };  /* sqrt(pi / 2) */

/* The unit noise e's interval says, on the logarithmic scale when log is set. */
static double unit_sigma(struct estimate e, int log_scale)
{
    double width = log_scale ? log(e.high / e.low) : e.high - e.low;
    double z = normal_quantile((1.0 + e.coverage) / 2.0);
    return width / 2.0 * sqrt((double)e.n) / (MEDIAN_INEFFICIENCY_X10000 * 1e-4 * z);
}


/* <<plan-one-claims-need>>, paper/90-appendix-report.md */
struct need {
    size_t runs;               /* kept runs that measured the estimate */
    double estimate, sigma, margin;
    double exact;              /* the units the margin needs, unrounded */
    int units;                 /* 0: no kept run measured it */
    int thin;                  /* the margin needs more than PLAN_MOST_UNITS */
};

/* A kept run's interval the plan can read: two units or more, finite ends. */
static int usable(struct estimate e)
{
    return e.n >= 2 && isfinite(e.low) && isfinite(e.high) && e.coverage > 0.5;
}

static struct need claim_need(const struct claim_spec *c, const struct store *const *kept,
                              size_t n, int least)
{
    struct need need = {0, NAN, NAN, NAN, NAN, 0, 0};
    double *est = calloc(n ? n : 1, sizeof *est), *sig = calloc(n ? n : 1, sizeof *sig);
    int log_scale = c->low > 0.0;      /* a logarithm needs every end positive */
    for (size_t i = 0; i < n; i++) {
        struct estimate e = store_estimate(kept[i], c->estimate);
        if (usable(e))
            log_scale &= e.low > 0.0;
    }
    for (size_t i = 0; est != NULL && sig != NULL && i < n; i++) {
        struct estimate e = store_estimate(kept[i], c->estimate);
        if (!usable(e))
            continue;
        est[need.runs] = log_scale ? log(e.value) : e.value;
        sig[need.runs++] = unit_sigma(e, log_scale);
    }
    if (need.runs > 0) {
        double x = estimate_median(est, need.runs).value;
        double low = log_scale ? log(c->low) : c->low;
        double high = c->test == WITHIN ? (log_scale ? log(c->high) : c->high) : NAN;
        need.sigma = estimate_median(sig, need.runs).value;
        need.estimate = log_scale ? exp(x) : x;
        need.margin = c->test == WITHIN ? fmin(fabs(x - low), fabs(x - high)) : fabs(x - low);
        need.exact = pow((1.96 + 0.8416) * MEDIAN_INEFFICIENCY_X10000 * 1e-4 * need.sigma /
                             need.margin, 2.0);
        need.thin = !(need.exact <= PLAN_MOST_UNITS);
        need.units = need.thin ? PLAN_MOST_UNITS : (int)ceil(need.exact);
        if (need.units < least)
            need.units = least;
    }
    free(est);
    free(sig);
    return need;
}

/* <<plan-the-rows>>, paper/90-appendix-report.md */
/* The units "row=N" in a --units text gives name, or 0. */
static int units_in(const char *units, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = units; p != NULL && *p != '\0';) {
        if (strncmp(p, name, len) == 0 && p[len] == '=')
            return atoi(p + len + 1);
        p = strchr(p, ',');
        p = p != NULL ? p + 1 : NULL;
    }
    return 0;
}

static void claims_table(struct store *s, const struct claim_spec *c, const struct need *need,
                         size_t n_claims, size_t n_kept)
{
    static const char *const header[] = {"Claim", "Rows", "Kept runs with it",
                                         "Their estimate", "Unit noise", "Margin",
                                         "Units it needs"};
    struct csv_out t;
    char cell[64];
    if (table_open(s, "plan", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < n_claims; i++) {
        const struct need *x = &need[i];
        csv_out_text(&t, c[i].id);
        csv_out_text(&t, c[i].rows[0] != '\0' ? c[i].rows : "none: a measurement's own");
        snprintf(cell, sizeof cell, "%zu of %zu", x->runs, n_kept);
        csv_out_text(&t, cell);
        cell_number(&t, x->estimate, 3);
        cell_number(&t, x->sigma, 3);
        cell_number(&t, x->margin, 3);
        if (x->units == 0)
            csv_out_text(&t, "not measured: a headline row's");
        else if (x->thin)
            snprintf(cell, sizeof cell, "more than %d", PLAN_MOST_UNITS), csv_out_text(&t, cell);
        else
            csv_out_int(&t, x->units);
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}

/* Whether the kept runs decide a claim by a factor of several: its margin
 * is at least twice what the run's minimum of units needs, so that a
 * quarter of the minimum would do (the units go with the margin squared). */
static int decided_by_far(const struct need *x, int least)
{
    return x->runs > 0 && !x->thin && x->exact * FAR_FACTOR <= least;
}

/* A headline row keeps its twelve units unless claims rest on it and the
 * kept runs decide every one of them by a factor of several. */
static int headline_needs_its_units(const struct arch_row *row, const struct claim_spec *c,
                                    const struct need *need, size_t n_claims, int least)
{
    int resting = 0, far = 1;
    for (size_t i = 0; i < n_claims; i++)
        if (has_word(c[i].rows, row->name))
            resting++, far &= decided_by_far(&need[i], least);
    return resting == 0 || !far;
}

static int row_plan(const struct arch_row *row, const struct claim_spec *c,
                    const struct need *need, size_t n_claims, int least, const char **why)
{
    int units = least;
    *why = "the minimum";
    if (row->headline && headline_needs_its_units(row, c, need, n_claims, least))
        units = HEADLINE_UNITS > units ? HEADLINE_UNITS : units, *why = "a headline row";
    else if (row->headline)
        *why = "decided by a factor of several";
    for (size_t i = 0; i < n_claims; i++) {
        int wants = need[i].units > 0 ? need[i].units : HEADLINE_UNITS;
        if (has_word(c[i].rows, row->name) && wants > units)
            units = wants, *why = c[i].id;
    }
    return units;
}

void plan_units(const struct run_data *d, struct store *s, const struct store *const *kept,
                size_t n)
{
    static const char *const header[] = {"Architecture", "Planned", "Because of",
                                         "This run's plan", "Units made"};
    struct claim_spec *c = NULL;
    size_t n_claims = 0;
    char err[512], units[TEXT_SIZE] = "", cut_short[TEXT_SIZE] = "", cell[64];
    int least = d != NULL ? (int)kv_number(&d->run, "min_rounds") : 0;
    least = least > 0 ? least : 6;
    /* <<load-the-claims-and-what-each-needs>>, paper/90-appendix-report.md */
    if (claims_load(s->registry != NULL ? s->registry : "paper", &c, &n_claims, err,
                    sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: the plan: %s\n", err);
        s->errors++;
        return;
    }
    struct need *need = calloc(n_claims ? n_claims : 1, sizeof *need);
    for (size_t i = 0; need != NULL && i < n_claims; i++)
        need[i] = claim_need(&c[i], kept, n, least);
    struct csv_out t;
    if (need != NULL && table_open(s, "plan_rows", &t, header, CSV_COLUMNS(header)) == 0) {
        const char *ran = d != NULL ? kv_get(&d->run, "units") : NULL;
        int thin = 0;
        for (size_t i = 0; i < N_ARCH_ROWS; i++) {
            const struct arch_row *row = &ARCH_ROWS[i];
            const char *why;
            if (row->pairing == PAIRING_NONE)
                continue;                      /* the baseline runs beside every row */
            int planned = row_plan(row, c, need, n_claims, least, &why);
            /* <<add-a-differing-row-to-the-units-option>>, paper/90-appendix-report.md */
            int by_default = row->headline && HEADLINE_UNITS > least ? HEADLINE_UNITS : least;
            size_t used = strlen(units);
            if (planned != by_default)         /* --units names only what differs */
                snprintf(units + used, sizeof units - used, "%s%s=%d", used ? "," : "",
                         row->name, planned);
            /* <<write-a-rows-plan-and-what-was-run>>, paper/90-appendix-report.md */
            csv_out_text(&t, row->name);
            csv_out_int(&t, planned);
            csv_out_text(&t, why);
            int asked = ran != NULL && units_in(ran, row->name) > 0 ? units_in(ran, row->name)
                        : row->headline && HEADLINE_UNITS > least ? HEADLINE_UNITS : least;
            if (d != NULL && ran != NULL && units_in(ran, row->name) > 0)
                csv_out_int(&t, units_in(ran, row->name));
            else
                csv_out_text(&t, d != NULL ? "the default" : "");
            if (d != NULL) {
                struct unit_view *u = NULL;
                size_t made = arch_units(d, row->name, &u);
                free(u);
                snprintf(cell, sizeof cell, "%zu", made);
                csv_out_text(&t, cell);
                size_t used_short = strlen(cut_short);
                if (made > 0 && made < (size_t)asked)
                    snprintf(cut_short + used_short, sizeof cut_short - used_short, "%s%s (%zu of %d)",
                             used_short ? ", " : "", row->name, made, asked);
            } else {
                csv_out_text(&t, "");
            }
            csv_out_end_row(&t);
        }
        for (size_t i = 0; i < n_claims; i++)
            thin += need[i].thin;
        table_close(s, &t);
        put_count(s, "plan.thin", thin);
    }
    /* <<put-the-plans-values>>, paper/90-appendix-report.md */
    if (need != NULL)
        claims_table(s, c, need, n_claims, n);
    put_text(s, "plan.units", units);
    if (d != NULL)
        put_names(s, "plan.short", cut_short);
    put_count(s, "plan.kept_runs", (double)n);
    put_count(s, "plan.most_units", PLAN_MOST_UNITS);
    free(need);
    free(c);
}
