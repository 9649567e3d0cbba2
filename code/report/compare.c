/*
 * compare.c - the published run's values beside this run's, figure by figure
 * and claim by claim.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"
#include "report/csvread.h"

/* The labels are the table's words (a table's words are the summary's: see table_open). */
static const struct {
    const char *label, *key;
} COMPARED[] = {
    {"first combination's PnL", "sweep.first.pnl"},
    {"first combination's trades", "sweep.first.trades"},
    {"series SHA-256", "series.sha256"},
    {"in_process, median (s)", "arch.in_process.median_s"},
    {"batch_unix over in_process", "arch.batch_unix.ratio"},
    {"batch_unix, boundary share (%)", "call.batch_unix.share_pct"},
    {"A/A control in duets over in_process", "design.duet.ratio"},
    {"python_batch_unix over numba", "pair.python_batch_over_numba"},
    {"echo of one double, one CPU (us)", "echo.c.unix.same.protocol.p50_us.1"},
    {"echo of the series, one CPU (us)", "echo.c.unix.same.protocol.p50_us.150000"},
    {"JSON over raw encoding", "serial.c.json.over_raw"},
    {"claims that hold", "claims.held"},
    {"claims that fail", "claims.failed"},
    {"claims undecided", "claims.undecided"},
    {"rounds", "run.rounds"},
    {"processor", "machine.cpu"},
    {"family and model", "machine.cpu_family_model"},
    {"date", "machine.date"},
    {"commit", "machine.commit"},
};
enum { N_COMPARED = sizeof COMPARED / sizeof COMPARED[0] };

static const char *published_value(const struct csv_table *t, const char *key)
{
    int k = csv_table_column(t, "key"), v = csv_table_column(t, "value");
    for (size_t r = 0; t->n_cols > 0 && k >= 0 && v >= 0 && r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), key) == 0)
            return csv_table_cell(t, r, v);
    return "n/a";
}

static const char *mine(const struct store *s, const char *key)
{
    const struct value *v = store_get(s, key);
    return v != NULL ? v->text : "n/a";
}

enum { MAX_COLUMNS = 8 };

struct text_table {
    const char *cells[128][MAX_COLUMNS];
    size_t rows, columns;
};

static void write_text_table(FILE *out, const struct text_table *t)
{
    size_t width[MAX_COLUMNS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->columns; c++)
            width[c] = strlen(t->cells[r][c]) > width[c] ? strlen(t->cells[r][c]) : width[c];
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->columns; c++)
            fprintf(out, "%-*s%s", c + 1 < t->columns ? (int)width[c] : 0, t->cells[r][c],
                    c + 1 < t->columns ? "  " : "\n");
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

static void compare_claims(struct store *s, const struct csv_table *pub, FILE *text)
{
    static struct text_table t;
    static char ids[128][KEY_SIZE];
    char key[KEY_SIZE], changed_list[TEXT_SIZE] = "";
    int changed = 0, new_claims = 0;
    t = (struct text_table){.rows = 1, .columns = 6};
    const char *header[] = {"Claim", "This run", "Verdict", "The published run", "Its verdict",
                            "Changed"};
    memcpy(t.cells[0], header, sizeof header);
    for (size_t i = 0; i < s->n && t.rows < 128; i++) {
        const char *k = s->values[i].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) != 0 || len < 15 || strcmp(k + len - 8, ".verdict") != 0)
            continue;
        char *id = ids[t.rows];
        snprintf(id, KEY_SIZE, "%.*s", (int)(len - 14), k + 6);
        const char *now = s->values[i].text;
        const char *then = published_value(pub, k);
        int absent = strcmp(then, "n/a") == 0;
        int differs = !absent && strcmp(now, then) != 0;
        const char *row[] = {id, mine(s, keyf(key, "claim.%s.estimate", id)), now,
                             published_value(pub, keyf(key, "claim.%s.estimate", id)), then,
                             absent ? "new" : differs ? "CHANGED" : ""};
        memcpy(t.cells[t.rows++], row, sizeof row);
        new_claims += absent;
        if (differs) {
            changed++;
            snprintf(changed_list + strlen(changed_list), TEXT_SIZE - strlen(changed_list),
                     "%s%s", changed_list[0] != '\0' ? ", " : "", id);
        }
    }
    fprintf(text, "\nClaim by claim:\n");
    write_text_table(text, &t);
    fprintf(text, "%d of %zu verdicts changed%s%s\n", changed, t.rows - 1,
            changed ? ": " : "", changed_list);
    put_count(s, "compare.changed", changed);
    put_count(s, "compare.new", new_claims);
    put_text(s, "compare.changed_list", changed ? changed_list : "none");
}

