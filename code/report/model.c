/*
 * model.c - one loader, driven by a description of each file's columns.
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

#include "report/checks.h"
#include "report/csvread.h"
#include "report/manifest.h"
#include "report/model.h"
#include "report/schema.h"
#include "util/error.h"

#define MAX_BARS 1e8           /* ipctax-bench --bars at most */
#define MAX_COMBOS 1e5         /* --combos at most */
#define MAX_ROUNDS 1e4         /* --max-rounds at most */
#define MAX_SECONDS 1e6        /* 11.6 days; --budget is at most one */
#define MAX_COUNT 1e15         /* instructions, operations, bytes, repetitions: about 2^50 */
#define MAX_PNL 1e12           /* percentage points; a sweep's is in the thousands */
#define MAX_EPOCH 4102444800.0 /* 2100-01-01 */

#define ANY_TEXT 0, 0          /* a text, possibly empty */
#define NAME 1, 0              /* a text of one character or more */
#define SECONDS 0, MAX_SECONDS
#define TIMED_S 1e-9, MAX_SECONDS   /* a timed interval: more than zero, as it is divided by */
#define NANOS 0, MAX_SECONDS * 1e9
#define COUNT 0, MAX_COUNT     /* 0, 1, ...: a count, a size, an index */
#define ORDINAL 1, MAX_COUNT   /* 1, 2, ...: a pass, a repetition, a place in an order */
#define ROUND 1, MAX_ROUNDS
#define COMBO 0, MAX_COMBOS - 1
#define WINDOW 1, MAX_BARS
#define PNL -MAX_PNL, MAX_PNL
#define CPU 0, 4095            /* a CPU's number (CPU_SETSIZE is 1024 in glibc; room to spare) */

#define COL(row, member, type, ...)                                     \
    {#member, COLUMN_##type, __VA_ARGS__, offsetof(struct row, member), \
     sizeof(((struct row *)0)->member)}
#define KEY(name, type, ...) {name, COLUMN_##type, __VA_ARGS__, 0, 0}

static const struct data_column RUN_COLUMNS[] = {
    COL(run_row, architecture, TEXT, NAME),
    COL(run_row, pairing, TEXT, NAME),
    COL(run_row, round, INT, 0, MAX_ROUNDS),
    COL(run_row, position, INT, COUNT),
    COL(run_row, unit, INT, COUNT),
    COL(run_row, slot, INT, 0, 3),
    COL(run_row, run, INT, COUNT),
    COL(run_row, partner, NUM_OR_EMPTY, COUNT),
    COL(run_row, bars, INT, 0, MAX_BARS),
    COL(run_row, combos, INT, 0, MAX_COMBOS),
    COL(run_row, status, TEXT, NAME),
    COL(run_row, start_s, NUM, SECONDS),
    COL(run_row, seconds, NUM, TIMED_S),
    COL(run_row, client_cpu_s, NUM, SECONDS),
    COL(run_row, engine_cpu_s, NUM_OR_EMPTY, SECONDS),
    COL(run_row, cpus_allowed, TEXT, ANY_TEXT),
    COL(run_row, cpu_start, NUM_OR_EMPTY, CPU),
    COL(run_row, cpu_end, NUM_OR_EMPTY, CPU),
    COL(run_row, engine_cpu, NUM_OR_EMPTY, CPU),
    COL(run_row, client_minor_faults, NUM_OR_EMPTY, COUNT),
    COL(run_row, engine_minor_faults, NUM_OR_EMPTY, COUNT),
};
static const struct data_column CALL_COLUMNS[] = {
    COL(call_row, architecture, TEXT, NAME),
    COL(call_row, round, INT, ROUND),
    COL(call_row, run, INT, ORDINAL),
    COL(call_row, call, INT, COUNT),
    COL(call_row, rtt_ns, NUM, NANOS),
    COL(call_row, encode_ns, NUM, NANOS),
    COL(call_row, send_ns, NUM, NANOS),
    COL(call_row, wait_ns, NUM, NANOS),
    COL(call_row, receive_ns, NUM, NANOS),
    COL(call_row, decode_ns, NUM, NANOS),
    COL(call_row, engine_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, engine_decode_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, compute_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, engine_encode_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, engine_cpu_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, process_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, process_cpu_ns, NUM_OR_EMPTY, NANOS),
    COL(call_row, process_minor_faults, NUM_OR_EMPTY, COUNT),
    COL(call_row, request_bytes, NUM, COUNT),
    COL(call_row, reply_bytes, NUM, COUNT),
};
static const struct data_column GATE_COLUMNS[] = {
    COL(gate_row, architecture, TEXT, NAME),
    COL(gate_row, combos, INT, 0, MAX_COMBOS),
    COL(gate_row, identical, INT, 0, MAX_COMBOS),
    COL(gate_row, max_abs_pnl_diff, NUM_OR_EMPTY, 0, 2 * MAX_PNL),
    COL(gate_row, verdict, TEXT, NAME),
    COL(gate_row, error, TEXT, ANY_TEXT),
};
static const struct data_column SWEEP_COLUMNS[] = {
    COL(sweep_row, combo, INT, COMBO),
    COL(sweep_row, L, INT, WINDOW),
    COL(sweep_row, h_half, INT, WINDOW),
    COL(sweep_row, h_len, INT, WINDOW),
    COL(sweep_row, h_sqrt, INT, WINDOW),
    COL(sweep_row, t_third, INT, WINDOW),
    COL(sweep_row, t_half, INT, WINDOW),
    COL(sweep_row, t_len, INT, WINDOW),
    COL(sweep_row, pnl, NUM, PNL),
    COL(sweep_row, trades, INT, 0, MAX_BARS),
};

