/*
 * checks.c - a run's files agree with each other: keys, rounds, units, facts.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/grid.h"
#include "report/checks.h"
#include "schema/architectures.h"
#include "util/error.h"

/* <<the-rules-of-a-run>>, paper/90-appendix-report.md */
enum rule_kind { SEQUENCE, DISTINCT, REFERS, AGREES, CUSTOM };

struct rule {
    enum rule_kind kind;
    const char *file, *column;
    const char *within;        /* comma-separated; NULL: the whole file is one group */
    double from;               /* SEQUENCE: the first value */
    const char *fact;          /* "FILE:KEY": the count, or the value agreed with */
    const char *target;        /* REFERS: the file whose key the columns are */
    int (*check)(const struct run_data *d, const struct loaded_file *sweep, char *err,
                 size_t err_size);
};

/* One line per rule: */
#define IN_ORDER(file, column, within, from, fact) \
    {SEQUENCE, file, column, within, from, fact, NULL, NULL}
#define COUNTED(file, column, within, fact) {DISTINCT, file, column, within, 0, fact, NULL, NULL}
#define REFERS_TO(file, columns, target) {REFERS, file, columns, NULL, 0, NULL, target, NULL}
#define AGREES_WITH(file, column, fact) {AGREES, file, column, NULL, 0, fact, NULL, NULL}
#define CHECKED_BY(file, function) {CUSTOM, file, NULL, NULL, 0, NULL, NULL, function}

static int sweep_is_the_grid(const struct run_data *d, const struct loaded_file *sweep,
                             char *err, size_t err_size);
static int units_are_whole(const struct run_data *d, const struct loaded_file *runs,
                           char *err, size_t err_size);
static int gate_matches_the_runs(const struct run_data *d, const struct loaded_file *gate,
                                 char *err, size_t err_size);
static int runs_fit_the_rounds(const struct run_data *d, const struct loaded_file *runs,
                               char *err, size_t err_size);
static int calls_are_whole(const struct run_data *d, const struct loaded_file *calls,
                           char *err, size_t err_size);
static int counts_are_whole(const struct run_data *d, const struct loaded_file *counts,
                            char *err, size_t err_size);
static int fuzz_is_whole(const struct run_data *d, const struct loaded_file *fuzz,
                         char *err, size_t err_size);

static const struct rule RULES[] = {
    IN_ORDER("architectures.csv", "run", NULL, 1, NULL),
    CHECKED_BY("architectures.csv", units_are_whole),
    CHECKED_BY("architectures.csv", runs_fit_the_rounds),
    CHECKED_BY("gate.csv", gate_matches_the_runs),
    REFERS_TO("gate.csv", "architecture", "architectures.csv"),
    REFERS_TO("architectures.csv", "architecture", "gate.csv"),
    REFERS_TO("calls.csv", "architecture,run", "architectures.csv"),
    CHECKED_BY("calls.csv", calls_are_whole),
    IN_ORDER("sweep.csv", "combo", NULL, 0, "run.csv:combos"),
    CHECKED_BY("sweep.csv", sweep_is_the_grid),
    AGREES_WITH("oracle.csv", "bars", "run.csv:bars"),
    AGREES_WITH("oracle.csv", "combos", "run.csv:combos"),
    IN_ORDER("echo.csv", "rep", "client,transport,placement,mode,floats,pass", 1, NULL),
    IN_ORDER("echo.csv", "pass", "client,transport,placement,mode,floats,rep", 1,
             "echo_settings.csv:passes"),
    COUNTED("echo.csv", "floats", "client,transport,placement,mode", "echo_settings.csv:sizes"),
    IN_ORDER("cold.csv", "rep", "client,warmth", 1, "run.csv:cold_reps"),
    COUNTED("cold.csv", "warmth", "client", "=2"),
    IN_ORDER("serialization.csv", "rep", "language,format,operation", 1,
             "run.csv:serialization_reps"),
    IN_ORDER("spawn.csv", "rep", "kind", 1, "run.csv:spawn_reps"),
    IN_ORDER("layout.csv", "pass", "side,code_shift,series_offset,array_offset,array_stagger", 1,
             "run.csv:layout_passes"),
    IN_ORDER("roofline.csv", "pass", "kind,threads", 1, "roofline_settings.csv:passes"),
    CHECKED_BY("counts.csv", counts_are_whole),
    CHECKED_BY("fuzz.csv", fuzz_is_whole),
};
enum { N_RULES = sizeof RULES / sizeof RULES[0] };

