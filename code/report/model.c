/*
 * model.c - one loader, driven by a description of each file's columns.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csvread.h"
#include "report/model.h"

enum column_type { TEXT, INT, NUM };

struct column {
    const char *name;
    enum column_type type;
    size_t offset, size;       /* size: of a text member */
};

#define COL(row, member, type) \
    {#member, type, offsetof(struct row, member), sizeof(((struct row *)0)->member)}

static const struct column RUN_COLUMNS[] = {
    COL(run_row, architecture, TEXT), COL(run_row, pairing, TEXT), COL(run_row, round, INT),
    COL(run_row, position, INT), COL(run_row, unit, INT), COL(run_row, slot, INT),
    COL(run_row, run, INT), COL(run_row, partner, NUM), COL(run_row, bars, INT),
    COL(run_row, combos, INT), COL(run_row, status, TEXT), COL(run_row, start_s, NUM),
    COL(run_row, seconds, NUM), COL(run_row, client_cpu_s, NUM),
    COL(run_row, engine_cpu_s, NUM), COL(run_row, cpus_allowed, TEXT),
    COL(run_row, cpu_start, NUM), COL(run_row, cpu_end, NUM), COL(run_row, engine_cpu, NUM),
    COL(run_row, client_minor_faults, NUM), COL(run_row, engine_minor_faults, NUM),
};
static const struct column CALL_COLUMNS[] = {
    COL(call_row, architecture, TEXT), COL(call_row, round, INT), COL(call_row, run, INT),
    COL(call_row, call, INT),
    COL(call_row, rtt_ns, NUM), COL(call_row, encode_ns, NUM), COL(call_row, send_ns, NUM),
    COL(call_row, wait_ns, NUM), COL(call_row, receive_ns, NUM), COL(call_row, decode_ns, NUM),
    COL(call_row, engine_ns, NUM), COL(call_row, engine_decode_ns, NUM),
    COL(call_row, compute_ns, NUM), COL(call_row, engine_encode_ns, NUM),
    COL(call_row, engine_cpu_ns, NUM), COL(call_row, process_ns, NUM),
    COL(call_row, process_cpu_ns, NUM), COL(call_row, process_minor_faults, NUM),
    COL(call_row, request_bytes, NUM), COL(call_row, reply_bytes, NUM),
};
static const struct column GATE_COLUMNS[] = {
    COL(gate_row, architecture, TEXT), COL(gate_row, combos, INT),
    COL(gate_row, identical, INT), COL(gate_row, max_abs_pnl_diff, NUM),
    COL(gate_row, verdict, TEXT), COL(gate_row, error, TEXT),
};
static const struct column SWEEP_COLUMNS[] = {
    COL(sweep_row, combo, INT), COL(sweep_row, L, INT), COL(sweep_row, h_half, INT),
    COL(sweep_row, h_len, INT), COL(sweep_row, h_sqrt, INT), COL(sweep_row, t_third, INT),
    COL(sweep_row, t_half, INT), COL(sweep_row, t_len, INT), COL(sweep_row, pnl, NUM),
    COL(sweep_row, trades, INT),
};
static const struct column ECHO_COLUMNS[] = {
    COL(echo_row, client, TEXT), COL(echo_row, transport, TEXT),
    COL(echo_row, placement, TEXT), COL(echo_row, client_cpu, INT),
    COL(echo_row, engine_cpu, INT), COL(echo_row, mode, TEXT), COL(echo_row, floats, INT),
    COL(echo_row, bytes, INT), COL(echo_row, pass, INT), COL(echo_row, block, INT),
    COL(echo_row, rep, INT), COL(echo_row, rtt_ns, NUM), COL(echo_row, engine_ns, NUM),
};
static const struct column COLD_COLUMNS[] = {
    COL(cold_row, client, TEXT), COL(cold_row, rep, INT), COL(cold_row, warmth, TEXT),
    COL(cold_row, cpu, INT), COL(cold_row, engine_cpu, INT), COL(cold_row, rtt_ns, NUM),
    COL(cold_row, encode_ns, NUM), COL(cold_row, send_ns, NUM), COL(cold_row, wait_ns, NUM),
    COL(cold_row, receive_ns, NUM), COL(cold_row, decode_ns, NUM),
    COL(cold_row, engine_ns, NUM), COL(cold_row, engine_decode_ns, NUM),
    COL(cold_row, compute_ns, NUM), COL(cold_row, engine_encode_ns, NUM),
    COL(cold_row, client_minor_faults, NUM), COL(cold_row, engine_minor_faults, NUM),
    COL(cold_row, request_bytes, NUM), COL(cold_row, reply_bytes, NUM),
};
static const struct column SERIAL_COLUMNS[] = {
    COL(serial_row, language, TEXT), COL(serial_row, format, TEXT),
    COL(serial_row, operation, TEXT), COL(serial_row, rep, INT), COL(serial_row, ns, NUM),
    COL(serial_row, bytes, NUM),
};
static const struct column SPAWN_COLUMNS[] = {
    COL(spawn_row, kind, TEXT), COL(spawn_row, rep, INT), COL(spawn_row, combo, INT),
    COL(spawn_row, rtt_ns, NUM), COL(spawn_row, process_ns, NUM),
    COL(spawn_row, process_cpu_ns, NUM), COL(spawn_row, minor_faults, NUM),
    COL(spawn_row, compute_ns, NUM),
};
static const struct column LAYOUT_COLUMNS[] = {
    COL(layout_row, side, TEXT), COL(layout_row, code_shift, NUM),
    COL(layout_row, series_offset, INT), COL(layout_row, array_offset, INT),
    COL(layout_row, array_stagger, INT), COL(layout_row, pass, INT),
    COL(layout_row, seconds, NUM),
};
static const struct column ROOF_COLUMNS[] = {
    COL(roof_row, kind, TEXT), COL(roof_row, lanes, INT), COL(roof_row, threads, INT),
    COL(roof_row, pass, INT), COL(roof_row, flops, NUM), COL(roof_row, seconds, NUM),
};
static const struct column COUNT_COLUMNS[] = {
    COL(count_row, side, TEXT), COL(count_row, what, TEXT), COL(count_row, requests, INT),
    COL(count_row, value, NUM),
};
static const struct column ORIGINAL_COLUMNS[] = {
    COL(original_row, key, TEXT), COL(original_row, value, TEXT), COL(original_row, unit, TEXT),
    COL(original_row, source, TEXT),
};
#define N(columns) (sizeof columns / sizeof columns[0])

static int parse_field(const struct column *c, const char *text, char *row)
{
    char *end;
    void *at = row + c->offset;
    if (c->type == TEXT) {
        snprintf(at, c->size, "%s", text);
        return 0;
    }
    if (c->type == NUM && text[0] == '\0') {
        *(double *)at = NAN;
        return 0;
    }
    errno = 0;
    if (c->type == INT) {
        long v = strtol(text, &end, 10);
        *(long *)at = v;
    } else {
        *(double *)at = strtod(text, &end);
    }
    return errno == 0 && end != text && *end == '\0' ? 0 : -1;
}

/* Loads dir/name into *rows (row_size bytes each) by the columns given. */
static int load_rows(const char *dir, const char *name, const struct column *columns,
                     size_t n_columns, size_t row_size, void **rows, size_t *n, char *err,
                     size_t err_size)
{
    char path[4096];
    struct csv_table t;
    int at[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (csv_table_load(path, &t, err, err_size) != 0)
        return -1;
    for (size_t c = 0; c < n_columns; c++)
        if ((at[c] = csv_table_column(&t, columns[c].name)) < 0) {
            snprintf(err, err_size, "%s has no column %s", path, columns[c].name);
            csv_table_free(&t);
            return -1;
        }
    *rows = calloc(t.n_rows ? t.n_rows : 1, row_size);
    *n = t.n_rows;
    for (size_t r = 0; *rows != NULL && r < t.n_rows; r++)
        for (size_t c = 0; c < n_columns; c++)
            if (parse_field(&columns[c], csv_table_cell(&t, r, at[c]),
                            (char *)*rows + r * row_size) != 0) {
                snprintf(err, err_size, "%s row %zu: %s is not a number: '%s'", path, r + 2,
                         columns[c].name, csv_table_cell(&t, r, at[c]));
                free(*rows);
                *rows = NULL;
                csv_table_free(&t);
                return -1;
            }
    csv_table_free(&t);
    if (*rows == NULL) {
        snprintf(err, err_size, "out of memory loading %s", path);
        return -1;
    }
    return 0;
}

static int load_kv(const char *dir, const char *name, struct kv_file *f, char *err,
                   size_t err_size)
{
    static const struct column KV_COLUMNS[] = {COL(kv, key, TEXT), COL(kv, value, TEXT)};
    return load_rows(dir, name, KV_COLUMNS, 2, sizeof(struct kv), (void **)&f->rows, &f->n, err,
                     err_size);
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

int run_data_load(struct run_data *d, const char *dir, char *err, size_t err_size)
{
    memset(d, 0, sizeof *d);
#define LOAD(name, columns, type, field) \
    load_rows(dir, name, columns, N(columns), sizeof(struct type), (void **)&d->field, \
              &d->n_##field, err, err_size) != 0
    int failed =
        load_kv(dir, "machine.csv", &d->machine, err, err_size) != 0 ||
        load_kv(dir, "run.csv", &d->run, err, err_size) != 0 ||
        load_kv(dir, "oracle.csv", &d->oracle, err, err_size) != 0 ||
        load_kv(dir, "load.csv", &d->load, err, err_size) != 0 ||
        load_kv(dir, "valgrind.csv", &d->valgrind, err, err_size) != 0 ||
        load_kv(dir, "fuzz.csv", &d->fuzz, err, err_size) != 0 ||
        load_kv(dir, "echo_settings.csv", &d->echo_settings, err, err_size) != 0 ||
        load_kv(dir, "roofline_settings.csv", &d->roof_settings, err, err_size) != 0 ||
        LOAD("architectures.csv", RUN_COLUMNS, run_row, runs) ||
        LOAD("calls.csv", CALL_COLUMNS, call_row, calls) ||
        LOAD("gate.csv", GATE_COLUMNS, gate_row, gates) ||
        LOAD("sweep.csv", SWEEP_COLUMNS, sweep_row, sweep) ||
        LOAD("echo.csv", ECHO_COLUMNS, echo_row, echo) ||
        LOAD("cold.csv", COLD_COLUMNS, cold_row, cold) ||
        LOAD("serialization.csv", SERIAL_COLUMNS, serial_row, serial) ||
        LOAD("spawn.csv", SPAWN_COLUMNS, spawn_row, spawns) ||
        LOAD("layout.csv", LAYOUT_COLUMNS, layout_row, layout) ||
        LOAD("roofline.csv", ROOF_COLUMNS, roof_row, roof) ||
        LOAD("counts.csv", COUNT_COLUMNS, count_row, counts) ||
        LOAD("original.csv", ORIGINAL_COLUMNS, original_row, original);
#undef LOAD
    if (failed)
        run_data_free(d);
    return failed ? -1 : 0;
}

void run_data_free(struct run_data *d)
{
    struct kv_file *kvs[] = {&d->machine, &d->run, &d->oracle, &d->load, &d->valgrind,
                             &d->fuzz, &d->echo_settings, &d->roof_settings};
    for (size_t i = 0; i < sizeof kvs / sizeof kvs[0]; i++)
        free(kvs[i]->rows);
    void *arrays[] = {d->runs, d->calls, d->gates, d->sweep, d->echo, d->cold, d->serial,
                      d->spawns, d->layout, d->roof, d->counts, d->original};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    memset(d, 0, sizeof *d);
}