static const struct data_column ECHO_COLUMNS[] = {
    COL(echo_row, client, TEXT, NAME),
    COL(echo_row, transport, TEXT, NAME),
    COL(echo_row, placement, TEXT, NAME),
    COL(echo_row, client_cpu, INT, CPU),
    COL(echo_row, engine_cpu, INT, -1, 4095),
    COL(echo_row, mode, TEXT, NAME),
    COL(echo_row, floats, INT, COUNT),
    COL(echo_row, bytes, INT, COUNT),
    COL(echo_row, pass, INT, ORDINAL),
    COL(echo_row, block, INT, COUNT),
    COL(echo_row, rep, INT, ORDINAL),
    COL(echo_row, rtt_ns, NUM, NANOS),
    COL(echo_row, engine_ns, NUM_OR_EMPTY, NANOS),
};
static const struct data_column COLD_COLUMNS[] = {
    COL(cold_row, client, TEXT, NAME),
    COL(cold_row, rep, INT, ORDINAL),
    COL(cold_row, warmth, TEXT, NAME),
    COL(cold_row, cpu, INT, CPU),
    COL(cold_row, engine_cpu, INT, CPU),
    COL(cold_row, rtt_ns, NUM, NANOS),
    COL(cold_row, encode_ns, NUM, NANOS),
    COL(cold_row, send_ns, NUM, NANOS),
    COL(cold_row, wait_ns, NUM, NANOS),
    COL(cold_row, receive_ns, NUM, NANOS),
    COL(cold_row, decode_ns, NUM, NANOS),
    COL(cold_row, engine_ns, NUM, NANOS),
    COL(cold_row, engine_decode_ns, NUM, NANOS),
    COL(cold_row, compute_ns, NUM, NANOS),
    COL(cold_row, engine_encode_ns, NUM, NANOS),
    COL(cold_row, client_minor_faults, NUM, COUNT),
    COL(cold_row, engine_minor_faults, NUM, COUNT),
    COL(cold_row, request_bytes, NUM, COUNT),
    COL(cold_row, reply_bytes, NUM, COUNT),
};
static const struct data_column SERIAL_COLUMNS[] = {
    COL(serial_row, language, TEXT, NAME),
    COL(serial_row, format, TEXT, NAME),
    COL(serial_row, operation, TEXT, NAME),
    COL(serial_row, rep, INT, ORDINAL),
    COL(serial_row, ns, NUM, NANOS),
    COL(serial_row, bytes, NUM, COUNT),
};
static const struct data_column SPAWN_COLUMNS[] = {
    COL(spawn_row, kind, TEXT, NAME),
    COL(spawn_row, rep, INT, ORDINAL),
    COL(spawn_row, combo, INT, COMBO),
    COL(spawn_row, rtt_ns, NUM, NANOS),
    COL(spawn_row, process_ns, NUM, NANOS),
    COL(spawn_row, process_cpu_ns, NUM, NANOS),
    COL(spawn_row, minor_faults, NUM, COUNT),
    COL(spawn_row, compute_ns, NUM_OR_EMPTY, NANOS),
};
static const struct data_column LAYOUT_COLUMNS[] = {
    COL(layout_row, side, TEXT, NAME),
    COL(layout_row, code_shift, NUM_OR_EMPTY, COUNT),
    COL(layout_row, series_offset, INT, COUNT),
    COL(layout_row, array_offset, INT, COUNT),
    COL(layout_row, array_stagger, INT, COUNT),
    COL(layout_row, pass, INT, ORDINAL),
    COL(layout_row, seconds, NUM, TIMED_S),
};
static const struct data_column ROOF_COLUMNS[] = {
    COL(roof_row, kind, TEXT, NAME),
    COL(roof_row, lanes, INT, ORDINAL),
    COL(roof_row, threads, INT, ORDINAL),
    COL(roof_row, pass, INT, ORDINAL),
    COL(roof_row, flops, NUM, COUNT),
    COL(roof_row, seconds, NUM, TIMED_S),
};
static const struct data_column COUNT_COLUMNS[] = {
    COL(count_row, side, TEXT, NAME),
    COL(count_row, what, TEXT, NAME),
    COL(count_row, requests, INT, COUNT),
    COL(count_row, value, NUM, COUNT),
};
static const struct data_column ORIGINAL_COLUMNS[] = {
    COL(original_row, key, TEXT, NAME),
    COL(original_row, value, TEXT, ANY_TEXT),
    COL(original_row, unit, TEXT, NAME),
    COL(original_row, source, TEXT, NAME),
};

