/*
 * compare.c - the published run's values beside this run's: the results,
 * the claims and the primitive figures that explain a change, the key
 * figures, and the tables and figure file the paper shows them in.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/claims.h"
#include "report/compare.h"
#include "report/csvread.h"
#include "schema/architectures.h"

/* <<lines-of-at-most-100-columns>>, paper/90-appendix-report.md */
enum { WIDTH = 100 };

static void say(FILE *out, int indent, int hang, const char *text)
{
    const char *p = text;
    for (; *p == '\n'; p++)
        fputc('\n', out);
    int column = fprintf(out, "%*s", indent, "");
    while (*p != '\0') {
        size_t gap = strspn(p, " "), word = strcspn(p + gap, " ");
        if (word == 0)
            break;
        if (column > indent && column + (int)(gap + word) > WIDTH) {
            column = fprintf(out, "\n%*s", hang, "") - 1;
            indent = hang, gap = 0;
            p += strspn(p, " ");
        }
        column += fprintf(out, "%.*s", (int)(gap + word), p);
        p += gap + word;
    }
    fputc('\n', out);
}

/* say() of a printf-formatted sentence. */
static void sayf(FILE *out, int indent, int hang, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sayf(FILE *out, int indent, int hang, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    say(out, indent, hang, text);
}

/* <<the-compared-figures>>, paper/90-appendix-report.md */
/* The rows a compared figure names, by their roles. */
enum compared_rows {
    NO_ROW,            /* the label and the key as they stand */
    BASELINE,          /* every %s: the baseline */
    BATCH,             /* the key's %s and the label's first: the C client's plain
                          batch row; the label's second: the baseline */
    DUET_CONTROL,      /* the label's %s: the baseline; the key's: the duets' pairing */
    COMPARISON,        /* a comparison's key (ARCH_COMPARISONS); the label's two %s:
                          its row and the row it is set over */
};

/* The labels are the table's words (a table's words are the summary's: see table_open). */
static const struct {
    const char *label, *key;
    enum compared_rows rows;
} COMPARED[] = {
    {"results' SHA-256 (every PnL and trade count)", "sweep.sha256", NO_ROW},
    {"first combination's PnL", "sweep.first.pnl", NO_ROW},
    {"first combination's trades", "sweep.first.trades", NO_ROW},
    {"series SHA-256", "series.sha256", NO_ROW},
    {"%s, median (s)", "arch.%s.median_s", BASELINE},
    {"%s over %s", "arch.%s.ratio", BATCH},
    {"%s, boundary share (%%)", "call.%s.share_pct", BATCH},
    {"A/A control in duets over %s", "design.%s.ratio", DUET_CONTROL},
    {"%s over %s", "pair.python_batch_over_numba", COMPARISON},
    {"echo of one double, one CPU (us)", "echo.c.unix.same.protocol.p50_us.1", NO_ROW},
    {"echo of the series, one CPU (us)", "echo.c.unix.same.protocol.p50_us.150000", NO_ROW},
    {"JSON over raw encoding", "serial.c.json.over_raw", NO_ROW},
    {"claims that hold", "claims.held", NO_ROW},
    {"claims that fail", "claims.failed", NO_ROW},
    {"claims undecided", "claims.undecided", NO_ROW},
    {"rounds", "run.rounds", NO_ROW},
    {"processor", "machine.cpu", NO_ROW},
    {"family and model", "machine.cpu_family_model", NO_ROW},
    {"date", "machine.date", NO_ROW},
    {"commit", "machine.commit", NO_ROW},
};
enum { N_COMPARED = sizeof COMPARED / sizeof COMPARED[0], MACHINE_ROWS = 4 };

/* COMPARED[i]'s label (size bytes) and key, with the rows its kind names. */
static void compared_figure(size_t i, char *label, size_t size, char key[KEY_SIZE])
{
    const char *base = arch_baseline(), *l = COMPARED[i].label, *k = COMPARED[i].key;
    const char *batch = arch_like(CLIENT_C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_SWEEP);
    const struct arch_comparison *c = arch_comparison(k);
    switch (COMPARED[i].rows) {
    case BASELINE:
        snprintf(label, size, l, base), snprintf(key, KEY_SIZE, k, base);
        break;
    case BATCH:
        snprintf(label, size, l, batch, base), snprintf(key, KEY_SIZE, k, batch);
        break;
    case DUET_CONTROL:
        snprintf(label, size, l, base);
        snprintf(key, KEY_SIZE, k, pairing_name(PAIRING_DUET));
        break;
    case COMPARISON:
        snprintf(label, size, l, c != NULL ? c->row : "?",
                 c != NULL && c->over != NULL ? c->over : base);
        snprintf(key, KEY_SIZE, "%s", k);
        break;
    default:
        snprintf(label, size, "%s", l), snprintf(key, KEY_SIZE, "%s", k);
    }
}

static const char *text_of(const struct store *s, const char *key)
{
    const struct value *v = store_get(s, key);
    return v != NULL ? v->text : "n/a";
}

/* "AMD EPYC, family 26, model 2, measured 2026-12-02T07:57:22Z at commit 6061c77". */
static const char *machine_line(char *buf, size_t size, const struct store *s)
{
    snprintf(buf, size, "%s, %s, measured %s at commit %s", text_of(s, "machine.cpu"),
             text_of(s, "machine.cpu_family_model"), text_of(s, "machine.date"),
             text_of(s, "machine.commit"));
    return buf;
}

/* <<the-results-compared>>, paper/90-appendix-report.md */
enum results { RESULTS_SAME, RESULTS_DIFFERENT, RESULTS_OTHER_JOB, RESULTS_UNKNOWN };

static enum results compare_results(const struct store *s, const struct store *pub)
{
    static const char *const JOB[] = {"series.sha256", "run.bars", "run.combos"};
    if (store_get(pub, "sweep.sha256") == NULL || store_get(s, "sweep.sha256") == NULL)
        return RESULTS_UNKNOWN;
    for (size_t i = 0; i < sizeof JOB / sizeof JOB[0]; i++)
        if (strcmp(text_of(s, JOB[i]), text_of(pub, JOB[i])) != 0)
            return RESULTS_OTHER_JOB;
    return strcmp(text_of(s, "sweep.sha256"), text_of(pub, "sweep.sha256")) == 0
               ? RESULTS_SAME
               : RESULTS_DIFFERENT;
}

static void say_results(FILE *out, enum results r, const struct store *s, const struct store *pub)
{
    const char *mine = text_of(s, "sweep.sha256"), *theirs = text_of(pub, "sweep.sha256");
    if (r == RESULTS_SAME)
        sayf(out, 0, 2, "Results: the same as the published run's, bit for bit (%s "
             "combinations; their digest is %.12s... in both).", text_of(s, "sweep.combos"), mine);
    else if (r == RESULTS_DIFFERENT)
        sayf(out, 0, 2, "Results: DIFFERENT from the published run's (digest %.12s... here, "
             "%.12s... there; first PnL %s here, %s there). This is a failed reproduction, not a "
             "finding: every machine must compute the same PnL and trades, bit for bit. Something "
             "in this build breaks the kernel's floating-point rules (a fused multiply-add, "
             "fast-math, another exp), and the verdicts below compare different computations.",
             mine, theirs, text_of(s, "sweep.first.pnl"), text_of(pub, "sweep.first.pnl"));
    else if (r == RESULTS_OTHER_JOB)
        sayf(out, 0, 2, "Results: not comparable. This run's job is not the published run's "
             "(%s bars and %s combinations against %s and %s): a reduced run, whose timings "
             "and verdicts decide nothing.", text_of(s, "run.bars"), text_of(s, "run.combos"),
             text_of(pub, "run.bars"), text_of(pub, "run.combos"));
    else
        say(out, 0, 2, "Results: the published summary gives no digest of its results (an "
            "older layout), so they cannot be compared here; make check-spec checks this "
            "run's against the specification.");
}

/* <<what-each-claim-rests-on>>, paper/90-appendix-report.md */
static const struct {
    const char *claim, *prefixes;
} RESTS_ON[] = {
    {"one_crossing", "echo.python.unix. mech.python. serial.python.tobytes"},
    {"json_tax", "serial.python."},
    {"chatty_crossing", "echo.c.unix. mech.c."},
    {"stateful_per_call", "echo.python.unix. mech.python."},
    {"spawn_per_sweep", "spawn. mech.fault."},
    {"spawn_per_call", "spawn. mech.fault."},
    {"per_bar_dominated", "echo.c.unix. mech.c."},
    {"json_chatty", "serial.c. echo.c.unix."},
    {"compute_gap", "roof."},
    {"tuned_flips", "roof."},
    {"echo_flat", "echo.c.unix.same."},
    {"shm_floor", "echo.c.shm_futex. echo.c.shm_spin. echo.c.unix.same."},
};
static const char *const ALL_PRIMITIVES = "mech. echo. serial. spawn. witness. model. roof.";
enum { MAX_REASONS = 3, PREFIXES_SIZE = 2048 };

/* Appends " witness.ROW." to prefixes for each row of rows (words separated by spaces). */
static void add_witnesses(char *prefixes, size_t size, const char *rows)
{
    for (const char *p = rows; *p != '\0';) {
        size_t n = strcspn(p, " "), used = strlen(prefixes);
        if (n > 0 && used < size)
            snprintf(prefixes + used, size - used, " witness.%.*s.", (int)n, p);
        p += n + (p[n] == ' ');
    }
}

/* The prefixes claim rests on, into buf: those listed above and the
 * witnesses of its rows in the registry's claims.csv; every primitive for
 * a claim not listed. */
static const char *rests_on(const struct store *s, const char *claim, char *buf, size_t size)
{
    const char *listed = NULL;
    struct claim_spec *c = NULL;
    size_t n = 0;
    char err[512];
    for (size_t i = 0; i < sizeof RESTS_ON / sizeof RESTS_ON[0]; i++)
        if (strcmp(RESTS_ON[i].claim, claim) == 0)
            listed = RESTS_ON[i].prefixes;
    if (listed == NULL)
        return ALL_PRIMITIVES;
    snprintf(buf, size, "%s", listed);
    /* A registry that cannot be read has stopped the summary already: the listed ones. */
    if (claims_load(s->registry != NULL ? s->registry : "paper", &c, &n, err, sizeof err) != 0)
        return buf;
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].id, claim) == 0)
            add_witnesses(buf, size, c[i].rows);
    free(c);
    return buf;
}

