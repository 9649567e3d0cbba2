/*
 * data_out.c - a file of data/, written by its schema.
 *
 * Tangled from paper/40-harness.md.
 */
#include <stdio.h>
#include <string.h>

#include "schema/data_out.h"
#include "util/error.h"

/* <<open-a-file-of-data>>, paper/40-harness.md */
static const struct data_file *file_named(const char *name)
{
    return strcmp(name, MANIFEST_FILE.name) == 0 ? &MANIFEST_FILE : data_file_named(name);
}

int data_out_open(struct data_out *o, const char *dir, const char *name, char *err,
                  size_t err_size)
{
    char path[4096];
    memset(o, 0, sizeof *o);
    o->file = file_named(name);
    if (o->file == NULL)
        return set_error(err, err_size, "%s is not a file the schema describes", name);
    o->columns = data_file_header(o->file, &o->n_columns);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (csv_out_open(&o->csv, path, NULL, 0) != 0)
        return set_error(err, err_size, "cannot write %s", path);
    for (size_t c = 0; c < o->n_columns; c++)
        csv_out_text(&o->csv, o->columns[c].name);
    csv_out_end_row(&o->csv);
    return 0;
}

/* <<each-field-in-its-column>>, paper/40-harness.md */
/* 1 when column is the one due (and the next is then due); 0, said once, if not. */
static int due(struct data_out *o, int column)
{
    if (!o->misplaced && (size_t)column == o->due && o->due < o->n_columns) {
        o->due++;
        return 1;
    }
    if (!o->misplaced)
        fprintf(stderr, "ipctax: %s: a field for column %d came where %s was due; "
                "the file is not written\n", o->file->name, column,
                o->due < o->n_columns ? o->columns[o->due].name : "the end of the row");
    o->misplaced = 1;
    return 0;
}

void data_text(struct data_out *o, int column, const char *text)
{
    if (due(o, column))
        csv_out_text(&o->csv, text);
}

void data_int(struct data_out *o, int column, int64_t value)
{
    if (due(o, column))
        csv_out_int(&o->csv, value);
}

void data_double(struct data_out *o, int column, double value)
{
    if (due(o, column))
        csv_out_double(&o->csv, value);
}

void data_fixed(struct data_out *o, int column, double value, int decimals)
{
    if (due(o, column))
        csv_out_fixed(&o->csv, value, decimals);
}

void data_empty(struct data_out *o, int column)
{
    if (due(o, column))
        csv_out_empty(&o->csv);
}

void data_known(struct data_out *o, int column, int known, int64_t value)
{
    if (known)
        data_int(o, column, value);
    else
        data_empty(o, column);
}

/* <<end-a-row-and-close>>, paper/40-harness.md */
void data_end_row(struct data_out *o)
{
    if (o->due != o->n_columns)
        due(o, (int)o->n_columns);                 /* says which column is missing */
    csv_out_end_row(&o->csv);
    o->due = 0;
}

void data_key_text(struct data_out *o, const char *key, const char *value)
{
    data_text(o, KV_key, key);
    data_text(o, KV_value, value);
    data_end_row(o);
}

void data_key_int(struct data_out *o, const char *key, int64_t value)
{
    data_text(o, KV_key, key);
    data_int(o, KV_value, value);
    data_end_row(o);
}

int data_out_close(struct data_out *o)
{
    if (o->misplaced) {
        csv_out_abandon(&o->csv);
        return -1;
    }
    return csv_out_close(&o->csv);
}

void data_out_abandon(struct data_out *o)
{
    csv_out_abandon(&o->csv);
}
