/*
 * schema.h - what the files of data/ hold: their columns, types and ranges.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_SCHEMA_H
#define IPCTAX_SCHEMA_H

#include <stddef.h>

#include "report/csvread.h"

enum column_type {
    COLUMN_TEXT,
    COLUMN_INT,                /* a whole number, into a long */
    COLUMN_NUM,                /* a number, into a double */
    COLUMN_NUM_OR_EMPTY,       /* a number, or empty for not applicable (NAN) */
};

struct data_column {
    const char *name;          /* the column's, or a key-value file's key */
    enum column_type type;
    double min, max;           /* a number's range; a text's least length in min */
    size_t offset, size;       /* where in the row, and the size of a text member */
};

enum data_file_flags {
    KEY_VALUE = 1,             /* key,value rows; the columns are the keys it must have */
    NOT_OF_THE_RUN = 2,        /* kept across runs, outside the manifest (@sec:manifest) */
};

struct data_file {
    const char *name;          /* in the data folder */
    const char *key;           /* the columns that identify a row, comma-separated */
    const struct data_column *columns;
    size_t n_columns;
    size_t row_size;           /* of the row type it loads into */
    size_t rows_at, count_at;  /* where the rows and their count go in struct run_data */
    unsigned flags;
};

/* Every file of a run, in the order they are loaded and checked. */
extern const struct data_file DATA_FILES[];
extern const size_t N_DATA_FILES;

/* One file as read: its description and its table. */
struct loaded_file {
    const struct data_file *file;
    struct csv_table table;
    char path[4096];
};

/* The file of that name among DATA_FILES, or NULL. */
const struct data_file *data_file_named(const char *name);

#endif
