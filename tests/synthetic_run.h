/*
 * synthetic_run.h - a whole data/ folder made to order, every quantity known.
 *
 * The generator decides the truth first, unit by unit, and then writes the
 * raw measurements a run would have recorded around it, with the nuisances
 * the estimators must see through:
 *
 *   - every row of the architecture table (schema/architectures.h) runs in
 *     every round: a couple of duets beside in_process (CPUs swapped) or a
 *     triple (in_process, the row, in_process), in a new order each round;
 *   - a unit's true ratio to the baseline is the row's ratio times one of
 *     nine multipliers with heavy tails on both sides (UNIT_SCALE: 0.5 and
 *     3.0 among seven values near 1), so the median is the row's ratio and
 *     the interval's ends are the 2nd and 8th multipliers;
 *   - a row that runs a part of the job (a fifth of the bars, every few
 *     combinations) records that part, and so do the baseline's runs beside
 *     it; every run is timed as the whole job's (a ratio is what is set),
 *     so a part's rate is a fraction of the whole's;
 *   - the machine's speed drifts by DRIFT per run (geometric, a fifth of the
 *     speed over the whole run): a duet's two sides share it, and a triple's
 *     row sits between its two baseline runs, so a unit's ratio keeps none of
 *     it, while a ratio of runs apart (the earlier rounds' design) does;
 *   - in each round, CPU 0 is slower than CPU 1 by CPU_GAP[round]: the mirror
 *     of a couple takes it out of the ratio, and design.cpu_difference finds
 *     it;
 *   - calls, witnesses, the echo curve, the state probes, page faults, spawns,
 *     serialization, layout, the peak loops, instruction counts: each a known
 *     model (a line, a constant per pass, ...) times known pass factors.
 *
 * With `noise` set (the coverage test), the unit multipliers are left out
 * and each run is instead multiplied by exp(e), e drawn from a symmetric
 * heavy-tailed law (a normal mixture), independently per run: the true
 * ratio is then the row's ratio exactly, the median of its units' ratios
 * in distribution.
 *
 * synthetic_run_make fills a struct run_data in memory (the report's own row
 * types); synthetic_run_write writes it as a data folder, every column of
 * every file from the schema's lists (schema/columns.h), with its manifest,
 * so that run_data_load and every summarizer read it as a measured run.
 * The truth is kept in struct synthetic_run for the tests to derive their
 * expectations from.
 */
#ifndef IPCTAX_SYNTHETIC_RUN_H
#define IPCTAX_SYNTHETIC_RUN_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/grid.h"
#include "kernel/series.h"
#include "report/manifest.h"
#include "report/model.h"
#include "schema/architectures.h"
#include "util/random.h"
#include "testvalues.h"

enum {
    SYN_ROUNDS = 9,            /* units per row: every row runs in every round */
    SYN_PASSES = 5,            /* passes of the echo, the state probes, the fault probes */
    SYN_ECHO_REPS = 3,         /* round trips in a block */
    SYN_REPS = 5,              /* repetitions: cold, spawn, serialization */
    SYN_ROOF_PASSES = 3,
    SYN_WITNESS_REPS = 3,
    SYN_MAX_ROWS = 64,
};

/* The nine multipliers of a row's units, in the order of the rounds (each
 * row starts at its own place, SHIFT): sorted, 0.5 0.96 0.98 0.99 [1.00]
 * 1.01 1.02 1.04 3.0; logs that alternate in sign, so that the units show no
 * drift from one to the next. */
static const double UNIT_SCALE[SYN_ROUNDS] = {1.04, 0.96, 3.0, 0.5, 1.02, 0.98, 1.01, 0.99, 1.00};
/* CPU 0's slowness over CPU 1, round by round: sorted 1.05 ... [1.09] ... 1.13. */
static const double CPU_GAP[SYN_ROUNDS] = {1.09, 1.05, 1.12, 1.07, 1.13, 1.06, 1.11, 1.08, 1.10};
/* Pass factors: sorted 0.97 0.98 [1.00] 1.03 1.06. The Python lanes and
 * probes take them two passes later (PASS_SHIFT). */
static const double PASS_SCALE[SYN_PASSES] = {1.00, 0.97, 1.03, 1.06, 0.98};
/* A block's round trips around its median: its median is the middle one. */
static const double REP_SCALE[SYN_ECHO_REPS] = {0.9, 1.0, 1.3};
enum { PASS_SHIFT = 2 };

#define SYN_PROCESS_FAULTS 1050       /* a spawned call's process: the engine's 300, the
                                        exit spawn's 700 and its request's buffer, 50 */
#define SYN_EXIT_FAULTS 700           /* the exit spawn's (the echo's 10 more, the sweep's 20) */
#define SYN_T0_S 0.25          /* the baseline's sweep at the first run's speed */
#define SYN_DRIFT 1.001        /* the machine's speed, run to run */
#define SYN_BARS 150000
#define SYN_JSON_BYTES 3200000.0    /* the series as JSON, in the serialization record */
#define SYN_SERIES_FLOATS 150000
#define SYN_ECHO_OUTLIER_FLOATS 50000  /* c unix same protocol: twice its line there */

/* The echo's sizes, the same in every lane. */
static const long SYN_ECHO_SIZES[] = {1, 1000, 10000, 50000, 100000, 150000};
enum { SYN_ECHO_N_SIZES = sizeof SYN_ECHO_SIZES / sizeof SYN_ECHO_SIZES[0] };

/* A row's truth. */
struct syn_row {
    const struct arch_row *row;
    double ratio;              /* its time over the baseline's */
    int shift;                 /* where in UNIT_SCALE its first round starts */
    long calls;                /* calls per run (crossing rows) */
    double boundary_us, compute_us;    /* a call's boundary (times the unit's scale), kernel */
    double floor_us, after_us, payload_us, warm_us;    /* its witnesses' round trips */
    double request_bytes, reply_bytes;
    double client_faults, engine_faults;
    double process_ms;         /* a spawned call's engine life */
};

/* What the generator knows about one unit. */
struct syn_unit {
    int row;                   /* index into the rows */
    long round, unit;
    double ratio;              /* the true ratio of this unit (golden mode) */
    double start_s, end_s;
    long first_run;            /* its first run's number */
    long speed_index[3];       /* each slot's place in the drift (duet: slots 1 and 2) */
};

struct synthetic_run {
    struct run_data d;
    struct syn_row rows[SYN_MAX_ROWS];
    size_t n_rows;
    struct syn_unit *units;
    size_t n_units;
    double rounds_seconds;
    int noise;                 /* 1: per-run noise instead of the unit multipliers */
};

/* ---- The truth ----------------------------------------------------------- */

static double syn_named_ratio(const char *name)
{
    static const struct {
        const char *name;
        double ratio;
    } RATIOS[] = {
        {"in_process_control_1", 1.0},       {"in_process_control_2", 1.0},
        {"in_process_tuned_1core", 0.30},    {"in_process_tuned_1core_sequential", 0.29},
        {"in_process_tuned", 0.12},          {"batch_unix", 1.02},
        {"batch_tcp", 1.05},                 {"batch_shm", 1.01},
        {"batch_unix_tuned", 0.31},          {"chatty_unix", 1.40},
        {"stateful_unix", 1.03},             {"per_bar_unix", 6.0},
        {"spawn_stdin", 1.10},               {"spawn_per_combo", 3.5},
        {"json_unix", 1.30},                 {"json_chatty_unix", 2.5},
        {"numba_in_process", 1.2},           {"python_batch_unix", 1.25},
        {"python_batch_unix_copying", 1.3},  {"python_batch_unix_tuned", 0.45},
        {"python_chatty_unix", 2.2},         {"python_stateful_unix", 1.3},
        {"python_spawn_stdin", 1.5},
    };
    for (size_t i = 0; i < sizeof RATIOS / sizeof RATIOS[0]; i++)
        if (strcmp(RATIOS[i].name, name) == 0)
            return RATIOS[i].ratio;
    return 1.5;                                /* a row added since: any ratio will do */
}

/* The unit multiplier of row r in round k (1-based). */
static double syn_unit_scale(const struct syn_row *r, long k)
{
    return UNIT_SCALE[(k - 1 + r->shift) % SYN_ROUNDS];
}

/* The calls' and the witnesses' scales in round k: other places in the same nine. */
static double syn_call_scale(const struct syn_row *r, long k)
{
    return UNIT_SCALE[(k - 1 + r->shift + 4) % SYN_ROUNDS];
}

static double syn_witness_scale(const struct syn_row *r, long k)
{
    return UNIT_SCALE[(k - 1 + r->shift + 6) % SYN_ROUNDS];
}

/* A call's boundary around the unit's: call j of n in a duet's slot. The
 * unit's calls' median factor is 1 (1 call: 0.8 and 1.2; 4 calls: 0.8 1.0
 * 1.0 1.3 and 0.9 1.0 1.0 1.1); their mean is CALL_MEAN[n == 4]. */
static double syn_call_factor(long n, long slot, long j)
{
    static const double ONE[2] = {0.8, 1.2};
    static const double FOUR[2][4] = {{0.8, 1.0, 1.0, 1.3}, {0.9, 1.0, 1.0, 1.1}};
    return n == 1 ? ONE[slot - 1] : FOUR[slot - 1][j];
}
#define SYN_CALL_MEAN_1 1.0
#define SYN_CALL_MEAN_4 1.0125
#define SYN_LAST_CALL_4 1.2                    /* the mean of 1.3 and 1.1 */
#define SYN_FIRST_MEAN_4 0.85                  /* each run's first call: 0.8 and 0.9 */
#define SYN_LATER_MEAN_4 (6.4 / 6.0)           /* the other six */

/* The pass factor of pass p (1-based) for Python (shifted) or not. */
static double syn_pass_scale(long pass, int python)
{
    return PASS_SCALE[(pass - 1 + (python ? PASS_SHIFT : 0)) % SYN_PASSES];
}

