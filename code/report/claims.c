/*
 * claims.c - the registered claims judged on this run's intervals, their
 * deviations from the registration, and the preconditions.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/claims.h"
#include "report/csvread.h"
#include "report/summarize.h"

/* <<judge-an-interval>>, paper/90-appendix-report.md */
enum verdict judge_interval(struct estimate e, enum claim_test test, double low, double high)
{
    if (e.n == 0 || isnan(e.low) || isnan(e.high) || !(e.coverage >= 0.95))
        return UNDECIDED;                  /* no interval, or one short of its promise */
    switch (test) {
    case BELOW:
        return e.high < low ? HOLDS : e.low >= low ? FAILS : UNDECIDED;
    case ABOVE:
        return e.low > low ? HOLDS : e.high <= low ? FAILS : UNDECIDED;
    case WITHIN:
        return e.low >= low && e.high <= high ? HOLDS
             : e.high < low || e.low > high   ? FAILS
                                              : UNDECIDED;
    }
    return UNDECIDED;
}

const char *verdict_name(enum verdict v)
{
    return v == HOLDS ? "holds" : v == FAILS ? "fails" : "undecided";
}

/* <<a-claim-as-the-registry-has-it>>, paper/90-appendix-report.md */
enum { CLAIM_TEXT = 512 };

struct claim {
    char id[64], statement[CLAIM_TEXT], estimate[KEY_SIZE], unit[16], rows[256];
    char reason[CLAIM_TEXT], overturn[CLAIM_TEXT], section[64];
    enum claim_test test;
    double low, high;
    int decimals;
};

struct registry {
    struct claim *claims;
    size_t n;
};

static const char *field(const struct csv_table *t, size_t row, const char *name)
{
    int c = csv_table_column(t, name);
    return c >= 0 ? csv_table_cell(t, row, c) : NULL;
}

/* <<parse-a-claim>>, paper/90-appendix-report.md */
static int parse_claim(const struct csv_table *t, size_t row, struct claim *c, char *err,
                       size_t size)
{
    static const char *const needed[] = {"id", "statement", "estimate", "test", "low",
                                         "unit", "decimals", "reason", "overturn"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (field(t, row, needed[i]) == NULL)
            return snprintf(err, size, "no column %s", needed[i]), -1;
    const char *test = field(t, row, "test"), *high = field(t, row, "high");
    char *end;
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", field(t, row, "id"));
    snprintf(c->statement, sizeof c->statement, "%s", field(t, row, "statement"));
    snprintf(c->estimate, sizeof c->estimate, "%s", field(t, row, "estimate"));
    snprintf(c->unit, sizeof c->unit, "%s", field(t, row, "unit"));
    snprintf(c->reason, sizeof c->reason, "%s", field(t, row, "reason"));
    snprintf(c->overturn, sizeof c->overturn, "%s", field(t, row, "overturn"));
    c->test = strcmp(test, "below") == 0 ? BELOW : strcmp(test, "above") == 0 ? ABOVE : WITHIN;
    if (c->test == WITHIN && strcmp(test, "within") != 0)
        return snprintf(err, size, "test '%s' is not below, above or within", test), -1;
    c->low = strtod(field(t, row, "low"), &end);
    if (end == field(t, row, "low") || *end != '\0')
        return snprintf(err, size, "low '%s' is not a number", field(t, row, "low")), -1;
    c->high = c->test == WITHIN ? strtod(high != NULL ? high : "", &end) : NAN;
    if (c->test == WITHIN && (high == NULL || end == high || *end != '\0'))
        return snprintf(err, size, "a within claim needs a number in high"), -1;
    c->decimals = atoi(field(t, row, "decimals"));
    snprintf(c->rows, sizeof c->rows, "%s", field(t, row, "rows") ? field(t, row, "rows") : "");
    const char *section = field(t, row, "section");
    if (section != NULL && section[0] != '\0')
        snprintf(c->section, sizeof c->section, "@sec:%s", section);
    return 0;
}

/* <<load-a-registry>>, paper/90-appendix-report.md */
/* Loads a registry file; 0, or -1 with the file and line named in err. */
static int load_registry(const char *path, struct registry *r, char *err, size_t size)
{
    struct csv_table t;
    char why[256];
    memset(r, 0, sizeof *r);
    if (csv_table_load(path, &t, err, size) != 0)
        return -1;
    r->claims = calloc(t.n_rows ? t.n_rows : 1, sizeof *r->claims);
    for (size_t i = 0; r->claims != NULL && i < t.n_rows; i++) {
        if (parse_claim(&t, i, &r->claims[i], why, sizeof why) != 0) {
            snprintf(err, size, "%s line %zu: %s", path, i + 2, why);
            csv_table_free(&t);
            return -1;
        }
        r->n++;
    }
    csv_table_free(&t);
    return r->claims != NULL ? 0 : (snprintf(err, size, "out of memory"), -1);
}

int claims_load(const char *dir, struct claim_spec **out, size_t *n, char *err, size_t err_size)
{
    struct registry r;
    char path[4096];
    snprintf(path, sizeof path, "%s/claims.csv", dir);
    *out = NULL, *n = 0;
    if (load_registry(path, &r, err, err_size) != 0)
        return -1;
    *out = calloc(r.n ? r.n : 1, sizeof **out);
    for (size_t i = 0; *out != NULL && i < r.n; i++) {
        struct claim_spec *c = &(*out)[i];
        snprintf(c->id, sizeof c->id, "%s", r.claims[i].id);
        snprintf(c->estimate, sizeof c->estimate, "%s", r.claims[i].estimate);
        snprintf(c->rows, sizeof c->rows, "%s", r.claims[i].rows);
        c->test = r.claims[i].test, c->low = r.claims[i].low, c->high = r.claims[i].high;
        c->decimals = r.claims[i].decimals;
    }
    free(r.claims);
    if (*out == NULL)
        return snprintf(err, err_size, "out of memory"), -1;
    *n = r.n;
    return 0;
}

static const struct claim *claim_named(const struct registry *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->claims[i].id, id) == 0)
            return &r->claims[i];
    return NULL;
}