/* <<compare-rows-of-a-view>>, paper/90-appendix-report.md */
enum { MAX_VIEW_COLUMNS = 8 };

struct view {
    const struct loaded_file *f;
    size_t n;                          /* columns */
    int col[MAX_VIEW_COLUMNS];         /* their indices in the table */
    int numeric[MAX_VIEW_COLUMNS];
    double *num;                       /* rows x n; NAN where empty or a text */
    size_t *order;                     /* the rows, sorted */
};

static int column_is_numeric(const struct data_file *file, const char *name)
{
    for (size_t c = 0; !(file->flags & KEY_VALUE) && c < file->n_columns; c++)
        if (strcmp(file->columns[c].name, name) == 0)
            return file->columns[c].type != COLUMN_TEXT;
    return 0;
}

static int column_may_be_absent(const struct data_file *file, const char *name)
{
    for (size_t c = 0; !(file->flags & KEY_VALUE) && c < file->n_columns; c++)
        if (strcmp(file->columns[c].name, name) == 0)
            return (file->columns[c].flags & COLUMN_MAY_BE_ABSENT) != 0;
    return 0;
}

static int compare_rows(const struct view *a, size_t i, const struct view *b, size_t j,
                        size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (a->numeric[k]) {
            double x = a->num[i * a->n + k], y = b->num[j * b->n + k];
            if (isnan(x) || isnan(y)) {
                if (isnan(x) != isnan(y))
                    return isnan(x) ? -1 : 1;
            } else if (x != y) {
                return x < y ? -1 : 1;
            }
        } else {
            int c = strcmp(csv_table_cell(&a->f->table, i, a->col[k]),
                           csv_table_cell(&b->f->table, j, b->col[k]));
            if (c != 0)
                return c;
        }
    }
    return 0;
}

static int compare_order(const void *x, const void *y, void *view)
{
    const struct view *v = view;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = compare_rows(v, i, v, j, v->n);
    return c != 0 ? c : i < j ? -1 : i > j;
}

/* <<open-a-view>>, paper/90-appendix-report.md */
/* Adds the comma-separated columns of `names` to v; 0 or -1. */
static int view_add(struct view *v, const char *names, char *err, size_t err_size)
{
    const char *at = names;
    while (at != NULL && *at != '\0') {
        size_t len = strcspn(at, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, at);
        if (v->n == MAX_VIEW_COLUMNS)
            return set_error(err, err_size, "%s: a check names too many columns", v->f->path);
        /* an older run's file lacks a column added since: one value in every row */
        if ((v->col[v->n] = csv_table_column(&v->f->table, name)) < 0 &&
            column_may_be_absent(v->f->file, name)) {
            at += len + (at[len] == ',');
            continue;
        }
        if (v->col[v->n] < 0)
            return set_error(err, err_size, "%s has no column %s", v->f->path, name);
        v->numeric[v->n++] = column_is_numeric(v->f->file, name);
        at += len + (at[len] == ',');
    }
    return 0;
}

static void view_free(struct view *v)
{
    free(v->num);
    free(v->order);
    memset(v, 0, sizeof *v);
}