/* An echo lane's line, T(f) = t0 + 16 f / bandwidth (µs; bytes per µs). */
struct syn_lane {
    const char *client, *transport, *placement, *mode;
};

static void syn_lane_line(const struct syn_lane *l, double *t0_us, double *bytes_per_us)
{
    static const struct {
        const char *name;
        double t0, bandwidth;
    } T[] = {{"unix", 5.0, 2000}, {"tcp", 12.0, 1500}, {"pipe", 6.0, 1800},
             {"shm_futex", 3.0, 4000}, {"shm_spin", 0.5, 5000}};
    double t0 = 10.0, b = 1000;
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strcmp(T[i].name, l->transport) == 0)
            t0 = T[i].t0, b = T[i].bandwidth;
    if (strcmp(l->placement, "cross") == 0)
        t0 *= 1.4, b *= 0.9;
    if (strcmp(l->mode, "raw") == 0)
        t0 *= 0.8, b *= 1.25;
    if (strcmp(l->mode, "protocol_timed") == 0)
        t0 += 0.3;
    if (strcmp(l->client, "python") == 0)
        t0 *= 8.0, b *= 0.5;
    if (strcmp(l->client, "python_copying") == 0)
        t0 *= 9.0, b *= 0.25;
    *t0_us = t0;
    *bytes_per_us = b;
}

/* The lane's median round trip at f doubles, off the line where it is made to be. */
static double syn_echo_us(const struct syn_lane *l, long floats)
{
    double t0, b;
    syn_lane_line(l, &t0, &b);
    double t = t0 + 16.0 * (double)floats / b;
    if (floats == SYN_ECHO_OUTLIER_FLOATS && strcmp(l->client, "c") == 0 &&
        strcmp(l->transport, "unix") == 0 && strcmp(l->placement, "same") == 0 &&
        strcmp(l->mode, "protocol") == 0)
        t *= 2.0;
    return t;
}

/* The state probes: the hot echo by client, partner and payload (µs), and
 * what a state and stretch add to it. */
static double syn_hot_us(const char *client, const char *partner, int series)
{
    double t = strcmp(client, "c") == 0 ? 6.0 : 40.0;
    if (strcmp(partner, "busy") == 0)
        t *= 1.2;
    return series ? t + 16.0 * SYN_SERIES_FLOATS / 2000.0 : t;
}

/* The C client's probes of a fifth of the series (hot, after the engine's
 * long stretch, after the away pause) cost SYN_FIFTH_OVER_LINE times the
 * line through the same pass's one double and series. */
#define SYN_FIFTH_OVER_LINE 1.3

static double syn_state_extra_us(const char *state, const char *stretch)
{
    double e = strcmp(state, "engine") == 0 ? 4.0 : strcmp(state, "client") == 0 ? 7.0 : 25.0;
    return strcmp(stretch, "long") == 0    ? 3.0 * e
         : strcmp(stretch, "sweep") == 0 ? 6.0 * e
         : strcmp(stretch, "away") == 0  ? 10.0 * e
                                         : e;
}

/* The stretches, µs: short, long (shorter than a sweep's kernel, so that a
 * call per sweep is priced between the long probe and the sweep's), the
 * sweep's (the C client's, longer than a sweep's kernel), and the away
 * probes' pause of a second. */
static double syn_stretch_us(const char *stretch)
{
    return strcmp(stretch, "short") == 0  ? 20.0
         : strcmp(stretch, "long") == 0   ? 1000.0
         : strcmp(stretch, "sweep") == 0  ? 5000.0
         : strcmp(stretch, "away") == 0   ? 1e6
                                          : 0.0;
}
/* The away probes (the series, partner busy, after the idle pause) and the
 * sweep's (C, partner busy) are made in the first passes only, as the
 * harness makes them. */
enum { SYN_AWAY_PASSES = 3 };

/* The fault probes' price of a first touch, µs a page, by role. */
static double syn_fault_us(const char *role)
{
    return strcmp(role, "c") == 0 ? 0.25 : 0.40;
}
#define SYN_FAULT_PAGES 256

/* The C probe's handing over, µs a page: the kernel's first copy out of
 * fresh pages over its next, the process's first read of pages the kernel
 * faulted in over its next, and a fault the kernel's copy takes. */
static double syn_handover_us(const char *step)
{
    return strcmp(step, "copy-out") == 0 ? 0.30 : strcmp(step, "read-in") == 0 ? 0.45 : 0.22;
}

/* ---- Growing arrays --------------------------------------------------------- */

#define SYN_PUSH(array, count, value)                                               \
    do {                                                                            \
        if (((count) & ((count) - 1)) == 0) {                                       \
            void *grown_ = realloc((array), ((count) ? 2 * (count) : 1) * sizeof *(array)); \
            if (grown_ == NULL)                                                     \
                abort();                                                            \
            (array) = grown_;                                                       \
        }                                                                           \
        (array)[(count)++] = (value);                                               \
    } while (0)

