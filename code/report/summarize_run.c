/*
 * summarize_run.c - the machine, the settings, the original's figures.
 *
 * Tangled from paper/91-appendix-data-to-prose.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/grid.h"
#include "kernel/series.h"
#include "report/summarize.h"

void summarize_run(struct summary *s)
{
    struct csv_table t;
    char key[KEY_SIZE];
    if (load_data(s, "machine.csv", &t) != 0)
        return;
    int k = csv_table_column(&t, "key"), v = csv_table_column(&t, "value");
    long bars = 0, runs = 0, combos = 0;
    for (size_t r = 0; k >= 0 && v >= 0 && r < t.n_rows; r++) {
        const char *name = csv_table_cell(&t, r, k), *value = csv_table_cell(&t, r, v);
        if (strcmp(name, "bars") == 0 || strcmp(name, "runs") == 0 ||
            strcmp(name, "combos") == 0 || strcmp(name, "seed") == 0) {
            long n = strtol(value, NULL, 10);
            put_count(s, keyf(key, "run.%s", name), n);
            bars = strcmp(name, "bars") == 0 ? n : bars;
            runs = strcmp(name, "runs") == 0 ? n : runs;
            combos = strcmp(name, "combos") == 0 ? n : combos;
        } else if (strcmp(name, "series_sha256") == 0) {
            put_text(s, "series.sha256", value);
        } else {
            put_text(s, keyf(key, "machine.%s", name), value);
        }
    }
    int reduced = bars != DEFAULT_BARS || combos != DEFAULT_COMBOS || runs < 10;
    put_text(s, "run.reduced", reduced ? "yes" : "no");
    csv_table_free(&t);
}

void summarize_original(struct summary *s)
{
    struct csv_table t;
    char key[KEY_SIZE];
    if (load_data(s, "original.csv", &t) != 0)
        return;
    int k = csv_table_column(&t, "key"), v = csv_table_column(&t, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < t.n_rows; r++)
        put_text(s, keyf(key, "orig.%s", csv_table_cell(&t, r, k)), csv_table_cell(&t, r, v));
    csv_table_free(&t);
}