/* A view of f by the columns `names`, then `last`, either may be NULL; 0 or -1. */
static int view_open(struct view *v, const struct loaded_file *f, const char *names,
                     const char *last, char *err, size_t err_size)
{
    size_t rows = f->table.n_rows;
    memset(v, 0, sizeof *v);
    v->f = f;
    if (view_add(v, names, err, err_size) != 0 || view_add(v, last, err, err_size) != 0)
        return -1;
    v->num = malloc((rows * v->n + 1) * sizeof *v->num);
    v->order = malloc((rows + 1) * sizeof *v->order);
    if (v->num == NULL || v->order == NULL) {
        view_free(v);
        return set_error(err, err_size, "out of memory checking %s", f->path);
    }
    for (size_t r = 0; r < rows; r++) {
        v->order[r] = r;
        for (size_t k = 0; k < v->n; k++) {
            const char *cell = csv_table_cell(&f->table, r, v->col[k]);
            v->num[r * v->n + k] = v->numeric[k] && cell[0] != '\0' ? strtod(cell, NULL) : NAN;
        }
    }
    qsort_r(v->order, rows, sizeof *v->order, compare_order, v);
    return 0;
}

/* <<name-a-row-by-its-group>>, paper/90-appendix-report.md */
static size_t line_of(const struct view *v, size_t row)
{
    return csv_table_line(&v->f->table, row);
}

static const char *column_name(const struct view *v, size_t k)
{
    return v->f->table.cells[v->col[k]];       /* row 0 of the table is the header */
}

static const char *cell_of(const struct view *v, size_t row, size_t k)
{
    return csv_table_cell(&v->f->table, row, v->col[k]);
}

/* "col value, col value" for the first n columns of v at row r. */
static const char *describe(const struct view *v, size_t r, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    snprintf(buf, size, "%s", n == 0 ? "the file" : "");
    for (size_t k = 0; k < n && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s %s", k ? ", " : "",
                                 column_name(v, k), cell_of(v, r, k));
    return buf;
}

/* <<find-a-fact>>, paper/90-appendix-report.md */
static const struct loaded_file *loaded(const struct loaded_file *files, size_t n_files,
                                        const char *name)
{
    for (size_t i = 0; i < n_files; i++)
        if (strcmp(files[i].file->name, name) == 0)
            return &files[i];
    return NULL;
}

struct fact {
    const char *file;
    char key[128];
    const char *value;
    size_t line;
    char made[32];                     /* a value no file states (see below) */
};

/* A repetition count that an older run.csv does not state: what its scale
 * made (@sec:data-model). 1 when `key` is one, with the fact filled in. */
static int repetitions_made(const struct loaded_file *run, const char *key, struct fact *fact)
{
    int k = csv_table_column(&run->table, "key"), v = csv_table_column(&run->table, "value");
    double scale = NAN;
    for (size_t r = 0; r < run->table.n_rows; r++)
        if (strcmp(csv_table_cell(&run->table, r, k), "scale") == 0)
            scale = strtod(csv_table_cell(&run->table, r, v), NULL);
    for (int i = 0; i < N_REPEATED && !isnan(scale); i++)
        if (strcmp(REPETITIONS[i].key, key) == 0) {
            snprintf(fact->made, sizeof fact->made, "%d",
                     repetitions_before((enum repeated)i, scale));
            snprintf(fact->key, sizeof fact->key, "%s (what its scale made)", key);
            fact->file = run->file->name;
            fact->value = fact->made;
            fact->line = 0;
            return 1;
        }
    return 0;
}

/* The fact "FILE:KEY" as the files state it, or "=N", the number N; 0 or -1. */
static int fact_find(const char *ref, const struct loaded_file *files, size_t n_files,
                     struct fact *fact, char *err, size_t err_size)
{
    char file[64];
    const char *colon = strchr(ref, ':');
    if (ref[0] == '=') {
        *fact = (struct fact){.file = "the check", .key = "its constant"};
        snprintf(fact->made, sizeof fact->made, "%s", ref + 1);
        fact->value = fact->made;
        return 0;
    }
    snprintf(file, sizeof file, "%.*s", colon ? (int)(colon - ref) : 0, ref);
    const struct loaded_file *f = loaded(files, n_files, file);
    if (f == NULL || !(f->file->flags & KEY_VALUE))
        return set_error(err, err_size, "a check names %s, not a key of a key-value file", ref);
    int k = csv_table_column(&f->table, "key"), v = csv_table_column(&f->table, "value");
    for (size_t r = 0; r < f->table.n_rows; r++)
        if (strcmp(csv_table_cell(&f->table, r, k), colon + 1) == 0) {
            fact->file = f->file->name;
            snprintf(fact->key, sizeof fact->key, "%s", colon + 1);
            fact->value = csv_table_cell(&f->table, r, v);
            fact->line = csv_table_line(&f->table, r);
            return 0;
        }
    if (strcmp(file, "run.csv") == 0 && repetitions_made(f, colon + 1, fact))
        return 0;
    return set_error(err, err_size, "%s has no key %s", f->path, colon + 1);
}