static void syn_kv(struct kv_file *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void syn_kv(struct kv_file *f, const char *key, const char *fmt, ...)
{
    struct kv row;
    va_list ap;
    memset(&row, 0, sizeof row);
    snprintf(row.key, sizeof row.key, "%s", key);
    va_start(ap, fmt);
    vsnprintf(row.value, sizeof row.value, fmt, ap);
    va_end(ap);
    SYN_PUSH(f->rows, f->n, row);
}

/* A normal draw, and the heavy-tailed noise of one run (coverage mode). */
static double syn_normal(struct mt19937 *mt)
{
    double u1 = ((double)mt19937_next32(mt) + 0.5) / 4294967296.0;
    double u2 = ((double)mt19937_next32(mt) + 0.5) / 4294967296.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double syn_run_noise(struct mt19937 *mt)
{
    int wild = mt19937_next32(mt) % 10 == 0;
    return exp((wild ? 0.25 : 0.02) * syn_normal(mt));
}

/* ---- architectures.csv, calls.csv, witnesses.csv ------------------------------ */

struct syn_clock {
    double t;                  /* seconds into the rounds */
    long speed;                /* runs so far: the drift's exponent */
    long run;                  /* the last run's number */
};

static double syn_speed(long index)
{
    return pow(SYN_DRIFT, (double)index);
}

static struct run_row syn_run_row(const struct syn_row *r, const char *pairing, long round,
                                  long position, long unit, long slot, long run)
{
    struct run_row x;
    memset(&x, 0, sizeof x);
    snprintf(x.architecture, sizeof x.architecture, "%s", r->row->name);
    snprintf(x.pairing, sizeof x.pairing, "%s", pairing);
    snprintf(x.status, sizeof x.status, "ok");
    x.round = round, x.position = position, x.unit = unit, x.slot = slot, x.run = run;
    x.partner = NAN;
    long divisor = r->row->part.bar_divisor > 0 ? r->row->part.bar_divisor : 1;
    long step = r->row->part.combo_step > 0 ? r->row->part.combo_step : 1;
    x.bars = SYN_BARS / divisor;
    x.combos = (DEFAULT_COMBOS + step - 1) / step;
    x.engine_cpu_s = NAN, x.cpu_start = NAN, x.cpu_end = NAN, x.engine_cpu = NAN;
    x.client_minor_faults = 12, x.engine_minor_faults = NAN;
    snprintf(x.cpus_allowed, sizeof x.cpus_allowed, "0-1");
    return x;
}

/* A kernel the host slowed: in one round, both sides of every crossing
 * row paired in duets ran their kernels
 * SYN_SLOWING times as long (the boundary is the same). The round is the
 * one whose boundaries are already the largest, so that the medians over
 * the rounds and their intervals stay where they were. */
#define SYN_SLOWED_ROUND 3
#define SYN_SLOWING 1.3
static int syn_slowed(const struct syn_row *r, long round)
{
    return r->row->pairing == PAIRING_DUET && r->row->transport != TRANSPORT_NONE &&
           round == SYN_SLOWED_ROUND;
}

static double syn_kernel_slowing(const struct syn_row *r, const struct run_row *x)
{
    return syn_slowed(r, x->round) ? SYN_SLOWING : 1.0;
}

/* The calls and the witnesses of one run of a crossing row. */
static void syn_calls(struct synthetic_run *s, const struct syn_row *r, const struct run_row *x)
{
    struct run_data *d = &s->d;
    double c = syn_call_scale(r, x->round), w = syn_witness_scale(r, x->round);
    int spawns = r->row->transport == TRANSPORT_SPAWN;
    for (long j = 0; j < r->calls; j++) {
        struct call_row k;
        double b = r->boundary_us * c * syn_call_factor(r->calls, x->slot, j) * 1e3;
        memset(&k, 0, sizeof k);
        snprintf(k.architecture, sizeof k.architecture, "%s", r->row->name);
        k.round = x->round, k.run = x->run, k.call = j;
        k.compute_ns = r->compute_us * syn_kernel_slowing(r, x) * 1e3;
        k.rtt_ns = k.compute_ns + b;
        k.encode_ns = 0.10 * b, k.send_ns = 0.05 * b, k.wait_ns = k.rtt_ns - 0.3 * b;
        k.receive_ns = 0.05 * b, k.decode_ns = 0.10 * b;
        k.engine_decode_ns = 0.05 * b, k.engine_encode_ns = 0.05 * b;
        k.engine_ns = k.compute_ns + 0.1 * b, k.engine_cpu_ns = k.engine_ns;
        k.request_ns = 0.30 * b, k.reply_ns = 0.25 * b;
        k.process_ns = spawns ? r->process_ms * c * 1e6 : NAN;
        k.process_cpu_ns = spawns ? 0.5 * k.process_ns : NAN;
        k.process_minor_faults = spawns ? SYN_PROCESS_FAULTS : NAN;
        k.request_bytes = r->request_bytes, k.reply_bytes = r->reply_bytes;
        k.client_minor_faults = r->client_faults, k.engine_minor_faults = r->engine_faults;
        SYN_PUSH(d->calls, d->n_calls, k);
    }
    /* the witnesses: floor (one double), payload (not for a spawning row) and
     * warm (only for one), seq 1, 2, 3; the later ones 0.9 and 1.1 of the
     * kind's round trip, the first (right after the run) the `after` one */
    static const double SEQ[SYN_WITNESS_REPS] = {1.0, 0.9, 1.1};
    /* a warm twin, as the harness opens one, only beside an engine spawned per call */
    int warm = spawns && r->row->grain != GRAIN_SWEEP;
    const char *kinds[3] = {"floor", spawns ? NULL : "payload", warm ? "warm" : NULL};
    for (int kind = 0; kind < 3; kind++)
        for (long seq = 1; kinds[kind] != NULL && seq <= SYN_WITNESS_REPS; seq++) {
            struct witness_row v;
            double us = kind == 0 ? (seq == 1 ? r->after_us : r->floor_us)
                      : kind == 1 ? r->payload_us : r->warm_us;
            memset(&v, 0, sizeof v);
            snprintf(v.architecture, sizeof v.architecture, "%s", r->row->name);
            snprintf(v.kind, sizeof v.kind, "%s", kinds[kind]);
            v.round = x->round, v.run = x->run, v.seq = seq;
            v.floats = kind == 2 ? 0 : 1;
            v.start_s = x->start_s + x->seconds;
            v.rtt_ns = us * w * (seq == 1 ? 1.0 : SEQ[seq - 1]) * 1e3;
            v.encode_ns = 0.1 * v.rtt_ns, v.decode_ns = 0.1 * v.rtt_ns;
            v.send_ns = v.receive_ns = v.wait_ns = 0.2 * v.rtt_ns;
            v.engine_ns = v.engine_decode_ns = v.compute_ns = v.engine_encode_ns = NAN;
            v.engine_cpu_ns = v.process_ns = v.process_cpu_ns = v.process_minor_faults = NAN;
            v.request_bytes = 16, v.reply_bytes = 12;
            v.request_ns = v.reply_ns = v.engine_minor_faults = v.client_minor_faults = NAN;
            SYN_PUSH(d->witnesses, d->n_witnesses, v);
        }
}

static void syn_add_run(struct synthetic_run *s, const struct syn_row *r, struct run_row x)
{
    SYN_PUSH(s->d.runs, s->d.n_runs, x);
    if (r->row->transport != TRANSPORT_NONE && r != &s->rows[0])
        syn_calls(s, r, &x);
}

/* A couple of duets of row r beside the baseline b, in round k. */
static void syn_couple(struct synthetic_run *s, struct mt19937 *mt, struct syn_clock *clock,
                       const struct syn_row *r, long k, long position, long unit_id)
{
    const struct syn_row *b = &s->rows[0];
    struct syn_unit u = {(int)(r - s->rows), k, unit_id, 0, clock->t, 0, clock->run + 1, {0}};
    u.ratio = s->noise ? r->ratio : r->ratio * syn_unit_scale(r, k);
    int first_cpu = (int)((k + (long)(r - s->rows)) % 2);
    for (long slot = 1; slot <= 2; slot++) {
        int cpu = (int)((first_cpu + slot - 1) % 2);
        double speed = SYN_T0_S * syn_speed(clock->speed);
        struct run_row x = syn_run_row(r, "duet", k, position, unit_id, slot, clock->run + 1);
        struct run_row y = syn_run_row(b, "duet", k, position, unit_id, slot, clock->run + 2);
        y.bars = x.bars, y.combos = x.combos;  /* the baseline beside it does its part */
        x.partner = (double)y.run, y.partner = (double)x.run;
        x.seconds = u.ratio * speed * (cpu == 0 ? CPU_GAP[k - 1] : 1.0);
        y.seconds = speed * (cpu == 1 ? CPU_GAP[k - 1] : 1.0);
        if (s->noise) {
            x.seconds *= syn_run_noise(mt);
            y.seconds *= syn_run_noise(mt);
        }
        x.start_s = y.start_s = clock->t;
        x.cpu_start = x.cpu_end = (double)cpu, y.cpu_start = y.cpu_end = (double)(1 - cpu);
        snprintf(x.cpus_allowed, sizeof x.cpus_allowed, "%d", cpu);
        snprintf(y.cpus_allowed, sizeof y.cpus_allowed, "%d", 1 - cpu);
        x.client_cpu_s = x.seconds, y.client_cpu_s = y.seconds;
        if (r->row->transport != TRANSPORT_NONE) {
            x.engine_cpu = x.cpu_start, x.engine_cpu_s = 0.9 * x.seconds;
            x.engine_minor_faults = 3;
        }
        u.speed_index[slot - 1] = clock->speed++;
        clock->run += 2;
        clock->t += fmax(x.seconds, y.seconds) + 0.001;
        syn_add_run(s, r, x);
        syn_add_run(s, b, y);
    }
    u.end_s = clock->t - 0.001;
    SYN_PUSH(s->units, s->n_units, u);
}

/* A triple: the baseline, row r, the baseline, one after another. */
static void syn_triple(struct synthetic_run *s, struct mt19937 *mt, struct syn_clock *clock,
                       const struct syn_row *r, long k, long position, long unit_id)
{
    const struct syn_row *b = &s->rows[0];
    struct syn_unit u = {(int)(r - s->rows), k, unit_id, 0, clock->t, 0, clock->run + 1, {0}};
    u.ratio = s->noise ? r->ratio : r->ratio * syn_unit_scale(r, k);
    for (long slot = 1; slot <= 3; slot++) {
        const struct syn_row *who = slot == 2 ? r : b;
        struct run_row x = syn_run_row(who, "sequential", k, position, unit_id, slot,
                                       ++clock->run);
        struct run_row part = syn_run_row(r, "sequential", k, position, unit_id, slot, 0);
        x.bars = part.bars, x.combos = part.combos;    /* the row's part, both baselines too */
        x.seconds = SYN_T0_S * syn_speed(clock->speed) * (slot == 2 ? u.ratio : 1.0);
        if (s->noise)
            x.seconds *= syn_run_noise(mt);
        x.start_s = clock->t;
        x.cpu_start = x.cpu_end = 0;
        x.client_cpu_s = x.seconds;
        u.speed_index[slot - 1] = clock->speed++;
        clock->t += x.seconds + 0.001;
        syn_add_run(s, who, x);
    }
    u.end_s = clock->t - 0.001;
    SYN_PUSH(s->units, s->n_units, u);
}

static void syn_rows(struct synthetic_run *s)
{
    s->n_rows = 0;
    for (size_t i = 0; i < N_ARCH_ROWS && s->n_rows < SYN_MAX_ROWS; i++) {
        const struct arch_row *a = &ARCH_ROWS[i];
        struct syn_row *r = &s->rows[a->pairing == PAIRING_NONE ? 0 : ++s->n_rows];
        memset(r, 0, sizeof *r);
        r->row = a;
        r->ratio = a->pairing == PAIRING_NONE ? 1.0 : syn_named_ratio(a->name);
        r->shift = (int)(i % SYN_ROUNDS);
        r->calls = a->grain == GRAIN_SWEEP ? 1 : 4;
        r->compute_us = a->grain == GRAIN_SWEEP ? 2000.0 : 500.0;
        /* a spawn costs milliseconds, a crossing tens of microseconds */
        r->boundary_us = (a->transport == TRANSPORT_SPAWN ? 1500.0 : 30.0) + 10.0 * (double)i;
        r->floor_us = 6.0 + 0.5 * (double)i, r->after_us = 1.5 * r->floor_us;
        r->payload_us = 2.0 * r->boundary_us, r->warm_us = 0.5 * r->compute_us;
        r->request_bytes = 1200064 + 8 * (double)i, r->reply_bytes = 3208;
        r->client_faults = 2 + (double)(i % 3);
        r->engine_faults = a->transport == TRANSPORT_SPAWN ? 300 : 1;
        r->process_ms = 1.5 + 0.1 * (double)i;
    }
    s->n_rows++;                               /* the baseline, rows[0], counts too */
}

/* The away probes of the rounds: one double and the series at round k's
 * start, under its first run, and then one double over shared memory; the
 * round trips SYN_ROUND_ONE_US, SYN_ROUND_SERIES_US and SYN_ROUND_SHM_US times a scale of the round (the first round's are
 * 50 times, as a set-up's would be, and left out by the summary), split
 * as the state probes are (5% encode, 40% request, 35% reply, 5% decode). */
#define SYN_ROUND_ONE_US 90.0
#define SYN_ROUND_SERIES_US 3000.0
#define SYN_ROUND_SHM_US 40.0                 /* the third, one double over shared memory */
#define SYN_ROUND_FIFTH_US 1200.0             /* the middle set's fifth, above their line */
#define SYN_LOAD_DECODE_SHARE 0.2             /* ... a load: its engine's decoding, of its time */
static double syn_round_scale(long k)
{
    return k == 1 ? 50.0 : UNIT_SCALE[(k + 2) % SYN_ROUNDS];
}

/* The retouch probe at round k's start: a pass over the series' pages
 * left a round, SYN_RETOUCH_HOT_US plus SYN_RETOUCH_EXTRA_US a page times
 * the round's scale, then the pass at once, SYN_RETOUCH_HOT_US. */
#define SYN_RETOUCH_HOT_US 30.0
#define SYN_RETOUCH_EXTRA_US 0.5
#define SYN_RETOUCH_PAGES 293                 /* the series' 1,200,000 bytes */
/* The set halfway through a round's runs (kinds "-mid"): the retouch
 * probe and the two Unix probes, at SYN_MID_FACTOR of the start's, and a
 * third, the series' first fifth sent to be loaded (kind "load-mid",
 * SYN_ROUND_FIFTH_US, SYN_LOAD_DECODE_SHARE of it the engine's decoding);
 * the three take turns going first. */
#define SYN_MID_FACTOR 0.6
/* A retouch probe's two passes under the run after clock, of kind: the
 * first extra_us a page dearer than the second, SYN_RETOUCH_HOT_US. */
static void syn_retouch_passes(struct synthetic_run *s, long k, const struct syn_row *next,
                               const struct syn_clock *clock, const char *kind, double extra_us)
{
    for (long seq = 1; seq <= 2; seq++) {
        struct witness_row v;
        memset(&v, 0, sizeof v);
        snprintf(v.architecture, sizeof v.architecture, "%s", next->row->name);
        snprintf(v.kind, sizeof v.kind, "%s", kind);
        v.round = k, v.run = clock->run + 1, v.seq = seq;
        v.floats = SYN_SERIES_FLOATS;
        v.start_s = clock->t;
        v.rtt_ns = (SYN_RETOUCH_HOT_US + (seq == 1 ? SYN_RETOUCH_PAGES * extra_us : 0)) * 1e3;
        v.engine_ns = v.engine_decode_ns = v.compute_ns = v.engine_encode_ns = NAN;
        v.engine_cpu_ns = v.request_ns = v.reply_ns = v.engine_minor_faults = NAN;
        v.process_ns = v.process_cpu_ns = v.process_minor_faults = NAN;
        v.client_minor_faults = 0;
        SYN_PUSH(s->d.witnesses, s->d.n_witnesses, v);
    }
}

static void syn_retouch(struct synthetic_run *s, long k, const struct syn_row *next,
                        const struct syn_clock *clock, int mid)
{
    syn_retouch_passes(s, k, next, clock, mid ? "retouch-mid" : "retouch",
                       SYN_RETOUCH_EXTRA_US * syn_round_scale(k) * (mid ? SYN_MID_FACTOR : 1.0));
}

static void syn_away_probes(struct synthetic_run *s, long k, const struct syn_row *next,
                            const struct syn_clock *clock, int mid)
{
    syn_retouch(s, k, next, clock, mid);
    for (long seq = 1; seq <= 3; seq++) {
        /* at the start odd rounds send the series first, the shm probe last;
         * in the middle one double, the series and the fifth take turns */
        int payload = mid ? (int)((k + seq - 1) % 3) : seq < 3 ? (int)((k + seq - 1) % 2) : 0;
        int shm = !mid && seq == 3;
        struct witness_row v;
        memset(&v, 0, sizeof v);
        snprintf(v.architecture, sizeof v.architecture, "%s", next->row->name);
        snprintf(v.kind, sizeof v.kind, "%s%s", shm ? "away-shm" : payload == 2 ? "load" : "away",
                 mid ? "-mid" : "");
        v.round = k, v.run = clock->run + 1, v.seq = seq;
        v.floats = payload == 2 ? SYN_SERIES_FLOATS / 5 : payload ? SYN_SERIES_FLOATS : 1;
        v.start_s = clock->t;
        v.rtt_ns = payload == 2 ? SYN_ROUND_FIFTH_US * syn_round_scale(k) * 1e3
                 : (shm ? SYN_ROUND_SHM_US : payload ? SYN_ROUND_SERIES_US : SYN_ROUND_ONE_US) *
                       syn_round_scale(k) * (mid ? SYN_MID_FACTOR : 1.0) * 1e3;
        v.encode_ns = 0.05 * v.rtt_ns, v.request_ns = 0.40 * v.rtt_ns;
        v.reply_ns = 0.35 * v.rtt_ns, v.decode_ns = 0.05 * v.rtt_ns;
        v.send_ns = v.receive_ns = v.wait_ns = 0.1 * v.rtt_ns;
        v.engine_ns = v.engine_decode_ns = v.engine_encode_ns = v.engine_cpu_ns = 0.05 * v.rtt_ns;
        if (payload == 2)                      /* a load: the engine decodes what it keeps */
            v.engine_decode_ns = SYN_LOAD_DECODE_SHARE * v.rtt_ns;
        v.compute_ns = 0;
        v.process_ns = v.process_cpu_ns = v.process_minor_faults = NAN;
        v.request_bytes = 8 * (double)v.floats + 12, v.reply_bytes = 8 * (double)v.floats + 4;
        v.engine_minor_faults = v.client_minor_faults = 0;
        SYN_PUSH(s->d.witnesses, s->d.n_witnesses, v);
    }
}

/* The retouch probe before every unit: a page left since the previous
 * unit's pass, age seconds, costs SYN_AGE_US_PER_PAGE * age^SYN_AGE_SLOPE
 * more than at once; both passes at the unit's start. */
#define SYN_AGE_US_PER_PAGE 0.05
#define SYN_AGE_SLOPE 0.8
static void syn_unit_retouch(struct synthetic_run *s, long k, const struct syn_row *next,
                             const struct syn_clock *clock, double age_s)
{
    syn_retouch_passes(s, k, next, clock, "retouch-unit",
                       SYN_AGE_US_PER_PAGE * pow(age_s, SYN_AGE_SLOPE));
}

static void syn_rounds(struct synthetic_run *s, struct mt19937 *mt)
{
    double last_pass_s = -1.0;                 /* none yet: the first is after the set-up */
    struct syn_clock clock = {0, 0, 0};
    long unit_id = 0;
    size_t n = s->n_rows - 1;                  /* the rows other than the baseline */
    for (long k = 1; k <= SYN_ROUNDS; k++)
        for (size_t p = 0; p < n; p++) {
            const struct syn_row *r = &s->rows[1 + (p + (size_t)k) % n];  /* a new order */
            if (p == 0)
                syn_away_probes(s, k, &s->rows[1 + (size_t)k % n], &clock, 0);
            if (p == n / 2 && p > 0)
                syn_away_probes(s, k, r, &clock, 1);
            syn_unit_retouch(s, k, r, &clock, last_pass_s < 0 ? 1.0 : clock.t - last_pass_s);
            last_pass_s = clock.t;
            if (r->row->pairing == PAIRING_DUET)
                syn_couple(s, mt, &clock, r, k, (long)p + 1, ++unit_id);
            else
                syn_triple(s, mt, &clock, r, k, (long)p + 1, ++unit_id);
        }
    s->rounds_seconds = clock.t;
}

/* ---- The other measurements ------------------------------------------------------ */

static void syn_echo(struct synthetic_run *s)
{
    static const struct syn_lane LANES[] = {
        {"c", "unix", "same", "protocol"},   {"c", "unix", "same", "raw"},
        {"c", "unix", "same", "protocol_timed"},
        {"c", "unix", "cross", "protocol"},  {"c", "unix", "cross", "raw"},
        {"c", "tcp", "same", "protocol"},    {"c", "tcp", "same", "raw"},
        {"c", "tcp", "cross", "protocol"},   {"c", "tcp", "cross", "raw"},
        {"c", "pipe", "same", "protocol"},   {"c", "pipe", "same", "raw"},
        {"c", "shm_futex", "same", "protocol"}, {"c", "shm_spin", "same", "protocol"},
        {"c", "shm_spin", "cross", "protocol"},
        {"python", "unix", "same", "protocol"}, {"python_copying", "unix", "same", "protocol"},
    };
    for (size_t l = 0; l < sizeof LANES / sizeof LANES[0]; l++)
        for (long pass = 1; pass <= SYN_PASSES; pass++)
            for (size_t f = 0; f < SYN_ECHO_N_SIZES; f++)
                for (long rep = 1; rep <= SYN_ECHO_REPS; rep++) {
                    struct echo_row e;
                    const struct syn_lane *lane = &LANES[l];
                    memset(&e, 0, sizeof e);
                    snprintf(e.client, sizeof e.client, "%s", lane->client);
                    snprintf(e.transport, sizeof e.transport, "%s", lane->transport);
                    snprintf(e.placement, sizeof e.placement, "%s", lane->placement);
                    snprintf(e.mode, sizeof e.mode, "%s", lane->mode);
                    e.client_cpu = 0, e.engine_cpu = strcmp(lane->placement, "same") == 0 ? 0 : 1;
                    e.floats = SYN_ECHO_SIZES[f], e.bytes = 8 * SYN_ECHO_SIZES[f];
                    e.pass = pass, e.block = (pass - 1) * SYN_ECHO_N_SIZES + (long)f + 1;
                    e.rep = rep;
                    e.rtt_ns = syn_echo_us(lane, e.floats) *
                               syn_pass_scale(pass, strncmp(lane->client, "python", 6) == 0) *
                               REP_SCALE[rep - 1] * 1e3;
                    e.engine_ns = strcmp(lane->mode, "protocol_timed") == 0 ? 100 : NAN;
                    SYN_PUSH(s->d.echo, s->d.n_echo, e);
                }
}

/* A fresh engine's call, cold or warm: 2 ms of kernel and its boundary. */
static const double SYN_COLD_MS[SYN_REPS] = {9.0, 12.0, 6.4, 12.1, 10.8};
static const double SYN_WARM_MS[SYN_REPS] = {1.0, 1.2, 0.8, 1.1, 0.9};

static void syn_cold(struct synthetic_run *s)
{
    for (long rep = 1; rep <= SYN_REPS; rep++)
        for (int warm = 0; warm < 2; warm++) {
            struct cold_row c;
            memset(&c, 0, sizeof c);
            snprintf(c.client, sizeof c.client, "c");
            snprintf(c.warmth, sizeof c.warmth, "%s", warm ? "warm" : "cold");
            c.rep = rep;
            c.compute_ns = 2e6;
            c.rtt_ns = c.compute_ns + (warm ? SYN_WARM_MS[rep - 1] : SYN_COLD_MS[rep - 1]) * 1e6;
            c.encode_ns = c.send_ns = c.receive_ns = 1000, c.decode_ns = 100;
            c.wait_ns = c.rtt_ns - 3100;
            c.engine_ns = c.rtt_ns - 4000;
            c.engine_decode_ns = (warm ? 40 : 3000) * 1e3 * (double)rep / 3.0;
            c.engine_encode_ns = 400;
            c.client_minor_faults = warm ? 0 : 290 + (double)rep;
            c.engine_minor_faults = warm ? 0 : 2350 + 2 * (double)rep;
            c.request_bytes = 2400, c.reply_bytes = 40;
            SYN_PUSH(s->d.cold, s->d.n_cold, c);
        }
}

/* The serialization formats: encode time (µs) at repetition factor 1. */
static const struct {
    const char *language, *format, *buffer;
    double encode_us, decode_us, faults;
} SYN_FORMATS[] = {
    {"c", "raw", "reused", 40, 45, 0},           {"c", "raw_fresh", "fresh", 120, 45, 293},
    {"c", "memcpy", "reused", 30, NAN, 0},       {"c", "json", "codec", 9000, 15000, 0},
    {"c", "text", "codec", 7000, 11000, 0},      {"python", "tobytes", "reused", 60, 80, 0},
    {"c", "json_cold", "codec", 10800, 18000, 0},     /* the JSON pair after a kernel */
    {"c", "json_busy", "codec", 14400, 24000, 0},     /* ... and beside a busy partner */
    {"python", "tobytes_fresh", "fresh", 200, 80, 293},
    {"python", "pickle", "codec", 300, 350, 0},  {"python", "json", "codec", 60000, 90000, 0},
};
enum { SYN_N_FORMATS = sizeof SYN_FORMATS / sizeof SYN_FORMATS[0] };
/* Each repetition scales every format alike; C's json in repetition 3 is off. */
static const double SYN_SERIAL_REP[SYN_REPS] = {1.00, 1.10, 0.95, 1.02, 0.97};

static void syn_serial_row(struct synthetic_run *s, int f, const char *operation, long rep,
                           double us)
{
    struct serial_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.language, sizeof r.language, "%s", SYN_FORMATS[f].language);
    snprintf(r.format, sizeof r.format, "%s", SYN_FORMATS[f].format);
    snprintf(r.operation, sizeof r.operation, "%s", operation);
    snprintf(r.buffer, sizeof r.buffer, "%s", SYN_FORMATS[f].buffer);
    r.rep = rep, r.ns = us * 1e3, r.position = f + 1;
    r.bytes = strstr(r.format, "json") != NULL ? SYN_JSON_BYTES : 8.0 * SYN_BARS;
    r.minor_faults = strcmp(operation, "encode") == 0 ? SYN_FORMATS[f].faults : 0;
    SYN_PUSH(s->d.serial, s->d.n_serial, r);
}

static void syn_serialization(struct synthetic_run *s)
{
    for (long rep = 1; rep <= SYN_REPS; rep++)
        for (int f = 0; f < SYN_N_FORMATS; f++) {
            double q = SYN_SERIAL_REP[rep - 1];
            int memcpy_row = strcmp(SYN_FORMATS[f].format, "memcpy") == 0;
            syn_serial_row(s, f, memcpy_row ? "copy" : "encode", rep, SYN_FORMATS[f].encode_us * q);
            if (!memcpy_row)
                syn_serial_row(s, f, "decode", rep, SYN_FORMATS[f].decode_us * q);
            if (strcmp(SYN_FORMATS[f].language, "python") == 0)
                syn_serial_row(s, f, "release", rep, 5.0 * q);
        }
}

/* Spawned calls (ms at repetition factor 1): the kinds' round trips, a
 * sweep's kernel, and the engine's faults. */
#define SYN_SPAWN_EXIT_MS 1.2
#define SYN_SPAWN_ECHO_MS 1.6
#define SYN_SPAWN_SWEEP_MS 4.0        /* a sweep's round trip less its kernel */
#define SYN_SPAWN_WARM_MS 2.6         /* a warm engine's round trip of the same request */
#define SYN_SPAWN_COMPUTE_MS 2.5      /* its kernel, warm; cold: plus the faults' price */
#define SYN_SPAWN_FAULTS 600          /* the cold engine's extra faults */
#define SYN_SPAWN_FAULT_US 0.2        /* and their price */

static void syn_spawn(struct synthetic_run *s)
{
    static const char *const KINDS[] = {"exit", "echo", "sweep", "warm"};
    for (size_t k = 0; k < 4; k++)
        for (long rep = 1; rep <= SYN_REPS; rep++) {
            struct spawn_row r;
            double q = SYN_SERIAL_REP[rep - 1];
            /* the cold engine's faults: a sixth while it decodes, the rest in its kernel */
            double cold_faults_ms = SYN_SPAWN_FAULTS * SYN_SPAWN_FAULT_US * q * 1e-3;
            double cold_compute = SYN_SPAWN_COMPUTE_MS + cold_faults_ms * 5.0 / 6.0;
            memset(&r, 0, sizeof r);
            snprintf(r.kind, sizeof r.kind, "%s", KINDS[k]);
            r.rep = rep, r.combo = 0;
            r.compute_ns = k == 2 ? cold_compute * 1e6 : k == 3 ? SYN_SPAWN_COMPUTE_MS * 1e6 : NAN;
            r.rtt_ns = k == 0 ? SYN_SPAWN_EXIT_MS * q * 1e6
                     : k == 1 ? SYN_SPAWN_ECHO_MS * q * 1e6
                     : k == 2 ? (SYN_SPAWN_COMPUTE_MS + cold_faults_ms + SYN_SPAWN_SWEEP_MS * q) * 1e6
                              : SYN_SPAWN_WARM_MS * 1e6;
            r.process_ns = k == 3 ? NAN : 0.9 * r.rtt_ns;
            r.process_cpu_ns = k == 3 ? NAN : 0.5 * r.rtt_ns;
            r.minor_faults = k == 3 ? NAN : SYN_EXIT_FAULTS + 10 * (double)k;
            r.spawn_ns = k == 3 ? NAN : 0.3e6;
            r.request_ns = k == 2 ? 0.2e6 * q : NAN;
            r.engine_decode_ns = k == 2 ? (0.1 * q + cold_faults_ms / 6.0) * 1e6
                               : k == 3 ? 0.1e6 * q : NAN;
            r.engine_minor_faults = k == 2 ? 100 + SYN_SPAWN_FAULTS : k == 3 ? 100 : NAN;
            SYN_PUSH(s->d.spawns, s->d.n_spawns, r);
        }
}

static void syn_states(struct synthetic_run *s)
{
    static const char *const CLIENTS[] = {"c", "python"}, *const PARTNERS[] = {"busy", "idle"};
    static const char *const STATES[][2] = {{"hot", "none"},     {"engine", "short"},
                                            {"engine", "long"},  {"client", "short"},
                                            {"client", "long"},  {"idle", "short"},
                                            {"idle", "long"},    {"idle", "away"},
                                            {"engine", "sweep"}};
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 2; p++)
            for (int series = 0; series < 3; series++)   /* 2: the fifth */
                for (size_t st = 0; st < sizeof STATES / sizeof STATES[0]; st++)
                    for (long pass = 1; pass <= SYN_PASSES; pass++) {
                        struct state_row r;
                        if (strcmp(STATES[st][1], "away") == 0 &&
                            (p != 0 || !series || pass > SYN_AWAY_PASSES))
                            continue;          /* away: the series, partner busy, early passes */
                        if (st == 8 && (c != 0 || p != 0 || pass > SYN_AWAY_PASSES))
                            continue;          /* sweep: C, partner busy, early passes */
                        if (series == 2 && (c != 0 || (st != 0 && st != 2 && st < 7)))
                            continue;          /* the fifth: C, hot, engine long, away, sweep */
                        double q = syn_pass_scale(pass, c == 1);
                        double extra = st == 0 ? 0.0 : syn_state_extra_us(STATES[st][0],
                                                                          STATES[st][1]);
                        double one = syn_hot_us(CLIENTS[c], PARTNERS[p], 0) + extra;
                        double whole = syn_hot_us(CLIENTS[c], PARTNERS[p], 1) + extra;
                        double share = (SYN_SERIES_FLOATS / 5 - 1.0) / (SYN_SERIES_FLOATS - 1.0);
                        double us = (series == 2 ? SYN_FIFTH_OVER_LINE * (one + share * (whole - one))
                                     : series ? whole : one) * q;
                        memset(&r, 0, sizeof r);
                        snprintf(r.client, sizeof r.client, "%s", CLIENTS[c]);
                        snprintf(r.state, sizeof r.state, "%s", STATES[st][0]);
                        snprintf(r.stretch, sizeof r.stretch, "%s", STATES[st][1]);
                        snprintf(r.partner, sizeof r.partner, "%s", PARTNERS[p]);
                        r.cpu = 0, r.pass = pass, r.order = (long)st + 1;
                        r.floats = series == 2 ? SYN_SERIES_FLOATS / 5 : series ? SYN_SERIES_FLOATS : 1;
                        r.stretch_ns = syn_stretch_us(STATES[st][1]) * q * 1e3;
                        r.rtt_ns = us * 1e3;
                        r.encode_ns = r.decode_ns = 0.05 * r.rtt_ns;
                        r.request_ns = 0.40 * r.rtt_ns, r.reply_ns = 0.35 * r.rtt_ns;
                        r.send_ns = r.receive_ns = 0.05 * r.rtt_ns, r.wait_ns = 0.6 * r.rtt_ns;
                        r.engine_ns = 0.1 * r.rtt_ns, r.engine_decode_ns = 0.01 * r.rtt_ns;
                        r.compute_ns = 0, r.engine_encode_ns = 0.01 * r.rtt_ns;
                        r.engine_cpu_ns = r.engine_ns;
                        r.process_ns = r.process_cpu_ns = r.process_minor_faults = NAN;
                        r.request_bytes = 8.0 * (double)r.floats + 16, r.reply_bytes = 8.0 * (double)r.floats + 4;
                        r.engine_minor_faults = 0, r.client_minor_faults = 0;
                        SYN_PUSH(s->d.states, s->d.n_states, r);
                    }
}

