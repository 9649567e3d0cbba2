/*
 * summarize_shm.c - the shared-memory transport against the socket floor.
 *
 * Tangled from paper/84-shm.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"
#include "wire/timing.h"

/* The transports the chapter compares, and how each waits. */
static const struct {
    const char *name, *waiting;
} COMPARED[] = {
    {"unix", "kernel (socket)"},
    {"unix_raw", "kernel (socket), raw"},
    {"shm_futex", "futex"},
    {"shm_spin", "spin"},
    {"shm_spin_raw", "spin, raw"},
};
enum { N_COMPARED = sizeof COMPARED / sizeof COMPARED[0] };

/* The original's ZigBolt round trip, its mean in ns (the original's figure). */
#define ZIGBOLT_RTT_NS 39.0
/* The goal for shm_spin: at least this many times below the Unix socket's echo. */
#define SHM_GOAL_FACTOR 20.0

/* Order statistics, in ns, of transport's round trips at `floats` doubles (n = 0: none). */
static struct sample_stats rtt_stats(const struct csv_table *t, const char *transport,
                                     long floats)
{
    int tc = csv_table_column(t, "transport"), fc = csv_table_column(t, "floats");
    int rc = csv_table_column(t, "rtt_ns");
    struct sample_stats st = {0};
    double *x = malloc((t->n_rows + 1) * sizeof *x);
    size_t n = 0;
    for (size_t r = 0; x != NULL && tc >= 0 && fc >= 0 && rc >= 0 && r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, tc), transport) == 0 &&
            strtol(csv_table_cell(t, r, fc), NULL, 10) == floats &&
            csv_table_number(t, r, rc, &x[n]) == 0)
            n++;
    if (n > 0)
        st = sample_stats(x, n);
    free(x);
    return st;
}

/* The largest size the Unix socket's echo reached, or 0. */
static long largest_size(const struct csv_table *t)
{
    int tc = csv_table_column(t, "transport"), fc = csv_table_column(t, "floats");
    long largest = 0;
    for (size_t r = 0; tc >= 0 && fc >= 0 && r < t->n_rows; r++) {
        long floats = strtol(csv_table_cell(t, r, fc), NULL, 10);
        if (strcmp(csv_table_cell(t, r, tc), "unix") == 0 && floats > largest)
            largest = floats;
    }
    return largest;
}

/* The architectures are compared by their fastest runs (@sec:harness). */
static double arch_fastest(const struct csv_table *runs, const char *arch)
{
    return fastest_run_seconds(runs, arch);
}

static void put_gain(struct summary *s, const char *key, const struct sample_stats *slow,
                     const struct sample_stats *fast)
{
    if (slow->n > 0 && fast->n > 0 && fast->p50 > 0)
        put_fixed(s, key, slow->p50 / fast->p50, 1);
}

static void write_shm_table(struct summary *s, const struct sample_stats *one,
                            const struct sample_stats *big)
{
    static const char *const header[] = {"Transport", "Waiting", "8 B p50 (ns)",
        "8 B p99 (ns)", "Largest p50 (µs)", "Unix echo / this"};
    struct csv_out out;
    char buf[64];
    const struct sample_stats *unix_one = &one[0];
    if (open_table(s, "shm", &out, header, 6) != 0)
        return;
    for (int i = 0; i < N_COMPARED; i++) {
        if (one[i].n == 0)
            continue;
        csv_out_text(&out, COMPARED[i].name);
        csv_out_text(&out, COMPARED[i].waiting);
        csv_out_text(&out, format_fixed(buf, one[i].p50, 0));
        csv_out_text(&out, format_fixed(buf, one[i].p99, 0));
        csv_out_text(&out, big[i].n ? format_fixed(buf, big[i].p50 / 1000.0, 1) : "");
        csv_out_text(&out, unix_one->n ? format_fixed(buf, unix_one->p50 / one[i].p50, 1) : "");
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}
static void put_echo_values(struct summary *s, const struct sample_stats *one,
                            const struct sample_stats *big, long largest)
{
    char key[KEY_SIZE];
    for (int i = 0; i < N_COMPARED; i++) {
        if (one[i].n > 0) {
            put_fixed(s, keyf(key, "shm.%s.p50_ns", COMPARED[i].name), one[i].p50, 0);
            put_fixed(s, keyf(key, "shm.%s.p99_ns", COMPARED[i].name), one[i].p99, 0);
            put_fixed(s, keyf(key, "shm.%s.min_ns", COMPARED[i].name), one[i].min, 0);
        }
        if (big[i].n > 0)
            put_fixed(s, keyf(key, "shm.%s.p50_us.largest", COMPARED[i].name),
                      big[i].p50 / 1000.0, 1);
    }
    put_count(s, "shm.largest_floats", largest);
    put_count(s, "shm.largest_bytes", 8 * largest);
    /* indices into COMPARED: 0 unix, 1 unix_raw, 2 shm_futex, 3 shm_spin, 4 shm_spin_raw */
    put_gain(s, "shm.spin_gain", &one[0], &one[3]);
    put_gain(s, "shm.futex_gain", &one[0], &one[2]);
    put_gain(s, "shm.raw_gain", &one[1], &one[4]);
    put_gain(s, "shm.futex_over_spin", &one[2], &one[3]);
    put_gain(s, "shm.big_gain", &big[0], &big[3]);
    if (one[0].n > 0 && one[3].n > 0)
        put_text(s, "shm.goal", one[0].p50 / one[3].p50 >= SHM_GOAL_FACTOR ? "met" : "not met");
    if (one[3].n > 0 && one[4].n > 0)
        put_fixed(s, "shm.protocol_ns", one[3].p50 - one[4].p50, 0);
    if (one[4].n > 0)
        put_fixed(s, "shm.zigbolt_ratio", one[4].p50 / ZIGBOLT_RTT_NS, 1);
}

static void put_batch_values(struct summary *s, const struct csv_table *runs)
{
    double shm = arch_fastest(runs, "batch_shm"), unix_s = arch_fastest(runs, "batch_unix");
    double in_process = arch_fastest(runs, "in_process");
    if (!isnan(shm) && !isnan(unix_s))
        put_fixed(s, "shm.batch_unix_minus_shm_ms", (unix_s - shm) * 1e3, 1);
    if (!isnan(shm) && !isnan(in_process))
        put_fixed(s, "shm.batch_shm_over_in_process_ms", (shm - in_process) * 1e3, 1);
}

void summarize_shm(struct summary *s)
{
    struct csv_table echo, runs;
    struct sample_stats one[N_COMPARED], big[N_COMPARED];
    if (load_data(s, "architectures.csv", &runs) == 0) {
        put_batch_values(s, &runs);
        csv_table_free(&runs);
    }
    if (load_data(s, "echo.csv", &echo) != 0)
        return;
    long largest = largest_size(&echo);
    for (int i = 0; i < N_COMPARED; i++) {
        one[i] = rtt_stats(&echo, COMPARED[i].name, 1);
        big[i] = rtt_stats(&echo, COMPARED[i].name, largest);
    }
    put_echo_values(s, one, big, largest);
    write_shm_table(s, one, big);
    csv_table_free(&echo);
}