static int has_prefix_in(const char *key, const char *prefixes)
{
    for (const char *p = prefixes; *p != '\0';) {
        size_t n = strcspn(p, " ");
        if (n > 0 && strncmp(key, p, n) == 0)
            return 1;
        p += n + (p[n] == ' ');
    }
    return 0;
}

static int ends_with(const char *text, size_t n, const char *end)
{
    size_t e = strlen(end);
    return n >= e && strncmp(text + n - e, end, e) == 0;
}

/* A time or a rate measured on its own (see above), by the parts of its key. */
static int is_primitive(const char *key)
{
    static const char *const NOT[] = {"low", "high", "n", "unit", "coverage_pct", "spread",
                                      "excluded"};
    int timed = 0;
    for (const char *p = key; *p != '\0';) {
        size_t n = strcspn(p, ".");
        for (size_t i = 0; i < sizeof NOT / sizeof NOT[0]; i++)
            if (strlen(NOT[i]) == n && strncmp(p, NOT[i], n) == 0)
                return 0;
        timed |= ends_with(p, n, "_us") || ends_with(p, n, "_ms") || ends_with(p, n, "_gbps") ||
                 ends_with(p, n, "gflops") || strncmp(p, "us_per", 6) == 0;
        p += n + (p[n] == '.');
    }
    return timed;
}