/* The engine stretches' own calls (state "kernel"), partner busy: the C
 * client's short and long ones, the Python client's long one; a boundary
 * beyond the kernel of syn_kernel_boundary_us, 30% of it the request's
 * crossing and 50% the reply's. After each, the calls chained to it (state
 * "chain"), cheaper, and spread about their median so that a pass's median
 * is its middle call's: syn_chain_boundary_us. */
static double syn_kernel_boundary_us(const char *client, const char *stretch)
{
    return syn_hot_us(client, "busy", 0) + 2.0 * syn_state_extra_us("engine", stretch);
}

static double syn_chain_boundary_us(const char *client, const char *stretch)
{
    return syn_hot_us(client, "busy", 0) + 1.25 * syn_state_extra_us("engine", stretch);
}

static const double SYN_CHAIN_SPREAD[] = {1.3, 0.9, 1.0};

static void syn_stretch_call(struct synthetic_run *s, const char *client, const char *stretch,
                             const char *state, long pass, long link, double b_us)
{
    struct state_row r;
    double q = syn_pass_scale(pass, strcmp(client, "python") == 0);
    double b = b_us * q * 1e3;
    memset(&r, 0, sizeof r);
    snprintf(r.client, sizeof r.client, "%s", client);
    snprintf(r.state, sizeof r.state, "%s", state);
    snprintf(r.stretch, sizeof r.stretch, "%s", stretch);
    snprintf(r.partner, sizeof r.partner, "busy");
    r.cpu = 0, r.pass = pass, r.order = 1, r.floats = 0, r.link = link;
    r.stretch_ns = r.compute_ns = syn_stretch_us(stretch) * q * 1e3;
    r.rtt_ns = r.stretch_ns + b;
    r.request_ns = 0.3 * b, r.reply_ns = 0.5 * b;
    r.encode_ns = r.decode_ns = r.send_ns = r.receive_ns = 0.05 * b;
    r.wait_ns = r.stretch_ns + 0.8 * b, r.engine_ns = r.stretch_ns + 0.05 * b;
    r.engine_decode_ns = r.engine_encode_ns = 0.01 * b, r.engine_cpu_ns = r.engine_ns;
    r.process_ns = r.process_cpu_ns = r.process_minor_faults = NAN;
    r.request_bytes = 68, r.reply_bytes = 36;
    r.engine_minor_faults = 0, r.client_minor_faults = 0;
    SYN_PUSH(s->d.states, s->d.n_states, r);
}

