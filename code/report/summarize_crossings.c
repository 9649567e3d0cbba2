/*
 * summarize_crossings.c - chatty vs batch, spawn, and break-even arithmetic.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "report/summarize.h"
#include "wire/timing.h"

/* The fastest of an architecture's runs in seconds, or NAN if it did not
 * run: comparisons use the fastest runs (@sec:harness). */
static double best_seconds(const struct csv_table *runs, const char *arch)
{
    return fastest_run_seconds(runs, arch);
}

/* A setting of the run from machine.csv (bars, combos, ...), or NAN. */
static double run_setting(struct summary *s, const char *key)
{
    struct csv_table t;
    double v = NAN;
    if (load_data(s, "machine.csv", &t) != 0)
        return v;
    for (size_t r = 0; r < t.n_rows; r++)
        if (strcmp(csv_table_cell(&t, r, 0), key) == 0)
            csv_table_number(&t, r, 1, &v);
    csv_table_free(&t);
    return v;
}

static int echo_model(struct summary *s, double *floor_us, double *bandwidth_gbps)
{
    struct csv_table t;
    char path[4096];
    char err[512];
    snprintf(path, sizeof path, "%s/echo_fit.csv", s->out_dir);
    if (csv_table_load(path, &t, err, sizeof err) != 0)
        return -1;                 /* no echo curve in this run: skip the predictions */
    int found = -1;
    for (size_t r = 0; r < t.n_rows; r++)
        if (strcmp(csv_table_cell(&t, r, 0), "unix") == 0 &&
            csv_table_number(&t, r, 1, floor_us) == 0 &&
            csv_table_number(&t, r, 2, bandwidth_gbps) == 0)
            found = 0;
    csv_table_free(&t);
    return found;
}

static void summarize_chatty(struct summary *s, const struct csv_table *runs, double bars,
                             double combos, int have_model, double floor_us, double gbps)
{
    double chatty = best_seconds(runs, "chatty_unix"), batch = best_seconds(runs, "batch_unix");
    if (isnan(chatty) || isnan(batch) || !(combos > 1))
        return;
    double extra = chatty - batch, crossings = combos - 1;
    put_fixed(s, "cross.chatty_over_batch", chatty / batch, 3);
    double out_bytes = (double)FRAME_HEADER_BYTES + REQUEST_HEADER_BYTES + 8 * bars + PARAM_BYTES;
    double back_bytes = (double)FRAME_HEADER_BYTES + RESULT_BYTES;
    put_fixed(s, "cross.chatty_extra_ms", extra * 1e3, 1);
    put_fixed(s, "cross.per_crossing_us", extra / crossings * 1e6, 1);
    put_count(s, "cross.extra_crossings", (int64_t)crossings);
    put_count(s, "cross.request_bytes", (int64_t)out_bytes);
    put_count(s, "cross.reply_bytes", (int64_t)back_bytes);
    if (!have_model)
        return;
    double predicted_us = floor_us + (out_bytes + back_bytes) / (gbps * 1e3);
    put_fixed(s, "cross.predicted_us", predicted_us, 1);
    put_fixed(s, "cross.predicted_ms", predicted_us * crossings / 1e3, 1);
    put_fixed(s, "cross.measured_over_predicted", extra * 1e6 / crossings / predicted_us, 2);
}

/* Order statistics of one kind of spawned call: seconds, and page faults. */
static size_t spawn_samples(const struct csv_table *t, const char *kind,
                            struct sample_stats *seconds, struct sample_stats *faults,
                            double *mean_seconds)
{
    int k = csv_table_column(t, "kind"), sec = csv_table_column(t, "seconds");
    int flt = csv_table_column(t, "minor_faults");
    double *x = malloc((t->n_rows + 1) * sizeof *x), *f = malloc((t->n_rows + 1) * sizeof *f);
    size_t n = 0;
    for (size_t r = 0; x != NULL && f != NULL && k >= 0 && r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), kind) == 0 &&
            csv_table_number(t, r, sec, &x[n]) == 0 && csv_table_number(t, r, flt, &f[n]) == 0)
            n++;
    *seconds = sample_stats(x, n);
    *faults = sample_stats(f, n);
    *mean_seconds = 0.0;
    for (size_t i = 0; i < n; i++)
        *mean_seconds += x[i] / (double)n;
    free(x);
    free(f);
    return n;
}

