/*
 * summarize_comparison.c - this build's figures beside the published run's.
 *
 * Tangled from paper/89-reproduce.md.
 */
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

/* The figures compared, with the label the table gives them. */
static const struct { const char *key, *label; } COMPARED[] = {
    {"machine.cpu", "processor"},
    {"machine.date", "measured on"},
    {"run.bars", "bars"},
    {"run.runs", "runs per architecture"},
    {"series.sha256", "series SHA-256"},
    {"sweep.first.pnl", "first combination's PnL"},
    {"sweep.first.trades", "first combination's trades"},
    {"gate.all", "equivalence gate"},
    {"arch.in_process.median_s", "in_process median (s)"},
    {"arch.in_process_tuned.median_s", "in_process_tuned median (s)"},
    {"arch.batch_unix.median_s", "batch_unix median (s)"},
    {"arch.chatty_unix.median_s", "chatty_unix median (s)"},
    {"arch.spawn_stdin.median_s", "spawn_stdin median (s)"},
    {"arch.per_bar_unix.median_s", "per_bar_unix median (s)"},
    {"arch.json_chatty_unix.median_s", "json_chatty_unix median (s)"},
    {"echo.unix.floor_us", "Unix socket floor (µs)"},
    {"echo.unix.bandwidth_gbps", "Unix socket bandwidth (GB/s)"},
    {"spawn.p50_ms", "one spawn (ms)"},
    {"claims.held", "claims that hold"},
    {"claims.judged", "claims judged"},
};

/* The published value of key, from the published summary's values.csv. */
static const char *published(const struct csv_table *t, const char *key)
{
    for (size_t r = 0; r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, 0), key) == 0)
            return csv_table_cell(t, r, 1);
    return "";
}

static const char *ours(const struct summary *s, const char *key, char *buf, size_t size)
{
    const struct number *n = value_number(s, key);
    if (n != NULL)
        return n->text;
    /* texts (processor, dates, verdicts) are read back from what was put */
    snprintf(buf, size, "%s", "");
    return buf;
}

void summarize_comparison(struct summary *s)
{
    static const char *const header[] = {"Figure", "This build", "Published run"};
    char path[4096], err[512], buf[256];
    struct csv_table pub, mine;
    struct csv_out table;
    if (s->published_dir == NULL)
        return;                                /* nothing to compare with */
    snprintf(path, sizeof path, "%s/values.csv", s->published_dir);
    if (csv_table_load(path, &pub, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        return;
    }
    fflush(s->values.file);
    if (csv_table_load(s->values.temp_path, &mine, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        s->errors++;
        csv_table_free(&pub);
        return;
    }
    if (open_table(s, "compare", &table, header, 3) != 0) {
        csv_table_free(&pub);
        csv_table_free(&mine);
        return;
    }
    for (size_t i = 0; i < sizeof COMPARED / sizeof COMPARED[0]; i++) {
        const char *this_run = ours(s, COMPARED[i].key, buf, sizeof buf);
        if (this_run[0] == '\0')
            this_run = published(&mine, COMPARED[i].key);
        csv_out_text(&table, COMPARED[i].label);
        csv_out_text(&table, this_run);
        csv_out_text(&table, published(&pub, COMPARED[i].key));
        csv_out_end_row(&table);
    }
    put_text(s, "compare.same_run",
             strcmp(published(&pub, "machine.date"), published(&mine, "machine.date")) == 0
                 ? "yes" : "no");
    if (csv_out_close(&table) != 0)
        s->errors++;
    csv_table_free(&pub);
    csv_table_free(&mine);
}