static void syn_kernel_calls(struct synthetic_run *s)
{
    static const char *const CALLS[][2] = {{"c", "short"}, {"c", "long"}, {"python", "long"}};
    for (size_t k = 0; k < sizeof CALLS / sizeof CALLS[0]; k++)
        for (long pass = 1; pass <= SYN_PASSES; pass++) {
            if (k == 1 && pass <= SYN_AWAY_PASSES)   /* the sweep's: one call, no chain */
                syn_stretch_call(s, "c", "sweep", "kernel", pass, 0,
                                 syn_kernel_boundary_us("c", "sweep"));
            syn_stretch_call(s, CALLS[k][0], CALLS[k][1], "kernel", pass, 0,
                             syn_kernel_boundary_us(CALLS[k][0], CALLS[k][1]));
            for (size_t j = 0; j < sizeof SYN_CHAIN_SPREAD / sizeof SYN_CHAIN_SPREAD[0]; j++)
                syn_stretch_call(s, CALLS[k][0], CALLS[k][1], "chain", pass,
                                 (long)j + 1, syn_chain_boundary_us(CALLS[k][0], CALLS[k][1]) *
                                     SYN_CHAIN_SPREAD[j]);
        }
}

/* One fault probe's row: a step of a role in a pass, its time and faults. */
static void syn_fault_row(struct synthetic_run *s, const char *role, long pass, int order,
                          const char *touch, double ns, double faults)
{
    struct fault_row f;
    memset(&f, 0, sizeof f);
    snprintf(f.role, sizeof f.role, "%s", role);
    snprintf(f.touch, sizeof f.touch, "%s", touch);
    f.pass = pass, f.order = order, f.pages = SYN_FAULT_PAGES;
    f.ns = ns, f.minor_faults = faults;
    SYN_PUSH(s->d.faults, s->d.n_faults, f);
}

