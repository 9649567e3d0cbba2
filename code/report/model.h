/*
 * model.h - every file of data/, loaded once into typed rows.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_MODEL_H
#define IPCTAX_MODEL_H

#include <stddef.h>

#include "report/csvread.h"
#include "schema/domains.h"
#include "schema/schema.h"

/* <<row-types>>, paper/90-appendix-report.md */
#define ROW_MEMBER(row, name, type, range, unit, description) ROW_MEMBER_##type(name, range)
#define ROW_MEMBER_TEXT(name, least, most) char name[(size_t)(most) + 1];
#define ROW_MEMBER_INT(name, low, high) long name;
#define ROW_MEMBER_NUM(name, low, high) double name;
#define ROW_MEMBER_NUM_OR_EMPTY(name, low, high) double name;
#define ROW_MEMBER_OPTIONAL(type) ROW_MEMBER_##type     /* the member of the type it wraps */
#define ROW_TYPE(type, list) struct type { list(ROW_MEMBER, type) }

#define ROWS(member, row, prefix, name, ...) ROW_TYPE(row, prefix##_COLUMNS);
#include "schema/files.def"
ROW_TYPE(kv, KV_COLUMNS);              /* a key-value file's row */

/* <<key-value-files>>, paper/90-appendix-report.md */
struct kv_file {
    struct kv *rows;
    size_t n;
};

/* The value of key, or NULL. */
const char *kv_get(const struct kv_file *f, const char *key);
/* The value of key as a number, or NAN when it is absent or not a number. */
double kv_number(const struct kv_file *f, const char *key);

/* <<the-run-data>>, paper/90-appendix-report.md */
struct run_data {
#define ROWS(member, row, ...) \
    struct row *member;        \
    size_t n_##member;
#define KEYS(member, ...) struct kv_file member;
#define ANY_KEYS(member, ...) struct kv_file member;
#include "schema/files.def"
};

/* One file as read: its description and its table. */
struct loaded_file {
    const struct data_file *file;
    struct csv_table table;
    char path[4096];
    int absent;                /* an added file the run was made without: no table */
};

/* Whose folder is read: the reader's data/, or a kept run (reproductions/ID,
 * @sec:appendix-reproductions), every file of which is listed in its
 * manifest and is a file of its own. */
enum run_folder { RUN_DATA, RUN_KEPT };

/* Loads every file of dir; 0, or -1 with a message in err (nothing kept). */
int run_data_load(struct run_data *d, const char *dir, char *err, size_t err_size);
/* The same for a folder of either kind. */
int run_data_load_folder(struct run_data *d, const char *dir, enum run_folder kind, char *err,
                         size_t err_size);
void run_data_free(struct run_data *d);

#endif
