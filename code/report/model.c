/*
 * model.c - one loader, driven by the schema of each file and the places of
 * its columns in a row.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/checks.h"
#include "report/csvread.h"
#include "report/manifest.h"
#include "report/model.h"
#include "util/error.h"

/* <<the-places-of-the-members>>, paper/90-appendix-report.md */
struct member_place {
    size_t offset, size;       /* where in the row, and how big */
};

#define PLACE(row, name, ...) {offsetof(struct row, name), sizeof(((struct row *)0)->name)},
#define ROWS(member, row, prefix, ...) \
    static const struct member_place row##_places[] = {prefix##_COLUMNS(PLACE, row)};
#include "schema/files.def"
static const struct member_place kv_places[] = {KV_COLUMNS(PLACE, kv)};

/* <<the-places-of-the-files>>, paper/90-appendix-report.md */
/* Where a file's rows go. */
struct file_place {
    const struct member_place *members;    /* one per column of the file's header */
    size_t row_size, rows_at, count_at;    /* the row type; its place in struct run_data */
};

#define ROWS(member, row, ...)                                                       \
    {row##_places, sizeof(struct row), offsetof(struct run_data, member),             \
     offsetof(struct run_data, n_##member)},
#define INTO_KV(member)                                                              \
    {kv_places, sizeof(struct kv), offsetof(struct run_data, member.rows),            \
     offsetof(struct run_data, member.n)},
#define KEYS(member, ...) INTO_KV(member)
#define ANY_KEYS(member, ...) INTO_KV(member)
static const struct file_place PLACES_OF_FILES[] = {
#include "schema/files.def"
};

/* Where the rows of the schema's file go: DATA_FILES and PLACES_OF_FILES
 * are expanded from the one table, line for line. */
static const struct file_place *place_of(const struct data_file *file)
{
    return &PLACES_OF_FILES[file - DATA_FILES];
}

/* <<parse-a-field>>, paper/90-appendix-report.md */
static int plain_number(const char *text)
{
    return text[0] != '\0' && strchr("-.0123456789", text[0]) != NULL &&
           strspn(text, "0123456789.eE+-") == strlen(text);
}

static int parse_text(const struct data_column *c, const char *text, void *at, char *why,
                      size_t why_size)
{
    size_t len = strlen(text);
    if (len == 0 && c->min > 0)
        return set_error(why, why_size, "is empty");
    if (len < (size_t)c->min)
        return set_error(why, why_size, "is %zu bytes long, at least %zu are due", len,
                         (size_t)c->min);
    if (len > (size_t)c->max)
        return set_error(why, why_size, "is %zu bytes long, at most %zu fit", len, (size_t)c->max);
    if (at != NULL)
        memcpy(at, text, len + 1);
    return 0;
}

static int parse_field(const struct data_column *c, const char *text, void *at, char *why,
                       size_t why_size)
{
    char *end;
    if (c->type == COLUMN_TEXT)
        return parse_text(c, text, at, why, why_size);
    if (c->type == COLUMN_NUM_OR_EMPTY && text[0] == '\0') {
        if (at != NULL)
            *(double *)at = NAN;
        return 0;
    }
    if (text[0] == '\0')
        return set_error(why, why_size, "is empty where a number is required");
    double v = plain_number(text) ? strtod(text, &end) : NAN;
    if (isnan(v) || *end != '\0')
        return set_error(why, why_size, "'%s' is not a number", text);
    if (c->type == COLUMN_INT && strpbrk(text, ".eE") != NULL)
        return set_error(why, why_size, "'%s' is not a whole number", text);
    if (!(v >= c->min && v <= c->max))
        return set_error(why, why_size, "'%s' is out of its range %g..%g", text, c->min, c->max);
    if (at != NULL && c->type == COLUMN_INT)
        *(long *)at = (long)v;
    else if (at != NULL)
        *(double *)at = v;
    return 0;
}
static int refuse_at(char *err, size_t err_size, const struct loaded_file *f, size_t row,
                     const char *kind, const char *name, const char *why)
{
    return set_error(err, err_size, "%s line %zu, %s %s: %s", f->path,
                     csv_table_line(&f->table, row), kind, name, why);
}

/* <<load-rows>>, paper/90-appendix-report.md */
enum { MAX_COLUMNS = 64 };

static void **rows_in(struct run_data *d, const struct file_place *place)
{
    return (void **)((char *)d + place->rows_at);
}

static size_t *count_in(struct run_data *d, const struct file_place *place)
{
    return (size_t *)((char *)d + place->count_at);
}

static int load_rows(const struct loaded_file *f, struct run_data *d, char *err, size_t err_size)
{
    const struct file_place *place = place_of(f->file);
    const struct csv_table *t = &f->table;
    size_t n_columns;
    const struct data_column *columns = data_file_header(f->file, &n_columns);
    int at[MAX_COLUMNS];
    char why[256];
    if (place == NULL || n_columns > MAX_COLUMNS)
        return set_error(err, err_size, "%s: the report has no row type for it", f->path);
    if (f->absent)
        return 0;
    for (size_t c = 0; c < n_columns; c++)
        if ((at[c] = csv_table_column(t, columns[c].name)) < 0 &&
            !(columns[c].flags & COLUMN_MAY_BE_ABSENT))
            return set_error(err, err_size, "%s has no column %s", f->path, columns[c].name);
    if (t->n_rows == 0)
        return set_error(err, err_size, "%s has no rows, only its header", f->path);
    char *rows = calloc(t->n_rows, place->row_size);
    if (rows == NULL)
        return set_error(err, err_size, "out of memory loading %s", f->path);
    *rows_in(d, place) = rows;
    *count_in(d, place) = t->n_rows;
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < n_columns; c++)
            if (parse_field(&columns[c], at[c] >= 0 ? csv_table_cell(t, r, at[c]) : "",
                            rows + r * place->row_size + place->members[c].offset, why,
                            sizeof why) != 0)
                return refuse_at(err, err_size, f, r, "column", columns[c].name, why);
    return 0;
}

/* <<tell-a-number-from-a-text>>, paper/90-appendix-report.md */
static const struct data_column ANY_NUMBER = {"a number", COLUMN_NUM, -MAX_COUNT, MAX_COUNT,
                                              "", "a value no key declares", 0};

/* -?D+(.D+)?(e[+-]D+)?: what %d, %.Nf and %.17g write. */
static int written_as_a_number(const char *s)
{
    size_t n;
    s += *s == '-';
    if ((n = strspn(s, "0123456789")) == 0)
        return 0;
    s += n;
    if (*s == '.' && (n = strspn(s + 1, "0123456789")) > 0)
        s += 1 + n;
    if ((*s == 'e' || *s == 'E') && (s[1] == '+' || s[1] == '-') &&
        (n = strspn(s + 2, "0123456789")) > 0)
        s += 2 + n;
    return *s == '\0';
}

static int taken_for_a_number(const char *text)
{
    char *end;
    (void)strtod(text, &end);
    if (end == text || *end != '\0')
        return 0;
    return strpbrk(text, "nNiI") != NULL || written_as_a_number(text);   /* nan, inf */
}

/* <<load-key-value-files>>, paper/90-appendix-report.md */
static const struct data_column *declared(const struct data_file *file, const char *key)
{
    for (size_t k = 0; k < file->n_columns; k++)
        if (strcmp(file->columns[k].name, key) == 0)
            return &file->columns[k];
    return NULL;
}

static int load_key_values(const struct loaded_file *f, struct run_data *d, char *err,
                           size_t err_size)
{
    char why[256];
    if (f->absent)
        return 0;
    if (load_rows(f, d, err, err_size) != 0)
        return -1;
    const struct kv_file *kv = (const struct kv_file *)rows_in(d, place_of(f->file));
    for (size_t k = 0; k < f->file->n_columns; k++)
        if (kv_get(kv, f->file->columns[k].name) == NULL)
            return set_error(err, err_size, "%s has no key %s", f->path, f->file->columns[k].name);
    for (size_t r = 0; r < kv->n; r++) {
        const struct data_column *c = declared(f->file, kv->rows[r].key);
        if (c == NULL && taken_for_a_number(kv->rows[r].value))
            c = &ANY_NUMBER;
        if (c != NULL && parse_field(c, kv->rows[r].value, NULL, why, sizeof why) != 0)
            return refuse_at(err, err_size, f, r, "key", kv->rows[r].key, why);
    }
    return 0;
}

/* <<look-up-a-key>>, paper/90-appendix-report.md */
const char *kv_get(const struct kv_file *f, const char *key)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->rows[i].key, key) == 0)
            return f->rows[i].value;
    return NULL;
}