struct reason {
    const char *key;
    double here, there, apart;         /* apart: the larger over the smaller */
};

/* The claim's primitive figures measured in both runs that differ most,
 * into why (at most MAX_REASONS, the farthest first); how many. */
static size_t differ_most(const struct store *s, const struct store *pub, const char *claim,
                          struct reason why[MAX_REASONS])
{
    char buf[PREFIXES_SIZE];
    const char *prefixes = rests_on(s, claim, buf, sizeof buf);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct value *v = &s->values[i];
        if (!has_prefix_in(v->key, prefixes) || !is_primitive(v->key) || !(v->number > 0))
            continue;
        double there = store_number(pub, v->key);
        if (!(there > 0) || !isfinite(v->number) || !isfinite(there))
            continue;
        struct reason r = {v->key, v->number, there,
                           fmax(v->number, there) / fmin(v->number, there)};
        if (n == MAX_REASONS && r.apart <= why[n - 1].apart)
            continue;
        size_t at = n < MAX_REASONS ? n++ : MAX_REASONS - 1;     /* full: the least goes */
        while (at > 0 && why[at - 1].apart < r.apart) {
            why[at] = why[at - 1];
            at--;
        }
        why[at] = r;
    }
    return n;
}

/* <<compare-claim-by-claim>>, paper/90-appendix-report.md */
enum change { CHANGED, NEW, SAME };

