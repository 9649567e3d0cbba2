/*
 * schedule.c - set-up and warm-up, randomized rounds, gating, the record.
 *
 * Tangled from paper/41-architectures.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gate.h"
#include "harness/names.h"
#include "harness/random.h"
#include "harness/schedule.h"
#include "harness/stats.h"
#include "harness/worker.h"
#include "wire/timing.h"

enum { MAX_ROUNDS_KEPT = 10000 };

struct row_record {
    const struct arch_row *row;
    struct arch_state *state;
    struct gate_verdict verdict;
    int active;                        /* set up and not failed */
    char error[ERR_SIZE];              /* why it stopped, if it did */
    double *seconds;                   /* per round; NAN where it did not run */
};

struct schedule {
    const struct harness_env *env;
    const struct sweep_job *job;
    const struct combo_result *reference;
    struct combo_result *results;
    struct row_record *rec;
    size_t n;
    int baseline;                      /* the record of in_process, or -1 */
    struct worker worker;
    int has_worker;
    struct csv_out runs, calls;
    uint64_t started_ns;
};

static const char *const RUN_HEADER[] = {"architecture", "round", "position", "status",
                                         "start_s", "seconds", "client_cpu_s",
                                         "engine_cpu_s"};
static const char *const CALL_HEADER[] = {
    "architecture", "round", "call", "rtt_ns", "encode_ns", "send_ns", "wait_ns",
    "receive_ns", "decode_ns", "engine_ns", "engine_decode_ns", "compute_ns",
    "engine_encode_ns", "engine_cpu_ns", "process_ns", "process_cpu_ns",
    "process_minor_faults", "request_bytes", "reply_bytes"};

static int open_file(struct csv_out *out, const char *dir, const char *name,
                     const char *const *header, int n, char err[ERR_SIZE])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return csv_out_open(out, path, header, n) == 0 ? 0 : fail(err, "cannot write %s", path);
}

static int write_gate(const struct schedule *sc, const char *dir)
{
    static const char *const header[] = {"architecture", "combos", "identical",
                                         "max_abs_pnl_diff", "verdict", "error"};
    char path[4096], err[ERR_SIZE];
    struct csv_out out;
    if (open_file(&out, dir, "gate.csv", header, 6, err) != 0)
        return -1;
    (void)path;
    for (size_t i = 0; i < sc->n; i++) {
        const struct row_record *r = &sc->rec[i];
        csv_out_text(&out, r->row->name);
        csv_out_int(&out, (int64_t)r->verdict.combos);
        csv_out_int(&out, (int64_t)r->verdict.identical);
        csv_out_double(&out, r->verdict.max_abs_pnl_diff);
        csv_out_text(&out, r->verdict.combos == 0 ? "not run" : r->verdict.passed ? "pass"
                                                                                  : "FAIL");
        csv_out_text(&out, r->error);
        csv_out_end_row(&out);
    }
    return csv_out_close(&out);
}

static void stop_row(struct row_record *r, const char *why)
{
    fprintf(stderr, "ipctax-bench: %s: %s\n", r->row->name, why);
    snprintf(r->error, sizeof r->error, "%s", why);
    r->active = 0;
}

/* An architecture that could not be set up keeps a row in architectures.csv:
 * round 0, its status, and no time; gate.csv says why. */
static void record_failure(struct schedule *sc, const struct row_record *r)
{
    csv_out_text(&sc->runs, r->row->name);
    csv_out_int(&sc->runs, 0);
    csv_out_int(&sc->runs, 0);
    csv_out_text(&sc->runs, r->verdict.combos > 0 && !r->verdict.passed ? "gate_failed"
                                                                          : "setup_failed");
    for (int i = 0; i < 4; i++)
        csv_out_empty(&sc->runs);
    csv_out_end_row(&sc->runs);
}