/* <<check-a-key>>, paper/90-appendix-report.md */
static int check_key(const struct loaded_file *f, char *err, size_t err_size)
{
    struct view v;
    char what[512];
    int status = 0;
    if (view_open(&v, f, f->file->key, NULL, err, err_size) != 0)
        return -1;
    for (size_t s = 1; status == 0 && s < f->table.n_rows; s++) {
        size_t i = v.order[s - 1], j = v.order[s];
        if (compare_rows(&v, i, &v, j, v.n) == 0)
            status = set_error(err, err_size, "%s line %zu: %s again, as on line %zu",
                               f->path, line_of(&v, j), describe(&v, j, v.n, what, sizeof what),
                               line_of(&v, i));
    }
    view_free(&v);
    return status;
}

/* <<check-a-sequence>>, paper/90-appendix-report.md */
/* Row s of v's order against its group (the first w columns): 0, or -1. */
static int sequence_step(const struct rule *r, const struct view *v, size_t s, size_t w,
                         const struct fact *fact, char *err, size_t err_size)
{
    size_t i = v->order[s], rows = v->f->table.n_rows;
    int first = s == 0 || compare_rows(v, v->order[s - 1], v, i, w) != 0;
    int last = s + 1 == rows || compare_rows(v, i, v, v->order[s + 1], w) != 0;
    double x = v->num[i * v->n + w];
    double before = first ? r->from - 1 : v->num[v->order[s - 1] * v->n + w];
    char group[512], place[4200];
    if (x == before + 1 && !(last && fact != NULL &&
                             x - r->from + 1 != strtod(fact->value, NULL)))
        return 0;
    describe(v, i, w, group, sizeof group);
    snprintf(place, sizeof place, "%s line %zu, column %s", v->f->path, line_of(v, i), r->column);
    if (first && x != r->from)
        return set_error(err, err_size, "%s: %s begins at %s, not at %g", place, group,
                         cell_of(v, i, w), r->from);
    if (x == before)
        return set_error(err, err_size, "%s: %s has %s twice (also line %zu)", place, group,
                         cell_of(v, i, w), line_of(v, v->order[s - 1]));
    if (x != before + 1)
        return set_error(err, err_size, "%s: %s goes from %g to %s, without %g", place, group,
                         before, cell_of(v, i, w), before + 1);
    return set_error(err, err_size, "%s: %s ends at %s, but %s says %s %s (%g to %g)", place,
                     group, cell_of(v, i, w), fact->file, fact->key, fact->value, r->from,
                     r->from + strtod(fact->value, NULL) - 1);
}

static int check_sequence(const struct rule *r, const struct loaded_file *f,
                          const struct fact *fact, char *err, size_t err_size)
{
    struct view v;
    int status = 0;
    if (view_open(&v, f, r->within, r->column, err, err_size) != 0)
        return -1;
    for (size_t s = 0; status == 0 && s < f->table.n_rows; s++)
        status = sequence_step(r, &v, s, v.n - 1, fact, err, err_size);
    view_free(&v);
    return status;
}