static enum change change_of(const struct store *s, const struct store *pub, const char *id)
{
    char key[KEY_SIZE];
    const char *then = text_of(pub, keyf(key, "claim.%s.verdict", id));
    if (strcmp(then, "n/a") == 0)
        return NEW;
    return strcmp(text_of(s, key), then) == 0 ? SAME : CHANGED;
}

static void say_claim(FILE *out, const struct store *s, const struct store *pub, const char *id,
                      enum change c)
{
    static const char *const MARK[] = {"CHANGED", "new", "same"};
    char key[KEY_SIZE], k2[KEY_SIZE], k3[KEY_SIZE];
    const char *now = text_of(s, keyf(key, "claim.%s.verdict", id));
    const char *then = text_of(pub, key);
    const char *threshold = text_of(s, keyf(k2, "claim.%s.threshold", id));
    keyf(k3, "claim.%s.estimate", id);
    if (c == CHANGED)
        sayf(out, 0, 9, "%-7s  %s: %s here, %s in the published run (threshold: %s)", MARK[c],
             id, now, then, threshold);
    else
        sayf(out, 0, 9, "%-7s  %s: %s (threshold: %s)", MARK[c], id, now, threshold);
    if (c == NEW)
        sayf(out, 9, 11, "%s here; the published run did not judge it", text_of(s, k3));
    else
        sayf(out, 9, 11, "%s here, %s in the published run", text_of(s, k3), text_of(pub, k3));
    if (c != CHANGED)
        return;
    struct reason why[MAX_REASONS];
    size_t n = differ_most(s, pub, id, why);
    if (n == 0)
        say(out, 9, 11, "no primitive figure it rests on was measured in both runs");
    else
        say(out, 9, 11, "the primitive figures it rests on that differ most (here / published):");
    for (size_t i = 0; i < n; i++)
        sayf(out, 11, 13, "%-44s %s / %s (%.2fx)", why[i].key, text_of(s, why[i].key),
             text_of(pub, why[i].key), why[i].here / why[i].there);
}

static void compare_claims(struct store *s, const struct store *pub, FILE *out)
{
    static char ids[128][KEY_SIZE];
    char changed_list[TEXT_SIZE] = "";
    size_t n = 0;
    int count[3] = {0, 0, 0};
    for (size_t i = 0; i < s->n && n < 128; i++) {
        const char *k = s->values[i].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) == 0 && len > 14 && strcmp(k + len - 8, ".verdict") == 0)
            snprintf(ids[n++], KEY_SIZE, "%.*s", (int)(len - 14), k + 6);
    }
    for (size_t i = 0; i < n; i++)
        count[change_of(s, pub, ids[i])]++;
    sayf(out, 0, 2, "\nThe claims (%zu), the changed first: %d changed, %d new to this run, %d "
         "the same.", n, count[CHANGED], count[NEW], count[SAME]);
    for (int c = CHANGED; c <= SAME; c++)
        for (size_t i = 0; i < n; i++)
            if ((int)change_of(s, pub, ids[i]) == c)
                say_claim(out, s, pub, ids[i], (enum change)c);
    for (size_t i = 0; i < n; i++)
        if (change_of(s, pub, ids[i]) == CHANGED)
            snprintf(changed_list + strlen(changed_list), TEXT_SIZE - strlen(changed_list),
                     "%s%.*s", changed_list[0] != '\0' ? ", " : "", KEY_SIZE - 1, ids[i]);
    put_count(s, "compare.changed", count[CHANGED]);
    put_count(s, "compare.new", count[NEW]);
    put_text(s, "compare.changed_list", count[CHANGED] ? changed_list : "none");
}

/* <<an-aligned-text-table>>, paper/90-appendix-report.md */
enum { MAX_COLUMNS = 12, TEXT_CELL = 24 };

struct text_table {
    const char *cells[128][MAX_COLUMNS];
    size_t rows, columns;
};

