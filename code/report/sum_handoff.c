/*
 * sum_handoff.c - a floor taken apart: each loop's price per operation,
 * the wake of a sleeping CPU, and the kernel's part of the engine's floor.
 *
 * Tangled from paper/72-handoff.md.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "report/summarize.h"

/* <<summarize-handoff>>, paper/72-handoff.md */
enum { ENTRIES_A_ROUND_TRIP = 4 };     /* a send and a receive on each side */

/* The repetition's loop of `kind`, or NULL. */
static const struct handoff_row *handoff_of(const struct run_data *d, long rep, const char *kind)
{
    for (size_t i = 0; i < d->n_handoff; i++)
        if (d->handoff[i].rep == rep && strcmp(d->handoff[i].kind, kind) == 0)
            return &d->handoff[i];
    return NULL;
}

static double per_operation(const struct handoff_row *r)
{
    return r != NULL && r->count > 0 ? r->ns / r->count : NAN;
}

void summarize_handoff(const struct run_data *d, struct store *s)
{
    static const char *const names[N_HANDOFF_KINDS] = HANDOFF_KIND_NAMES;
    struct doubles price[N_HANDOFF_KINDS] = {{0}}, wake = {0};
    char key[KEY_SIZE];
    put_text(s, "handoff.measured", d->n_handoff > 0 ? "yes" : "no");
    if (d->n_handoff == 0)
        return;
    /* <<handoff-each-repetition>>, paper/72-handoff.md */
    for (size_t i = 0; i < d->n_handoff; i++) {
        const struct handoff_row *r[N_HANDOFF_KINDS];
        int whole = 1;
        if (i > 0 && d->handoff[i - 1].rep == d->handoff[i].rep)
            continue;                       /* a repetition's rows are adjacent: once each */
        for (int k = 0; k < N_HANDOFF_KINDS; k++)
            whole &= isfinite(per_operation(r[k] = handoff_of(d, d->handoff[i].rep, names[k])));
        if (!whole)
            continue;
        for (int k = 0; k < N_HANDOFF_KINDS; k++)
            doubles_push(&price[k], per_operation(r[k]) *
                                        (k == HANDOFF_CLOCK || k == HANDOFF_SYSCALL ? 1.0 : 1e-3));
        doubles_push(&wake, (per_operation(r[HANDOFF_SLEEPING]) -
                             per_operation(r[HANDOFF_POLLING])) * 0.5e-3);
    }
    put_count(s, "handoff.reps", (double)price[HANDOFF_SLEEPING].n);
    for (int k = 0; k < N_HANDOFF_KINDS; k++) {
        int in_ns = k == HANDOFF_CLOCK || k == HANDOFF_SYSCALL;
        put_estimate(s, keyf(key, in_ns ? "handoff.%s_ns" : "handoff.%s_us", names[k]),
                     doubles_estimate(&price[k]), in_ns ? 0 : 1, "repetitions");
        doubles_free(&price[k]);
    }
    put_estimate(s, "handoff.wake_us", doubles_estimate(&wake), 1, "repetitions");
    doubles_free(&wake);
    /* <<handoff-against-the-floor>>, paper/72-handoff.md */
    double entry_ns = store_estimate(s, "handoff.syscall_ns").value;
    double sleeping_us = store_estimate(s, "handoff.sleeping_us").value;
    double floor_us = store_number(s, "echo.c.unix.cross.raw.p50_us.1");
    put_number(s, "handoff.entries_us", ENTRIES_A_ROUND_TRIP * entry_ns * 1e-3, 1);
    put_count(s, "handoff.entries", ENTRIES_A_ROUND_TRIP);
    if (isfinite(floor_us) && floor_us > 0)
        put_number(s, "handoff.floor_share_pct", 100.0 * sleeping_us / floor_us, 0);
}