/* <<check-distinct-counts>>, paper/90-appendix-report.md */
static int check_distinct(const struct rule *r, const struct loaded_file *f,
                          const struct fact *fact, char *err, size_t err_size)
{
    struct view v;
    char group[512];
    int status = 0;
    size_t distinct = 0, rows = f->table.n_rows;
    if (view_open(&v, f, r->within, r->column, err, err_size) != 0)
        return -1;
    size_t w = v.n - 1;
    for (size_t s = 0; status == 0 && s < rows; s++) {
        size_t i = v.order[s];
        int first = s == 0 || compare_rows(&v, v.order[s - 1], &v, i, w) != 0;
        int last = s + 1 == rows || compare_rows(&v, i, &v, v.order[s + 1], w) != 0;
        distinct = first ? 1 : distinct + (compare_rows(&v, v.order[s - 1], &v, i, v.n) != 0);
        if (last && (double)distinct != strtod(fact->value, NULL))
            status = set_error(err, err_size,
                               "%s line %zu, column %s: %s has %zu different values, but %s "
                               "says %s %s", f->path, line_of(&v, i), r->column,
                               describe(&v, i, w, group, sizeof group), distinct, fact->file,
                               fact->key, fact->value);
    }
    view_free(&v);
    return status;
}

/* <<check-a-reference>>, paper/90-appendix-report.md */
static int found_in(const struct view *src, size_t i, const struct view *dst)
{
    size_t low = 0, high = dst->f->table.n_rows;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        int c = compare_rows(src, i, dst, dst->order[mid], src->n);
        if (c == 0)
            return 1;
        if (c < 0)
            high = mid;
        else
            low = mid + 1;
    }
    return 0;
}

static int check_reference(const struct rule *r, const struct loaded_file *f,
                           const struct loaded_file *target, char *err, size_t err_size)
{
    struct view src, dst;
    char what[512];
    int status = 0;
    if (view_open(&src, f, r->column, NULL, err, err_size) != 0)
        return -1;
    if (view_open(&dst, target, r->column, NULL, err, err_size) != 0) {
        view_free(&src);
        return -1;
    }
    for (size_t i = 0; status == 0 && i < f->table.n_rows; i++)
        if (!found_in(&src, i, &dst))
            status = set_error(err, err_size, "%s line %zu: %s is not in %s", f->path,
                               line_of(&src, i), describe(&src, i, src.n, what, sizeof what),
                               target->file->name);
    view_free(&src);
    view_free(&dst);
    return status;
}

/* <<check-an-agreement>>, paper/90-appendix-report.md */
static int same_value(const char *a, const char *b)
{
    char *end_a, *end_b;
    double x = strtod(a, &end_a), y = strtod(b, &end_b);
    if (end_a != a && *end_a == '\0' && end_b != b && *end_b == '\0')
        return x == y;
    return strcmp(a, b) == 0;
}

static int check_agreement(const struct rule *r, const struct loaded_file *f,
                           const struct fact *fact, char *err, size_t err_size)
{
    const struct csv_table *t = &f->table;
    int kv = (f->file->flags & KEY_VALUE) != 0;
    int col = csv_table_column(t, kv ? "value" : r->column), key = csv_table_column(t, "key");
    if (col < 0)
        return set_error(err, err_size, "%s has no column %s", f->path, r->column);
    for (size_t i = 0; i < t->n_rows; i++) {
        if (kv && strcmp(csv_table_cell(t, i, key), r->column) != 0)
            continue;
        const char *value = csv_table_cell(t, i, col);
        if (!same_value(value, fact->value))
            return set_error(err, err_size, "%s line %zu, %s %s: %s, but %s line %zu says %s",
                             f->path, csv_table_line(t, i), kv ? "key" : "column", r->column,
                             value, fact->file, fact->line, fact->value);
    }
    return 0;
}

