/*
 * sum_derived.c - the original's derivations beside this run's measurements.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"

/* <<the-inputs-of-a-composite>>, paper/90-appendix-report.md */
enum { MAX_UNITS = 4096 };

/* One value per complete unit of arch: its median call's boundary (µs), or
 * the boundary its sweep pays (ms). */
static size_t unit_boundaries(const struct run_data *d, const char *arch, int per_sweep,
                              double *out)
{
    struct unit_view *u;
    size_t n = arch_units(d, arch, &u), k = 0;
    for (size_t i = 0; i < n && k < MAX_UNITS; i++) {
        struct unit_calls c;
        if (!u[i].complete || unit_calls(d, &u[i], &c) != 0)
            continue;
        double over_warm = unit_last_rtt(d, &u[i]) - unit_witness(d, &u[i], "warm", 0);
        out[k++] = per_sweep ? unit_sweep_boundary_ms(&c, calls_per_whole_sweep(d, arch))
                   : isfinite(over_warm) ? over_warm
                                         : c.boundary_us;
    }
    free(u);
    return k;
}

/* <<composites-of-the-claims>>, paper/90-appendix-report.md */
static double over_difference(const double *m, const void *ctx)
{
    (void)ctx;
    return m[0] / (m[1] - m[2]);
}

static double difference(const double *m, const void *ctx)
{
    (void)ctx;
    return m[0] - m[1];
}

/* The claims' names for a call over its witness: the unit's own ratio, as the
 * calls' summary estimated it (nothing when the run made no witness). */
static void put_witnessed(struct store *s, const char *key, const char *from)
{
    char unit_key[KEY_SIZE], unit[TEXT_SIZE] = "couples";
    struct estimate e = store_estimate(s, from);
    const struct value *u = store_get(s, keyf(unit_key, "%s.unit", from));
    if (u != NULL)
        snprintf(unit, sizeof unit, "%s", u->text);   /* copied: the put below may move it */
    if (e.n > 0)
        put_estimate(s, key, e, 2, unit);
}

/* Puts f of the groups under key, with the level and coverage it was calibrated to. */
static void put_composite(struct store *s, const char *key, size_t k, double *const groups[],
                          const size_t n[], median_function *f, int decimals, const char *unit)
{
    char buf[KEY_SIZE];
    struct calibration cal;
    struct estimate e = calibrated_composite(k, (const double *const *)groups, n, f, NULL, &cal);
    put_estimate(s, key, e, decimals, unit);
    put_number(s, keyf(buf, "%s.level_pct", key), cal.level * 100.0, 1);
}

/* The C client's row of the naive kernel, binary, over transport t at
 * grain g: each way of crossing in its plain form, found by what it runs. */
static const char *plain_row(enum transport t, enum arch_grain g)
{
    return arch_like(CLIENT_C, t, "naive", ENCODING_BINARY, g);
}

static void put_crossings(const struct run_data *d, struct store *s)
{
    const char *spawn_call = plain_row(TRANSPORT_SPAWN, GRAIN_COMBO);
    const char *spawn_sweep = plain_row(TRANSPORT_SPAWN, GRAIN_SWEEP);
    const char *batch = plain_row(TRANSPORT_UNIX, GRAIN_SWEEP);
    const char *chatty = plain_row(TRANSPORT_UNIX, GRAIN_COMBO);
    const char *stateful = plain_row(TRANSPORT_UNIX, GRAIN_LOADED);
    const char *py_stateful = arch_like(CLIENT_PYTHON, TRANSPORT_UNIX, "naive", ENCODING_BINARY,
                                        GRAIN_LOADED);
    char from[KEY_SIZE];
    double *g[3];
    size_t n[3];
    for (int i = 0; i < 3; i++)
        g[i] = malloc(MAX_UNITS * sizeof *g[i]);
    if (g[0] == NULL || g[1] == NULL || g[2] == NULL)
        goto done;
    n[0] = unit_boundaries(d, spawn_call, 0, g[0]);
    n[1] = unit_boundaries(d, spawn_sweep, 0, g[1]);
    n[2] = unit_boundaries(d, batch, 0, g[2]);
    put_composite(s, "cross.spawn_call_over_spawn", 3, g, n, over_difference, 2,
                  "couples of three rows");
    put_composite(s, "cross.spawn_over_persistent_us", 2, (double *[]){g[1], g[2]},
                  (size_t[]){n[1], n[2]}, difference, 0, "couples of two rows");
    n[0] = unit_boundaries(d, chatty, 1, g[0]);
    n[1] = unit_boundaries(d, batch, 1, g[1]);
    put_composite(s, "cross.chatty_extra_ms", 2, g, n, difference, 1, "couples of two rows");
    /* a call over its own witnesses: a value of the unit (@sec:results-mechanisms) */
    put_witnessed(s, "cross.chatty_over_model", keyf(from, "cross.%s.over_payload", chatty));
    put_witnessed(s, "cross.stateful_over_floor", keyf(from, "cross.%s.over_floor", py_stateful));
    put_witnessed(s, "cross.c_stateful_over_floor", keyf(from, "cross.%s.over_floor", stateful));
done:
    for (int i = 0; i < 3; i++)
        free(g[i]);
}

