/*
 * csvread.c - loads CSV files through libcsv.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csvread.h"

struct load_state {
    struct csv_table *t;
    size_t cells_cap;
    size_t fields_in_row;
    size_t rows_seen;          /* including the header */
    char error[256];
};

static void on_field(void *field, size_t len, void *data)
{
    struct load_state *st = data;
    struct csv_table *t = st->t;
    if (st->error[0] != '\0')
        return;
    size_t used = t->n_cells;
    if (st->rows_seen > 0 && st->fields_in_row >= t->n_cols) {
        snprintf(st->error, sizeof st->error, "row %zu has more fields than the header",
                 st->rows_seen + 1);
        return;
    }
    if (used + 1 > st->cells_cap) {
        size_t cap = st->cells_cap ? 2 * st->cells_cap : 64;
        char **cells = realloc(t->cells, cap * sizeof *cells);
        if (cells == NULL) {
            snprintf(st->error, sizeof st->error, "out of memory");
            return;
        }
        t->cells = cells;
        st->cells_cap = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        snprintf(st->error, sizeof st->error, "out of memory");
        return;
    }
    memcpy(copy, field ? field : "", len);
    copy[len] = '\0';
    t->cells[t->n_cells++] = copy;
    st->fields_in_row++;
}

static void on_row_end(int terminator, void *data)
{
    struct load_state *st = data;
    (void)terminator;
    if (st->error[0] != '\0')
        return;
    if (st->rows_seen == 0)
        st->t->n_cols = st->fields_in_row;
    else if (st->fields_in_row != st->t->n_cols)
        snprintf(st->error, sizeof st->error, "row %zu has %zu fields, the header %zu",
                 st->rows_seen + 1, st->fields_in_row, st->t->n_cols);
    st->rows_seen++;
    st->fields_in_row = 0;
}

int csv_table_load(const char *path, struct csv_table *t, char *err, size_t err_size)
{
    struct csv_parser parser;
    struct load_state st = {.t = t};
    char buf[65536];
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI);
    size_t n;
    while (st.error[0] == '\0' && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&parser, buf, n, on_field, on_row_end, &st) != n)
            snprintf(st.error, sizeof st.error, "%s", csv_strerror(csv_error(&parser)));
    if (st.error[0] == '\0' && csv_fini(&parser, on_field, on_row_end, &st) != 0)
        snprintf(st.error, sizeof st.error, "%s", csv_strerror(csv_error(&parser)));
    csv_free(&parser);
    fclose(f);
    if (st.error[0] == '\0' && st.rows_seen == 0)
        snprintf(st.error, sizeof st.error, "no header row");
    if (st.error[0] != '\0') {
        snprintf(err, err_size, "%s: %s", path, st.error);
        csv_table_free(t);
        return -1;
    }
    t->n_rows = st.rows_seen - 1;
    return 0;
}

void csv_table_free(struct csv_table *t)
{
    for (size_t i = 0; i < t->n_cells; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

int csv_table_column(const struct csv_table *t, const char *name)
{
    for (size_t c = 0; c < t->n_cols; c++)
        if (strcmp(t->cells[c], name) == 0)
            return (int)c;
    return -1;
}

const char *csv_table_cell(const struct csv_table *t, size_t row, int col)
{
    return t->cells[(row + 1) * t->n_cols + (size_t)col];
}