/* <<check-the-sweeps-grid>>, paper/90-appendix-report.md */
static int sweep_is_the_grid(const struct run_data *d, const struct loaded_file *sweep,
                             char *err, size_t err_size)
{
    struct combo_params *grid = malloc((d->n_sweep + 1) * sizeof *grid);
    int status = 0;
    if (grid == NULL)
        return set_error(err, err_size, "out of memory checking %s", sweep->path);
    grid_fill(grid, d->n_sweep);
    for (size_t i = 0; status == 0 && i < d->n_sweep; i++) {
        const struct sweep_row *row = &d->sweep[i];
        const struct combo_params *p = &grid[row->combo];
        const struct {
            const char *name;
            long have;
            int64_t want;
        } windows[] = {{"L", row->L, p->h_len},           {"h_half", row->h_half, p->h_half},
                       {"h_len", row->h_len, p->h_len},   {"h_sqrt", row->h_sqrt, p->h_sqrt},
                       {"t_third", row->t_third, p->t_third}, {"t_half", row->t_half, p->t_half},
                       {"t_len", row->t_len, p->t_len}};
        for (size_t k = 0; status == 0 && k < sizeof windows / sizeof windows[0]; k++)
            if (windows[k].have != windows[k].want)
                status = set_error(err, err_size,
                                   "%s line %zu, column %s: %ld, but combination %ld of the "
                                   "grid has %lld", sweep->path,
                                   csv_table_line(&sweep->table, i), windows[k].name,
                                   windows[k].have, row->combo, (long long)windows[k].want);
    }
    free(grid);
    return status;
}

/* <<check-a-duet>>, paper/90-appendix-report.md */
/* The run numbered `run`, or NULL (runs are numbered 1..n in order, checked before). */
static const struct run_row *run_of(const struct run_data *d, double run)
{
    return run >= 1 && run <= (double)d->n_runs ? &d->runs[(size_t)run - 1] : NULL;
}

static int duet_is_whole(const struct run_data *d, const struct run_row *r)
{
    const struct run_row *p = run_of(d, r->partner);
    return slot_holds(PAIRING_DUET, r->slot, arch_is_baseline(r->architecture)) && p != NULL &&
           p->partner == (double)r->run && p->unit == r->unit && p->slot == r->slot &&
           p->round == r->round &&
           arch_is_baseline(r->architecture) != arch_is_baseline(p->architecture);
}

/* <<check-the-gate-against-the-runs>>, paper/90-appendix-report.md */
/* gate.csv compared as many combinations as each row's runs made. */
static int gate_matches_the_runs(const struct run_data *d, const struct loaded_file *gate,
                                 char *err, size_t err_size)
{
    for (size_t g = 0; g < d->n_gates; g++)
        for (size_t i = 0; i < d->n_runs; i++)
            if (strcmp(d->runs[i].architecture, d->gates[g].architecture) == 0 &&
                !arch_is_baseline(d->runs[i].architecture)) {
                if (d->gates[g].combos != d->runs[i].combos)
                    return set_error(err, err_size, "%s line %zu, column combos: %ld, but its "
                                     "runs in architectures.csv made %ld", gate->path,
                                     csv_table_line(&gate->table, g), d->gates[g].combos,
                                     d->runs[i].combos);
                break;
            }
    return 0;
}

/* <<check-the-units>>, paper/90-appendix-report.md */
static int units_are_whole(const struct run_data *d, const struct loaded_file *runs,
                           char *err, size_t err_size)
{
    long rounds = (long)kv_number(&d->run, "rounds");
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        const char *why = NULL;
        if (r->run != (long)i + 1)
            why = "runs are not numbered in order";
        else if (r->round < 1 || r->round > rounds)
            why = "its round is not one of run.csv's rounds";
        else if (pairing_is(r->pairing, PAIRING_DUET) && !duet_is_whole(d, r))
            why = "its duet has no partner in the same unit and slot that names it back";
        else if (pairing_is(r->pairing, PAIRING_SEQUENTIAL) &&
                 !slot_holds(PAIRING_SEQUENTIAL, r->slot, arch_is_baseline(r->architecture)))
            why = arch_is_baseline(r->architecture)
                      ? "its slot is not one a sequential unit gives the baseline"
                      : "its slot is not one a sequential unit gives the row";
        else if (!pairing_is(r->pairing, PAIRING_DUET) && !pairing_is(r->pairing, PAIRING_SEQUENTIAL))
            why = "its pairing is neither duet nor sequential";
        else if (r->bars > kv_number(&d->run, "bars") || r->combos > kv_number(&d->run, "combos"))
            why = "it ran more of the job than run.csv's bars and combinations";
        else if (i > 0 && r->unit != d->runs[i - 1].unit &&
                 !(r->round == d->runs[i - 1].round ? r->position == d->runs[i - 1].position + 1
                                                    : r->position == 1))
            why = "the units of a round are not at places 1, 2, ... in the order they ran";
        else if (i > 0 && r->unit == d->runs[i - 1].unit &&
                 (r->round != d->runs[i - 1].round || r->position != d->runs[i - 1].position))
            why = "a unit's runs are not in one round at one place";
        if (why != NULL)
            return set_error(err, err_size, "%s line %zu (run %ld, unit %ld): %s", runs->path,
                             csv_table_line(&runs->table, i), r->run, r->unit, why);
    }
    if (d->n_runs > 0 && d->runs[d->n_runs - 1].round != rounds)
        return set_error(err, err_size, "%s: its last round is %ld, but run.csv says %ld rounds",
                         runs->path, d->runs[d->n_runs - 1].round, rounds);
    return 0;
}

