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
        out[k++] = per_sweep ? c.mean_boundary_us * (double)c.calls / (u[i].duet ? 2.0 : 1.0) *
                                   1e-3
                             : c.boundary_us;
    }
    free(u);
    return k;
}

/* The echo's price of chatty's payload, pass by pass: the mean of the two
 * points around it. */
static size_t echo_prediction(const struct run_data *d, double *out)
{
    double a[MAX_UNITS], b[MAX_UNITS];
    size_t na = echo_pass_values(d, "c", "unix", "same", "protocol_timed", 50000, a, MAX_UNITS);
    size_t nb = echo_pass_values(d, "c", "unix", "same", "protocol_timed", 100000, b, MAX_UNITS);
    size_t n = na < nb ? na : nb;
    for (size_t k = 0; k < n; k++)
        out[k] = (a[k] + b[k]) / 2.0;
    return n;
}

static double over(const double *m, const void *ctx)
{
    (void)ctx;
    return m[0] / m[1];
}

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

static void put_crossings(const struct run_data *d, struct store *s)
{
    double *g[3];
    size_t n[3];
    for (int i = 0; i < 3; i++)
        g[i] = malloc(MAX_UNITS * sizeof *g[i]);
    if (g[0] == NULL || g[1] == NULL || g[2] == NULL)
        goto done;
    n[0] = unit_boundaries(d, "chatty_unix", 0, g[0]);
    n[1] = echo_prediction(d, g[1]);
    put_composite(s, "cross.chatty_over_model", 2, g, n, over, 2, "couples and passes");
    n[0] = unit_boundaries(d, "spawn_per_combo", 0, g[0]);
    n[1] = unit_boundaries(d, "spawn_stdin", 0, g[1]);
    n[2] = unit_boundaries(d, "batch_unix", 0, g[2]);
    put_composite(s, "cross.spawn_call_over_spawn", 3, g, n, over_difference, 2,
                  "couples of three rows");
    put_composite(s, "cross.spawn_over_persistent_us", 2, (double *[]){g[1], g[2]},
                  (size_t[]){n[1], n[2]}, difference, 0, "couples of two rows");
    n[0] = unit_boundaries(d, "chatty_unix", 1, g[0]);
    n[1] = unit_boundaries(d, "batch_unix", 1, g[1]);
    put_composite(s, "cross.chatty_extra_ms", 2, g, n, difference, 1, "couples of two rows");
    n[0] = unit_boundaries(d, "python_stateful_unix", 0, g[0]);
    n[1] = echo_pass_values(d, "python", "unix", "same", "protocol", 1, g[1], MAX_UNITS);
    put_composite(s, "cross.stateful_over_floor", 2, g, n, over, 2, "couples and passes");
    n[0] = unit_boundaries(d, "stateful_unix", 0, g[0]);
    n[1] = echo_pass_values(d, "c", "unix", "same", "protocol_timed", 1, g[1], MAX_UNITS);
    put_composite(s, "cross.c_stateful_over_floor", 2, g, n, over, 2, "couples and passes");
done:
    for (int i = 0; i < 3; i++)
        free(g[i]);
}

struct derivation {
    const char *figure;        /* what was derived */
    const char *original_key;  /* the original's derived value */
    const char *unit;
    const char *measured_key;  /* the estimate this run measured for it */
    double scale;              /* measured value times this is in the original's unit */
};

/* The table's rows, in the paper's words (a table's words are the summary's: see table_open). */
static const struct derivation DERIVATIONS[] = {
    {"stateful server, one 48-byte call", "orig.stateful.per_call_us", "µs",
     "call.stateful_unix.per_call_us", 1},
    {"stateful server, all 80 calls", "orig.stateful.all_ms", "ms",
     "call.stateful_unix.sweep_boundary_ms", 1},
    {"a spawn over the persistent server (the original's 24 ms)", "orig.spawn.per_spawn_ms",
     "ms", "cross.spawn_over_persistent_us", 1e-3},
    {"a spawn per combination, per call", "orig.spawn.per_spawn_ms", "ms",
     "call.spawn_per_combo.per_call_us", 1e-3},
    {"a spawn per combination, over its part (20 combinations; the original: all 80)",
     "orig.spawn.per_combo_s", "s",
     "call.spawn_per_combo.sweep_boundary_ms", 1e-3},
    {"an engine consulted per bar, over its part (a fifth of the bars)", "orig.breakeven.per_bar_ipc_s",
     "s", "call.per_bar_unix.sweep_boundary_ms", 1e-3},
    {"a chatty JSON service over its part (10 combinations; the original: its encoding of all)",
     "orig.serial.json_chatty_s", "s",
     "call.json_chatty_unix.sweep_boundary_ms", 1e-3},
    {"chatty against batch, extra per sweep", "orig.chatty.extra_ms", "ms",
     "cross.chatty_extra_ms", 1},
};

/* Each crossing pattern's G (compute per call over the socket's floor) and its
 * measured boundary share; the original's per-combination G beside them. */
static void write_break_even(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"label", "G", "share_pct", "low", "high"};
    static const char *const patterns[] = {"batch_unix", "chatty_unix", "stateful_unix",
                                           "per_bar_unix", "spawn_per_combo", "json_chatty_unix",
                                           "python_batch_unix", "python_stateful_unix"};
    char key[KEY_SIZE];
    struct csv_out out;
    /* The floor a timed call of the architectures pays: the timed echo of one
     * double on one CPU, as the rows' client and engine share theirs. */
    double passes[MAX_UNITS];
    size_t n = echo_pass_values(d, "c", "unix", "same", "protocol_timed", 1, passes, MAX_UNITS);
    struct estimate floor = estimate_median(passes, n);
    double floor_us = floor.value;
    put_estimate(s, "cross.floor_us", floor, 1, "passes");
    if (figure_data_open(s, "breakeven.csv", &out, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        double compute_us = store_number(s, keyf(key, "call.%s.compute_us", patterns[i]));
        struct estimate share = store_estimate(s, keyf(key, "call.%s.share_pct", patterns[i]));
        if (share.n == 0 || !(compute_us > 0))
            continue;
        csv_out_text(&out, patterns[i]);
        csv_out_double(&out, compute_us / floor_us);
        csv_out_double(&out, share.value);
        csv_out_double(&out, share.low);
        csv_out_double(&out, share.high);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
    put_number(s, "cross.g_per_combo", store_number(s, "call.stateful_unix.compute_us") / floor_us,
               0);
    put_number(s, "cross.g_per_bar", store_number(s, "call.per_bar_unix.compute_us") / floor_us,
               2);
}

void summarize_derived(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"What the original derived", "The original's figure",
                                         "Measured here [95% interval]"};
    struct csv_out t;
    char buf[200], text[TEXT_SIZE + 64];
    put_crossings(d, s);
    write_break_even(d, s);
    if (table_open(s, "derived", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < sizeof DERIVATIONS / sizeof DERIVATIONS[0]; i++) {
        const struct derivation *x = &DERIVATIONS[i];
        const struct value *orig = store_get(s, x->original_key);
        struct estimate e = store_estimate(s, x->measured_key);
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
