/*
 * csvread.c - loads CSV files through libcsv.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <csv.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/csvread.h"

/* <<read-a-file-through-zlib>>, paper/90-appendix-report.md */
/* Opens path for reading through zlib, or NULL with the reason in err. */
static gzFile open_content(const char *path, char *err, size_t err_size)
{
    gzFile f = gzopen(path, "rb");
    if (f == NULL)
        snprintf(err, err_size, "%s: %s", path, errno != 0 ? strerror(errno) : "out of memory");
    return f;
}

/* What went wrong reading f, in words (zlib's own begin with the file's
 * path, which the caller names already). */
static const char *read_error(gzFile f)
{
    int code;
    const char *why = gzerror(f, &code);
    const char *after = strrchr(why, ':');
    return code == Z_ERRNO ? strerror(errno) : after != NULL && after[1] == ' ' ? after + 2 : why;
}

/* <<csv-load-state>>, paper/90-appendix-report.md */
struct load_state {
    struct csv_table *t;
    size_t cells_cap, lines_cap;
    size_t fields_in_row;
    size_t rows_seen;          /* including the header */
    size_t line;               /* the line being parsed, from 1 */
    size_t row_line;           /* the line the current row began on */
    char error[256];
};

/* <<grow-an-array-by-doubling>>, paper/90-appendix-report.md */
/* Makes room in *array (*cap elements of `size` bytes) for element `used`; 0 or -1. */
static int grow(void **array, size_t *cap, size_t used, size_t size)
{
    if (used < *cap)
        return 0;
    size_t n = *cap ? 2 * *cap : 64;
    void *bigger = realloc(*array, n * size);
    if (bigger == NULL)
        return -1;
    *array = bigger;
    *cap = n;
    return 0;
}

/* <<keep-a-field>>, paper/90-appendix-report.md */
static void on_field(void *field, size_t len, void *data)
{
    struct load_state *st = data;
    struct csv_table *t = st->t;
    if (st->error[0] != '\0')
        return;
    if (st->fields_in_row == 0)
        st->row_line = st->line;
    if (st->rows_seen > 0 && st->fields_in_row >= t->n_cols) {
        snprintf(st->error, sizeof st->error, "line %zu has more fields than the header",
                 st->row_line);
        return;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL || grow((void **)&t->cells, &st->cells_cap, t->n_cells, sizeof *t->cells)) {
        free(copy);
        snprintf(st->error, sizeof st->error, "out of memory");
        return;
    }
    memcpy(copy, field ? field : "", len);
    copy[len] = '\0';
    t->cells[t->n_cells++] = copy;
    st->fields_in_row++;
    for (size_t i = 0; i < len; i++)           /* a quoted field may span lines */
        st->line += copy[i] == '\n';
}

/* <<end-a-row>>, paper/90-appendix-report.md */
static void on_row_end(int terminator, void *data)
{
    struct load_state *st = data;
    struct csv_table *t = st->t;
    if (terminator == '\n')
        st->line++;
    if (st->error[0] != '\0' || st->fields_in_row == 0)
        return;                                 /* only a line end, or a blank line */
    if (st->rows_seen == 0)
        t->n_cols = st->fields_in_row;
    else if (st->fields_in_row != t->n_cols)
        snprintf(st->error, sizeof st->error, "line %zu has %zu fields, the header %zu",
                 st->row_line, st->fields_in_row, t->n_cols);
    else if (grow((void **)&t->lines, &st->lines_cap, st->rows_seen - 1, sizeof *t->lines))
        snprintf(st->error, sizeof st->error, "out of memory");
    else
        t->lines[st->rows_seen - 1] = st->row_line;
    st->rows_seen++;
    st->fields_in_row = 0;
}

/* <<csv-table-load>>, paper/90-appendix-report.md */
static void hex_digest(struct sha256_ctx *sha, char hex[65])
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(sha, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

int csv_table_load(const char *path, struct csv_table *t, char *err, size_t err_size)
{
    struct csv_parser parser;
    struct load_state st = {.t = t, .line = 1};
    struct sha256_ctx sha;
    char buf[65536];
    memset(t, 0, sizeof *t);
    gzFile f = open_content(path, err, err_size);
    if (f == NULL)
        return -1;
    sha256_init(&sha);
    csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL);
    int n;
    while (st.error[0] == '\0' && (n = gzread(f, buf, sizeof buf)) > 0) {
        sha256_update(&sha, (size_t)n, (const uint8_t *)buf);
        if (csv_parse(&parser, buf, (size_t)n, on_field, on_row_end, &st) != (size_t)n)
            snprintf(st.error, sizeof st.error, "%s", csv_strerror(csv_error(&parser)));
    }
    if (st.error[0] == '\0' && n < 0)
        snprintf(st.error, sizeof st.error, "cannot read it: %s", read_error(f));
    if (st.error[0] == '\0' && csv_fini(&parser, on_field, on_row_end, &st) != 0)
        snprintf(st.error, sizeof st.error, "%s", csv_strerror(csv_error(&parser)));
    csv_free(&parser);
    gzclose(f);
    if (st.error[0] == '\0' && st.rows_seen == 0)
        snprintf(st.error, sizeof st.error, "no header row");
    if (st.error[0] != '\0') {
        snprintf(err, err_size, "%s: %s", path, st.error);
        csv_table_free(t);
        return -1;
    }
    t->n_rows = st.rows_seen - 1;
    hex_digest(&sha, t->sha256);
    return 0;
}

/* <<digest-a-file>>, paper/90-appendix-report.md */
int file_digest(const char *path, uint64_t most, uint64_t *bytes, char sha256[65], char *err,
                size_t err_size)
{
    struct sha256_ctx sha;
    char buf[65536];
    int n;
    *bytes = 0;
    gzFile f = open_content(path, err, err_size);
    if (f == NULL)
        return -1;
    sha256_init(&sha);
    while ((n = gzread(f, buf, sizeof buf)) > 0 && *bytes + (uint64_t)n <= most) {
        sha256_update(&sha, (size_t)n, (const uint8_t *)buf);
        *bytes += (uint64_t)n;
    }
    if (n > 0)
        snprintf(err, err_size, "%s: longer than the %llu bytes it may have", path,
                 (unsigned long long)most);
    else if (n < 0)
        snprintf(err, err_size, "%s: cannot read it: %s", path, read_error(f));
    gzclose(f);
    hex_digest(&sha, sha256);
    return n == 0 ? 0 : n > 0 ? -2 : -1;
}

/* <<csv-table-access>>, paper/90-appendix-report.md */
void csv_table_free(struct csv_table *t)
{
    for (size_t i = 0; i < t->n_cells; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->lines);
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

size_t csv_table_line(const struct csv_table *t, size_t row)
{
    return t->lines[row];
}