static void summarize_spawn(struct summary *s, const struct csv_table *runs, double combos)
{
    double spawn = best_seconds(runs, "spawn_stdin"), batch = best_seconds(runs, "batch_unix");
    double per_combo = best_seconds(runs, "spawn_per_combo");
    double in_process = best_seconds(runs, "in_process");
    if (!isnan(spawn) && !isnan(batch))
        put_fixed(s, "cross.spawn_over_batch_ms", (spawn - batch) * 1e3, 1);
    /* The spawn's share of the sweep, net of what batch_unix already pays
     * for leaving the process; the claim spawn_per_sweep is judged on it. */
    if (!isnan(spawn) && !isnan(batch) && in_process > 0)
        put_fixed(s, "cross.spawn_over_batch_pct", (spawn - batch) / in_process * 100.0, 2);
    if (!isnan(per_combo) && !isnan(batch) && combos > 0)
        put_fixed(s, "cross.spawn_per_combo_call_ms", (per_combo - batch) / combos * 1e3, 2);
    struct csv_table t;
    struct sample_stats st, faults, sweep, sweep_faults;
    if (load_data(s, "spawn.csv", &t) != 0)
        return;
    double echo_mean;
    put_count(s, "spawn.reps", (int64_t)spawn_samples(&t, "echo", &st, &faults, &echo_mean));
    put_fixed(s, "spawn.p50_ms", st.p50 * 1e3, 2);
    put_fixed(s, "spawn.min_ms", st.min * 1e3, 2);
    put_fixed(s, "spawn.p90_ms", st.p90 * 1e3, 2);
    put_count(s, "spawn.faults", (int64_t)faults.p50);
    put_fixed(s, "spawn.per_combo_ms", st.p50 * combos * 1e3, 1);
    double sweep_mean = 0.0;
    put_count(s, "spawn.sweep_reps",
              (int64_t)spawn_samples(&t, "sweep", &sweep, &sweep_faults, &sweep_mean));
    put_fixed(s, "spawn.sweep_p50_ms", sweep.p50 * 1e3, 1);
    put_fixed(s, "spawn.sweep_min_ms", sweep.min * 1e3, 1);
    put_count(s, "spawn.sweep_faults", (int64_t)sweep_faults.p50);
    put_fixed(s, "spawn.sweep_mean_ms", sweep_mean * 1e3, 1);
    if (!isnan(in_process) && combos > 0 && sweep.n > 0) {
        /* a spawned one-combo sweep, less one combination's share of the compute,
         * both averaged over the grid */
        double overhead = sweep_mean - in_process / combos;
        put_fixed(s, "spawn.sweep_overhead_ms", overhead * 1e3, 1);
        if (!isnan(per_combo) && !isnan(batch) && overhead > 0)
            put_fixed(s, "cross.spawn_call_over_sweep_alone",
                      (per_combo - batch) / combos / overhead, 2);
    }
    const struct number *small_rtt = value_number(s, "echo.unix.p50_us.1");
    if (small_rtt != NULL && small_rtt->value > 0)
        put_fixed(s, "cross.spawn_in_round_trips", st.p50 * 1e6 / small_rtt->value, 0);
    if (!isnan(per_combo) && !isnan(batch) && st.min > 0 && combos > 0)
        put_fixed(s, "cross.spawn_call_over_alone", (per_combo - batch) / combos / st.min, 2);
    csv_table_free(&t);
}

static void put_grain(struct summary *s, const char *grain, double compute_us, double floor_us)
{
    char key[KEY_SIZE];
    double g = compute_us / floor_us;
    put_fixed(s, keyf(key, "cross.g_%s", grain), g, g < 10 ? 2 : 0);
    put_fixed(s, keyf(key, "cross.share_%s", grain), 100.0 / (1.0 + g), g > 1e4 ? 4 : 2);
}