static const struct data_column RUN_KEYS[] = {
    KEY("bars", INT, 1, MAX_BARS),
    KEY("combos", INT, 1, MAX_COMBOS),
    KEY("seed", INT, 0, 4294967295.0),
    KEY("series_sha256", TEXT, NAME),
    KEY("scale", NUM, 0.01, 100),
    KEY("budget_s", NUM, 1, 86400),
    KEY("target", NUM, 0, 1),
    KEY("min_rounds", INT, ROUND),
    KEY("max_rounds", INT, ROUND),
    KEY("rounds", INT, ROUND),
    KEY("stop_reason", TEXT, NAME),
    KEY("rounds_seconds", NUM, SECONDS),
};
static const struct data_column MACHINE_KEYS[] = {
    KEY("commit", TEXT, NAME),
    KEY("date_epoch", INT, 0, MAX_EPOCH),
};
static const struct data_column ORACLE_KEYS[] = {
    KEY("bars", INT, 1, MAX_BARS),
    KEY("combos", INT, 1, MAX_COMBOS),
    KEY("identical", INT, 0, MAX_COMBOS),
    KEY("numpy", TEXT, NAME),
};
static const struct data_column ECHO_SETTING_KEYS[] = {
    KEY("warmup", INT, COUNT),
    KEY("passes", INT, ORDINAL),
    KEY("reps_small", INT, ORDINAL),
    KEY("reps_large", INT, ORDINAL),
    KEY("large_from", INT, COUNT),
    KEY("sizes", INT, ORDINAL),
};
static const struct data_column ROOF_SETTING_KEYS[] = {
    KEY("chains", INT, ORDINAL),
    KEY("passes", INT, ORDINAL),
};
#define N(columns) (sizeof columns / sizeof columns[0])

