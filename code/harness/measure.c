/*
 * measure.c - the table of measurements, and running a selection of them.
 *
 * Tangled from paper/64-measurements.md and the chapters that add one.
 */
#include <stdio.h>
#include <string.h>

#include "harness/measure.h"
#include "util/error.h"
#include "util/names.h"
#include "util/timing.h"

#define MEASUREMENT(name, when, description, ...) \
    {#name, description, RUN_##when(name), ROUNDS_##when(name)},
#define RUN_ALONE(name) measure_##name
#define ROUNDS_ALONE(name) NULL
#define RUN_IN_ROUNDS(name) NULL
#define ROUNDS_IN_ROUNDS(name) &name##_in_rounds
const struct measurement MEASUREMENTS[] = {
#include "schema/measurements.def"
};
const size_t N_MEASUREMENTS = sizeof MEASUREMENTS / sizeof MEASUREMENTS[0];

int measurement_named(const char *name)
{
    for (size_t i = 0; i < N_MEASUREMENTS; i++)
        if (strcmp(MEASUREMENTS[i].name, name) == 0)
            return (int)i;
    return -1;
}

int measurements_run(const struct measure_context *ctx, const char *list)
{
    int failed = 0;
    for (size_t i = 0; i < N_MEASUREMENTS; i++) {
        char err[ERR_SIZE] = "";
        if (!names_include(list, MEASUREMENTS[i].name) || MEASUREMENTS[i].run == NULL)
            continue;
        fprintf(stderr, "ipctax-bench: measuring %s\n", MEASUREMENTS[i].name);
        uint64_t t0 = clock_ns();
        if (MEASUREMENTS[i].run(ctx, err, sizeof err) != 0) {
            fprintf(stderr, "ipctax-bench: %s failed: %s\n", MEASUREMENTS[i].name, err);
            failed = 1;
        } else {                               /* where make paper's minutes go */
            fprintf(stderr, "ipctax-bench: %s took %.1f s\n", MEASUREMENTS[i].name,
                    seconds_between(t0, clock_ns()));
        }
    }
    return failed ? -1 : 0;
}

/* <<measurements-in-the-rounds>>, paper/64-measurements.md */
void rounds_measurements_begin(struct rounds_measurements *r, const struct measure_context *ctx,
                               const char *list)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < N_MEASUREMENTS && r->n < MAX_IN_ROUNDS; i++) {
        const struct measurement *m = &MEASUREMENTS[i];
        char err[ERR_SIZE] = "";
        if (m->rounds == NULL || !names_include(list, m->name))
            continue;
        fprintf(stderr, "ipctax-bench: measuring %s in the rounds\n", m->name);
        r->which[r->n] = m;
        r->state[r->n] = m->rounds->begin(ctx, err, sizeof err);
        if (r->state[r->n] == NULL) {
            fprintf(stderr, "ipctax-bench: %s failed: %s\n", m->name, err);
            r->failed = 1;
        }
        r->n++;
    }
}

void rounds_measurements_pass(void *arg, int round)
{
    struct rounds_measurements *r = arg;
    for (size_t i = 0; i < r->n; i++) {
        char err[ERR_SIZE] = "";
        if (r->state[i] == NULL || r->which[i]->rounds->pass(r->state[i], round, err,
                                                             sizeof err) == 0)
            continue;
        fprintf(stderr, "ipctax-bench: %s failed in round %d: %s\n", r->which[i]->name, round,
                err);
        r->which[i]->rounds->end(r->state[i], 0, err, sizeof err);   /* leaves no file */
        r->state[i] = NULL;
        r->failed = 1;
    }
}

int rounds_measurements_end(struct rounds_measurements *r, int ok)
{
    for (size_t i = 0; i < r->n; i++) {
        char err[ERR_SIZE] = "";
        if (r->state[i] != NULL && r->which[i]->rounds->end(r->state[i], ok, err,
                                                            sizeof err) != 0) {
            fprintf(stderr, "ipctax-bench: %s failed: %s\n", r->which[i]->name, err);
            r->failed = 1;
        }
        r->state[i] = NULL;
    }
    return r->failed ? -1 : 0;
}

int scaled(const struct measure_context *ctx, int count, int floor)
{
    double n = count * ctx->scale;
    return n < floor ? floor : (int)n;
}

int measure_open(const struct measure_context *ctx, const char *name, struct data_out *out,
                 char *err, size_t err_size)
{
    return data_out_open(out, ctx->out_dir, name, err, err_size);
}
