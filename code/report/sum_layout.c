/*
 * sum_layout.c - how much the kernel's time moves with its data and code layout.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

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

/* The table's order: by side as the layout chapter introduces them, then the
 * aligned build before the shifted ones, then by shift and by data layout. */
static int side_rank(const char *side)
{
    static const char *const order[] = {"in_process", "engine", "in_process_tuned_kept",
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
    if (table_open(s, "layout", &t, header, 5) != 0)
        return;
    if (figure_data_open(s, "layout.csv", &fig, figure, 8) != 0) {
        csv_out_abandon(&t);
        return;
    }
    const struct layout_row **cells = calloc(d->n_layout ? d->n_layout : 1, sizeof *cells);
    size_t n_cells = 0;
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

/* Per pass, the slowest over the fastest of the cells that match `side` and
 * whose code is shifted (shifted = 1) or aligned (0). */
static struct estimate spread(const struct run_data *d, const char *side, int shifted)
{
    struct doubles x = {0};
    for (long p = 1; p <= passes(d); p++) {
        double lo = INFINITY, hi = 0;
        for (size_t i = 0; i < d->n_layout; i++) {
            const struct layout_row *r = &d->layout[i];
            if (r->pass != p || strcmp(r->side, side) != 0 || isnan(r->code_shift) == shifted)
                continue;
            lo = fmin(lo, r->seconds);
            hi = fmax(hi, r->seconds);
        }
        if (hi > 0)
            doubles_push(&x, hi / lo);
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

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

void summarize_layout(const struct run_data *d, struct store *s)
{
    layout_table(d, s);
    put_estimate(s, "layout.engine_over_in_process", sides(d, "engine", "in_process"), 3);
    put_estimate(s, "layout.data_spread.in_process", spread(d, "in_process", 0), 3);
    put_estimate(s, "layout.data_spread.engine", spread(d, "engine", 0), 3);
    put_estimate(s, "layout.code_spread", spread(d, "engine", 1), 3);
    put_estimate(s, "layout.tuned_fresh_over_kept",
                 sides(d, "in_process_tuned_fresh", "in_process_tuned_kept"), 3);
    put_estimate(s, "layout.tuned_engine_over_kept",
                 sides(d, "engine_tuned", "in_process_tuned_kept"), 3);
    put_count(s, "layout.passes", (double)passes(d));
}