/* Each pass: both roles' first touch and touch again, then the C probe's
 * handing over, each first step at its price and the step again at 10 µs. */
static void syn_faults(struct synthetic_run *s)
{
    static const char *const ROLES[] = {"c", "python"};
    for (int role = 0; role < 2; role++)
        for (long pass = 1; pass <= SYN_PASSES; pass++) {
            double q = syn_pass_scale(pass, role == 1), pages = SYN_FAULT_PAGES;
            syn_fault_row(s, ROLES[role], pass, role + 1, "first",
                          (10.0 + pages * syn_fault_us(ROLES[role]) * q) * 1e3, pages);
            syn_fault_row(s, ROLES[role], pass, role + 1, "again", 10e3, 0);
            if (role == 1)
                continue;
            syn_fault_row(s, "c", pass, 1, "copy-out",
                          (10.0 + pages * syn_handover_us("copy-out") * q) * 1e3, 0);
            syn_fault_row(s, "c", pass, 1, "copy-out-again", 10e3, 0);
            syn_fault_row(s, "c", pass, 1, "copy-in",
                          (10.0 + pages * syn_handover_us("copy-in") * q) * 1e3, pages);
            syn_fault_row(s, "c", pass, 1, "read-in",
                          (10.0 + pages * syn_handover_us("read-in") * q) * 1e3, 0);
            syn_fault_row(s, "c", pass, 1, "read-in-again", 10e3, 0);
        }
}

/* The host's spins: each pass spins both CPUs for SYN_SPIN_MS; CPU 1
 * makes SYN_CPU1_READS of CPU 0's readings (a slower CPU, no gaps), and
 * the host takes SYN_HOST_TAKEN[k] of CPU k % 2 in pass k + 1, in gaps of
 * SYN_HOST_GAP_MS. */
#define SYN_SPIN_MS 200.0
#define SYN_READS 7e6
#define SYN_CPU1_READS 0.8
#define SYN_HOST_GAP_MS 2.0
static const double SYN_HOST_TAKEN[SYN_PASSES] = {0, 0.10, 0, 0.02, 0.06};

static void syn_host(struct synthetic_run *s)
{
    for (long pass = 1; pass <= SYN_PASSES; pass++)
        for (int cpu = 0; cpu < 2; cpu++) {
            struct host_row h;
            memset(&h, 0, sizeof h);
            double taken = (pass - 1) % 2 == cpu ? SYN_HOST_TAKEN[pass - 1] : 0.0;
            h.pass = pass, h.cpu = cpu, h.spin_ns = SYN_SPIN_MS * 1e6;
            h.reads = SYN_READS * (cpu == 1 ? SYN_CPU1_READS : 1.0) * (1.0 - taken);
            h.gap_ns = taken * h.spin_ns;
            h.gaps = round(h.gap_ns / (SYN_HOST_GAP_MS * 1e6));
            h.longest_ns = h.gaps > 0 ? SYN_HOST_GAP_MS * 1e6 : 0;
            h.gap_min_ns = 200e3;
            SYN_PUSH(s->d.host, s->d.n_host, h);
        }
}

/* The floor taken apart: SYN_PASSES whole repetitions, each kind's loop at
 * SYN_HANDOFF_PRICE_NS[k] an operation times the pass's scale, and one
 * more repetition with its round trips missing, which the summary must
 * leave out. */
static const double SYN_HANDOFF_PRICE_NS[N_HANDOFF_KINDS] = {25.0, 1000.0, 10e3, 9e3, 30e3};
static const double SYN_HANDOFF_COUNT[N_HANDOFF_KINDS] = {100000, 20000, 2000, 2000, 2000};

static void syn_handoff(struct synthetic_run *s)
{
    static const char *const names[N_HANDOFF_KINDS] = HANDOFF_KIND_NAMES;
    for (long rep = 1; rep <= SYN_PASSES + 1; rep++)
        for (int k = 0; k < N_HANDOFF_KINDS; k++) {
            struct handoff_row h;
            if (rep > SYN_PASSES && k > HANDOFF_SYSCALL)
                break;                         /* the repetition that is not whole */
            memset(&h, 0, sizeof h);
            h.rep = rep, h.position = k + 1, h.cpu = rep % 2;
            h.peer_cpu = k == HANDOFF_POLLING || k == HANDOFF_SLEEPING ? 1 - h.cpu : h.cpu;
            snprintf(h.kind, sizeof h.kind, "%s", names[k]);
            h.count = SYN_HANDOFF_COUNT[k];
            h.ns = h.count * SYN_HANDOFF_PRICE_NS[k] * PASS_SCALE[(rep - 1) % SYN_PASSES];
            SYN_PUSH(s->d.handoff, s->d.n_handoff, h);
        }
}

/* The layout: per side, the two cells of testvalues.h in each pass. The
 * engine's cells differ by about 5% every pass (an effect), the other
 * sides' by a difference whose sign changes (none). The engine is 5% slower
 * than in_process; its shifted builds (code at +16 and +32, arrays at
 * offset 0) differ as little as in_process's cells. */
struct syn_layout_side {
    const char *side;
    double over;               /* the side's time over in_process's */
    double code_shift;         /* NAN: aligned */
    const double *gap;
};

static const struct syn_layout_side SYN_LAYOUT_SIDES[] = {
    {"in_process", 1.0, NAN, LAYOUT_NO_GAP},          {"engine", 1.05, NAN, LAYOUT_EFFECT_GAP},
    {"engine", 1.05, 16, LAYOUT_NO_GAP},
    {"in_process_tuned_kept", 0.40, NAN, LAYOUT_NO_GAP},
    {"in_process_tuned_fresh", 0.42, NAN, LAYOUT_NO_GAP},
    {"engine_tuned", 0.41, NAN, LAYOUT_NO_GAP},
};
enum { SYN_LAYOUT_N_SIDES = sizeof SYN_LAYOUT_SIDES / sizeof SYN_LAYOUT_SIDES[0] };

