/*
 * schema.h - what the files of data/ hold: their columns, types, ranges,
 * units and descriptions, from the lists of columns.h.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_SCHEMA_H
#define IPCTAX_SCHEMA_H

#include <stddef.h>

#include "schema/columns.h"

/* <<column-and-file-descriptions>>, paper/90-appendix-report.md */
enum column_type {
    COLUMN_TEXT,
    COLUMN_INT,                /* a whole number, into a long */
    COLUMN_NUM,                /* a number, into a double */
    COLUMN_NUM_OR_EMPTY,       /* a number, or empty for not applicable (NAN) */
};

/* A column's flags: OPTIONAL(TYPE) in a list marks one an older run may lack. */
enum column_flags {
    COLUMN_MAY_BE_ABSENT = 1,  /* a file without it reads as though it were empty */
};
/* How the lists' types expand: COLUMN_##type gives the type, COLUMN_FLAGS_##type its flags. */
#define COLUMN_OPTIONAL(type) COLUMN_##type
#define COLUMN_FLAGS_OPTIONAL(type) COLUMN_MAY_BE_ABSENT
#define COLUMN_FLAGS_TEXT 0
#define COLUMN_FLAGS_INT 0
#define COLUMN_FLAGS_NUM 0
#define COLUMN_FLAGS_NUM_OR_EMPTY 0

struct data_column {
    const char *name;          /* the column's, or a key-value file's key */
    enum column_type type;
    double min, max;           /* a number's range; a text's least and most bytes */
    const char *unit;          /* "ns", "s", "bytes", ...; "" for none */
    const char *description;
    unsigned flags;            /* enum column_flags */
};

enum data_file_flags {
    KEY_VALUE = 1,             /* key,value rows; the columns are the keys it must have */
    NOT_OF_THE_RUN = 2,        /* kept across runs, outside the manifest (@sec:manifest) */
    ADDED_FILE = 4,            /* a run made before it existed lacks it: no rows */
};

struct data_file {
    const char *name;          /* in the data folder */
    const char *key;           /* the columns that identify a row, comma-separated */
    const struct data_column *columns;
    size_t n_columns;
    unsigned flags;
    const char *description;
};

/* Every file of a run, in the order they are loaded and checked. */
extern const struct data_file DATA_FILES[];
extern const size_t N_DATA_FILES;
/* The run's list of its files, written when the run is complete. */
extern const struct data_file MANIFEST_FILE;
/* The two columns of every key-value file. */
extern const struct data_column KEY_VALUE_COLUMNS[KV_N];

/* The file of that name among DATA_FILES and MANIFEST_FILE, or NULL. */
const struct data_file *data_file_named(const char *name);
/* The columns a file's rows have: its own, or a key-value file's two. */
const struct data_column *data_file_header(const struct data_file *f, size_t *n_columns);
enum repeated { REPEAT_COLD, REPEAT_SPAWN, REPEAT_SERIAL, REPEAT_LAYOUT, N_REPEATED };

struct repetition {
    const char *key;           /* run.csv's key for the count made */
    int count, floor;          /* at --scale 1; the fewest at any scale */
    int before;                /* at --scale 1 in the runs that did not state it */
};

extern const struct repetition REPETITIONS[N_REPEATED];
/* The count at this scale: count times scale, never below floor. */
int repetitions_at(enum repeated which, double scale);
/* The count a run that did not state it made at this scale. */
int repetitions_before(enum repeated which, double scale);

#endif
