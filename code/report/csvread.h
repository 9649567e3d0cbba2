/*
 * csvread.h - a whole CSV file in memory, addressed by column name.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_CSVREAD_H
#define IPCTAX_CSVREAD_H

#include <stddef.h>
#include <stdint.h>

struct csv_table {
    size_t n_cols;
    size_t n_rows;             /* data rows, not counting the header */
    char **cells;              /* (n_rows + 1) * n_cols strings; row 0 is the header */
    size_t n_cells;            /* strings allocated, which is what is freed */
    size_t *lines;             /* lines[r]: the line data row r starts on (the header's is 1) */
    char sha256[65];           /* of the file's bytes, in lower-case hex */
};

/* Returns 0, or -1 with a message in err. The file may be gzip-compressed. */
int csv_table_load(const char *path, struct csv_table *t, char *err, size_t err_size);
void csv_table_free(struct csv_table *t);

/* Reads the file at path (its content, if it is gzip-compressed) to the end
 * without keeping it: its length in *bytes and its SHA-256. Stops as soon as
 * it passes `most` bytes, refusing it. 0; -1 with a message in err; -2 (and
 * the message) when the file is longer than `most`. */
int file_digest(const char *path, uint64_t most, uint64_t *bytes, char sha256[65], char *err,
                size_t err_size);

/* Index of the named column, or -1. */
int csv_table_column(const struct csv_table *t, const char *name);
/* Field of data row `row` (0-based) in column `col`. */
const char *csv_table_cell(const struct csv_table *t, size_t row, int col);
/* The line of the file that data row `row` starts on. */
size_t csv_table_line(const struct csv_table *t, size_t row);

#endif