/* The gate's verdict an architecture keeps: its first failing one, or the last. */
static int judge(struct schedule *sc, struct row_record *r)
{
    struct gate_verdict v = gate_compare(sc->reference, sc->results, sc->job->n_combos);
    if (r->verdict.combos == 0 || r->verdict.passed)
        r->verdict = v;
    return v.passed;
}

static void set_up(struct schedule *sc)
{
    char err[ERR_SIZE];
    for (size_t i = 0; i < sc->n; i++) {
        struct row_record *r = &sc->rec[i];
        struct run_measure m;
        struct call_sink none = {NULL, r->row->name, 0, 0, 0};
        fprintf(stderr, "ipctax-bench: starting %s\n", r->row->name);
        r->state = arch_open(r->row, sc->env, sc->has_worker ? &sc->worker : NULL, sc->job,
                             err);
        if (r->state == NULL) {
            stop_row(r, err);
            record_failure(sc, r);
            continue;
        }
        r->active = 1;
        if (arch_run(r->state, sc->job, sc->results, &m, &none, err) != 0)
            stop_row(r, err);
        else if (!judge(sc, r))
            stop_row(r, "the warm-up's results differ from in_process");
        if (!r->active)
            record_failure(sc, r);
    }
}

static void timed_run(struct schedule *sc, struct row_record *r, int round, int position)
{
    char err[ERR_SIZE];
    struct run_measure m = {NAN, NAN, NAN};
    struct call_sink sink = {&sc->calls, r->row->name, round, 0, 0};
    double start = seconds_between(sc->started_ns, clock_ns());
    const char *status = "ok";
    if (arch_run(r->state, sc->job, sc->results, &m, &sink, err) != 0) {
        status = "failed";
        stop_row(r, err);
    } else if (!judge(sc, r)) {
        status = "gate_failed";
        stop_row(r, "results differ from in_process");
    }
    r->seconds[round - 1] = strcmp(status, "ok") == 0 ? m.seconds : NAN;
    csv_out_text(&sc->runs, r->row->name);
    csv_out_int(&sc->runs, round);
    csv_out_int(&sc->runs, position);
    csv_out_text(&sc->runs, status);
    csv_out_fixed(&sc->runs, start, 3);
    csv_out_fixed(&sc->runs, m.seconds, 9);
    csv_out_fixed(&sc->runs, m.client_cpu_s, 6);
    csv_out_fixed(&sc->runs, m.engine_cpu_s, 6);
    csv_out_end_row(&sc->runs);
}

/* The widest half-width among the headline rows' ratios to in_process. */
static double widest_headline(const struct schedule *sc, int rounds)
{
    double widest = 0.0, *ratios = malloc((size_t)rounds * sizeof *ratios);
    if (ratios == NULL || sc->baseline < 0)
        return INFINITY;
    const double *base = sc->rec[sc->baseline].seconds;
    for (size_t i = 0; i < sc->n; i++) {
        const struct row_record *r = &sc->rec[i];
        if (!r->row->headline || (int)i == sc->baseline || r->verdict.combos == 0)
            continue;
        for (int k = 0; k < rounds; k++)
            ratios[k] = r->seconds[k] / base[k];
        double w = estimate_half_width(estimate_median(ratios, (size_t)rounds));
        if (!(w <= widest))
            widest = isnan(w) ? INFINITY : w;
    }
    free(ratios);
    return widest;
}