/* <<check-the-times>>, paper/90-appendix-report.md */
enum { ROUNDING_NS = 1000000 };        /* the printed decimals of start_s and seconds */

static int runs_fit_the_rounds(const struct run_data *d, const struct loaded_file *runs,
                               char *err, size_t err_size)
{
    double rounds_s = kv_number(&d->run, "rounds_seconds");
    for (size_t i = 0; i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (r->start_s + r->seconds > rounds_s + ROUNDING_NS / 1e9)
            return set_error(err, err_size, "%s line %zu (run %ld): it ends %.3f s into the "
                             "rounds, but run.csv says they took %.3f s", runs->path,
                             csv_table_line(&runs->table, i), r->run, r->start_s + r->seconds,
                             rounds_s);
    }
    return 0;
}

/* <<check-the-calls>>, paper/90-appendix-report.md */
/* 1 when the architecture crosses a boundary, so that its runs time calls. */
static int crosses(const char *architecture)
{
    int a = arch_row_named(architecture);
    return a >= 0 && ARCH_ROWS[a].transport != TRANSPORT_NONE;
}

static int calls_are_whole(const struct run_data *d, const struct loaded_file *calls,
                           char *err, size_t err_size)
{
    size_t *per_run = calloc(d->n_runs + 1, sizeof *per_run);     /* by run number */
    if (per_run == NULL)
        return set_error(err, err_size, "out of memory checking %s", calls->path);
    for (size_t c = 0; c < d->n_calls; c++)
        if (d->calls[c].run >= 1 && (size_t)d->calls[c].run <= d->n_runs)
            per_run[d->calls[c].run]++;
    int status = 0;
    for (size_t i = 0; status == 0 && i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (strcmp(r->status, "ok") != 0 || !crosses(r->architecture))
            continue;
        size_t j = 0;
        while (j < i && strcmp(d->runs[j].architecture, r->architecture) != 0)
            j++;
        double timed_ns = 0;
        for (size_t c = 0; c < d->n_calls; c++)
            if (d->calls[c].run == r->run)
                timed_ns += d->calls[c].rtt_ns;
        if (per_run[r->run] == 0 || per_run[r->run] != per_run[d->runs[j].run])
            status = set_error(err, err_size, "%s: run %ld (%s) has %zu calls, but its run %ld "
                               "has %zu: the file is cut short, or another run's", calls->path,
                               r->run, r->architecture, per_run[r->run], d->runs[j].run,
                               per_run[d->runs[j].run]);
        else if (timed_ns > r->seconds * 1e9 + ROUNDING_NS)
            status = set_error(err, err_size, "%s: the calls of run %ld (%s) take %.3f s, more "
                               "than the run's %.3f s", calls->path, r->run, r->architecture,
                               timed_ns / 1e9, r->seconds);
    }
    free(per_run);
    return status;
}

