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


/* <<plan-the-fewest-units-past-the-extremes>>, paper/90-appendix-report.md */
/* The fewest units whose distribution-free 95% interval of the median
 * leaves out the smallest and the largest of them. */
static int units_past_the_extremes(void)
{
    double rank[PLAN_MOST_UNITS];
    for (int n = 1; n <= PLAN_MOST_UNITS; n++) {
        rank[n - 1] = n;
        struct estimate e = estimate_median(rank, (size_t)n);
        if (e.low > 1.0 && e.high < n)
            return n;
    }
    return PLAN_MOST_UNITS;
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
        /* <<plan-past-the-extremes>>, paper/90-appendix-report.md */
        if (!need.thin && need.exact * FAR_FACTOR > least && need.units < units_past_the_extremes())
            need.units = units_past_the_extremes();
    }
    free(est);
    free(sig);
    return need;
}

/* <<plan-what-the-units-cost>>, paper/90-appendix-report.md */
struct budget {
    double *unit_s;            /* a unit of ARCH_ROWS[i], in seconds; NAN: not priced */
    double round_s;            /* a round's own seconds, outside its units */
    int known;                 /* every paired row and the round are priced */
};

enum { PRICING_RUNS = 5 };             /* the newest kept runs price a unit */

/* The median of key's value over the kept runs in newest (n of them),
 * NAN where none has one. */
static double kept_median(const struct store *const *newest, size_t n, const char *key)
{
    double x[PRICING_RUNS], m = NAN;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(store_number(newest[i], key)))
            x[k++] = store_number(newest[i], key);
    if (k > 0)
        m = estimate_median(x, k).value;
    return m;
}

/* The date a kept run was made (ISO 8601, so that text order is time order). */
static const char *made_on(const struct store *run)
{
    const struct value *v = store_get(run, "machine.date");
    return v != NULL ? v->text : "";
}

static void budget_read(struct budget *b, const struct store *const *kept, size_t n)
{
    char key[KEY_SIZE];
    const struct store *newest[PRICING_RUNS];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {           /* an insertion, newest first */
        size_t k = m < PRICING_RUNS ? m++ : PRICING_RUNS;
        for (; k > 0 && strcmp(made_on(newest[k - 1]), made_on(kept[i])) < 0; k--)
            if (k < PRICING_RUNS)
                newest[k] = newest[k - 1];
        if (k < PRICING_RUNS)
            newest[k] = kept[i];
    }
    b->unit_s = calloc(N_ARCH_ROWS, sizeof *b->unit_s);
    b->round_s = kept_median(newest, m, "arch.round_overhead_s");
    double dearest = NAN;
    for (size_t i = 0; b->unit_s != NULL && i < N_ARCH_ROWS; i++) {
        b->unit_s[i] = kept_median(newest, m, keyf(key, "arch.%s.unit_s", ARCH_ROWS[i].name));
        dearest = isfinite(dearest) ? fmax(dearest, b->unit_s[i]) : b->unit_s[i];
    }
    b->known = b->unit_s != NULL && isfinite(b->round_s) && isfinite(dearest);
    for (size_t i = 0; b->known && i < N_ARCH_ROWS; i++)
        if (ARCH_ROWS[i].pairing != PAIRING_NONE && !isfinite(b->unit_s[i]))
            b->unit_s[i] = dearest;            /* a row no kept run ran */
}

static void budget_free(struct budget *b)
{
    free(b->unit_s);
}

/* The seconds a plan's rounds take at the budget's prices. */
static double plan_seconds(const struct budget *b, const int *planned, int least)
{
    double seconds = 0.0;
    int most = 0;
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (planned[i] > 0) {
            seconds += planned[i] * b->unit_s[i];
            most = planned[i] > most ? planned[i] : most;
        }
    int rounds = (most + MOST_UNITS_A_ROUND - 1) / MOST_UNITS_A_ROUND;
    return seconds + (rounds > least ? rounds : least) * b->round_s;
}

