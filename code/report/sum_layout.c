/*
 * sum_layout.c - how much the kernel's time moves with its data and code layout.
 *
 * Tangled from paper/76-layout.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"
#include "util/random.h"

/* <<a-cell-and-its-time-in-a-pass>>, paper/76-layout.md */
static int same_cell(const struct layout_row *a, const struct layout_row *b)
{
    return strcmp(a->side, b->side) == 0 &&
           (a->code_shift == b->code_shift || (isnan(a->code_shift) && isnan(b->code_shift))) &&
           a->series_offset == b->series_offset && a->array_offset == b->array_offset &&
           a->array_stagger == b->array_stagger;
}

/* The cell's time in a pass, or NAN. */
static double cell_time(const struct run_data *d, const struct layout_row *cell, long pass)
{
    for (size_t i = 0; i < d->n_layout; i++)
        if (d->layout[i].pass == pass && same_cell(&d->layout[i], cell))
            return d->layout[i].seconds;
    return NAN;
}

/* <<the-tables-order-of-cells>>, paper/76-layout.md */
/* The table's order: by side as the layout chapter introduces them, then the
 * aligned build before the shifted ones, then by shift and by data layout. */
static int side_rank(const char *side)
{
    static const char *const order[] = {IN_PROCESS_SIDE, "engine", "in_process_tuned_kept",
                                        "in_process_tuned_fresh", "engine_tuned"};
    enum { N_ORDER = sizeof order / sizeof order[0] };
    for (int i = 0; i < N_ORDER; i++)
        if (strcmp(side, order[i]) == 0)
            return i;
    return N_ORDER;
}

static int compare_numbers(double a, double b)
{
    return (a > b) - (a < b);
}

static int compare_cells(const void *pa, const void *pb)
{
    const struct layout_row *a = *(const struct layout_row *const *)pa;
    const struct layout_row *b = *(const struct layout_row *const *)pb;
    int by = side_rank(a->side) - side_rank(b->side);
    if (by == 0)
        by = strcmp(a->side, b->side);
    if (by == 0 && isnan(a->code_shift) != isnan(b->code_shift))
        return isnan(a->code_shift) ? -1 : 1;                /* the aligned build first */
    if (by == 0 && !isnan(a->code_shift))
        by = compare_numbers(a->code_shift, b->code_shift);
    if (by == 0)
        by = compare_numbers((double)a->series_offset, (double)b->series_offset);
    if (by == 0)
        by = compare_numbers((double)a->array_offset, (double)b->array_offset);
    if (by == 0)
        by = compare_numbers((double)a->array_stagger, (double)b->array_stagger);
    return by;
}

/* <<the-layout-table>>, paper/76-layout.md */
static long passes(const struct run_data *d)
{
    long n = 0;
    for (size_t i = 0; i < d->n_layout; i++)
        n = d->layout[i].pass > n ? d->layout[i].pass : n;
    return n;
}