/* <<what-the-original-derived>>, paper/90-appendix-report.md */
struct derivation {
    const char *figure;        /* what was derived */
    const char *original_key;  /* the original's derived value */
    const char *unit;
    const char *measured_key;  /* the estimate this run measured for it ... */
    enum transport transport;  /* ... of the row over this (TRANSPORT_NONE: of no row) */
    enum arch_grain grain;
    enum arch_encoding encoding;
    double scale;              /* measured value times this is in the original's unit */
};

/* The table's rows, in the paper's words (a table's words are the summary's: see table_open). */
static const struct derivation DERIVATIONS[] = {
    {"stateful server, one call", "orig.stateful.per_call_us", "µs", "call.%s.per_call_us",
     TRANSPORT_UNIX, GRAIN_LOADED, ENCODING_BINARY, 1},
    {"stateful server, every call of a sweep", "orig.stateful.all_ms", "ms",
     "call.%s.sweep_boundary_ms", TRANSPORT_UNIX, GRAIN_LOADED, ENCODING_BINARY, 1},
    {"a spawn, over the persistent server", "orig.spawn.per_spawn_ms", "ms",
     "cross.spawn_over_persistent_us", TRANSPORT_NONE, 0, 0, 1e-3},
    {"a spawn per combination, per call", "orig.spawn.per_spawn_ms", "ms",
     "cross.spawn_call_us", TRANSPORT_NONE, 0, 0, 1e-3},
    {"a spawn per combination, over a whole sweep", "orig.spawn.per_combo_s", "s",
     "cross.spawn_sweep_ms", TRANSPORT_NONE, 0, 0, 1e-3},
    {"an engine consulted per bar, over a whole sweep", "orig.breakeven.per_bar_ipc_s", "s",
     "call.%s.sweep_boundary_ms", TRANSPORT_UNIX, GRAIN_BAR, ENCODING_BINARY, 1e-3},
    {"a chatty JSON service over a whole sweep", "orig.serial.json_chatty_s", "s",
     "call.%s.sweep_boundary_ms", TRANSPORT_UNIX, GRAIN_COMBO, ENCODING_JSON, 1e-3},
    {"chatty against batch, extra per sweep", "orig.chatty.extra_ms", "ms",
     "cross.chatty_extra_ms", TRANSPORT_NONE, 0, 0, 1},
};

/* <<summarize-derived>>, paper/90-appendix-report.md */
void summarize_derived(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"What the original derived", "The original's figure",
                                         "Measured here [95% interval]"};
    struct csv_out t;
    char buf[200], text[TEXT_SIZE + 64];
    double *spawned = malloc(MAX_UNITS * sizeof *spawned);
    const char *spawn_call = plain_row(TRANSPORT_SPAWN, GRAIN_COMBO);
    put_crossings(d, s);
    if (spawned != NULL) {
        size_t n = unit_boundaries(d, spawn_call, 0, spawned);
        struct estimate e = estimate_median(spawned, n);
        double to_sweep_ms = calls_per_whole_sweep(d, spawn_call) * 1e-3;
        struct estimate sweep = {e.n, e.value * to_sweep_ms, e.low * to_sweep_ms,
                                 e.high * to_sweep_ms, e.coverage};
        if (n > 0) {
            put_estimate(s, "cross.spawn_call_us", e, 0, unit_name(d, spawn_call));
            put_estimate(s, "cross.spawn_sweep_ms", sweep, 0, unit_name(d, spawn_call));
        }
        free(spawned);
    }
    if (table_open(s, "derived", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < sizeof DERIVATIONS / sizeof DERIVATIONS[0]; i++) {
        const struct derivation *x = &DERIVATIONS[i];
        const struct value *orig = store_get(s, x->original_key);
        const char *row = x->transport == TRANSPORT_NONE
                              ? NULL
                              : arch_like(CLIENT_C, x->transport, "naive", x->encoding, x->grain);
        char key[KEY_SIZE];
        snprintf(key, sizeof key, x->measured_key, row != NULL ? row : "none");
        struct estimate e = store_estimate(s, key);
        struct estimate scaled = {e.n, e.value * x->scale, e.low * x->scale, e.high * x->scale,
                                  e.coverage};
        csv_out_text(&t, x->figure);
        snprintf(text, sizeof text, "%s %s", orig != NULL ? orig->text : "n/a", x->unit);
        csv_out_text(&t, text);
        snprintf(text, sizeof text, "%s %s", format_estimate(buf, scaled, 2), x->unit);
        csv_out_text(&t, e.n > 0 ? text : "not measured");
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}
