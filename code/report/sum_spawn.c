/*
 * sum_spawn.c - one engine process per call, alone.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <string.h>

#include "report/summarize.h"

void summarize_spawn(const struct run_data *d, struct store *s)
{
    struct doubles echo = {0}, echo_faults = {0}, overhead = {0}, sweep_faults = {0};
    for (size_t i = 0; i < d->n_spawns; i++) {
        const struct spawn_row *r = &d->spawns[i];
        if (strcmp(r->kind, "echo") == 0) {
            doubles_push(&echo, r->rtt_ns * 1e-6);
            doubles_push(&echo_faults, r->minor_faults);
        } else {
            doubles_push(&overhead, (r->rtt_ns - r->compute_ns) * 1e-6);
            doubles_push(&sweep_faults, r->minor_faults);
        }
    }
    put_estimate(s, "spawn.echo_ms", doubles_estimate(&echo), 2, "repetitions");
    put_count(s, "spawn.echo_faults", doubles_estimate(&echo_faults).value);
    put_estimate(s, "spawn.sweep_overhead_ms", doubles_estimate(&overhead), 2,
                 "repetitions");
    put_count(s, "spawn.sweep_faults", doubles_estimate(&sweep_faults).value);
    put_count(s, "spawn.reps", (double)echo.n);
    doubles_free(&echo);
    doubles_free(&echo_faults);
    doubles_free(&overhead);
    doubles_free(&sweep_faults);
}
