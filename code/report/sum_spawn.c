/*
 * sum_spawn.c - one engine process per call, alone, and over a warm one.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <math.h>
#include <string.h>

#include "report/summarize.h"

/* The repetition's row of a kind, or NULL. */
static const struct spawn_row *sample(const struct run_data *d, const char *kind, long rep)
{
    for (size_t i = 0; i < d->n_spawns; i++)
        if (d->spawns[i].rep == rep && strcmp(d->spawns[i].kind, kind) == 0)
            return &d->spawns[i];
    return NULL;
}

void summarize_spawn(const struct run_data *d, struct store *s)
{
    struct doubles exit_ms = {0}, exit_faults = {0}, echo = {0}, echo_faults = {0},
                   overhead = {0}, sweep_faults = {0}, over_warm = {0}, request = {0},
                   decode = {0};
    /* <<gather-the-spawns-samples-by-kind>>, paper/75-crossings.md */
    for (size_t i = 0; i < d->n_spawns; i++) {
        const struct spawn_row *r = &d->spawns[i], *warm;
        if (strcmp(r->kind, "exit") == 0) {
            doubles_push(&exit_ms, r->rtt_ns * 1e-6);
            doubles_push(&exit_faults, r->minor_faults);
        }
        if (strcmp(r->kind, "echo") == 0) {
            doubles_push(&echo, r->rtt_ns * 1e-6);
            doubles_push(&echo_faults, r->minor_faults);
        }
        if (strcmp(r->kind, "sweep") != 0)
            continue;
        doubles_push(&overhead, (r->rtt_ns - r->compute_ns) * 1e-6);
        doubles_push(&sweep_faults, r->minor_faults);
        if (!isnan(r->request_ns)) {
            doubles_push(&request, r->request_ns * 1e-6);
            doubles_push(&decode, r->engine_decode_ns * 1e-6);
        }
        if ((warm = sample(d, "warm", r->rep)) != NULL)
            doubles_push(&over_warm, (r->rtt_ns - warm->rtt_ns) * 1e-6);
    }
    /* <<put-what-every-spawn-run-has>>, paper/75-crossings.md */
    put_estimate(s, "spawn.echo_ms", doubles_estimate(&echo), 2, "repetitions");
    put_count(s, "spawn.echo_faults", doubles_estimate(&echo_faults).value);
    put_estimate(s, "spawn.sweep_overhead_ms", doubles_estimate(&overhead), 2,
                 "repetitions");
    put_count(s, "spawn.sweep_faults", doubles_estimate(&sweep_faults).value);
    put_count(s, "spawn.reps", (double)echo.n);
    /* <<put-what-later-spawn-runs-add>>, paper/75-crossings.md */
    if (exit_ms.n > 0) {
        put_estimate(s, "spawn.exit_ms", doubles_estimate(&exit_ms), 2, "repetitions");
        put_count(s, "spawn.exit_faults", doubles_estimate(&exit_faults).value);
    }
    if (over_warm.n > 0)
        put_estimate(s, "spawn.over_warm_ms", doubles_estimate(&over_warm), 2, "repetitions");
    if (request.n > 0) {
        put_estimate(s, "spawn.request_ms", doubles_estimate(&request), 2, "repetitions");
        put_estimate(s, "spawn.engine_decode_ms", doubles_estimate(&decode), 2, "repetitions");
    }
    struct doubles *all[] = {&exit_ms, &exit_faults, &echo, &echo_faults, &overhead,
                             &sweep_faults, &over_warm, &request, &decode};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        doubles_free(all[i]);
}