/* <<check-the-registration>>, paper/90-appendix-report.md */
static int same_number(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int deviates(const struct claim *now, const struct claim *then)
{
    return now == NULL || then == NULL || strcmp(now->estimate, then->estimate) != 0 ||
           now->test != then->test || !same_number(now->low, then->low) ||
           !same_number(now->high, then->high);
}

int has_word(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
            return 1;
    return 0;
}

/* The first deviation whose claims name id (and, given word, whose chunks
 * hold it); -1 if none. */
static long deviation_of(const struct csv_table *deviations, const char *id, const char *word)
{
    int c = csv_table_column(deviations, "claims"), k = csv_table_column(deviations, "chunks");
    for (size_t i = 0; c >= 0 && i < deviations->n_rows; i++)
        if (has_word(csv_table_cell(deviations, i, c), id) &&
            (word == NULL || (k >= 0 && has_word(csv_table_cell(deviations, i, k), word))))
            return (long)i;
    return -1;
}

static int listed(const struct csv_table *deviations, const char *id)
{
    return deviation_of(deviations, id, NULL) >= 0;
}

/* Every deviation of now from then must be listed; returns how many are not. */
static int unlisted_deviations(const struct registry *now, const struct registry *then,
                               const struct csv_table *deviations)
{
    int missing = 0;
    for (size_t i = 0; i < now->n; i++) {
        const struct claim *c = &now->claims[i];
        if (deviates(c, claim_named(then, c->id)) && !listed(deviations, c->id)) {
            fprintf(stderr, "ipctax-summary: claim %s differs from its registration "
                            "(paper/claims-registered.csv) and paper/deviations.csv does not "
                            "say why\n", c->id);
            missing++;
        }
    }
    for (size_t i = 0; i < then->n; i++)
        if (claim_named(now, then->claims[i].id) == NULL && !listed(deviations, then->claims[i].id)) {
            fprintf(stderr, "ipctax-summary: registered claim %s was dropped and "
                            "paper/deviations.csv does not say why\n", then->claims[i].id);
            missing++;
        }
    return missing;
}

/* <<quote-the-originals-figures>>, paper/90-appendix-report.md */
/* text with every {orig.KEY} replaced by its value; -1 if a key is unknown. */
static int expand(const struct store *s, const char *text, char *out, size_t size)
{
    size_t used = 0;
    for (const char *p = text; *p != '\0' && used + 1 < size;) {
        const char *close = strchr(p, '}');
        if (strncmp(p, "{orig.", 6) != 0 || close == NULL) {
            out[used++] = *p++;
            continue;
        }
        char key[KEY_SIZE];
        snprintf(key, sizeof key, "%.*s", (int)(close - p - 1), p + 1);
        const struct value *v = store_get(s, key);
        if (v == NULL) {
            fprintf(stderr, "ipctax-summary: a claim quotes %s, which data/original.csv lacks\n",
                    key);
            return -1;
        }
        used += (size_t)snprintf(out + used, size - used, "%s", v->text);
        p = close + 1;
    }
    out[used < size ? used : size - 1] = '\0';
    return 0;
}

/* <<judge-a-claim>>, paper/90-appendix-report.md */
static void describe_threshold(const struct claim *c, char *buf, size_t size)
{
    char low[64], high[64];
    int decimals = c->low == floor(c->low) && (isnan(c->high) || c->high == floor(c->high)) ? 0 : 2;
    format_fixed(low, c->low, decimals);
    format_fixed(high, c->high, decimals);
    if (c->test == WITHIN)
        snprintf(buf, size, "%s to %s%s", low, high, c->unit);
    else
        snprintf(buf, size, "%s %s%s", c->test == BELOW ? "below" : "above", low, c->unit);
}

/* Claim c's estimate, value and ends (FIXED_SIZE bytes each), as the store
 * printed them: the digits the prose prints the same estimate at. */
static void estimate_texts(const struct store *s, const struct claim *c, struct estimate e,
                           char *est, char *lo, char *hi)
{
    static const char *const end[] = {"", ".low", ".high"};
    char key[KEY_SIZE], *out[] = {est, lo, hi};
    double x[] = {e.value, e.low, e.high};
    for (int i = 0; i < 3; i++) {
        const struct value *v = store_get(s, keyf(key, "%s%s", c->estimate, end[i]));
        if (v != NULL)
            snprintf(out[i], FIXED_SIZE, "%.*s", FIXED_SIZE - 1, v->text);
        else
            format_fixed(out[i], x[i], c->decimals);
    }
}

/* "; 89.2% coverage" into buf for an interval that holds its median less
 * often than 95%, as the prose prints one; else "". */
static const char *short_cover(char buf[FIXED_SIZE], struct estimate e)
{
    char c[FIXED_SIZE];
    buf[0] = '\0';
    if (e.coverage > 0.0 && round(e.coverage * 1000.0) < 950.0)
        snprintf(buf, FIXED_SIZE, "; %s%% coverage", format_fixed(c, e.coverage * 100.0, 1));
    return buf;
}

/* A run's claims by verdict, and those it could not judge. */
enum { NOT_JUDGED = UNDECIDED + 1, N_COUNTS };

/* Whether the run has claim c's estimate: an older run without it, or
 * with an estimate of no units (put as n/a), did not judge the claim. */
static int has_estimate(const struct store *s, const struct claim *c, struct estimate e)
{
    char key[KEY_SIZE];
    return store_get(s, c->estimate) != NULL &&
           (e.n > 0 || store_get(s, keyf(key, "%s.n", c->estimate)) == NULL);
}

static void judge_claim(struct store *s, const struct claim *c, const char *registered,
                        struct csv_out *t, struct csv_out *said, struct csv_out *why, FILE *text,
                        int counts[N_COUNTS])
{
    char key[KEY_SIZE], threshold[192], est[64], lo[64], hi[64], interval[200], cover[64];
    char reason[2 * CLAIM_TEXT], units[TEXT_SIZE + 32];
    struct estimate e = store_estimate(s, c->estimate);
    enum verdict v = judge_interval(e, c->test, c->low, c->high);
    const struct value *unit = store_get(s, keyf(key, "%s.unit", c->estimate));
    int measured = has_estimate(s, c, e);
    const char *verdict = measured ? verdict_name(v) : "not measured";
    counts[measured ? v : NOT_JUDGED]++;
    describe_threshold(c, threshold, sizeof threshold);
    estimate_texts(s, c, e, est, lo, hi);
    snprintf(interval, sizeof interval, "%s to %s", lo, hi);
    snprintf(units, sizeof units, "%zu %s", e.n, unit != NULL ? unit->text : "units");
    put_text(s, keyf(key, "claim.%s.verdict", c->id), verdict);
    put_text(s, keyf(key, "claim.%s.threshold", c->id), threshold);
    /* a percentage reads "0.091% [0.081, 0.116]", its sign on the value, as
     * the prose prints one; a factor is its threshold's "x" alone */
    snprintf(reason, sizeof reason, "%s%s [%s, %s%s]", est, strcmp(c->unit, "%") == 0 ? "%" : "",
             lo, hi, short_cover(cover, e));
    put_text(s, keyf(key, "claim.%s.estimate", c->id), reason);
    format_fixed(cover, e.coverage * 100.0, 1);
    char claim[CLAIM_TEXT + 64];
    snprintf(claim, sizeof claim, "%s: %s", c->id, c->statement);
    const char *cells[] = {c->id, reason, units, cover, threshold, verdict, c->section,
                           registered};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
        csv_out_text(t, cells[i]);
    csv_out_end_row(t);
    csv_out_text(said, c->id);
    csv_out_text(said, c->statement);
    csv_out_end_row(said);
    if (expand(s, c->reason, reason, sizeof reason) != 0)
        s->errors++;
    const char *reasons[] = {claim, reason, c->overturn};
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        csv_out_text(why, reasons[i]);
    csv_out_end_row(why);
    fprintf(text, "%-10s %-20s %12s [%s]  %s\n", verdict, c->id, est, interval,
            threshold);
}

/* <<the-preconditions>>, paper/90-appendix-report.md */
struct precondition {
    const char *id;
    const char *statement;
    const char *key;
    const char *must_be;       /* the value's exact text */
    const char *current;       /* NULL: checked by this run; else "current", "stale", ... */
};

/* The statements are the table's words (a table's words are the summary's: see table_open). */
static const struct precondition PRECONDITIONS[] = {
    {"gate", "every architecture returns the in-process results bit for bit", "gate.failed",
     "0", NULL},
    {"oracle", "an independent numpy implementation agrees on every combination",
     "oracle.mismatches", "0", NULL},
    {"counts", "the kernel executes the same instructions in the process and in the engine",
     "counts.kernel_equal", "yes", NULL},
    {"valgrind_errors", "valgrind finds no memory error in the engine", "valgrind.socket.errors",
     "0", NULL},
    {"valgrind_leaks", "valgrind finds no byte definitely lost by the engine",
     "valgrind.socket.definitely_lost", "0", NULL},
    {"load", "under load and faults the engine answers every well-formed request correctly",
     "load.lost", "0", NULL},
    {"fuzz", "the fuzzers found no crash", "fuzz.crashes", "0", "fuzz.current"},
};
enum { N_PRECONDITIONS = sizeof PRECONDITIONS / sizeof PRECONDITIONS[0] };

static void check_preconditions(struct store *s, FILE *text)
{
    static const char *const header[] = {"Precondition", "Value", "Required", "Result",
                                         "Checked on"};
    struct csv_out t;
    char key[KEY_SIZE];
    int passed = 0, stale = 0;
    if (table_open(s, "preconditions", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < N_PRECONDITIONS; i++) {
        const struct precondition *p = &PRECONDITIONS[i];
        const struct value *v = store_get(s, p->key);
        int ok = v != NULL && strcmp(v->text, p->must_be) == 0;
        passed += ok;
        csv_out_text(&t, p->statement);
        csv_out_text(&t, v != NULL ? v->text : "not measured");
        csv_out_text(&t, p->must_be);
        const struct value *c = p->current != NULL ? store_get(s, p->current) : NULL;
        const char *on = p->current == NULL ? "this run"
                         : c == NULL || strcmp(c->text, "not tied") == 0 ? "code not recorded"
                         : strcmp(c->text, "current") == 0 ? "this code"
                                                           : "older code (stale)";
        int elsewhere = p->current != NULL && strcmp(on, "this code") != 0;
        stale += elsewhere;
        /* a record of other code passed there, which says nothing of this */
        csv_out_text(&t, !ok ? "FAILED" : elsewhere ? "passed, not on this code" : "passed");
        csv_out_text(&t, on);
        csv_out_end_row(&t);
        fprintf(text, "%-10s precondition %s\n", ok ? "passed" : "FAILED", p->id);
        put_text(s, keyf(key, "precondition.%s", p->id), ok ? "passed" : "FAILED");  /* v moves */
    }
    table_close(s, &t);
    put_count(s, "preconditions.count", N_PRECONDITIONS);
    put_count(s, "preconditions.passed", passed);
    put_count(s, "preconditions.stale", stale);
}

/* <<copy-the-deviations-and-the-registration>>, paper/90-appendix-report.md */
/* The digest of chunk in the tangler's list; NULL if the chapters have none. */
static const char *digest_of(const struct csv_table *hashes, const char *chunk)
{
    for (size_t r = 0; r < hashes->n_rows; r++)
        if (strcmp(csv_table_cell(hashes, r, 0), chunk) == 0)
            return csv_table_cell(hashes, r, 1);
    return NULL;
}

/* Every registered chunk as it is now: the table, and an error for each
 * changed one that no deviation lists with its new digest. */
static void check_chunks(struct store *s, const char *dir, const struct csv_table *deviations)
{
    static const char *const header[] = {"Claim", "Chunk", "Registered", "Now", "Listed"};
    struct csv_table reg, now;
    struct csv_out t;
    char path[4096], err[512], word[256], commit[64];
    /* <<load-the-registered-and-present-digests>>, paper/90-appendix-report.md */
    snprintf(path, sizeof path, "%s/registered-chunks.csv", dir);
    if (s->chunk_hashes == NULL) {
        put_text(s, "registration.chunks_checked", "no");
        return;
    }
    if (csv_table_load(path, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    if (csv_table_load(s->chunk_hashes, &now, err, sizeof err) != 0 ||
        table_open(s, "registered_chunks", &t, header, CSV_COLUMNS(header)) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        csv_table_free(&reg);
        return;
    }
    int changed = 0, unlisted = 0;
    for (size_t r = 0; r < reg.n_rows; r++) {
        /* <<judge-a-registered-chunk>>, paper/90-appendix-report.md */
        const char *claim = csv_table_cell(&reg, r, 0), *chunk = csv_table_cell(&reg, r, 1);
        const char *then = csv_table_cell(&reg, r, 2), *digest = digest_of(&now, chunk);
        int same = digest != NULL && strcmp(digest, then) == 0;
        snprintf(word, sizeof word, "%s=%s", chunk, digest != NULL ? digest : "gone");
        long at = same ? -1 : deviation_of(deviations, claim, word);
        int c = csv_table_column(deviations, "commit");
        snprintf(commit, sizeof commit, "%s",
                 same ? "unchanged" : at >= 0 && c >= 0 ? csv_table_cell(deviations, at, c)
                                                        : "NOT LISTED");
        changed += !same;
        if (!same && at < 0) {
            fprintf(stderr, "ipctax-summary: chunk <<%s>>, which measures claim %s, changed "
                            "since the registration; list it in paper/deviations.csv with "
                            "%s in its chunks\n", chunk, claim, word);
            unlisted++;
        }
        /* <<write-a-registered-chunks-row>>, paper/90-appendix-report.md */
        const char *cells[] = {claim, chunk, then, digest != NULL ? digest : "gone", commit};
        for (size_t k = 0; k < 5; k++)
            csv_out_text(&t, k == 2 || k == 3 ? (snprintf(word, 13, "%s", cells[k]), word)
                                              : cells[k]);
        csv_out_end_row(&t);
    }
    table_close(s, &t);
    put_text(s, "registration.chunks_checked", "yes");
    put_count(s, "registration.chunks", (double)reg.n_rows);
    put_count(s, "registration.chunks_changed", changed);
    s->errors += unlisted;
    csv_table_free(&reg);
    csv_table_free(&now);
}

static int copy_deviations(struct store *s, const struct csv_table *d)
{
    static const char *const header[] = {"Commit", "Of", "Claims", "Change", "Why"};
    static const char *const columns[] = {"commit", "kind", "claims", "change", "reason"};
    struct csv_out t;
    if (table_open(s, "deviations", &t, header, CSV_COLUMNS(header)) != 0)
        return -1;
    for (size_t r = 0; r < d->n_rows; r++) {
        for (size_t c = 0; c < 5; c++) {
            int at = csv_table_column(d, columns[c]);
            csv_out_text(&t, at >= 0 ? csv_table_cell(d, r, at) : "");
        }
        csv_out_end_row(&t);
    }
    table_close(s, &t);
    put_count(s, "deviations.count", (double)d->n_rows);
    return 0;
}

static void put_registration(struct store *s, const struct csv_table *reg)
{
    int k = csv_table_column(reg, "key"), v = csv_table_column(reg, "value");
    char key[KEY_SIZE];
    for (size_t r = 0; k >= 0 && v >= 0 && r < reg->n_rows; r++)
        put_text(s, keyf(key, "registration.%s", csv_table_cell(reg, r, k)),
                 csv_table_cell(reg, r, v));
}

/* <<judge-every-claim>>, paper/90-appendix-report.md */
/* The last line of claims.txt: the run's claims by verdict. */
static void print_tally(FILE *text, const int counts[N_COUNTS], size_t n)
{
    fprintf(text, "%d of %zu claims hold, %d fail, %d %s undecided at this run's resolution",
            counts[HOLDS], n, counts[FAILS], counts[UNDECIDED],
            counts[UNDECIDED] == 1 ? "is" : "are");
    if (counts[NOT_JUDGED] > 0)
        fprintf(text, ", %d not measured", counts[NOT_JUDGED]);
    fputc('\n', text);
}

static void judge_all(struct store *s, const struct registry *now, const struct registry *then,
                      const char *registered, FILE *text)
{
    static const char *const header[] = {"Claim", "Estimate [95% interval]", "Units",
                                         "Coverage (%)", "Threshold", "Verdict", "Section",
                                         "Registered"};
    static const char *const said_header[] = {"Claim", "What it says"};
    static const char *const why_header[] = {"Claim", "Where its threshold comes from",
                                             "What would overturn it"};
    struct csv_out t, said, why;
    int counts[N_COUNTS] = {0};
    if (table_open(s, "claims", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (table_open(s, "claim_statements", &said, said_header, CSV_COLUMNS(said_header)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    if (table_open(s, "claim_reasons", &why, why_header, CSV_COLUMNS(why_header)) != 0) {
        csv_out_abandon(&t);
        csv_out_abandon(&said);
        return;
    }
    for (size_t i = 0; i < now->n; i++) {
        const struct claim *c = &now->claims[i];
        const char *when = deviates(c, claim_named(then, c->id)) ? "changed since"
                                                                  : registered;
        judge_claim(s, c, when, &t, &said, &why, text, counts);
    }
    table_close(s, &t);
    table_close(s, &said);
    table_close(s, &why);
    put_count(s, "claims.count", (double)now->n);
    /* no interval is adjusted for the others: the chance, for independent
     * 95% intervals, that at least one of the claims' misses */
    put_number(s, "claims.miss_any_pct", 100.0 * (1.0 - pow(0.95, (double)now->n)), 0);
    put_count(s, "claims.held", counts[HOLDS]);
    put_count(s, "claims.failed", counts[FAILS]);
    put_count(s, "claims.undecided", counts[UNDECIDED]);
    print_tally(text, counts, now->n);
}

/* <<summarize-claims>>, paper/90-appendix-report.md */
void summarize_claims(const struct run_data *d, struct store *s)
{
    char path[4096], err[512];
    struct registry now = {0}, then = {0};
    struct csv_table deviations = {0}, registration = {0};
    const char *dir = s->registry != NULL ? s->registry : "paper";
    (void)d;
#define REGISTRY_FILE(name) (snprintf(path, sizeof path, "%s/%s", dir, name), path)
    int bad = load_registry(REGISTRY_FILE("claims.csv"), &now, err, sizeof err) != 0 ||
              load_registry(REGISTRY_FILE("claims-registered.csv"), &then, err, sizeof err) != 0 ||
              csv_table_load(REGISTRY_FILE("deviations.csv"), &deviations, err, sizeof err) != 0 ||
              csv_table_load(REGISTRY_FILE("registration.csv"), &registration, err,
                             sizeof err) != 0;
#undef REGISTRY_FILE
    snprintf(path, sizeof path, "%s/claims.txt", s->out_dir);
    FILE *text = bad ? NULL : fopen(path, "w");
    if (bad || text == NULL) {
        fprintf(stderr, "ipctax-summary: %s\n", bad ? err : "cannot write claims.txt");
        s->errors++;
    } else {
        put_registration(s, &registration);
        const struct value *commit = store_get(s, "registration.commit");
        char registered[TEXT_SIZE];            /* a copy: judging puts values, which move */
        snprintf(registered, sizeof registered, "%s", commit != NULL ? commit->text : "unknown");
        s->errors += unlisted_deviations(&now, &then, &deviations);
        copy_deviations(s, &deviations);
        check_chunks(s, dir, &deviations);
        judge_all(s, &now, &then, registered, text);
        check_preconditions(s, text);
        if (fclose(text) != 0)
            s->errors++;
    }
    free(now.claims);
    free(then.claims);
    csv_table_free(&deviations);
    csv_table_free(&registration);
}