static int prepare(struct schedule *sc, const char *rows, const char *out_dir,
                   char err[ERR_SIZE])
{
    sc->rec = calloc(N_ARCH_ROWS, sizeof *sc->rec);
    sc->results = calloc(sc->job->n_combos, sizeof *sc->results);
    if (sc->rec == NULL || sc->results == NULL)
        return fail(err, "out of memory");
    sc->baseline = -1;
    int python = 0;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        if (!names_include(rows, ARCH_ROWS[i].name))
            continue;
        struct row_record *r = &sc->rec[sc->n];
        r->row = &ARCH_ROWS[i];
        r->seconds = malloc(MAX_ROUNDS_KEPT * sizeof *r->seconds);
        if (r->seconds == NULL)
            return fail(err, "out of memory");
        for (int k = 0; k < MAX_ROUNDS_KEPT; k++)
            r->seconds[k] = NAN;
        if (strcmp(r->row->name, "in_process") == 0)
            sc->baseline = (int)sc->n;
        python |= r->row->client == CLIENT_PYTHON;
        sc->n++;
    }
    if (python) {
        if (worker_start(&sc->worker, sc->env, sc->job, err) != 0)
            return -1;
        sc->has_worker = 1;
    }
    if (open_file(&sc->runs, out_dir, "architectures.csv", RUN_HEADER, 8, err) != 0)
        return -1;
    return open_file(&sc->calls, out_dir, "calls.csv", CALL_HEADER, 19, err);
}

static void finish(struct schedule *sc)
{
    for (size_t i = 0; i < sc->n; i++) {
        arch_close(sc->rec[i].state);
        free(sc->rec[i].seconds);
    }
    if (sc->has_worker)
        worker_stop(&sc->worker);
    free(sc->rec);
    free(sc->results);
}

static void run_rounds(struct schedule *sc, const struct schedule_limits *lim, uint32_t seed,
                       struct schedule_outcome *how)
{
    size_t *order = malloc(sc->n * sizeof *order);
    int max_rounds = lim->max_rounds < MAX_ROUNDS_KEPT ? lim->max_rounds : MAX_ROUNDS_KEPT;
    sc->started_ns = clock_ns();
    how->stop_reason = "max_rounds";
    for (int round = 1; order != NULL && round <= max_rounds; round++) {
        struct mt19937 mt;
        mt19937_seed(&mt, round_seed(seed, round));
        random_order(&mt, order, sc->n);
        int position = 0;
        for (size_t i = 0; i < sc->n; i++)
            if (sc->rec[order[i]].active)
                timed_run(sc, &sc->rec[order[i]], round, ++position);
        how->rounds = round;
        how->seconds = seconds_between(sc->started_ns, clock_ns());
        double widest = widest_headline(sc, round);
        fprintf(stderr, "  round %3d  %7.1f s  widest headline interval +-%.2f%%\n", round,
                how->seconds, widest * 100.0);
        if (round >= lim->min_rounds && widest <= lim->target) {
            how->stop_reason = "resolved";
            break;
        }
        if (round >= lim->min_rounds && how->seconds * (round + 1) / round > lim->budget_s) {
            how->stop_reason = "budget";
            break;
        }
    }
    free(order);
    fprintf(stderr, "ipctax-bench: %d rounds in %.1f s, stopped: %s\n", how->rounds,
            how->seconds, how->stop_reason);
}

int schedule_run(const struct harness_env *env, const struct sweep_job *job,
                 const struct combo_result *reference, const char *rows, uint32_t seed,
                 const struct schedule_limits *limits, const char *out_dir,
                 struct schedule_outcome *how, char err[ERR_SIZE])
{
    struct schedule sc = {.env = env, .job = job, .reference = reference};
    memset(how, 0, sizeof *how);
    int status = prepare(&sc, rows, out_dir, err);
    if (status == 0) {
        set_up(&sc);
        run_rounds(&sc, limits, seed, how);
        for (size_t i = 0; i < sc.n; i++) {
            how->gate_failures += sc.rec[i].verdict.combos > 0 && !sc.rec[i].verdict.passed;
            how->failures += sc.rec[i].error[0] != '\0';
        }
        if (csv_out_close(&sc.runs) != 0 || csv_out_close(&sc.calls) != 0 ||
            write_gate(&sc, out_dir) != 0)
            status = fail(err, "cannot write the architectures' files in %s", out_dir);
    } else {
        csv_out_abandon(&sc.runs);
        csv_out_abandon(&sc.calls);
    }
    finish(&sc);
    return status;
}