/* The first `rows` rows, each cell at most TEXT_CELL characters ("..." when cut). */
static void write_text_table(FILE *out, const struct text_table *t, size_t rows)
{
    size_t width[MAX_COLUMNS] = {0};
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < t->columns; c++) {
            size_t w = strlen(t->cells[r][c]);
            w = c > 0 && w > TEXT_CELL ? TEXT_CELL : w;
            width[c] = w > width[c] ? w : width[c];
        }
    for (size_t r = 0; r < rows; r++) {
        for (size_t c = 0; c < t->columns; c++) {
            const char *cell = t->cells[r][c];
            int cut = c > 0 && strlen(cell) > TEXT_CELL;
            int shown = cut ? TEXT_CELL : (int)strlen(cell);
            fprintf(out, "  %.*s%s", cut ? TEXT_CELL - 3 : shown, cell, cut ? "..." : "");
            if (c + 1 < t->columns)
                fprintf(out, "%*s", (int)width[c] - shown, "");
        }
        fputc('\n', out);
    }
}

static void write_csv_table(struct store *s, const char *name, const struct text_table *t)
{
    struct csv_out out;
    if (table_open(s, name, &out, t->cells[0], (int)t->columns) != 0)
        return;
    for (size_t r = 1; r < t->rows; r++) {
        for (size_t c = 0; c < t->columns; c++)
            csv_out_text(&out, t->cells[r][c]);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
}

/* <<the-claims-table-beside-the-published-run>>, paper/90-appendix-report.md */
static void claims_beside_published(struct store *s, const struct store *pub)
{
    static const char *const FIRST[] = {"Claim", "Threshold", "Estimate [95% interval]",
                                        "Verdict"};
    char path[4096], err[512], key[KEY_SIZE], cell[TEXT_SIZE + 16];
    struct csv_table claims;
    struct csv_out out;
    int order[MAX_COLUMNS], n = 0;
    /* <<read-this-runs-claims-table>>, paper/90-appendix-report.md */
    snprintf(path, sizeof path, "%s/tables/claims.csv", s->out_dir);
    if (csv_table_load(path, &claims, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    for (size_t f = 0; f < 4; f++)
        if ((order[n] = csv_table_column(&claims, FIRST[f])) >= 0)
            n++;
    int first = n;
    /* <<keep-the-claim-first-and-the-other-columns-after>>, paper/90-appendix-report.md */
    if (first == 0 || order[0] != 0) {            /* claims.c's table starts with the claim */
        fprintf(stderr, "ipctax-summary: %s does not start with a column Claim\n", path);
        s->errors++;
        csv_table_free(&claims);
        return;
    }
    for (size_t c = 0; c < claims.n_cols && n < MAX_COLUMNS - 2; c++) {
        int shown = 0;
        for (int i = 0; i < first; i++)
            shown |= order[i] == (int)c;
        if (!shown)
            order[n++] = (int)c;
    }
    const char *header[MAX_COLUMNS];
    /* <<head-the-columns-with-the-published-run>>, paper/90-appendix-report.md */
    for (int i = 0, o = 0; i < n; i++) {
        header[o++] = strcmp(claims.cells[order[i]], "Estimate [95% interval]") == 0
                          ? "This run [95% interval]"
                          : claims.cells[order[i]];
        if (i + 1 == first) {
            header[o++] = "Published run [95% interval]";
            header[o++] = "Published verdict";
        }
    }
    /* <<write-each-claim-beside-the-published-run>>, paper/90-appendix-report.md */
    if (table_open(s, "claims_compared", &out, header, n + 2) == 0) {
        for (size_t r = 0; r < claims.n_rows; r++) {
            const char *id = csv_table_cell(&claims, r, 0);
            const char *now = text_of(s, keyf(key, "claim.%s.verdict", id));
            const char *then = text_of(pub, key);
            snprintf(cell, sizeof cell, "%s%s", strcmp(then, "n/a") == 0 ? "new" : then,
                     strcmp(then, "n/a") != 0 && strcmp(now, then) != 0 ? " (changed)" : "");
            for (int i = 0; i < n; i++) {
                csv_out_text(&out, csv_table_cell(&claims, r, order[i]));
                if (i + 1 == first) {
                    csv_out_text(&out, text_of(pub, keyf(key, "claim.%s.estimate", id)));
                    csv_out_text(&out, cell);
                }
            }
            csv_out_end_row(&out);
        }
        table_close(s, &out);
    }
    csv_table_free(&claims);
}

/* <<the-verdict-strip>>, paper/90-appendix-report.md */
static void verdict_strip(struct store *s, const struct store *pub, int same)
{
    char path[4096], err[512], key[KEY_SIZE];
    struct csv_table across = {0};
    struct csv_out out;
    snprintf(path, sizeof path, "%s/tables/reproductions.csv", s->out_dir);
    int kept = csv_table_load(path, &across, err, sizeof err) == 0;
    static char ids[127][KEY_SIZE];
    const char *header[128] = {"Run"};
    size_t n_claims = 0;
    /* <<a-column-for-each-judged-claim>>, paper/90-appendix-report.md */
    for (size_t i = 0; i < s->n && n_claims < 127; i++) {
        const char *k = s->values[i].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) == 0 && len > 14 && strcmp(k + len - 8, ".verdict") == 0) {
            snprintf(ids[n_claims], KEY_SIZE, "%.*s", (int)(len - 14), k + 6);
            header[n_claims + 1] = ids[n_claims];
            n_claims++;
        }
    }
    if (table_open(s, "verdicts", &out, header, (int)n_claims + 1) != 0) {
        if (kept)
            csv_table_free(&across);
        return;
    }
    /* <<rows-for-this-run-and-the-published-one>>, paper/90-appendix-report.md */
    for (int run = 0; run < 2; run++) {
        const struct store *from = run == 0 ? s : pub;
        if (run == 1 && same)
            break;
        csv_out_text(&out, run == 0 ? (same ? "This run (the published run)" : "This run")
                                    : "Published run");
        for (size_t c = 0; c < n_claims; c++)
            csv_out_text(&out, text_of(from, keyf(key, "claim.%s.verdict", ids[c])));
        csv_out_end_row(&out);
    }
    /* <<a-row-for-each-kept-run>>, paper/90-appendix-report.md */
    for (size_t col = 1; kept && col < across.n_cols; col++) {
        const char *label = across.cells[col];
        if (strcmp(label, "Agree") == 0 || strcmp(label, "This run") == 0)
            continue;
        csv_out_text(&out, label);
        for (size_t c = 0; c < n_claims; c++) {
            const char *v = "n/a";
            for (size_t r = 0; r < across.n_rows; r++)
                if (strcmp(csv_table_cell(&across, r, 0), ids[c]) == 0)
                    v = csv_table_cell(&across, r, (int)col);
            csv_out_text(&out, v);
        }
        csv_out_end_row(&out);
    }
    table_close(s, &out);
    if (kept)
        csv_table_free(&across);
}

/* <<the-published-ratios-for-the-headline-figure>>, paper/90-appendix-report.md */
static void published_ratios(struct store *s, const struct store *pub, int same)
{
    static const char *const header[] = {"architecture", "ratio", "low", "high", "drawn"};
    static const char *const END[] = {"ratio", "ratio.low", "ratio.high"};
    char path[4096], err[512], key[KEY_SIZE];
    struct csv_table rows;
    struct csv_out out;
    snprintf(path, sizeof path, "%s/architectures.csv", s->out_dir);
    if (csv_table_load(path, &rows, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    if (figure_data_open(s, "architectures_published.csv", &out, header, 5) == 0) {
        for (size_t r = 0; r < rows.n_rows; r++) {
            const char *arch = csv_table_cell(&rows, r, 0);
            csv_out_text(&out, arch);
            for (size_t e = 0; e < 3; e++) {
                double x = store_number(pub, keyf(key, "arch.%s.%s", arch, END[e]));
                if (isfinite(x))
                    csv_out_double(&out, x);
                else
                    csv_out_text(&out, "n/a");
            }
            csv_out_text(&out, same ? "0" : "1");
            csv_out_end_row(&out);
        }
        table_close(s, &out);
    }
    csv_table_free(&rows);
}

/* <<what-to-run-next>>, paper/90-appendix-report.md */
static void say_next(FILE *out, enum results r, int same, const struct store *s)
{
    if (r == RESULTS_DIFFERENT)
        say(out, 0, 6, "\nNext: make check-spec (the numpy oracle names the first combination "
            "that differs), then make test; send both outputs, with the compiler and the C "
            "library (data/machine.csv), to the project.");
    else if (r == RESULTS_OTHER_JOB || strcmp(text_of(s, "run.reduced"), "yes") == 0)
        say(out, 0, 6, "\nNext: make paper, without QUICK, measures the study's job; a "
            "reduced run's verdicts decide nothing.");
    else if (same)
        say(out, 0, 6, "\nNext: make paper measures this machine and sets its run beside the "
            "published one.");
    else
        say(out, 0, 6, "\nNext: make test checks this build; then make reproduction keeps this "
            "run and writes it as one file to send back (site/index.html shows it beside the "
            "published run now).");
}

/* <<compare-with-published>>, paper/90-appendix-report.md */
void compare_with_published(struct store *s, const char *published_dir)
{
    static struct text_table t;
    char path[4096], err[512], line[4 * TEXT_SIZE + 64];
    static const char *const RESULTS[] = {"same", "different", "other job", "unknown"};
    struct store pub;
    /* <<read-the-published-runs-values>>, paper/90-appendix-report.md */
    store_init(&pub, published_dir);
    snprintf(path, sizeof path, "%s/values.csv", published_dir);
    if (store_read(&pub, path, err, sizeof err) != 0)
        pub.n = 0;                                 /* an older layout: every value n/a */
    int same = strcmp(text_of(s, "machine.date"), text_of(&pub, "machine.date")) == 0 &&
               strcmp(text_of(s, "machine.commit"), text_of(&pub, "machine.commit")) == 0;
    enum results r = compare_results(s, &pub);
    snprintf(path, sizeof path, "%s/compare.txt", s->out_dir);
    FILE *out = fopen(path, "w");
    /* <<stop-when-compare-txt-cannot-be-opened>>, paper/90-appendix-report.md */
    if (out == NULL) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", path);
        s->errors++;
        store_free(&pub);
        return;
    }
    /* <<say-the-machines-the-results-and-the-claims>>, paper/90-appendix-report.md */
    say(out, 0, 2, same ? "This run is the published run (data/ as committed)."
                        : "This run beside the published run (data/ as committed):");
    sayf(out, 2, 17, "this run       %s", machine_line(line, sizeof line, s));
    if (!same)
        sayf(out, 2, 17, "published run  %s", pub.n > 0 ? machine_line(line, sizeof line, &pub)
                                                         : "not summarized (an older layout?)");
    fputc('\n', out);
    say_results(out, r, s, &pub);
    say(out, 0, 2, "\nWhat \"changed\" means: a claim's verdict is holds, fails or undecided by "
        "where the 95% interval of its estimate lies against the claim's registered threshold "
        "(paper/claims.csv): wholly on the claim's side, wholly on the other, or across it. A "
        "verdict changed when this run's is not the published run's. With the same results, "
        "a changed verdict is a finding about this machine (its timings moved an estimate "
        "across a threshold), not a fault of the build.");
    compare_claims(s, &pub, out);
    /* <<say-the-key-figures-side-by-side>>, paper/90-appendix-report.md */
    t = (struct text_table){.rows = 1, .columns = 3};
    t.cells[0][0] = "Figure", t.cells[0][1] = "This run", t.cells[0][2] = "The published run";
    char labels[N_COMPARED][80], keys[N_COMPARED][KEY_SIZE];
    for (size_t i = 0; i < N_COMPARED; i++, t.rows++) {
        compared_figure(i, labels[i], sizeof labels[i], keys[i]);
        t.cells[t.rows][0] = labels[i];
        t.cells[t.rows][1] = text_of(s, keys[i]);
        t.cells[t.rows][2] = text_of(&pub, keys[i]);
    }
    say(out, 0, 2, "\nKey figures (timings need not agree from machine to machine; the results "
        "must):");
    write_text_table(out, &t, t.rows - MACHINE_ROWS);
    write_csv_table(s, "compare", &t);     /* t points at values, which a put may move */
    say_next(out, r, same, s);
    if (fclose(out) != 0)
        s->errors++;
    /* <<put-what-the-comparison-found>>, paper/90-appendix-report.md */
    put_text(s, "compare.same_run", same ? "yes" : "no");
    put_text(s, "compare.results", RESULTS[r]);
    put_text(s, "compare.published.commit", text_of(&pub, "machine.commit"));
    put_text(s, "compare.published.date", text_of(&pub, "machine.date"));
    put_text(s, "compare.published.cpu", text_of(&pub, "machine.cpu"));
    claims_beside_published(s, &pub);
    verdict_strip(s, &pub, same);
    published_ratios(s, &pub, same);
    store_free(&pub);
}
