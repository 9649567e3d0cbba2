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
    int min_rounds;                    /* the rounds every row runs in */
};

/* A measurement made in the rounds: begin opens what its passes share (NULL
 * with err set if it cannot), pass makes one at the end of a round, and end
 * writes its files if ok, or leaves none, and frees what begin opened. */
struct in_rounds {
    void *(*begin)(const struct measure_context *ctx, char *err, size_t err_size);
    int (*pass)(void *state, int round, char *err, size_t err_size);
    int (*end)(void *state, int ok, char *err, size_t err_size);
};

struct measurement {
    const char *name;
    const char *description;
    /* Runs, writes its CSV files; 0, or -1 with err set (and no file
     * written). NULL for a measurement made in the rounds. */
    int (*run)(const struct measure_context *ctx, char *err, size_t err_size);
    const struct in_rounds *rounds;    /* NULL: a stage after the rounds */
};

extern const struct measurement MEASUREMENTS[];
extern const size_t N_MEASUREMENTS;
int measurement_named(const char *name);

/* Runs the selected measurements (NULL: all) that are stages of their own;
 * 0, or -1 if any failed. */
int measurements_run(const struct measure_context *ctx, const char *list);

/* The selected measurements made in the rounds, while they are made. */
enum { MAX_IN_ROUNDS = 4 };
struct rounds_measurements {
    size_t n;
    const struct measurement *which[MAX_IN_ROUNDS];
    void *state[MAX_IN_ROUNDS];        /* NULL once one failed: no more passes */
    int failed;
};
/* Begins the selected (NULL: all) measurements made in the rounds; one
 * that cannot begin is reported and counted failed. */
void rounds_measurements_begin(struct rounds_measurements *r, const struct measure_context *ctx,
                               const char *list);
/* The rounds' hook (schedule.h): a pass of each, after round `round`. */
void rounds_measurements_pass(void *r, int round);
/* Ends each, writing its files if ok; 0, or -1 if any failed. */
int rounds_measurements_end(struct rounds_measurements *r, int ok);

/* Repetitions: `count` scaled, never below `floor`. */
int scaled(const struct measure_context *ctx, int count, int floor);

/* Opens OUT_DIR/name, a file of the schema (@sec:data-model), with its header;
 * 0, or -1 with err set. */
int measure_open(const struct measure_context *ctx, const char *name, struct data_out *out,
                 char *err, size_t err_size);

/* Each measurement's function, or its hooks in the rounds. */
#define MEASUREMENT(name, when, ...) DECLARE_##when(name)
#define DECLARE_ALONE(name) \
    int measure_##name(const struct measure_context *ctx, char *err, size_t err_size);
#define DECLARE_IN_ROUNDS(name) extern const struct in_rounds name##_in_rounds;
#include "schema/measurements.def"
#undef DECLARE_ALONE
#undef DECLARE_IN_ROUNDS

/* <<measurement-declarations>>, paper/69-host.md */
/* What a spin of a CPU saw: its length, its clock readings, and the gaps of
 * at least gap_min_ns between two readings. */
struct host_spin {
    uint64_t spin_ns, reads, gaps, gap_ns, longest_ns;
};
/* Reads the monotonic clock in a loop for `ns`, on whatever CPU this
 * thread runs on, counting the gaps of at least `gap_min_ns`. */
void host_spin(uint64_t ns, uint64_t gap_min_ns, struct host_spin *out);
/* <<measurement-declarations>>, paper/77-roofline.md */
/* `additions` dependent integer additions, one cycle each: returns their sum, `additions`. */
uint64_t clock_chain(uint64_t additions);

#endif
