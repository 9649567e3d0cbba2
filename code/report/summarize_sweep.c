/*
 * summarize_sweep.c - what the kernel computed, as the paper quotes it.
 *
 * Tangled from paper/91-appendix-data-to-prose.md.
 */
#include <stdio.h>

#include "report/summarize.h"

static void summarize_oracle(struct summary *s)
{
    struct csv_table t;
    char key[KEY_SIZE];
    if (load_data(s, "oracle.csv", &t) != 0)
        return;
    int k = csv_table_column(&t, "key"), v = csv_table_column(&t, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < t.n_rows; r++) {
        const char *name = csv_table_cell(&t, r, k);
        double n;
        keyf(key, "oracle.%s", name);
        if (csv_table_number(&t, r, v, &n) == 0)
            put_count(s, key, (int64_t)n);
        else
            put_text(s, key, csv_table_cell(&t, r, v));
    }
    const struct number *combos = value_number(s, "oracle.combos");
    const struct number *identical = value_number(s, "oracle.identical");
    if (combos != NULL && identical != NULL)
        put_count(s, "oracle.mismatches", (int64_t)(combos->value - identical->value));
    csv_table_free(&t);
}

static void put_combo(struct summary *s, const char *which, const struct csv_table *t,
                      size_t row)
{
    char key[KEY_SIZE];
    double pnl, trades, length;
    if (csv_table_number(t, row, csv_table_column(t, "pnl"), &pnl) != 0 ||
        csv_table_number(t, row, csv_table_column(t, "trades"), &trades) != 0 ||
        csv_table_number(t, row, csv_table_column(t, "L"), &length) != 0) {
        fprintf(stderr, "ipctax-summary: sweep.csv row %zu is not numeric\n", row + 1);
        s->errors++;
        return;
    }
    put_fixed(s, keyf(key, "sweep.%s.pnl", which), pnl, 2);
    put_count(s, keyf(key, "sweep.%s.trades", which), (int64_t)trades);
    put_count(s, keyf(key, "sweep.%s.L", which), (int64_t)length);
}

void summarize_sweep(struct summary *s)
{
    struct csv_table t;
    if (load_data(s, "sweep.csv", &t) != 0)
        return;
    const char *needed[] = {"pnl", "trades", "L"};
    for (size_t i = 0; i < 3; i++)
        if (csv_table_column(&t, needed[i]) < 0 || t.n_rows == 0) {
            fprintf(stderr, "ipctax-summary: sweep.csv lacks rows or column %s\n", needed[i]);
            s->errors++;
            csv_table_free(&t);
            return;
        }
    put_combo(s, "first", &t, 0);
    put_combo(s, "last", &t, t.n_rows - 1);
    put_count(s, "sweep.combos", (int64_t)t.n_rows);
    csv_table_free(&t);
    summarize_oracle(s);
}
