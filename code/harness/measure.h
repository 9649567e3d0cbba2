/*
 * measure.h - the measurements beside the architectures, in one table.
 *
 * Tangled from paper/64-measurements.md.
 */
#ifndef IPCTAX_MEASURE_H
#define IPCTAX_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "harness/arch.h"
#include "harness/env.h"

struct measure_context {
    const struct harness_env *env;
    const struct sweep_job *job;       /* the study's series and grid */
    const char *out_dir;               /* where the CSV files go */
    double scale;                      /* repetition multiplier (1 = the paper's) */
    uint32_t seed;                     /* of the run: every order is drawn from it */
};

struct measurement {
    const char *name;
    const char *description;
    /* Runs, writes its CSV files; 0, or -1 with err set (and no file written). */
    int (*run)(const struct measure_context *ctx, char *err, size_t err_size);
};

extern const struct measurement MEASUREMENTS[];
extern const size_t N_MEASUREMENTS;
int measurement_named(const char *name);

/* Runs the selected measurements (NULL: all); 0, or -1 if any failed. */
int measurements_run(const struct measure_context *ctx, const char *list);

/* Repetitions: `count` scaled, never below `floor`. */
int scaled(const struct measure_context *ctx, int count, int floor);

/* Opens OUT_DIR/name, a file of the schema (@sec:data-model), with its header;
 * 0, or -1 with err set. */
int measure_open(const struct measure_context *ctx, const char *name, struct data_out *out,
                 char *err, size_t err_size);

int measure_echo(const struct measure_context *ctx, char *err, size_t err_size);
int measure_cold(const struct measure_context *ctx, char *err, size_t err_size);
int measure_mechanisms(const struct measure_context *ctx, char *err, size_t err_size);
int measure_serialization(const struct measure_context *ctx, char *err, size_t err_size);
int measure_spawn(const struct measure_context *ctx, char *err, size_t err_size);
int measure_layout(const struct measure_context *ctx, char *err, size_t err_size);
int measure_roofline(const struct measure_context *ctx, char *err, size_t err_size);
/* `additions` dependent integer additions, one cycle each: returns their sum, `additions`. */
uint64_t clock_chain(uint64_t additions);
int measure_counts(const struct measure_context *ctx, char *err, size_t err_size);

#endif
