/*
 * summarize.c - what the summarizers share.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"
#include "util/error.h"

/* <<run-every-summarizer>>, paper/90-appendix-report.md */
#define SUMMARIZER(name, writes, reads) {#name, summarize_##name, writes, reads}
static const struct summarizer_line SUMMARIZERS[] = {
    SUMMARIZER(run, "estimator machine orig run series", ""),
    SUMMARIZER(sweep, "oracle sweep", ""),
    SUMMARIZER(architectures, "arch gate pair speedup", ""),
    SUMMARIZER(pooled, "pooled", ""),
    SUMMARIZER(calls, "call calls cross witness", ""),
#define MEASUREMENT(name, when, description, writes, reads) SUMMARIZER(name, writes, reads),
#include "schema/measurements.def"
    SUMMARIZER(robustness, "fuzz load valgrind", ""),
    SUMMARIZER(derived, "cross", "call orig"),
    SUMMARIZER(model, "cross first model", "call echo mech serial spawn"),
    SUMMARIZER(design, "design", ""),
    SUMMARIZER(calibration, "calibration", ""),
    SUMMARIZER(claims, "claim claims deviations precondition preconditions registration",
               "arch call counts cross design echo fuzz gate load model oracle orig pair "
               "serial valgrind"),
    SUMMARIZER(multiplicity, "multiplicity", ""),
};
#undef SUMMARIZER
enum { N_SUMMARIZERS = sizeof SUMMARIZERS / sizeof SUMMARIZERS[0] };

/* <<the-summarizers-some-families-need>>, paper/90-appendix-report.md */
/* Whether the space-separated lists a and b share a name. */
static int lists_share(const char *a, const char *b)
{
    while (*(a += strspn(a, " ")) != '\0') {
        char family[KEY_SIZE];
        size_t len = strcspn(a, " ");
        snprintf(family, sizeof family, "%.*s", (int)len, a);
        if (family_listed(b, family))
            return 1;
        a += len;
    }
    return 0;
}

/* needed[i]: whether line i writes a family of wanted or of what a later
 * needed line reads; every line when wanted is NULL, or when the families
 * outgrow the room kept for them. */
static void mark_the_needed(const char *wanted, int needed[])
{
    char families[4 * TEXT_SIZE];
    int all = wanted == NULL ||
              snprintf(families, sizeof families, "%s", wanted) >= (int)sizeof families;
    for (size_t i = N_SUMMARIZERS; i-- > 0;) {
        needed[i] = all || lists_share(SUMMARIZERS[i].writes, families);
        size_t used = all ? 0 : strlen(families);
        if (needed[i] && !all &&
            snprintf(families + used, sizeof families - used, " %s", SUMMARIZERS[i].reads) >=
                (int)(sizeof families - used))
            all = 1, needed[i] = 1;
    }
    if (all)
        for (size_t i = 0; i < N_SUMMARIZERS; i++)
            needed[i] = 1;
}

void summarize_all(const struct run_data *d, struct store *s)
{
    summarize_families(d, s, NULL);
}

void summarize_families(const struct run_data *d, struct store *s, const char *wanted)
{
    char err[ERR_SIZE];
    if (summarizers_check_order(SUMMARIZERS, N_SUMMARIZERS, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    int needed[N_SUMMARIZERS];
    mark_the_needed(wanted, needed);
    struct read_watch watch = {.running = -1}, *outer = s->watch;
    s->watch = &watch;
    for (size_t i = 0; i < N_SUMMARIZERS; i++) {
        if (!needed[i])
            continue;
        watch.running = (int)i;
        watch.writes = SUMMARIZERS[i].writes;
        watch.reads = SUMMARIZERS[i].reads;
        SUMMARIZERS[i].run(d, s);
    }
    watch.running = -1;
    watch.writes = watch.reads = NULL;
    /* <<a-summarizer-that-read-too-early>>, paper/90-appendix-report.md */
    int reader, writer;
    const char *early = store_read_too_early(s, &reader, &writer);
    if (early != NULL) {
        fprintf(stderr, "ipctax-summary: summarize_%s reads %s, which summarize_%s puts "
                        "after it: move it later in SUMMARIZERS\n",
                SUMMARIZERS[reader].name, early, SUMMARIZERS[writer].name);
        s->errors++;
    }
    /* <<a-summarizer-outside-its-families>>, paper/90-appendix-report.md */
    if (watch.stray[0] != '\0') {
        fprintf(stderr, "ipctax-summary: summarize_%s %s %s, outside the families its line "
                        "declares (%s: %s)\n",
                SUMMARIZERS[watch.stray_by].name, watch.stray_put ? "puts" : "reads", watch.stray,
                watch.stray_put ? "writes" : "reads",
                watch.stray_put ? SUMMARIZERS[watch.stray_by].writes
                                : SUMMARIZERS[watch.stray_by].reads);
        s->errors++;
    }
    free(watch.missed);
    s->watch = outer;
}

/* <<check-the-order-of-the-families>>, paper/90-appendix-report.md */
/* The first line at or after `from` whose writes list `family`, or -1. */
static long writer_of(const struct summarizer_line *lines, size_t n, size_t from,
                      const char *family)
{
    for (size_t j = from; j < n; j++)
        if (family_listed(lines[j].writes, family))
            return (long)j;
    return -1;
}

int summarizers_check_order(const struct summarizer_line *lines, size_t n, char *err,
                            size_t err_size)
{
    for (size_t i = 0; i < n; i++) {
        const char *w = lines[i].reads;
        while (*(w += strspn(w, " ")) != '\0') {
            char family[KEY_SIZE];
            size_t len = strcspn(w, " ");
            snprintf(family, sizeof family, "%.*s", (int)len, w);
            w += len;
            long first = writer_of(lines, n, 0, family);
            if (first >= 0 && (size_t)first <= i)
                continue;
            long later = writer_of(lines, n, i + 1, family);
            if (later < 0)
                return set_error(err, err_size, "summarize_%s reads the family %s, which no "
                                 "summarizer writes", lines[i].name, family);
            return set_error(err, err_size, "summarize_%s reads the family %s, which "
                             "summarize_%s writes after it: move it later",
                             lines[i].name, family, lines[later].name);
        }
    }
    return 0;
}

/* <<a-growable-array-of-doubles>>, paper/90-appendix-report.md */
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

/* <<a-rows-ratio-to-the-baseline>>, paper/90-appendix-report.md */
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
            return pairing_is(d->runs[i].pairing, PAIRING_DUET) ? "couples" : "triples";
    return "units";
}

/* <<the-ratio-between-two-rows>>, paper/90-appendix-report.md */
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
