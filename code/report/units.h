/*
 * units.h - the independent units of a run, read back from data/.
 *
 * Tangled from paper/93-appendix-units.md.
 */
#ifndef IPCTAX_UNITS_H
#define IPCTAX_UNITS_H

#include <stddef.h>

#include "report/model.h"
#include "schema/architectures.h"

/* <<a-unit-of-a-row>>, paper/93-appendix-units.md */
struct unit_view {
    long unit, round;
    int duet;                          /* a couple of duets; else a triple */
    /* The row's runs in slot order, two in a couple and one in a triple, and
     * the baseline's: the partners, or the triple's first and last. */
    const struct run_row *row[MAX_UNIT_SLOTS], *base[MAX_UNIT_SLOTS];
    size_t n_row, n_base;              /* how many of each its layout has */
    int complete;                      /* every run there and "ok" */
    double ratio;                      /* the row's time over the baseline's, NAN if not */
    double start_s, end_s;             /* from its first run's start to its last run's end */
};

/* The units of arch, in the order they ran; free() *units. Returns how many. */
size_t arch_units(const struct run_data *d, const char *arch, struct unit_view **units);
/* The ratios of arch's complete units into ratios (appended). */
void arch_unit_ratios(const struct run_data *d, const char *arch, double **ratios, size_t *n);

/* <<the-calls-of-a-unit>>, paper/93-appendix-units.md */
/* Medians over a unit's timed calls; NAN where no call measured one. */
struct call_phases {
    double encode_us, request_us, engine_decode_us, engine_encode_us, reply_us, decode_us;
    double client_faults, engine_faults, request_bytes, reply_bytes;
};

struct unit_calls {
    long calls, timed;                 /* calls in the unit's runs, and with the engine's times */
    double share_pct;                  /* 100 x boundary / round trips, over its timed calls */
    double boundary_us;                /* the median call's boundary */
    double compute_us;                 /* the median call's kernel time */
    double rtt_us;                     /* the median call's round trip */
    double first_mean_us;              /* the average boundary of each run's first call */
    double later_mean_us;              /* ... and of its later calls; NAN if one a run */
    double process_ms;                 /* a spawned call's process life, median; NAN if none */
    double faults;                     /* ... and its minor faults */
    struct call_phases phase;
};

/* What the calls of u's runs say; 0, or -1 when the unit has no timed call. */
int unit_calls(const struct run_data *d, const struct unit_view *u, struct unit_calls *out);

/* The calls arch makes in a sweep of the whole job, whatever part its runs
 * did: one per sweep, per combination, or per bar and two more. */
double calls_per_whole_sweep(const struct run_data *d, const char *arch);

/* The boundary (ms) a sweep of the whole job making `calls` calls pays at
 * u's prices: one first call, and the rest at its later calls' average. */
double unit_sweep_boundary_ms(const struct unit_calls *c, double calls);

/* The median round trip (µs) of u's witnesses of a kind (@sec:witnesses):
 * the first after each run (seq 1) when `first`, else the later ones; NAN
 * when the unit has none, as a run made before the witnesses has. */
double unit_witness(const struct run_data *d, const struct unit_view *u, const char *kind,
                    int first);
/* The median over u's runs of each run's last call's round trip (µs): the
 * call a warm witness repeats. NAN if none. */
double unit_last_rtt(const struct run_data *d, const struct unit_view *u);

#endif