double kv_number(const struct kv_file *f, const char *key)
{
    const char *text = kv_get(f, key);
    char *end;
    if (text == NULL)
        return NAN;
    double v = strtod(text, &end);
    return end != text && *end == '\0' ? v : NAN;
}

/* <<load-the-run>>, paper/90-appendix-report.md */
/* Each file where it is stored, checked against the manifest, then parsed. */
static int read_every_file(struct loaded_file *files, const char *dir, const struct csv_table *m,
                           char *err, size_t err_size)
{
    for (size_t i = 0; i < N_DATA_FILES; i++) {
        files[i].file = &DATA_FILES[i];
        if (stored_path(dir, DATA_FILES[i].name, files[i].path, sizeof files[i].path, err,
                        err_size) != 0)
            return -1;
        files[i].absent = (DATA_FILES[i].flags & ADDED_FILE) && access(files[i].path, F_OK) != 0;
        if (files[i].absent)
            continue;                          /* a run made before the file existed */
        if (manifest_check_file(m, DATA_FILES[i].name, files[i].path, MAX_RUN_FILE_BYTES, err,
                                err_size) != 0 ||
            csv_table_load(files[i].path, &files[i].table, err, err_size) != 0)
            return -1;
    }
    return 0;
}

int run_data_load(struct run_data *d, const char *dir, char *err, size_t err_size)
{
    return run_data_load_folder(d, dir, RUN_DATA, err, err_size);
}