/* The log time of one cell of a side in pass p (0-based). */
static double syn_layout_log_s(const struct syn_layout_side *side, int cell, int p)
{
    return log(LAYOUT_BASE_S * side->over) + LAYOUT_PASS[p] +
           (cell == 0 ? 0.5 : -0.5) * side->gap[p];
}

static void syn_layout(struct synthetic_run *s)
{
    for (int i = 0; i < SYN_LAYOUT_N_SIDES; i++) {
        const struct syn_layout_side *side = &SYN_LAYOUT_SIDES[i];
        int shifted = !isnan(side->code_shift);
        for (int cell = 0; cell < 2; cell++)
            for (int p = 0; p < LAYOUT_PASSES; p++) {
                struct layout_row r;
                memset(&r, 0, sizeof r);
                snprintf(r.side, sizeof r.side, "%s", side->side);
                r.code_shift = shifted ? side->code_shift + 16 * cell : NAN;
                r.array_offset = shifted ? 0 : 576 * cell;
                r.series_offset = 0, r.array_stagger = 0, r.pass = p + 1;
                r.seconds = exp(syn_layout_log_s(side, cell, p));
                SYN_PUSH(s->d.layout, s->d.n_layout, r);
            }
    }
}

/* The peak loops: GFLOP/s of each kind on one thread and on two, above
 * every synthetic kernel's rate (a kernel over the peak stops the summary);
 * each pass a factor of its median (0.98, 1.00, 1.01). */
static const struct {
    const char *kind;
    long lanes;
    double one, two;
} SYN_PEAKS[] = {{"scalar", 1, 40.0, 78.0}, {"sse2", 2, 82.0, 160.0}, {"avx2", 4, 166.0, 324.0}};
static const double SYN_ROOF_PASS[SYN_ROOF_PASSES] = {1.00, 0.98, 1.01};

static void syn_roof_row(struct synthetic_run *s, const char *prefix, const char *kind,
                         long lanes, long threads, long pass, double flops, double gflops)
{
    struct roof_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kind, sizeof r.kind, "%s%s", prefix, kind);
    r.lanes = lanes, r.threads = threads, r.pass = pass;
    r.flops = flops;
    r.seconds = flops / (gflops * 1e9);
    SYN_PUSH(s->d.roof, s->d.n_roof, r);
}

/* The tuned sweep of the roofline, timed whole and in its parts, at pass
 * factor 1: each part a fixed share of the whole. */
#define SYN_TUNED_SWEEP_S 0.1
static const struct {
    const char *part;
    double share;
} SYN_TUNED_PARTS[] = {{"averages", 0.60}, {"mixes", 0.20}, {"crossings", 0.15}, {"steps", 0.05}};
#define SYN_CLOCK_GHZ_0 3.0
#define SYN_CLOCK_GHZ_1 3.2

/* A row of the tuned sweep, or of one of its parts: its time alone. */
static void syn_tuned_row(struct synthetic_run *s, const char *part, long pass, double seconds)
{
    struct roof_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.kind, sizeof r.kind, "tuned_%s", part);
    r.lanes = 4, r.threads = 1, r.pass = pass;
    r.flops = 0;
    r.seconds = seconds;
    SYN_PUSH(s->d.roof, s->d.n_roof, r);
}

/* Each kind twice, as the register loop (reg_) and as the loop that loads,
 * at the same rates; each pass two CPUs' clocks, and the tuned sweep and its
 * parts (no operations recorded: their rates are the summary's to count).
 * The machine is in no table of pipes, so the peak is the widest register
 * loop's. */
static void syn_roofline(struct synthetic_run *s)
{
    for (long pass = 1; pass <= SYN_ROOF_PASSES; pass++) {
        double q = SYN_ROOF_PASS[pass - 1];
        syn_roof_row(s, "", "clock_cpu0", 1, 1, pass, 3e9, SYN_CLOCK_GHZ_0);
        syn_roof_row(s, "", "clock_cpu1", 1, 1, pass, 3e9, SYN_CLOCK_GHZ_1);
        syn_tuned_row(s, "sweep", pass, SYN_TUNED_SWEEP_S / q);
        for (size_t k = 0; k < sizeof SYN_TUNED_PARTS / sizeof SYN_TUNED_PARTS[0]; k++)
            syn_tuned_row(s, SYN_TUNED_PARTS[k].part, pass,
                          SYN_TUNED_PARTS[k].share * SYN_TUNED_SWEEP_S / q);
    }
    for (int reg = 0; reg < 2; reg++)
        for (size_t k = 0; k < sizeof SYN_PEAKS / sizeof SYN_PEAKS[0]; k++)
            for (long threads = 1; threads <= 2; threads++)
                for (long pass = 1; pass <= SYN_ROOF_PASSES; pass++)
                    syn_roof_row(s, reg ? "reg_" : "", SYN_PEAKS[k].kind, SYN_PEAKS[k].lanes,
                                 threads, pass, 1.152e9,
                                 (threads == 1 ? SYN_PEAKS[k].one : SYN_PEAKS[k].two) *
                                     SYN_ROOF_PASS[pass - 1]);
}

static void syn_counts(struct synthetic_run *s)
{
    static const struct {
        const char *side, *what;
        long requests;
        double value;
    } COUNTS[] = {
        {"in_process", "kernel_instructions", 1, 5000000}, {"engine", "kernel_instructions", 2, 10000000},
        {"engine", "total_instructions", 1, 5100000},      {"engine", "total_instructions", 3, 15260000},
        {"engine", "syscalls", 1, 90},                     {"engine", "syscalls", 3, 98},
        {"job", "bars", 0, SYN_BARS},                      {"job", "combos", 0, 2},
    };
    for (size_t i = 0; i < sizeof COUNTS / sizeof COUNTS[0]; i++) {
        struct count_row c;
        memset(&c, 0, sizeof c);
        snprintf(c.side, sizeof c.side, "%s", COUNTS[i].side);
        snprintf(c.what, sizeof c.what, "%s", COUNTS[i].what);
        c.requests = COUNTS[i].requests, c.value = COUNTS[i].value;
        SYN_PUSH(s->d.counts, s->d.n_counts, c);
    }
}

#define SYN_FIRST_PNL -5.2512   /* the last: 14.4988 */

/* The sweep's reference results: the grid's combinations, each with a PnL
 * and a count of trades of its own. */
static void syn_sweep(struct synthetic_run *s)
{
    struct combo_params p[DEFAULT_COMBOS];
    grid_fill(p, DEFAULT_COMBOS);
    for (long k = 0; k < DEFAULT_COMBOS; k++) {
        struct sweep_row r;
        memset(&r, 0, sizeof r);
        r.combo = k, r.L = (long)p[k].h_len;
        r.h_half = (long)p[k].h_half, r.h_len = (long)p[k].h_len, r.h_sqrt = (long)p[k].h_sqrt;
        r.t_third = (long)p[k].t_third, r.t_half = (long)p[k].t_half, r.t_len = (long)p[k].t_len;
        r.pnl = SYN_FIRST_PNL + 0.25 * (double)k;
        r.trades = 100 + k;
        SYN_PUSH(s->d.sweep, s->d.n_sweep, r);
    }
}

static void syn_gates(struct synthetic_run *s)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        struct gate_row g;
        struct run_row part = syn_run_row(&s->rows[i], "duet", 1, 1, 1, 1, 1);
        memset(&g, 0, sizeof g);
        snprintf(g.architecture, sizeof g.architecture, "%s", s->rows[i].row->name);
        snprintf(g.verdict, sizeof g.verdict, "pass");
        g.combos = g.identical = part.combos;
        g.max_abs_pnl_diff = 0;
        SYN_PUSH(s->d.gates, s->d.n_gates, g);
    }
}

#define SYN_SHA256 "5ad0a1e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b78"
#define SYN_MEMORY_BYTES 8589934592.0  /* 8 GiB */
#define SYN_DATE "2026-12-01T00:00:00Z"       /* date_epoch's */

static void syn_key_values(struct synthetic_run *s)
{
    struct run_data *d = &s->d;
    syn_kv(&d->machine, "cpu", "Synthetic CPU @ 2.00GHz");
    syn_kv(&d->machine, "cpu_family", "6");
    syn_kv(&d->machine, "cpu_model", "167");
    syn_kv(&d->machine, "cores", "2");
    syn_kv(&d->machine, "memory_bytes", "%.0f", SYN_MEMORY_BYTES);
    syn_kv(&d->machine, "hypervisor_name", "KVM KVM");
    syn_kv(&d->machine, "tuned_vector_bytes", "32");
    syn_kv(&d->machine, "cache_l2_kib", "1280");
    syn_kv(&d->machine, "date_epoch", "1796083200");
    syn_kv(&d->machine, "date", "%s", SYN_DATE);
    syn_kv(&d->machine, "commit", "0123abc");
    syn_kv(&d->run, "bars", "%d", SYN_BARS);
    syn_kv(&d->run, "combos", "%d", DEFAULT_COMBOS);
    syn_kv(&d->run, "seed", "42");
    syn_kv(&d->run, "series_sha256", "%s", SYN_SHA256);
    syn_kv(&d->run, "scale", "1");
    syn_kv(&d->run, "budget_s", "600");
    syn_kv(&d->run, "target", "0.005");
    syn_kv(&d->run, "min_rounds", "%d", SYN_ROUNDS);
    syn_kv(&d->run, "max_rounds", "%d", SYN_ROUNDS);
    syn_kv(&d->run, "rounds", "%d", SYN_ROUNDS);
    syn_kv(&d->run, "stop_reason", "max_rounds");
    syn_kv(&d->run, "rounds_seconds", "%.6f", s->rounds_seconds + 0.001);
    syn_kv(&d->run, "duet_cpus", "0 1");
    syn_kv(&d->run, "cold_reps", "%d", SYN_REPS);
    syn_kv(&d->run, "spawn_reps", "%d", SYN_REPS);
    syn_kv(&d->run, "serialization_reps", "%d", SYN_REPS);
    syn_kv(&d->run, "layout_passes", "%d", LAYOUT_PASSES);
    syn_kv(&d->oracle, "bars", "%d", SYN_BARS);
    syn_kv(&d->oracle, "combos", "%d", DEFAULT_COMBOS);
    syn_kv(&d->oracle, "identical", "%d", DEFAULT_COMBOS);
    syn_kv(&d->oracle, "numpy", "1.24.2");
    syn_kv(&d->load, "lost", "0");
    syn_kv(&d->load, "echo", "1200");
    syn_kv(&d->load, "mode", "a text, passed through");
    syn_kv(&d->valgrind, "socket.errors", "0");
    syn_kv(&d->valgrind, "socket.definitely_lost", "0");
    syn_kv(&d->fuzz, "request.seconds", "300");
    syn_kv(&d->fuzz, "request.executions", "1500000");
    syn_kv(&d->fuzz, "request.crashes", "0");
    syn_kv(&d->fuzz, "shm.seconds", "300");
    syn_kv(&d->fuzz, "shm.executions", "250000");
    syn_kv(&d->fuzz, "shm.crashes", "0");
    syn_kv(&d->echo_settings, "warmup", "2");
    syn_kv(&d->echo_settings, "passes", "%d", SYN_PASSES);
    syn_kv(&d->echo_settings, "reps_small", "%d", SYN_ECHO_REPS);
    syn_kv(&d->echo_settings, "reps_large", "%d", SYN_ECHO_REPS);
    syn_kv(&d->echo_settings, "large_from", "10000");
    syn_kv(&d->echo_settings, "sizes", "%d", SYN_ECHO_N_SIZES);
    syn_kv(&d->roof_settings, "chains", "12");
    syn_kv(&d->roof_settings, "passes", "%d", SYN_ROOF_PASSES);
    syn_kv(&d->roof_settings, "tuned_path", "avx2");
}

