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

const struct measurement MEASUREMENTS[] = {
    {"echo", "round trips per payload size, protocol and raw, C and Python clients", measure_echo},
    {"cold", "the first call on a fresh engine against the second, with both sides' page faults",
     measure_cold},
    {"mechanisms", "round trips after a stretch of compute or waiting, and first-touch faults",
     measure_mechanisms},
    {"serialization", "encode and decode the series: raw (reused and fresh), memcpy, JSON, text; "
     "Python's", measure_serialization},
    {"spawn", "one engine process per call, alone: a one-double echo, a one-combination sweep",
     measure_spawn},
    {"layout", "the kernel's time over layouts of its data and code, in the process and the engine",
     measure_layout},
    {"roofline", "this machine's clock and peak for the kernel's multiply-and-add mix, per width "
                 "and threads", measure_roofline},
    {"counts", "instructions (callgrind) of the kernel in and out of the engine, and of a request",
     measure_counts},
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
        if (!names_include(list, MEASUREMENTS[i].name))
            continue;
        fprintf(stderr, "ipctax-bench: measuring %s\n", MEASUREMENTS[i].name);
        if (MEASUREMENTS[i].run(ctx, err, sizeof err) != 0) {
            fprintf(stderr, "ipctax-bench: %s failed: %s\n", MEASUREMENTS[i].name, err);
            failed = 1;
        }
    }
    return failed ? -1 : 0;
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