#define ROWS_FILE(name, key, columns, type, member, flags) \
    {name, key, columns, N(columns), sizeof(struct type), offsetof(struct run_data, member), \
     offsetof(struct run_data, n_##member), flags}
#define KV_FILE(name, keys, n_keys, member, flags)                                   \
    {name, "key", keys, n_keys, sizeof(struct kv), offsetof(struct run_data, member.rows), \
     offsetof(struct run_data, member.n), KEY_VALUE | (flags)}
#define KV_DECLARED(name, keys, member) KV_FILE(name, keys, N(keys), member, 0)
#define KV_ANY(name, member, flags) KV_FILE(name, NULL, 0, member, flags)

const struct data_file DATA_FILES[] = {
    KV_DECLARED("machine.csv", MACHINE_KEYS, machine),
    KV_DECLARED("run.csv", RUN_KEYS, run),
    KV_DECLARED("oracle.csv", ORACLE_KEYS, oracle),
    KV_ANY("load.csv", load, 0),
    KV_ANY("valgrind.csv", valgrind, 0),
    KV_ANY("fuzz.csv", fuzz, NOT_OF_THE_RUN),
    KV_DECLARED("echo_settings.csv", ECHO_SETTING_KEYS, echo_settings),
    KV_DECLARED("roofline_settings.csv", ROOF_SETTING_KEYS, roof_settings),
    ROWS_FILE("architectures.csv", "architecture,run", RUN_COLUMNS, run_row, runs, 0),
    ROWS_FILE("calls.csv", "run,call", CALL_COLUMNS, call_row, calls, 0),
    ROWS_FILE("gate.csv", "architecture", GATE_COLUMNS, gate_row, gates, 0),
    ROWS_FILE("sweep.csv", "combo", SWEEP_COLUMNS, sweep_row, sweep, 0),
    ROWS_FILE("echo.csv", "client,transport,placement,mode,floats,pass,rep", ECHO_COLUMNS,
              echo_row, echo, 0),
    ROWS_FILE("cold.csv", "client,rep,warmth", COLD_COLUMNS, cold_row, cold, 0),
    ROWS_FILE("serialization.csv", "language,format,operation,rep", SERIAL_COLUMNS, serial_row,
              serial, 0),
    ROWS_FILE("spawn.csv", "kind,rep", SPAWN_COLUMNS, spawn_row, spawns, 0),
    ROWS_FILE("layout.csv", "side,code_shift,series_offset,array_offset,array_stagger,pass",
              LAYOUT_COLUMNS, layout_row, layout, 0),
    ROWS_FILE("roofline.csv", "kind,threads,pass", ROOF_COLUMNS, roof_row, roof, 0),
    ROWS_FILE("counts.csv", "side,what,requests", COUNT_COLUMNS, count_row, counts, 0),
    ROWS_FILE("original.csv", "key", ORIGINAL_COLUMNS, original_row, original, NOT_OF_THE_RUN),
};
const size_t N_DATA_FILES = N(DATA_FILES);

const struct data_file *data_file_named(const char *name)
{
    for (size_t i = 0; i < N_DATA_FILES; i++)
        if (strcmp(DATA_FILES[i].name, name) == 0)
            return &DATA_FILES[i];
    return NULL;
}

static int plain_number(const char *text)
{
    return text[0] != '\0' && strchr("-.0123456789", text[0]) != NULL &&
           strspn(text, "0123456789.eE+-") == strlen(text);
}

static int parse_text(const struct data_column *c, const char *text, void *at, char *why,
                      size_t why_size)
{
    size_t len = strlen(text);
    if (len < (size_t)c->min)
        return set_error(why, why_size, "is empty");
    if (c->size > 0 && len >= c->size)
        return set_error(why, why_size, "is %zu bytes long, at most %zu fit", len, c->size - 1);
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

enum { MAX_COLUMNS = 64 };

static void **rows_in(struct run_data *d, const struct data_file *file)
{
    return (void **)((char *)d + file->rows_at);
}

static size_t *count_in(struct run_data *d, const struct data_file *file)
{
    return (size_t *)((char *)d + file->count_at);
}

static int load_rows(const struct loaded_file *f, struct run_data *d, char *err, size_t err_size)
{
    const struct data_file *file = f->file;
    const struct csv_table *t = &f->table;
    int at[MAX_COLUMNS];
    char why[256];
    if (file->n_columns > MAX_COLUMNS)
        return set_error(err, err_size, "%s: more than %d columns described", f->path,
                         MAX_COLUMNS);
    for (size_t c = 0; c < file->n_columns; c++)
        if ((at[c] = csv_table_column(t, file->columns[c].name)) < 0)
            return set_error(err, err_size, "%s has no column %s", f->path,
                             file->columns[c].name);
    if (t->n_rows == 0)
        return set_error(err, err_size, "%s has no rows, only its header", f->path);
    char *rows = calloc(t->n_rows, file->row_size);
    if (rows == NULL)
        return set_error(err, err_size, "out of memory loading %s", f->path);
    *rows_in(d, file) = rows;
    *count_in(d, file) = t->n_rows;
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < file->n_columns; c++) {
            const struct data_column *col = &file->columns[c];
            if (parse_field(col, csv_table_cell(t, r, at[c]),
                            rows + r * file->row_size + col->offset, why, sizeof why) != 0)
                return refuse_at(err, err_size, f, r, "column", col->name, why);
        }
    return 0;
}

static const struct data_column KV_COLUMNS[] = {
    COL(kv, key, TEXT, NAME),
    COL(kv, value, TEXT, ANY_TEXT),
};
static const struct data_column ANY_NUMBER = KEY("a number", NUM, -MAX_COUNT, MAX_COUNT);

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
    struct data_file as_rows = *f->file;
    struct loaded_file rows = *f;
    char why[256];
    as_rows.columns = KV_COLUMNS;
    as_rows.n_columns = N(KV_COLUMNS);
    rows.file = &as_rows;
    if (load_rows(&rows, d, err, err_size) != 0)
        return -1;
    const struct kv_file *kv = (const struct kv_file *)rows_in(d, f->file);
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

static int read_every_file(struct loaded_file *files, const char *dir, char *err,
                           size_t err_size)
{
    for (size_t i = 0; i < N_DATA_FILES; i++) {
        files[i].file = &DATA_FILES[i];
        snprintf(files[i].path, sizeof files[i].path, "%s/%s", dir, DATA_FILES[i].name);
        if (csv_table_load(files[i].path, &files[i].table, err, err_size) != 0)
            return -1;
    }
    return 0;
}

int run_data_load(struct run_data *d, const char *dir, char *err, size_t err_size)
{
    struct loaded_file *files = calloc(N_DATA_FILES, sizeof *files);
    memset(d, 0, sizeof *d);
    if (files == NULL)
        return set_error(err, err_size, "out of memory loading %s", dir);
    int failed = read_every_file(files, dir, err, err_size) != 0 ||
                 manifest_verify(dir, files, N_DATA_FILES, err, err_size) != 0;
    for (size_t i = 0; !failed && i < N_DATA_FILES; i++)
        failed = (DATA_FILES[i].flags & KEY_VALUE ? load_key_values : load_rows)(
                     &files[i], d, err, err_size) != 0;
    failed = failed || run_checks(d, files, N_DATA_FILES, err, err_size) != 0;
    for (size_t i = 0; i < N_DATA_FILES; i++)
        csv_table_free(&files[i].table);
    free(files);
    if (failed)
        run_data_free(d);
    return failed ? -1 : 0;
}

void run_data_free(struct run_data *d)
{
    for (size_t i = 0; i < N_DATA_FILES; i++)
        free(*rows_in(d, &DATA_FILES[i]));
    memset(d, 0, sizeof *d);
}
