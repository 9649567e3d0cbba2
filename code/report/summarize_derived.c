/*
 * summarize_derived.c - the original's derivations beside our measurements.
 *
 * Tangled from paper/85-derived.md. Runs after the summarizers whose
 * values it reads (echo, serialization, crossings, shared memory).
 */
#include <math.h>
#include <stdio.h>

#include "wire/frame.h"
#include "report/summarize.h"

static double v(const struct summary *s, const char *key)
{
    const struct number *n = value_number(s, key);
    return n != NULL ? n->value : NAN;
}

static const char *shown(char *buf, double x, int decimals)
{
    return isnan(x) ? "" : format_fixed(buf, x, decimals);
}

struct derivation {
    const char *figure;
    const char *original;
    double derived, measured;
    const char *unit;
    int decimals;
};

static void write_derivations(struct summary *s, const struct derivation *d, size_t n)
{
    static const char *const header[] = {"Derived figure", "Original (derived)",
                                         "Derived here", "Measured here", "Measured / derived"};
    struct csv_out out;
    char a[64], b[64], c[64], cell[96];
    if (open_table(s, "derived", &out, header, 5) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        csv_out_text(&out, d[i].figure);
        csv_out_text(&out, d[i].original);
        snprintf(cell, sizeof cell, "%s %s", shown(a, d[i].derived, d[i].decimals), d[i].unit);
        csv_out_text(&out, isnan(d[i].derived) ? "" : cell);
        snprintf(cell, sizeof cell, "%s %s", shown(b, d[i].measured, d[i].decimals), d[i].unit);
        csv_out_text(&out, isnan(d[i].measured) ? "" : cell);
        csv_out_text(&out, shown(c, d[i].measured / d[i].derived, 2));
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void write_floors(struct summary *s)
{
    static const char *const header[] = {"Transport", "8 B round trip (µs)",
        "1.2 MB round trip (µs)", "Fitted floor (µs)", "Fitted bandwidth (GB/s)"};
    static const char *const transports[] = {"pipe_raw", "unix_raw", "unix", "tcp_raw", "tcp",
                                             "shm_spin_raw", "shm_spin", "shm_futex"};
    struct csv_out out;
    char key[KEY_SIZE], buf[64];
    if (open_table(s, "floors", &out, header, 5) != 0)
        return;
    for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++) {
        const char *t = transports[i];
        if (isnan(v(s, keyf(key, "echo.%s.p50_us.1", t))))
            continue;
        csv_out_text(&out, t);
        csv_out_text(&out, shown(buf, v(s, keyf(key, "echo.%s.p50_us.1", t)), 2));
        csv_out_text(&out, shown(buf, v(s, keyf(key, "echo.%s.p50_us.150000", t)), 1));
        csv_out_text(&out, shown(buf, v(s, keyf(key, "echo.%s.floor_us", t)), 2));
        csv_out_text(&out, shown(buf, v(s, keyf(key, "echo.%s.bandwidth_gbps", t)), 2));
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void write_compute(struct summary *s)
{
    static const char *const header[] = {"Kernel", "Fastest run (s)", "Speedup over naive"};
    static const struct { const char *arch, *label; } kernels[] = {
        {"in_process", "naive (the definition)"},
        {"in_process_tuned_1core", "tuned, one thread"},
        {"in_process_tuned", "tuned, every core"},
    };
    struct csv_out out;
    char key[KEY_SIZE], buf[64];
    if (open_table(s, "compute", &out, header, 3) != 0)
        return;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        if (isnan(v(s, keyf(key, "arch.%s.min_s", kernels[i].arch))))
            continue;
        csv_out_text(&out, kernels[i].label);
        csv_out_text(&out, shown(buf, v(s, keyf(key, "arch.%s.min_s", kernels[i].arch)), 3));
        csv_out_text(&out, shown(buf, v(s, keyf(key, "arch.%s.speedup", kernels[i].arch)), 1));
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void write_measured_shares(struct summary *s, double in_process_s, double floor_us,
                                  double bars, double combos)
{
    static const char *const header[] = {"label", "G", "share"};
    const struct { const char *label, *arch; double calls; } patterns[] = {
        {"per_bar_unix", "arch.per_bar_unix.min_s", bars},
        {"stateful_unix", "arch.stateful_unix.min_s", combos},
        {"batch_unix", "arch.batch_unix.min_s", 1},
    };
    struct csv_out out;
    if (open_derived(s, "breakeven_measured.csv", &out, header, 3) != 0)
        return;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        double total = v(s, patterns[i].arch);
        double share = (total - in_process_s) / total;
        if (isnan(total) || !(share > 0))
            continue;              /* no slower than in-process: nothing to plot */
        csv_out_text(&out, patterns[i].label);
        csv_out_double(&out, in_process_s * 1e6 / patterns[i].calls / floor_us);
        csv_out_double(&out, share);
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

void summarize_derived(struct summary *s)
{
    double in_s = v(s, "arch.in_process.min_s"), floor_us = v(s, "echo.unix.floor_us");
    double gbps = v(s, "echo.unix.bandwidth_gbps");
    double bars = v(s, "run.bars"), combos = v(s, "run.combos");
    double spawn_ms = v(s, "spawn.p50_ms"), json_ms = v(s, "serial.json.encode_ms");
    if (isnan(in_s) || isnan(floor_us) || isnan(bars) || isnan(combos))
        return;                    /* a run without the echo curve derives nothing */
    double call_bytes = 2.0 * FRAME_HEADER_BYTES + REQUEST_HEADER_BYTES + PARAM_BYTES + RESULT_BYTES;
    double stateful_call_us = floor_us + call_bytes / (gbps * 1e3);
    const struct derivation d[] = {
        {"stateful server, per call", "about 16 µs", stateful_call_us,
         (v(s, "arch.stateful_unix.min_s") - in_s) * 1e6 / combos, "µs", 1},
        {"stateful server, per sweep", "about 1.3 ms", stateful_call_us * combos / 1e3,
         (v(s, "arch.stateful_unix.min_s") - in_s) * 1e3, "ms", 2},
        {"one call per bar, per sweep", "2.1 s", bars * floor_us / 1e6,
         v(s, "arch.per_bar_unix.min_s") - in_s, "s", 2},
        {"one spawn per combination", "1.9 s", combos * spawn_ms / 1e3,
         v(s, "arch.spawn_per_combo.min_s") - v(s, "arch.batch_unix.min_s"), "s", 2},
        {"chatty JSON service", "5.3 s (encoding)", combos * json_ms / 1e3,
         v(s, "arch.json_chatty_unix.min_s") - in_s, "s", 2},
    };
    char key[KEY_SIZE];
    static const char *const names[] = {"stateful_per_call_us", "stateful_total_ms", "per_bar_s",
                                        "spawn_per_combo_s", "json_chatty_encode_s"};
    static const char *const measured[] = {"stateful_measured_us", "stateful_measured_ms",
        "per_bar_measured_s", "spawn_per_combo_measured_s", "json_chatty_measured_s"};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        put_fixed(s, keyf(key, "derived.%s", names[i]), d[i].derived, d[i].decimals);
        put_fixed(s, keyf(key, "derived.%s", measured[i]), d[i].measured, d[i].decimals);
        put_fixed(s, keyf(key, "derived.%s_ratio", names[i]), d[i].measured / d[i].derived, 2);
    }
    write_derivations(s, d, sizeof d / sizeof d[0]);
    write_floors(s);
    write_compute(s);
    write_measured_shares(s, in_s, floor_us, bars, combos);
}
