/*
 * compare.c - the published run's values beside this run's.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <stdio.h>
#include <string.h>

#include "report/compare.h"
#include "report/csvread.h"

static const struct {
    const char *label, *key;
} COMPARED[] = {
    {"first combination's PnL", "sweep.first.pnl"},
    {"first combination's trades", "sweep.first.trades"},
    {"series SHA-256", "series.sha256"},
    {"in_process, median (s)", "arch.in_process.median_s"},
    {"batch_unix over in_process", "arch.batch_unix.ratio"},
    {"batch_unix, boundary share (%)", "call.batch_unix.share_pct"},
    {"A/A controls over in_process", "aa.ratio"},
    {"python_batch_unix over numba", "pair.python_batch_over_numba"},
    {"echo of one double (us)", "echo.c.unix.protocol.p50_us.1"},
    {"echo of the series (us)", "echo.c.unix.protocol.p50_us.150000"},
    {"JSON over raw encoding", "serial.c.json.over_raw"},
    {"claims that hold", "claims.held"},
    {"claims that fail", "claims.failed"},
    {"claims undecided", "claims.undecided"},
    {"rounds", "run.rounds"},
    {"processor", "machine.cpu"},
    {"date", "machine.date"},
    {"commit", "machine.commit"},
};
enum { N_COMPARED = sizeof COMPARED / sizeof COMPARED[0] };

static const char *published_value(const struct csv_table *t, const char *key)
{
    int k = csv_table_column(t, "key"), v = csv_table_column(t, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), key) == 0)
            return csv_table_cell(t, r, v);
    return "n/a";
}

void compare_with_published(struct store *s, const char *published_dir)
{
    static const char *const header[] = {"Figure", "This run", "The published run"};
    char path[4096], err[512];
    struct csv_table pub;
    struct csv_out t;
    snprintf(path, sizeof path, "%s/values.csv", published_dir);
    if (csv_table_load(path, &pub, err, sizeof err) != 0)
        memset(&pub, 0, sizeof pub);               /* an older layout: every value n/a */
    size_t width[3] = {strlen(header[0]), strlen(header[1]), strlen(header[2])};
    const char *cells[N_COMPARED][3];
    for (size_t i = 0; i < N_COMPARED; i++) {
        const struct value *mine = store_get(s, COMPARED[i].key);
        cells[i][0] = COMPARED[i].label;
        cells[i][1] = mine != NULL ? mine->text : "n/a";
        cells[i][2] = pub.n_cols > 0 ? published_value(&pub, COMPARED[i].key) : "n/a";
        for (int c = 0; c < 3; c++)
            width[c] = strlen(cells[i][c]) > width[c] ? strlen(cells[i][c]) : width[c];
    }
    snprintf(path, sizeof path, "%s/compare.txt", s->out_dir);
    FILE *text = fopen(path, "w");
    if (table_open(s, "compare", &t, header, 3) == 0 && text != NULL) {
        fprintf(text, "%-*s  %-*s  %s\n", (int)width[0], header[0], (int)width[1], header[1],
                header[2]);
        for (size_t i = 0; i < N_COMPARED; i++) {
            for (int c = 0; c < 3; c++)
                csv_out_text(&t, cells[i][c]);
            csv_out_end_row(&t);
            fprintf(text, "%-*s  %-*s  %s\n", (int)width[0], cells[i][0], (int)width[1],
                    cells[i][1], cells[i][2]);
        }
        table_close(s, &t);
    } else {
        s->errors++;
    }
    if (text != NULL)
        fclose(text);
    if (pub.n_cols > 0)
        csv_table_free(&pub);
}