static void layout_table(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Side", "Code", "Series offset", "Arrays (offset, stagger)",
                                         "Kernel time (s) [95% interval]"};
    static const char *const figure[] = {"side", "code_shift", "series_offset", "array_offset",
                                         "array_stagger", "seconds", "low", "high"};
    struct csv_out t, fig;
    char buf[200];
    /* <<open-the-layout-table-and-figure>>, paper/76-layout.md */
    if (table_open(s, "layout", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "layout.csv", &fig, figure, CSV_COLUMNS(figure)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    const struct layout_row **cells = calloc(d->n_layout ? d->n_layout : 1, sizeof *cells);
    size_t n_cells = 0;
    /* <<sort-the-cells-of-the-first-pass>>, paper/76-layout.md */
    if (cells == NULL) {
        s->errors++;
        csv_out_abandon(&t);
        csv_out_abandon(&fig);
        return;
    }
    for (size_t i = 0; i < d->n_layout; i++)
        if (d->layout[i].pass == 1)            /* one row per cell */
            cells[n_cells++] = &d->layout[i];
    qsort(cells, n_cells, sizeof *cells, compare_cells);
    for (size_t i = 0; i < n_cells; i++) {
        /* <<a-cells-row-in-the-table-and-the-figure>>, paper/76-layout.md */
        const struct layout_row *c = cells[i];
        struct doubles x = {0};
        for (size_t j = 0; j < d->n_layout; j++)
            if (same_cell(&d->layout[j], c))
                doubles_push(&x, d->layout[j].seconds);
        struct estimate e = doubles_estimate(&x);
        csv_out_text(&t, c->side);
        if (isnan(c->code_shift))
            csv_out_text(&t, "aligned");
        else
            csv_out_text(&t, keyf(buf, "+%.0f bytes", c->code_shift));
        cell_number(&t, (double)c->series_offset, 0);
        csv_out_text(&t, keyf(buf, "%ld, %ld", c->array_offset, c->array_stagger));
        csv_out_text(&t, format_estimate(buf, e, 3));
        csv_out_end_row(&t);
        csv_out_text(&fig, c->side);
        csv_out_double(&fig, c->code_shift);
        csv_out_int(&fig, c->series_offset);
        csv_out_int(&fig, c->array_offset);
        csv_out_int(&fig, c->array_stagger);
        csv_out_double(&fig, e.value);
        csv_out_double(&fig, e.low);
        csv_out_double(&fig, e.high);
        csv_out_end_row(&fig);
        doubles_free(&x);
    }
    free(cells);
    table_close(s, &t);
    table_close(s, &fig);
}

/* <<a-sides-cells-by-pass>>, paper/76-layout.md */
enum { LAYOUT_PERMUTATIONS = 10000, LAYOUT_SEED = 11, MAX_CELLS = 64,
       MAX_PASSES = MAX_LAYOUT_PASSES };  /* layout.csv's pass column holds no more */

/* The times (logs) of the cells of `side`, shifted (1) or aligned (0): t[pass][cell]. */
static size_t layout_grid(const struct run_data *d, const char *side, int shifted,
                          double t[MAX_PASSES][MAX_CELLS], long *n_passes)
{
    const struct layout_row *cells[MAX_CELLS];
    size_t n = 0;
    *n_passes = passes(d) < MAX_PASSES ? passes(d) : MAX_PASSES;
    for (size_t i = 0; i < d->n_layout && n < MAX_CELLS; i++) {
        const struct layout_row *r = &d->layout[i];
        if (r->pass == 1 && strcmp(r->side, side) == 0 && isnan(r->code_shift) != shifted)
            cells[n++] = r;
    }
    for (long p = 0; p < *n_passes; p++)
        for (size_t c = 0; c < n; c++)
            t[p][c] = log(cell_time(d, cells[c], p + 1));
    return n;
}

/* <<the-f-ratio-of-cells-to-noise>>, paper/76-layout.md */
/* Between-cell over within-cell mean squares, with both offsets removed;
 * the within-cell mean square into *noise when it is not NULL. */
static double f_ratio(double t[MAX_PASSES][MAX_CELLS], long passes_n, size_t cells,
                      double *noise)
{
    double grand = 0, pass_mean[MAX_PASSES] = {0}, cell_mean[MAX_CELLS] = {0};
    for (long p = 0; p < passes_n; p++)
        for (size_t c = 0; c < cells; c++) {
            grand += t[p][c] / (double)(passes_n * (long)cells);
            pass_mean[p] += t[p][c] / (double)cells;
            cell_mean[c] += t[p][c] / (double)passes_n;
        }
    double between = 0, within = 0;
    for (size_t c = 0; c < cells; c++)
        between += (double)passes_n * (cell_mean[c] - grand) * (cell_mean[c] - grand);
    for (long p = 0; p < passes_n; p++)
        for (size_t c = 0; c < cells; c++) {
            double r = t[p][c] - pass_mean[p] - cell_mean[c] + grand;
            within += r * r;
        }
    double df_between = (double)cells - 1, df_within = (double)(passes_n - 1) * ((double)cells - 1);
    if (noise != NULL)
        *noise = within / df_within;
    return within > 0 ? (between / df_between) / (within / df_within) : NAN;
}

/* <<a-permutation-test-of-layout>>, paper/76-layout.md */
static void layout_test(const struct run_data *d, struct store *s, const char *name,
                        const char *side, int shifted)
{
    /* one per thread: the summaries of kept runs run side by side */
    static _Thread_local double t[MAX_PASSES][MAX_CELLS], shuffled[MAX_PASSES][MAX_CELLS];
    char key[KEY_SIZE];
    long n_passes;
    size_t cells = layout_grid(d, side, shifted, t, &n_passes);
    if (cells < 2 || n_passes < 2)
        return;
    static _Thread_local double shuffled_f[LAYOUT_PERMUTATIONS];
    double within_ms = NAN;
    double observed = f_ratio(t, n_passes, cells, &within_ms), lo = INFINITY, hi = -INFINITY,
           noise = 0;
    struct mt19937 mt;
    size_t order[MAX_CELLS];
    int as_large = 0;
    /* <<count-shuffles-with-as-large-an-f>>, paper/76-layout.md */
    mt19937_seed(&mt, LAYOUT_SEED);
    for (int k = 0; k < LAYOUT_PERMUTATIONS; k++) {
        for (long p = 0; p < n_passes; p++) {
            random_order(&mt, order, cells);
            for (size_t c = 0; c < cells; c++)
                shuffled[p][c] = t[p][order[c]];
        }
        shuffled_f[k] = f_ratio(shuffled, n_passes, cells, NULL);
        as_large += shuffled_f[k] >= observed;
    }
    /* <<the-detectable-gap-and-the-cells-spread>>, paper/76-layout.md */
    /* the smallest gap between two cells whose F would reach the shuffles' 95th percentile */
    double f95 = quantile_of(shuffled_f, LAYOUT_PERMUTATIONS, 0.95);
    double gap = sqrt(2.0 * ((double)cells - 1.0) * f95 * within_ms / (double)n_passes);
    for (size_t c = 0; c < cells; c++) {
        double mean = 0, sq = 0;
        for (long p = 0; p < n_passes; p++)
            mean += t[p][c] / (double)n_passes;
        for (long p = 0; p < n_passes; p++)
            sq += (t[p][c] - mean) * (t[p][c] - mean) / (double)(n_passes - 1);
        lo = fmin(lo, mean), hi = fmax(hi, mean);
        noise += sqrt(sq) / (double)cells;
    }
    /* <<put-a-layout-tests-results>>, paper/76-layout.md */
    put_number(s, keyf(key, "layout.%s.f", name), observed, 2);
    put_number(s, keyf(key, "layout.%s.p", name), (as_large + 1.0) / (LAYOUT_PERMUTATIONS + 1.0),
               3);
    put_number(s, keyf(key, "layout.%s.range_pct", name), (exp(hi - lo) - 1.0) * 100.0, 1);
    put_number(s, keyf(key, "layout.%s.noise_pct", name), noise * 100.0, 1);
    put_number(s, keyf(key, "layout.%s.detectable_pct", name), (exp(gap) - 1.0) * 100.0, 1);
    put_count(s, keyf(key, "layout.%s.cells", name), (double)cells);
}

/* <<one-side-over-another>>, paper/76-layout.md */
/* Per pass and data layout, side a's time over side b's (aligned code only). */
static struct estimate sides(const struct run_data *d, const char *a, const char *b)
{
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_layout; i++) {
        const struct layout_row *r = &d->layout[i];
        if (strcmp(r->side, a) != 0 || !isnan(r->code_shift))
            continue;
        struct layout_row other = *r;
        snprintf(other.side, sizeof other.side, "%s", b);
        doubles_push(&x, r->seconds / cell_time(d, &other, r->pass));
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

/* <<summarize-layout>>, paper/76-layout.md */
void summarize_layout(const struct run_data *d, struct store *s)
{
    layout_table(d, s);
    put_estimate(s, "layout.engine_over_in_process", sides(d, "engine", IN_PROCESS_SIDE), 3,
                 "cells in passes");
    layout_test(d, s, "data.in_process", IN_PROCESS_SIDE, 0);
    layout_test(d, s, "data.engine", "engine", 0);
    layout_test(d, s, "code", "engine", 1);
    put_text(s, "layout.any_effect", store_number(s, "layout.data.in_process.p") < 0.05 ||
                                         store_number(s, "layout.data.engine.p") < 0.05 ||
                                         store_number(s, "layout.code.p") < 0.05
                                     ? "yes" : "no");
    put_estimate(s, "layout.tuned_fresh_over_kept",
                 sides(d, "in_process_tuned_fresh", "in_process_tuned_kept"), 3,
                 "cells in passes");
    put_estimate(s, "layout.tuned_engine_over_kept",
                 sides(d, "engine_tuned", "in_process_tuned_kept"), 3, "cells in passes");
    put_count(s, "layout.passes", (double)passes(d));
}