static void summarize_break_even(struct summary *s, const struct csv_table *runs, double bars,
                                 double combos, double floor_us)
{
    double sweep_s = best_seconds(runs, "in_process");
    if (isnan(sweep_s) || !(floor_us > 0))
        return;
    double per_sweep = sweep_s * 1e6, per_combo = per_sweep / combos;
    double per_bar = per_sweep / bars;
    put_fixed(s, "cross.compute_per_combo_us", per_combo, 0);
    const struct number *one_crossing = value_number(s, "echo.unix.p50_us.150000");
    if (one_crossing != NULL)
        put_fixed(s, "cross.one_crossing_pct", one_crossing->value / per_sweep * 100.0, 3);
    put_fixed(s, "cross.compute_per_bar_us", per_bar, 2);
    put_fixed(s, "cross.per_bar_ipc_s", bars * floor_us / 1e6, 2);
    put_grain(s, "sweep", per_sweep, floor_us);
    put_grain(s, "combo", per_combo, floor_us);
    put_grain(s, "bar", per_bar, floor_us);
    put_grain(s, "bar_combo", per_bar / combos, floor_us);

    static const char *const header[] = {"label", "G", "share"};
    struct csv_out marks;
    if (open_derived(s, "breakeven_marks.csv", &marks, header, 3) != 0)
        return;
    const struct { const char *label; double compute; } grains[] = {
        {"per bar", per_bar}, {"per combination", per_combo}, {"per sweep", per_sweep},
    };
    for (size_t i = 0; i < 3; i++) {
        double g = grains[i].compute / floor_us;
        csv_out_text(&marks, grains[i].label);
        csv_out_double(&marks, g);
        csv_out_double(&marks, 1.0 / (1.0 + g));
        csv_out_end_row(&marks);
    }
    if (csv_out_close(&marks) != 0)
        s->errors++;
}

/* How this run's naive gap reads against its A/A difference, in words. */
static void put_gap_reading(struct summary *s, const struct csv_table *runs)
{
    double in_process = best_seconds(runs, "in_process");
    double batch = best_seconds(runs, "batch_unix");
    double control = best_seconds(runs, "in_process_control");
    if (isnan(in_process) || isnan(batch) || isnan(control) || in_process <= 0)
        return;
    double gap_pct = (batch - in_process) / in_process * 100.0;
    double aa_pct = fabs(control - in_process) / in_process * 100.0;
    put_fixed(s, "cross.gap_naive_pct", gap_pct, 2);
    const char *reading;
    if (fabs(gap_pct) < 1.0 || fabs(gap_pct) <= 2.0 * aa_pct)
        reading = "within what this run can resolve, so it cannot tell the sweep behind "
                  "the socket from the sweep in the harness's own process";
    else if (gap_pct > 0)
        reading = "beyond this run's noise: the same kernel, on the same bits, ran more "
                  "slowly in the engine's process than in the harness's";
    else
        reading = "beyond the A/A difference but negative: the sweep behind the socket "
                  "was the faster, which no boundary can cause, so a difference of this "
                  "size is the machine's and not the architecture's";
    put_text(s, "cross.gap_reading", reading);
}

static void summarize_gap(struct summary *s, const struct csv_table *runs)
{
    const struct { const char *key, *boundary, *baseline; } GAPS[] = {
        {"cross.gap_naive_ms", "batch_unix", "in_process"},
        {"cross.gap_tuned_ms", "batch_unix_tuned", "in_process_tuned_1core"},
        {"cross.gap_tcp_ms", "batch_tcp", "in_process"},
        {"cross.gap_shm_ms", "batch_shm", "in_process"},
    };
    for (size_t i = 0; i < sizeof GAPS / sizeof GAPS[0]; i++) {
        double a = best_seconds(runs, GAPS[i].boundary);
        double b = best_seconds(runs, GAPS[i].baseline);
        if (!isnan(a) && !isnan(b))
            put_fixed(s, GAPS[i].key, (a - b) * 1e3, 1);
    }
    put_gap_reading(s, runs);
}

void summarize_crossings(struct summary *s)
{
    struct csv_table runs;
    if (load_data(s, "architectures.csv", &runs) != 0)
        return;
    double bars = run_setting(s, "bars"), combos = run_setting(s, "combos");
    double floor_us = 0, bandwidth = 0;
    int have_model = echo_model(s, &floor_us, &bandwidth) == 0;
    summarize_chatty(s, &runs, bars, combos, have_model, floor_us, bandwidth);
    summarize_spawn(s, &runs, combos);
    summarize_gap(s, &runs);
    if (have_model)
        summarize_break_even(s, &runs, bars, combos, floor_us);
    csv_table_free(&runs);
}
