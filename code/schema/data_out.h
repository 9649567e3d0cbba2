/*
 * data_out.h - writing a file of data/ by its schema: the header from the
 * schema, every field named by its column's index.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_DATA_OUT_H
#define IPCTAX_DATA_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "schema/schema.h"
#include "util/csvout.h"

struct data_out {
    struct csv_out csv;
    const struct data_file *file;
    const struct data_column *columns;
    size_t n_columns;
    size_t due;                /* the column the next field is for */
    int misplaced;             /* a field came for another column: the file is void */
};

/* Opens DIR/NAME, a file of DATA_FILES or the manifest, and writes its
 * header. 0, or -1 with a message in err. */
int data_out_open(struct data_out *o, const char *dir, const char *name, char *err,
                  size_t err_size);
/* The fields of a row, in the schema's order; `column` is its index. */
void data_text(struct data_out *o, int column, const char *text);
void data_int(struct data_out *o, int column, int64_t value);
void data_double(struct data_out *o, int column, double value);   /* %.17g */
void data_fixed(struct data_out *o, int column, double value, int decimals);
void data_empty(struct data_out *o, int column);                   /* not applicable */
/* An int64 field, or an empty one when it is not known. */
void data_known(struct data_out *o, int column, int known, int64_t value);
void data_end_row(struct data_out *o);
/* A key-value file's row: the key and its value. */
void data_key_text(struct data_out *o, const char *key, const char *value);
void data_key_int(struct data_out *o, const char *key, int64_t value);
/* As csv_out_close: 0 when the file is in place, or -1 (a misplaced field too). */
int data_out_close(struct data_out *o);
void data_out_abandon(struct data_out *o);

#endif
