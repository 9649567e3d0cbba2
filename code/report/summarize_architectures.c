/*
 * summarize_architectures.c - the headline table: every architecture's
 * timings and its equivalence verdict.
 *
 * Tangled from paper/60-architectures.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"
#include "wire/timing.h"

enum { MAX_GROUPS = 64 };

struct arch_group {
    char name[64];
    double *seconds;
    size_t n;
    struct sample_stats stats;
};

/* Groups the rows of architectures.csv by name, in order of first appearance. */
static size_t group_runs(const struct csv_table *t, struct arch_group *groups)
{
    int name_col = csv_table_column(t, "architecture");
    int sec_col = csv_table_column(t, "seconds");
    size_t n_groups = 0;
    for (size_t r = 0; name_col >= 0 && sec_col >= 0 && r < t->n_rows; r++) {
        const char *name = csv_table_cell(t, r, name_col);
        double seconds;
        if (csv_table_number(t, r, sec_col, &seconds) != 0)
            continue;
        size_t g = 0;
        while (g < n_groups && strcmp(groups[g].name, name) != 0)
            g++;
        if (g == n_groups) {
            if (n_groups == MAX_GROUPS)
                continue;
            snprintf(groups[g].name, sizeof groups[g].name, "%s", name);
            groups[g].seconds = malloc(t->n_rows * sizeof(double));
            groups[g].n = 0;
            n_groups++;
        }
        if (groups[g].seconds != NULL)
            groups[g].seconds[groups[g].n++] = seconds;
    }
    for (size_t g = 0; g < n_groups; g++)
        groups[g].stats = sample_stats(groups[g].seconds, groups[g].n);
    return n_groups;
}

/* The baseline's statistics: its fastest run is what ratios divide by. */
static const struct sample_stats *baseline(const struct arch_group *groups, size_t n)
{
    for (size_t g = 0; g < n; g++)
        if (strcmp(groups[g].name, "in_process") == 0)
            return &groups[g].stats;
    return NULL;
}

static void put_architecture(struct summary *s, const struct arch_group *g,
                             const struct sample_stats *b)
{
    char key[KEY_SIZE];
    const struct sample_stats *st = &g->stats;
    double base = b != NULL ? b->min : 0.0;
    put_fixed(s, keyf(key, "arch.%s.median_s", g->name), st->p50, 3);
    put_fixed(s, keyf(key, "arch.%s.min_s", g->name), st->min, 3);
    put_fixed(s, keyf(key, "arch.%s.max_s", g->name), st->max, 3);
    put_fixed(s, keyf(key, "arch.%s.median_ms", g->name), st->p50 * 1e3, 1);
    put_fixed(s, keyf(key, "arch.%s.spread_pct", g->name), (st->max - st->min) / st->p50 * 100, 1);
    put_fixed(s, keyf(key, "arch.%s.ratio", g->name), base > 0 ? st->min / base : 0.0, 2);
    put_fixed(s, keyf(key, "arch.%s.speedup", g->name), st->min > 0 ? base / st->min : 0.0, 1);
    put_fixed(s, keyf(key, "arch.%s.overhead_pct", g->name),
              base > 0 ? (st->min / base - 1.0) * 100.0 : 0.0, 2);
    if (b != NULL && b->p50 > 0)
        put_fixed(s, keyf(key, "arch.%s.median_ratio", g->name), st->p50 / b->p50, 2);
    put_count(s, keyf(key, "arch.%s.runs", g->name), (int64_t)st->n);
}
static const char *gate_verdict(const struct csv_table *gate, const char *name)
{
    int a = csv_table_column(gate, "architecture"), v = csv_table_column(gate, "verdict");
    for (size_t r = 0; a >= 0 && v >= 0 && r < gate->n_rows; r++)
        if (strcmp(csv_table_cell(gate, r, a), name) == 0)
            return csv_table_cell(gate, r, v);
    return "not judged";
}