/* <<check-the-counts>>, paper/78-counts.md */
static int counts_are_whole(const struct run_data *d, const struct loaded_file *counts,
                            char *err, size_t err_size)
{
    static const struct {
        const char *side, *what;
        long requests;
    } READ[] = {{IN_PROCESS_SIDE, "kernel_instructions", 1},
                {"engine", "kernel_instructions", 2},
                {"engine", "total_instructions", 1},
                {"engine", "total_instructions", 3},
                {"engine", "syscalls", 1}};
    for (size_t k = 0; k < sizeof READ / sizeof READ[0]; k++) {
        size_t i = 0;
        while (i < d->n_counts && !(strcmp(d->counts[i].side, READ[k].side) == 0 &&
                                    strcmp(d->counts[i].what, READ[k].what) == 0 &&
                                    d->counts[i].requests == READ[k].requests))
            i++;
        if (i == d->n_counts)
            return set_error(err, err_size, "%s has no row %s,%s,%ld, which the summary reads",
                             counts->path, READ[k].side, READ[k].what, READ[k].requests);
    }
    for (size_t i = 0; i < d->n_counts; i++)   /* the longer strace run, or an older run's */
        if (strcmp(d->counts[i].side, "engine") == 0 &&
            strcmp(d->counts[i].what, "syscalls") == 0 &&
            (d->counts[i].requests == STRACE_REQUESTS || d->counts[i].requests == 3))
            return 0;
    return set_error(err, err_size, "%s has no row engine,syscalls,%d (nor engine,syscalls,3, as "
                     "a run before 1.14.0 has), which the summary reads", counts->path,
                     STRACE_REQUESTS);
}

/* <<check-the-fuzzers>>, paper/90-appendix-report.md */
static int fuzz_is_whole(const struct run_data *d, const struct loaded_file *fuzz,
                         char *err, size_t err_size)
{
    static const char *const FIELDS[] = {"seconds", "executions", "crashes"};
    char key[192];
    for (size_t i = 0; i < d->fuzz.n; i++) {
        const char *dot = strchr(d->fuzz.rows[i].key, '.');
        if (dot == NULL)
            continue;
        for (size_t k = 0; k < sizeof FIELDS / sizeof FIELDS[0]; k++) {
            snprintf(key, sizeof key, "%.*s.%s", (int)(dot - d->fuzz.rows[i].key),
                     d->fuzz.rows[i].key, FIELDS[k]);
            if (kv_get(&d->fuzz, key) == NULL)
                return set_error(err, err_size, "%s has no key %s: target %.*s is cut short",
                                 fuzz->path, key, (int)(dot - d->fuzz.rows[i].key),
                                 d->fuzz.rows[i].key);
        }
    }
    return 0;
}

/* <<run-every-check>>, paper/90-appendix-report.md */
static int check_rule(const struct rule *r, const struct run_data *d,
                      const struct loaded_file *files, size_t n_files, char *err,
                      size_t err_size)
{
    const struct loaded_file *f = loaded(files, n_files, r->file);
    const struct loaded_file *target = r->target ? loaded(files, n_files, r->target) : NULL;
    struct fact fact;
    if (f == NULL || (r->target != NULL && target == NULL))
        return set_error(err, err_size, "a check names %s, not a file of a run",
                         f == NULL ? r->file : r->target);
    if ((r->kind == DISTINCT || r->kind == AGREES) && r->fact == NULL)
        return set_error(err, err_size, "a check of %s names no fact", r->file);
    if (r->fact != NULL && fact_find(r->fact, files, n_files, &fact, err, err_size) != 0)
        return -1;
    switch (r->kind) {
    case SEQUENCE: return check_sequence(r, f, r->fact ? &fact : NULL, err, err_size);
    case DISTINCT: return check_distinct(r, f, &fact, err, err_size);
    case REFERS: return check_reference(r, f, target, err, err_size);
    case AGREES: return check_agreement(r, f, &fact, err, err_size);
    case CUSTOM: return r->check(d, f, err, err_size);
    }
    return -1;
}

int run_checks(const struct run_data *d, const struct loaded_file *files, size_t n_files,
               char *err, size_t err_size)
{
    for (size_t i = 0; i < n_files; i++)
        if (!files[i].absent && files[i].file->key != NULL &&
            check_key(&files[i], err, err_size) != 0)
            return -1;
    for (size_t i = 0; i < N_RULES; i++)
        if (check_rule(&RULES[i], d, files, n_files, err, err_size) != 0)
            return -1;
    return 0;
}