int run_data_load_folder(struct run_data *d, const char *dir, enum run_folder kind, char *err,
                         size_t err_size)
{
    struct loaded_file *files = calloc(N_DATA_FILES, sizeof *files);
    struct csv_table m;
    memset(d, 0, sizeof *d);
    if (files == NULL)
        return set_error(err, err_size, "out of memory loading %s", dir);
    int listed = manifest_load(dir, kind, &m, err, err_size) == 0;
    int failed = !listed ||
                 (kind == RUN_KEPT && manifest_covers_the_folder(&m, dir, err, err_size) != 0) ||
                 read_every_file(files, dir, &m, err, err_size) != 0 ||
                 manifest_verify(&m, dir, files, N_DATA_FILES, err, err_size) != 0;
    for (size_t i = 0; !failed && i < N_DATA_FILES; i++)
        failed = (DATA_FILES[i].flags & KEY_VALUE ? load_key_values : load_rows)(
                     &files[i], d, err, err_size) != 0;
    failed = failed || run_checks(d, files, N_DATA_FILES, err, err_size) != 0;
    for (size_t i = 0; i < N_DATA_FILES; i++)
        csv_table_free(&files[i].table);
    if (listed)
        csv_table_free(&m);
    free(files);
    if (failed)
        run_data_free(d);
    return failed ? -1 : 0;
}

void run_data_free(struct run_data *d)
{
    for (size_t i = 0; i < sizeof PLACES_OF_FILES / sizeof PLACES_OF_FILES[0]; i++)
        free(*rows_in(d, &PLACES_OF_FILES[i]));
    memset(d, 0, sizeof *d);
}