/* The original's figures the tests read: a number, a big one and a text. */
static void syn_original(struct synthetic_run *s)
{
    static const char *const ROWS[][4] = {
        {"arch.batch_unix.ratio", "1.07", "ratio", "Table 2"},
        {"spawn.per_spawn_ms", "24", "ms", "Section 5"},
        {"breakeven.per_bar_ipc_s", "12345.5", "s", "Section 6"},
        {"machine", "a laptop", "text", "Setup"},
    };
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        struct original_row o;
        memset(&o, 0, sizeof o);
        snprintf(o.key, sizeof o.key, "%s", ROWS[i][0]);
        snprintf(o.value, sizeof o.value, "%s", ROWS[i][1]);
        snprintf(o.unit, sizeof o.unit, "%s", ROWS[i][2]);
        snprintf(o.source, sizeof o.source, "%s", ROWS[i][3]);
        SYN_PUSH(s->d.original, s->d.n_original, o);
    }
}

/* Makes the run: golden (noise 0), every file of it; or, with per-run
 * noise drawn from seed, its rounds alone (architectures.csv's rows: what a
 * test of the pairing estimator reads). */
static void synthetic_run_make(struct synthetic_run *s, int noise, uint32_t seed)
{
    struct mt19937 mt;
    memset(s, 0, sizeof *s);
    s->noise = noise;
    mt19937_seed(&mt, seed);
    syn_rows(s);
    syn_rounds(s, &mt);
    if (noise)
        return;
    syn_gates(s);
    syn_key_values(s);
    syn_sweep(s);
    syn_echo(s);
    syn_cold(s);
    syn_serialization(s);
    syn_spawn(s);
    syn_states(s);
    syn_kernel_calls(s);
    syn_faults(s);
    syn_host(s);
    syn_handoff(s);
    syn_layout(s);
    syn_roofline(s);
    syn_counts(s);
    syn_original(s);
}

static void synthetic_run_free(struct synthetic_run *s)
{
    run_data_free(&s->d);          /* every array of rows, the key-value files' too */
    free(s->units);
    memset(s, 0, sizeof *s);
}

/* The row of the architecture named name, or NULL. */
static const struct syn_row *syn_row_named(const struct synthetic_run *s, const char *name)
{
    for (size_t i = 0; i < s->n_rows; i++)
        if (strcmp(s->rows[i].row->name, name) == 0)
            return &s->rows[i];
    return NULL;
}

/* ---- Writing it as a data folder ----------------------------------------------- */

/* A text, quoted when it holds a comma or a quote. */
static void syn_cell_TEXT(FILE *f, const void *p)
{
    const char *t = p;
    if (strpbrk(t, ",\"\n") == NULL) {
        fputs(t, f);
        return;
    }
    fputc('"', f);
    for (; *t != '\0'; t++)
        fputs(*t == '"' ? "\"\"" : (char[]){*t, '\0'}, f);
    fputc('"', f);
}

static void syn_cell_INT(FILE *f, const void *p)
{
    fprintf(f, "%ld", *(const long *)p);
}

static void syn_cell_NUM(FILE *f, const void *p)
{
    fprintf(f, "%.17g", *(const double *)p);
}

static void syn_cell_NUM_OR_EMPTY(FILE *f, const void *p)
{
    if (!isnan(*(const double *)p))
        syn_cell_NUM(f, p);
}
#define syn_cell_OPTIONAL(type) syn_cell_##type

#define SYN_NAME(row, name, ...) fprintf(f, "%s%s", k++ ? "," : "", #name);
#define SYN_CELL(row, name, type, ...) \
    fputs(k++ ? "," : "", f);          \
    syn_cell_##type(f, &((const struct row *)r)->name);
/* Every column of the schema's list, the header and then each row. */
#define SYN_WRITE_ROWS(dir, name, LIST, type, rows, n)       \
    do {                                                     \
        FILE *f = syn_create(dir, name);                     \
        int k = 0;                                           \
        LIST(SYN_NAME, type)                                 \
        fputc('\n', f);                                      \
        for (size_t i_ = 0; i_ < (n); i_++) {                \
            const void *r = &(rows)[i_];                     \
            k = 0;                                           \
            LIST(SYN_CELL, type)                             \
            fputc('\n', f);                                  \
        }                                                    \
        syn_close(f, name);                                  \
    } while (0)

static FILE *syn_create(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "synthetic run: cannot write %s\n", path);
        abort();
    }
    return f;
}

static void syn_close(FILE *f, const char *name)
{
    if (ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "synthetic run: cannot write %s\n", name);
        abort();
    }
}

static void syn_write_kv(const char *dir, const char *name, const struct kv_file *kv)
{
    FILE *f = syn_create(dir, name);
    fputs("key,value\n", f);
    for (size_t i = 0; i < kv->n; i++) {
        syn_cell_TEXT(f, kv->rows[i].key);
        fputc(',', f);
        syn_cell_TEXT(f, kv->rows[i].value);
        fputc('\n', f);
    }
    syn_close(f, name);
}

/* Writes the run into dir (which exists) with its manifest; 0, or -1 with err. */
static int synthetic_run_write(const struct synthetic_run *s, const char *dir, char *err,
                               size_t err_size)
{
    const struct run_data *d = &s->d;
    syn_write_kv(dir, "machine.csv", &d->machine);
    syn_write_kv(dir, "run.csv", &d->run);
    syn_write_kv(dir, "oracle.csv", &d->oracle);
    syn_write_kv(dir, "load.csv", &d->load);
    syn_write_kv(dir, "valgrind.csv", &d->valgrind);
    syn_write_kv(dir, "fuzz.csv", &d->fuzz);
    syn_write_kv(dir, "echo_settings.csv", &d->echo_settings);
    syn_write_kv(dir, "roofline_settings.csv", &d->roof_settings);
    SYN_WRITE_ROWS(dir, "architectures.csv", RUNS_COLUMNS, run_row, d->runs, d->n_runs);
    SYN_WRITE_ROWS(dir, "calls.csv", CALLS_COLUMNS, call_row, d->calls, d->n_calls);
    SYN_WRITE_ROWS(dir, "witnesses.csv", WITNESS_COLUMNS, witness_row, d->witnesses,
                   d->n_witnesses);
    SYN_WRITE_ROWS(dir, "states.csv", STATES_COLUMNS, state_row, d->states, d->n_states);
    SYN_WRITE_ROWS(dir, "faults.csv", FAULTS_COLUMNS, fault_row, d->faults, d->n_faults);
    SYN_WRITE_ROWS(dir, "host.csv", HOST_COLUMNS, host_row, d->host, d->n_host);
    SYN_WRITE_ROWS(dir, "handoff.csv", HANDOFF_COLUMNS, handoff_row, d->handoff, d->n_handoff);
    SYN_WRITE_ROWS(dir, "gate.csv", GATE_COLUMNS, gate_row, d->gates, d->n_gates);
    SYN_WRITE_ROWS(dir, "sweep.csv", SWEEP_COLUMNS, sweep_row, d->sweep, d->n_sweep);
    SYN_WRITE_ROWS(dir, "echo.csv", ECHO_COLUMNS, echo_row, d->echo, d->n_echo);
    SYN_WRITE_ROWS(dir, "cold.csv", COLD_COLUMNS, cold_row, d->cold, d->n_cold);
    SYN_WRITE_ROWS(dir, "serialization.csv", SERIAL_COLUMNS, serial_row, d->serial, d->n_serial);
    SYN_WRITE_ROWS(dir, "spawn.csv", SPAWN_COLUMNS, spawn_row, d->spawns, d->n_spawns);
    SYN_WRITE_ROWS(dir, "layout.csv", LAYOUT_COLUMNS, layout_row, d->layout, d->n_layout);
    SYN_WRITE_ROWS(dir, "roofline.csv", ROOF_COLUMNS, roof_row, d->roof, d->n_roof);
    SYN_WRITE_ROWS(dir, "counts.csv", COUNTS_COLUMNS, count_row, d->counts, d->n_counts);
    SYN_WRITE_ROWS(dir, "original.csv", ORIGINAL_COLUMNS, original_row, d->original,
                   d->n_original);
    return manifest_write(dir, RUN_DATA, err, err_size);
}

#undef SYN_NAME
#undef SYN_CELL

#endif