static const char *original_value(const struct csv_table *orig, const char *key)
{
    int k = csv_table_column(orig, "key"), v = csv_table_column(orig, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < orig->n_rows; r++)
        if (strcmp(csv_table_cell(orig, r, k), key) == 0)
            return csv_table_cell(orig, r, v);
    return "";
}

static void write_architecture_table(struct summary *s, const struct arch_group *groups,
                                     size_t n, const struct sample_stats *b,
                                     const struct csv_table *gate, const struct csv_table *orig)
{
    static const char *const header[] = {
        "Architecture", "Median (s)", "Min (s)", "Max (s)", "Ratio (fastest)",
        "Ratio (median)", "Original (s)", "Original ratio", "Gate"};
    struct csv_out out;
    char key[KEY_SIZE], buf[64];
    if (b == NULL || open_table(s, "architectures", &out, header, 9) != 0)
        return;
    for (size_t g = 0; g < n; g++) {
        const struct sample_stats *st = &groups[g].stats;
        csv_out_text(&out, groups[g].name);
        csv_out_text(&out, format_fixed(buf, st->p50, 3));
        csv_out_text(&out, format_fixed(buf, st->min, 3));
        csv_out_text(&out, format_fixed(buf, st->max, 3));
        csv_out_text(&out, format_fixed(buf, b->min > 0 ? st->min / b->min : 0.0, 2));
        csv_out_text(&out, format_fixed(buf, b->p50 > 0 ? st->p50 / b->p50 : 0.0, 2));
        csv_out_text(&out, original_value(orig, keyf(key, "arch.%s.seconds", groups[g].name)));
        csv_out_text(&out, original_value(orig, keyf(key, "arch.%s.ratio", groups[g].name)));
        csv_out_text(&out, gate_verdict(gate, groups[g].name));
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void write_architecture_stats(struct summary *s, const struct arch_group *groups,
                                     size_t n, const struct sample_stats *b)
{
    double base = b != NULL ? b->min : 0.0;
    static const char *const header[] = {"index", "architecture", "median", "min", "max",
                                         "ratio"};
    struct csv_out out;
    if (open_derived(s, "architecture_stats.csv", &out, header, 6) != 0)
        return;
    for (size_t g = 0; g < n; g++) {
        csv_out_int(&out, (int64_t)g);
        csv_out_text(&out, groups[g].name);
        csv_out_double(&out, groups[g].stats.p50);
        csv_out_double(&out, groups[g].stats.min);
        csv_out_double(&out, groups[g].stats.max);
        csv_out_double(&out, base > 0 ? groups[g].stats.min / base : 0.0);
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

void summarize_architectures(struct summary *s)
{
    struct csv_table runs, gate, orig;
    struct arch_group groups[MAX_GROUPS];
    if (load_data(s, "architectures.csv", &runs) != 0)
        return;
    if (load_data(s, "gate.csv", &gate) != 0 || load_data(s, "original.csv", &orig) != 0) {
        csv_table_free(&runs);
        return;
    }
    size_t n = group_runs(&runs, groups);
    const struct sample_stats *base = baseline(groups, n);
    int failed = 0;
    char key[KEY_SIZE];
    for (size_t g = 0; g < n; g++) {
        const char *verdict = gate_verdict(&gate, groups[g].name);
        put_architecture(s, &groups[g], base);
        put_text(s, keyf(key, "gate.%s", groups[g].name), verdict);
        failed += strcmp(verdict, "pass") != 0;
    }
    put_text(s, "gate.all", n > 0 && failed == 0 ? "pass" : "FAIL");
    put_count(s, "gate.failed", failed);
    put_count(s, "arch.count", (int64_t)n);
    write_architecture_table(s, groups, n, base, &gate, &orig);
    write_architecture_stats(s, groups, n, base);
    for (size_t g = 0; g < n; g++)
        free(groups[g].seconds);
    csv_table_free(&runs);
    csv_table_free(&gate);
    csv_table_free(&orig);
}
