/*
 * measure_registry.c - every measurement the harness knows, in run order.
 *
 * Tangled from paper/40-harness.md and the chapters that add measurements.
 */
#include <string.h>

#include "harness/arch.h"

const struct measurement *const MEASUREMENTS[] = {
    &measure_echo,
    &measure_serialization,
    &measure_spawn,
    NULL,
};

const struct measurement *measurement_named(const char *name)
{
    for (size_t i = 0; MEASUREMENTS[i] != NULL; i++)
        if (strcmp(MEASUREMENTS[i]->name, name) == 0)
            return MEASUREMENTS[i];
    return NULL;
}

int scaled_count(const struct measure_context *ctx, int paper_count, int floor)
{
    double n = paper_count * ctx->scale;
    return n < floor ? floor : (int)n;
}