/* <<plan-spend-the-budget-by-claim>>, paper/90-appendix-report.md */
/* Where a claim stands in the plan. */
enum funding { FUNDED, WITHIN_MINIMUM, LEFT_OUT, THIN_FUNDED, THIN_LEFT_OUT, OWN };
static const char *const FUNDING_WORDS[] = {
    "yes", "yes: the minimum decides it", "no: over the budget",
    "at the most units, short of its power", "no: thin, and over the budget",
    "not by units: a measurement's own"};

struct plan {
    int *planned;              /* the units of ARCH_ROWS[i]; 0 for the baseline */
    const char **why;          /* what asked for them */
    enum funding *funded;      /* each claim's standing */
};

static void plan_free(struct plan *p)
{
    free(p->planned);
    free((void *)p->why);
    free(p->funded);
}

/* Raises every row on `rows` to `units` if the plan still fits the budget
 * (or no kept run priced the units); 1 if it did, naming `because`. */
static int fund(const struct budget *b, struct plan *p, const char *rows, int units, int least,
                const char *because)
{
    int *trial = malloc(N_ARCH_ROWS * sizeof *trial), raised = 0;
    if (trial == NULL)
        return 0;
    memcpy(trial, p->planned, N_ARCH_ROWS * sizeof *trial);
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (trial[i] > 0 && trial[i] < units && has_word(rows, ARCH_ROWS[i].name))
            trial[i] = units, raised = 1;
    int fits = !b->known || plan_seconds(b, trial, least) <= ROUNDS_BUDGET_S;
    for (size_t i = 0; fits && raised && i < N_ARCH_ROWS; i++)
        if (trial[i] != p->planned[i])
            p->planned[i] = trial[i], p->why[i] = because;
    free(trial);
    return fits;
}

/* Whether the kept runs decide a claim by a factor of several: its margin
 * is at least twice what the run's minimum of units needs, so that a
 * quarter of the minimum would do (the units go with the margin squared). */
static int decided_by_far(const struct need *x, int least)
{
    return x->runs > 0 && !x->thin && x->exact * FAR_FACTOR <= least;
}

/* A headline row wants its twelve units unless claims rest on it and the
 * kept runs decide every one of them by a factor of several. */
static int headline_needs_its_units(const struct arch_row *row, const struct claim_spec *c,
                                    const struct need *need, size_t n_claims, int least)
{
    int resting = 0, far = 1;
    for (size_t i = 0; i < n_claims; i++)
        if (has_word(c[i].rows, row->name))
            resting++, far &= decided_by_far(&need[i], least);
    return row->headline && (resting == 0 || !far);
}

/* One unit at a time to each row of the group in turn, up to a headline
 * row's units, while the budget holds the next. */
static void fund_in_turn(const struct budget *b, struct plan *p, const int *group, int least,
                         const char *because)
{
    for (int grew = 1; grew;) {
        grew = 0;
        for (size_t i = 0; i < N_ARCH_ROWS; i++)
            if (group[i] && p->planned[i] > 0 && p->planned[i] < HEADLINE_UNITS &&
                fund(b, p, ARCH_ROWS[i].name, p->planned[i] + 1, least, because))
                grew = 1;
    }
}

/* The units claim i asks of each of its rows: what its margin needs, or a
 * headline row's when no kept run measured it. */
static int claims_units(const struct need *x)
{
    return x->units > 0 ? x->units : HEADLINE_UNITS;
}

/* The seconds past the minimum's that claim i's units alone would add. */
static double claims_price(const struct budget *b, const struct plan *minimum,
                           const struct claim_spec *c, const struct need *x, int least)
{
    struct plan p = *minimum;
    p.planned = malloc(N_ARCH_ROWS * sizeof *p.planned);
    if (p.planned == NULL)
        return INFINITY;
    memcpy(p.planned, minimum->planned, N_ARCH_ROWS * sizeof *p.planned);
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (p.planned[i] > 0 && has_word(c->rows, ARCH_ROWS[i].name) &&
            p.planned[i] < claims_units(x))
            p.planned[i] = claims_units(x);
    double price = plan_seconds(b, p.planned, least) - plan_seconds(b, minimum->planned, least);
    free(p.planned);
    return b->known ? price : 0.0;
}

