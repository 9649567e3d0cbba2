/*
 * sum_derived.c - the original's derivations beside this run's measurements.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

static struct estimate chatty_over_model(const struct run_data *d, const struct store *s)
{
    double floor_us = store_number(s, "echo.c.unix.protocol.floor_us");
    double gbps = store_number(s, "echo.c.unix.protocol.bandwidth_gbps");
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        if (strcmp(c->architecture, "chatty_unix") != 0 || isnan(c->compute_ns))
            continue;
        double predicted_us = floor_us + (c->request_bytes + c->reply_bytes) / (gbps * 1e3);
        doubles_push(&x, (c->rtt_ns - c->compute_ns) * 1e-3 / predicted_us);
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

static struct estimate spawn_call_over_bare(const struct run_data *d, const struct store *s)
{
    double bare_ms = store_number(s, "spawn.echo_ms");
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        if (strcmp(c->architecture, "spawn_per_combo") == 0 && !isnan(c->compute_ns))
            doubles_push(&x, (c->rtt_ns - c->compute_ns) * 1e-6 / bare_ms);
    }
    struct estimate e = doubles_estimate(&x);
    doubles_free(&x);
    return e;
}

struct derivation {
    const char *figure;        /* what was derived */
    const char *original_key;  /* the original's derived value */
    const char *unit;
    const char *measured_key;  /* the estimate this run measured for it */
    double scale;              /* measured value times this is in the original's unit */
};

static const struct derivation DERIVATIONS[] = {
    {"stateful server, one 48-byte call", "orig.stateful.per_call_us", "µs",
     "call.stateful_unix.per_call_us", 1},
    {"stateful server, all 80 calls", "orig.stateful.all_ms", "ms",
     "call.stateful_unix.sweep_boundary_ms", 1},
    {"a spawn per combination, per call (the original: one spawn, measured per sweep)",
     "orig.spawn.per_spawn_ms", "ms",
     "cross.spawn_per_combo_overhead_ms", 1},
    {"a spawn per combination, per sweep", "orig.spawn.per_combo_s", "s",
     "call.spawn_per_combo.sweep_boundary_ms", 1e-3},
    {"an engine consulted per bar, per sweep", "orig.breakeven.per_bar_ipc_s", "s",
     "call.per_bar_unix.sweep_boundary_ms", 1e-3},
    {"a chatty JSON service per sweep (the original: its encoding; here: all but the kernel)",
     "orig.serial.json_chatty_s", "s",
     "call.json_chatty_unix.sweep_boundary_ms", 1e-3},
    {"chatty against batch, extra per sweep", "orig.chatty.extra_ms", "ms",
     "cross.chatty_extra_ms", 1},
};

static void put_crossings(const struct run_data *d, struct store *s)
{
    put_estimate(s, "cross.chatty_over_model", chatty_over_model(d, s), 2);
    put_estimate(s, "cross.spawn_call_over_bare", spawn_call_over_bare(d, s), 2);
    struct estimate per_call = store_estimate(s, "call.spawn_per_combo.per_call_us");
    struct estimate ms = {per_call.n, per_call.value * 1e-3, per_call.low * 1e-3,
                          per_call.high * 1e-3};
    put_estimate(s, "cross.spawn_per_combo_overhead_ms", ms, 2);
    struct estimate chatty = store_estimate(s, "call.chatty_unix.sweep_boundary_ms");
    double batch = store_number(s, "call.batch_unix.sweep_boundary_ms");
    struct estimate extra = {chatty.n, chatty.value - batch, chatty.low - batch,
                             chatty.high - batch};
    put_estimate(s, "cross.chatty_extra_ms", extra, 1);
    double echo_us = store_number(s, "echo.c.unix.protocol.p50_us.150000");
    put_number(s, "goal.batch_boundary_over_echo",
               store_number(s, "call.batch_unix.per_call_us") / echo_us, 2);
}

/* Each crossing pattern's G (compute per call over the socket's floor) and its
 * measured boundary share; the original's per-combination G beside them. */
static void write_break_even(struct store *s)
{
    static const char *const header[] = {"label", "G", "share_pct", "low", "high"};
    static const char *const patterns[] = {"batch_unix", "chatty_unix", "stateful_unix",
                                           "per_bar_unix", "spawn_per_combo", "json_chatty_unix",
                                           "python_batch_unix", "python_stateful_unix"};
    char key[KEY_SIZE];
    struct csv_out out;
    double floor_us = store_number(s, "echo.c.unix.protocol.floor_us");
    if (figure_data_open(s, "breakeven.csv", &out, header, 5) != 0)
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
    write_break_even(s);
    if (table_open(s, "derived", &t, header, 3) != 0)
        return;
    for (size_t i = 0; i < sizeof DERIVATIONS / sizeof DERIVATIONS[0]; i++) {
        const struct derivation *x = &DERIVATIONS[i];
        const struct value *orig = store_get(s, x->original_key);
        struct estimate e = store_estimate(s, x->measured_key);
        struct estimate scaled = {e.n, e.value * x->scale, e.low * x->scale, e.high * x->scale};
        csv_out_text(&t, x->figure);
        snprintf(text, sizeof text, "%s %s", orig != NULL ? orig->text : "n/a", x->unit);
        csv_out_text(&t, text);
        snprintf(text, sizeof text, "%s %s", format_estimate(buf, scaled, 2), x->unit);
        csv_out_text(&t, e.n > 0 ? text : "not measured");
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}
