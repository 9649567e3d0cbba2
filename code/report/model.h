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

ROW_TYPE(run_row, RUNS_COLUMNS);       /* architectures.csv: one timed run */
ROW_TYPE(call_row, CALLS_COLUMNS);     /* calls.csv: one boundary call */
ROW_TYPE(witness_row, WITNESS_COLUMNS);  /* witnesses.csv: an echo beside a run */
ROW_TYPE(state_row, STATES_COLUMNS);     /* states.csv: an echo after a stretch */
ROW_TYPE(fault_row, FAULTS_COLUMNS);     /* faults.csv: a fresh mapping touched */
ROW_TYPE(gate_row, GATE_COLUMNS);      /* gate.csv: one architecture's verdict */
ROW_TYPE(sweep_row, SWEEP_COLUMNS);    /* sweep.csv: the reference result of one combination */
ROW_TYPE(echo_row, ECHO_COLUMNS);      /* echo.csv: one round trip */
ROW_TYPE(cold_row, COLD_COLUMNS);      /* cold.csv: a fresh engine's first call, or second */
ROW_TYPE(serial_row, SERIAL_COLUMNS);  /* serialization.csv: one encode or decode */
ROW_TYPE(spawn_row, SPAWN_COLUMNS);    /* spawn.csv: one spawned call */
ROW_TYPE(layout_row, LAYOUT_COLUMNS);  /* layout.csv: one reduced sweep */
ROW_TYPE(roof_row, ROOF_COLUMNS);      /* roofline.csv: one timed peak loop */
ROW_TYPE(count_row, COUNTS_COLUMNS);   /* counts.csv: instructions or system calls */
ROW_TYPE(original_row, ORIGINAL_COLUMNS);  /* original.csv: one of the original's figures */
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
#define ROWS(type, name) \
    struct type *name;   \
    size_t n_##name

struct run_data {
    struct kv_file machine, run, oracle, load, valgrind, fuzz, echo_settings, roof_settings;
    ROWS(run_row, runs);
    ROWS(call_row, calls);
    ROWS(witness_row, witnesses);
    ROWS(state_row, states);
    ROWS(fault_row, faults);
    ROWS(gate_row, gates);
    ROWS(sweep_row, sweep);
    ROWS(echo_row, echo);
    ROWS(cold_row, cold);
    ROWS(serial_row, serial);
    ROWS(spawn_row, spawns);
    ROWS(layout_row, layout);
    ROWS(roof_row, roof);
    ROWS(count_row, counts);
    ROWS(original_row, original);
};
#undef ROWS

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