static void plan_within_the_budget(struct plan *p, const struct budget *b,
                                   const struct claim_spec *c, const struct need *need,
                                   size_t n_claims, int least)
{
    p->planned = calloc(N_ARCH_ROWS, sizeof *p->planned);
    p->why = calloc(N_ARCH_ROWS, sizeof *p->why);
    p->funded = calloc(n_claims ? n_claims : 1, sizeof *p->funded);
    size_t *order = calloc(n_claims ? n_claims : 1, sizeof *order);
    double *price = calloc(n_claims ? n_claims : 1, sizeof *price);
    int *group = calloc(N_ARCH_ROWS, sizeof *group);
    if (p->planned == NULL || p->why == NULL || p->funded == NULL || order == NULL ||
        price == NULL || group == NULL) {
        plan_free(p);
        *p = (struct plan){NULL, NULL, NULL};
        goto done;
    }
    /* <<plan-the-minimum-for-every-row>>, paper/90-appendix-report.md */
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *row = &ARCH_ROWS[i];
        p->planned[i] = row->pairing != PAIRING_NONE ? least : 0;
        p->why[i] = row->headline && !headline_needs_its_units(row, c, need, n_claims, least)
                        ? "decided by a factor of several"
                        : "the minimum";
    }
    /* <<plan-the-claims-cheapest-first>>, paper/90-appendix-report.md */
    for (size_t i = 0; i < n_claims; i++) {
        price[i] = claims_price(b, p, &c[i], &need[i], least);
        size_t k = i;
        for (; k > 0 && price[order[k - 1]] > price[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    for (size_t k = 0; k < n_claims; k++) {
        size_t i = order[k];
        if (c[i].rows[0] == '\0')
            p->funded[i] = OWN;            /* its repetitions are its measurement's */
        else if (need[i].thin)
            continue;                      /* last, below */
        else if (claims_units(&need[i]) <= least)
            p->funded[i] = WITHIN_MINIMUM;
        else
            p->funded[i] = fund(b, p, c[i].rows, claims_units(&need[i]), least, c[i].id)
                               ? FUNDED : LEFT_OUT;
    }
    /* <<plan-the-controls-and-the-headline-rows>>, paper/90-appendix-report.md */
    const char *controls[] = {arch_control(PAIRING_DUET), arch_control(PAIRING_SEQUENTIAL)};
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        group[i] = (controls[0] != NULL && strcmp(ARCH_ROWS[i].name, controls[0]) == 0) ||
                   (controls[1] != NULL && strcmp(ARCH_ROWS[i].name, controls[1]) == 0);
    fund_in_turn(b, p, group, least, "an A/A control");
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        group[i] = !group[i] && headline_needs_its_units(&ARCH_ROWS[i], c, need, n_claims, least);
    fund_in_turn(b, p, group, least, "a headline row");
    /* <<plan-the-thin-claims-last>>, paper/90-appendix-report.md */
    for (size_t k = 0; k < n_claims; k++) {
        size_t i = order[k];
        if (need[i].thin && c[i].rows[0] != '\0')
            p->funded[i] = fund(b, p, c[i].rows, PLAN_MOST_UNITS, least, c[i].id)
                               ? THIN_FUNDED : THIN_LEFT_OUT;
    }
done:
    free(order);
    free(price);
    free(group);
}

/* <<plan-the-budget-in-the-text>>, paper/90-appendix-report.md */
/* The plan's budget for the text: what it spends of it, and the claims
 * it leaves out, each with the seconds it would have added. */
static void put_plans_budget(struct store *s, const struct plan *p, const struct budget *b,
                             const struct claim_spec *c, const struct need *need,
                             size_t n_claims, int least)
{
    char out[TEXT_SIZE] = "", one[256];
    put_count(s, "plan.budget_s", ROUNDS_BUDGET_S);
    if (p->planned == NULL || !b->known)
        return;
    put_number(s, "plan.seconds", plan_seconds(b, p->planned, least), 0);
    struct plan minimum = {calloc(N_ARCH_ROWS, sizeof(int)), NULL, NULL};
    for (size_t i = 0; minimum.planned != NULL && i < N_ARCH_ROWS; i++)
        minimum.planned[i] = ARCH_ROWS[i].pairing != PAIRING_NONE ? least : 0;
    put_number(s, "plan.minimum_s",
               minimum.planned != NULL ? plan_seconds(b, minimum.planned, least) : NAN, 0);
    for (size_t i = 0; minimum.planned != NULL && i < n_claims; i++)
        if (p->funded[i] == LEFT_OUT || p->funded[i] == THIN_LEFT_OUT) {
            snprintf(one, sizeof one, "%s%s (%.0f s more)", out[0] ? ", " : "", c[i].id,
                     claims_price(b, &minimum, &c[i], &need[i], least));
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s", one);
        }
    put_names(s, "plan.left_out", out);
    free(minimum.planned);
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
                         const enum funding *funded, size_t n_claims, size_t n_kept)
{
    static const char *const header[] = {"Claim", "Rows", "Kept runs with it",
                                         "Their estimate", "Unit noise", "Margin",
                                         "Units it needs", "In the plan"};
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
        csv_out_text(&t, FUNDING_WORDS[funded[i]]);
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}

void plan_units(const struct run_data *d, struct store *s, const struct store *const *kept,
                size_t n)
{
    static const char *const header[] = {"Architecture", "Planned", "Because of",
                                         "Seconds a unit", "This run's plan", "Units made"};
    struct claim_spec *c = NULL;
    size_t n_claims = 0;
    char err[512], units[TEXT_SIZE] = "", cut_short[TEXT_SIZE] = "", cell[64];
    int least = d != NULL ? (int)kv_number(&d->run, "min_rounds") : 0;
    least = least > 0 ? least : MIN_ROUNDS;
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
    struct budget b;
    budget_read(&b, kept, n);
    struct plan p = {NULL, NULL, NULL};
    if (need != NULL)
        plan_within_the_budget(&p, &b, c, need, n_claims, least);
    struct csv_out t;
    if (p.planned != NULL && table_open(s, "plan_rows", &t, header, CSV_COLUMNS(header)) == 0) {
        const char *ran = d != NULL ? kv_get(&d->run, "units") : NULL;
        for (size_t i = 0; i < N_ARCH_ROWS; i++) {
            const struct arch_row *row = &ARCH_ROWS[i];
            const char *why = p.why[i];
            if (row->pairing == PAIRING_NONE)
                continue;                      /* the baseline runs beside every row */
            int planned = p.planned[i];
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
            cell_number(&t, b.unit_s != NULL ? b.unit_s[i] : NAN, 2);
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
        table_close(s, &t);
    }
    /* <<put-the-plans-values>>, paper/90-appendix-report.md */
    if (need != NULL && p.funded != NULL)
        claims_table(s, c, need, p.funded, n_claims, n);
    put_text(s, "plan.units", units);
    if (d != NULL)
        put_names(s, "plan.short", cut_short);
    put_count(s, "plan.kept_runs", (double)n);
    put_count(s, "plan.most_units", PLAN_MOST_UNITS);
    int thin = 0;
    for (size_t i = 0; need != NULL && i < n_claims; i++)
        thin += need[i].thin;
    put_count(s, "plan.thin", thin);
    put_plans_budget(s, &p, &b, c, need, n_claims, least);
    plan_free(&p);
    budget_free(&b);
    free(need);
    free(c);
}