static void claims_beside_published(struct store *s, const struct csv_table *pub)
{
    char path[4096], err[512], key[KEY_SIZE], cell[KEY_SIZE + 16];
    struct csv_table claims;
    struct csv_out out;
    snprintf(path, sizeof path, "%s/tables/claims.csv", s->out_dir);
    if (csv_table_load(path, &claims, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    if (claims.n_cols + 1 > MAX_COLUMNS) {       /* the table of claims.c has 7 */
        fprintf(stderr, "ipctax-summary: %s has too many columns to compare\n", path);
        s->errors++;
        csv_table_free(&claims);
        return;
    }
    const char *header[MAX_COLUMNS];
    for (size_t c = 0; c < claims.n_cols; c++)
        header[c] = claims.cells[c];
    header[claims.n_cols] = "Published";
    if (table_open(s, "claims_compared", &out, header, (int)claims.n_cols + 1) == 0) {
        for (size_t r = 0; r < claims.n_rows; r++) {
            const char *now = mine(s, keyf(key, "claim.%s.verdict", csv_table_cell(&claims, r, 0)));
            const char *then = published_value(pub, key);
            snprintf(cell, sizeof cell, "%s%s", strcmp(then, "n/a") == 0 ? "new" : then,
                     strcmp(then, "n/a") != 0 && strcmp(now, then) != 0 ? " (changed)" : "");
            for (size_t c = 0; c < claims.n_cols; c++)
                csv_out_text(&out, csv_table_cell(&claims, r, c));
            csv_out_text(&out, cell);
            csv_out_end_row(&out);
        }
        table_close(s, &out);
    }
    csv_table_free(&claims);
}

void compare_with_published(struct store *s, const char *published_dir)
{
    static struct text_table t;
    char path[4096], err[512];
    struct csv_table pub;
    snprintf(path, sizeof path, "%s/values.csv", published_dir);
    if (csv_table_load(path, &pub, err, sizeof err) != 0)
        memset(&pub, 0, sizeof pub);               /* an older layout: every value n/a */
    t = (struct text_table){.rows = 1, .columns = 3};
    t.cells[0][0] = "Figure", t.cells[0][1] = "This run", t.cells[0][2] = "The published run";
    for (size_t i = 0; i < N_COMPARED; i++, t.rows++) {
        t.cells[t.rows][0] = COMPARED[i].label;
        t.cells[t.rows][1] = mine(s, COMPARED[i].key);
        t.cells[t.rows][2] = published_value(&pub, COMPARED[i].key);
    }
    write_csv_table(s, "compare", &t);
    int same = strcmp(mine(s, "machine.date"), published_value(&pub, "machine.date")) == 0 &&
               strcmp(mine(s, "machine.commit"), published_value(&pub, "machine.commit")) == 0;
    snprintf(path, sizeof path, "%s/compare.txt", s->out_dir);
    FILE *text = fopen(path, "w");
    if (text != NULL)
        write_text_table(text, &t);            /* t points at values, which a put may move */
    put_text(s, "compare.same_run", same ? "yes" : "no");
    if (text == NULL) {
        s->errors++;
    } else {
        compare_claims(s, &pub, text);
        claims_beside_published(s, &pub);
        if (fclose(text) != 0)
            s->errors++;
    }
    if (pub.n_cols > 0)
        csv_table_free(&pub);
}
