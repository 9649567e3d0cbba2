/*
 * schedule.c - set-up and warm-up, rounds of paired units, gating, the record.
 *
 * Tangled from paper/42-pairs.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/gate.h"
#include "harness/pairs.h"
#include "harness/schedule.h"
#include "harness/session.h"
#include "harness/worker.h"
#include "util/error.h"
#include "util/names.h"
#include "util/random.h"
#include "util/stats.h"
#include "util/timing.h"

/* <<schedule-state>>, paper/42-pairs.md */
struct row_record {
    const struct arch_row *row;
    struct arch_state *state;
    struct sweep_job job;              /* the part of the study's job it runs */
    struct combo_params *params;       /* that part's combinations */
    struct combo_result *reference;    /* ... and their reference results */
    struct gate_verdict verdict;
    int active;                        /* set up and not failed */
    char error[ERR_SIZE];              /* why it stopped, if it did */
    double *ratios;                    /* its units' ratios to the baseline */
    size_t n_ratios;
    double last_unit_s;                /* how long its last unit took */
    int planned;                       /* the units the plan wants of it */
};

enum { N_AWAY_PROBES = 4 };            /* one double, the series, a fifth by Unix; one by shm */
enum { AT_START, AT_MIDDLE, N_PROBE_TIMES };   /* when in a round a set of them is made */

struct schedule {
    const struct harness_env *env;
    const struct sweep_job *job;
    const struct combo_result *reference;
    struct row_record *rec;
    size_t n;
    int baseline;                      /* the record of in_process, or -1 */
    struct worker worker;
    int has_worker;
    int duet_cpus[2];
    int can_duet;                      /* the harness may use two CPUs */
    struct combo_result *results[2];   /* one per side */
    struct call_sink sinks[2];
    struct mt19937 mt;                 /* the round's order, then its CPUs */
    struct data_out runs, calls, witnesses;
    uint64_t started_ns;
    double hook_s;                     /* the last round's hook, in seconds */
    int pace;                          /* the rounds the plan is laid over */
    long next_unit, next_run;
    /* the away probes' engines (@sec:witnesses), a set for each time */
    struct session away[N_PROBE_TIMES][N_AWAY_PROBES];
    int away_open[N_PROBE_TIMES][N_AWAY_PROBES];
    double *away_back[N_PROBE_TIMES];  /* where their echoes come back */
    /* the series' size, touched by the retouch probe alone */
    volatile unsigned char *away_pages[N_PROBE_TIMES];
    volatile unsigned char *unit_pages;  /* the same, before every unit */
};

/* <<schedule-files>>, paper/42-pairs.md */
static int write_gate(const struct schedule *sc, const char *dir)
{
    char err[ERR_SIZE];
    struct data_out out;
    if (data_out_open(&out, dir, "gate.csv", err, sizeof err) != 0)
        return -1;
    for (size_t i = 0; i < sc->n; i++) {
        const struct row_record *r = &sc->rec[i];
        data_text(&out, GATE_architecture, r->row->name);
        data_int(&out, GATE_combos, (int64_t)r->verdict.combos);
        data_int(&out, GATE_identical, (int64_t)r->verdict.identical);
        data_double(&out, GATE_max_abs_pnl_diff, r->verdict.max_abs_pnl_diff);
        data_text(&out, GATE_verdict, r->verdict.combos == 0 ? "not run"
                                      : r->verdict.passed    ? "pass"
                                                             : "FAIL");
        data_text(&out, GATE_error, r->error);
        data_end_row(&out);
    }
    return data_out_close(&out);
}

/* <<the-part-a-row-runs>>, paper/42-pairs.md */
static int make_part(struct schedule *sc, struct row_record *r, char *err, size_t err_size)
{
    const struct job_part *p = &r->row->part;
    const struct sweep_job *whole = sc->job;
    size_t step = (size_t)(p->combo_step > 0 ? p->combo_step : 1);
    size_t bars = whole->n_bars / (size_t)(p->bar_divisor > 0 ? p->bar_divisor : 1);
    size_t combos = (whole->n_combos + step - 1) / step;
    r->params = malloc(combos * sizeof *r->params);
    r->reference = malloc(combos * sizeof *r->reference);
    if (r->params == NULL || r->reference == NULL)
        return set_error(err, err_size, "out of memory for %s's part of the job", r->row->name);
    for (size_t k = 0; k < combos; k++) {
        r->params[k] = whole->params[k * step];
        r->reference[k] = sc->reference[k * step];
    }
    r->job = (struct sweep_job){whole->close, bars > 0 ? bars : 1, r->params, combos};
    if (r->job.n_bars < whole->n_bars &&
        sweep_naive(whole->close, r->job.n_bars, r->params, combos, r->reference) != 0)
        return set_error(err, err_size, "out of memory for %s's reference results", r->row->name);
    return 0;
}

/* <<record-a-row-that-could-not-run>>, paper/42-pairs.md */
static void stop_row(struct row_record *r, const char *why)
{
    fprintf(stderr, "ipctax-bench: %s: %s\n", r->row->name, why);
    snprintf(r->error, sizeof r->error, "%s", why);
    r->active = 0;
}

/* An architecture that could not be set up keeps a row in architectures.csv:
 * round 0 (and no unit, slot, run or part: 0), its status, and no time;
 * gate.csv says why. */
static void record_failure(struct schedule *sc, const struct row_record *r)
{
    struct data_out *o = &sc->runs;
    data_text(o, RUNS_architecture, r->row->name);
    data_text(o, RUNS_pairing, pairing_name(PAIRING_NONE));
    for (int c = RUNS_round; c <= RUNS_combos; c++) {
        if (c == RUNS_partner)
            data_empty(o, c);                      /* no partner */
        else
            data_int(o, c, 0);
    }
    data_text(o, RUNS_status, r->verdict.combos > 0 && !r->verdict.passed ? "gate_failed"
                                                                            : "setup_failed");
    for (int c = RUNS_status + 1; c < RUNS_N; c++)
        data_empty(o, c);
    data_end_row(o);
}

/* <<gate-and-warm-a-row>>, paper/42-pairs.md */
/* The gate's verdict on results of part's job; a row keeps its first failing
 * verdict, or the last. */
static int judge(struct row_record *r, const struct row_record *part,
                 const struct combo_result *results)
{
    struct gate_verdict v = gate_compare(part->reference, results, part->job.n_combos);
    if (r->verdict.combos == 0 || r->verdict.passed)
        r->verdict = v;
    return v.passed;
}

static void warm_up(struct schedule *sc, struct row_record *r)
{
    struct call_sink none = {0};
    struct side s = {.state = r->state, .job = &r->job, .results = sc->results[0],
                     .sink = &none, .cpu = CPU_ANY};
    side_run_alone(&s);
    if (s.failed)
        stop_row(r, s.err);
    else if (!judge(r, r, sc->results[0]))
        stop_row(r, "the warm-up's results differ from in_process");
    call_sink_free(&none);
}

/* <<probe-the-state-a-round-leaves>>, paper/42-pairs.md */
/* The away probes, each on a connection of its own: echoes, but the
 * fifth, which the engine loads, decoding it as a sweep's request. */
enum away_payload { AWAY_ONE, AWAY_SERIES, AWAY_FIFTH };
static const struct away_probe {
    const char *name, *kind;
    enum transport transport;
    enum away_payload payload;         /* what it echoes each way */
} AWAY[N_AWAY_PROBES] = {{"away-one", "away", TRANSPORT_UNIX, AWAY_ONE},
                         {"away-series", "away", TRANSPORT_UNIX, AWAY_SERIES},
                         {"away-shm", "away-shm", TRANSPORT_SHM_FUTEX, AWAY_ONE},
                         {"load-fifth", "load", TRANSPORT_UNIX, AWAY_FIFTH}};

/* The sets: at a round's start the one double and the series by Unix,
 * taking turns to go first, then the one over shared memory, so that
 * they meet what they always met; halfway through its runs the three over
 * Unix sockets, each first in one round of three. A kind is the probe's
 * kind and the time's suffix. */
enum { MAX_SET_PROBES = 3 };
static const struct probe_time {
    const char *suffix;
    int probes;                        /* how many of `which` the set makes */
    int turns;                         /* its first `turns` take turns going first */
    int which[MAX_SET_PROBES];         /* indices into AWAY */
} PROBE_TIMES[N_PROBE_TIMES] = {{"", 3, 2, {0, 1, 2}}, {"-mid", 3, 3, {0, 1, 3}}};

enum { RETOUCH_PAGE = 4096 };

/* A buffer of the series' size for a retouch probe alone, every page
 * touched once; NULL if there is no memory (the probe is then left out). */
static volatile unsigned char *retouch_buffer(const struct schedule *sc)
{
    size_t pages = (sc->job->n_bars * sizeof(double) + RETOUCH_PAGE - 1) / RETOUCH_PAGE;
    unsigned char *b = aligned_alloc(RETOUCH_PAGE, pages * RETOUCH_PAGE);
    if (b != NULL)
        memset(b, 1, pages * RETOUCH_PAGE);
    return b;
}

static void open_away_probes(struct schedule *sc)
{
    char err[ERR_SIZE];
    sc->unit_pages = retouch_buffer(sc);
    for (int at = 0; at < N_PROBE_TIMES; at++) {
        sc->away_pages[at] = retouch_buffer(sc);
        sc->away_back[at] = malloc(sc->job->n_bars * sizeof *sc->away_back[at]);
        for (int j = 0; j < PROBE_TIMES[at].probes && sc->away_back[at] != NULL; j++) {
            int k = PROBE_TIMES[at].which[j];
            char name[32];             /* the socket's, unique in the run */
            snprintf(name, sizeof name, "%s%s", AWAY[k].name, PROBE_TIMES[at].suffix);
            struct session_options o = {AWAY[k].transport, name, NULL, NULL, 0, 1, NULL, NULL};
            sc->away_open[at][k] =
                session_open(&sc->away[at][k], sc->env, &o, err, sizeof err) == 0;
            if (!sc->away_open[at][k])
                fprintf(stderr, "ipctax-bench: no away probe (%s): %s\n", name, err);
        }
    }
}

static void witness_row(struct schedule *sc, int round, const struct row_record *next,
                        const char *kind, int seq, size_t floats, uint64_t at,
                        const struct call_record *t)
{
    struct data_out *w = &sc->witnesses;
    data_text(w, WITNESS_architecture, next->row->name);
    data_int(w, WITNESS_round, round);
    data_int(w, WITNESS_run, sc->next_run + 1);
    data_text(w, WITNESS_kind, kind);
    data_int(w, WITNESS_seq, seq);
    data_int(w, WITNESS_floats, (int64_t)floats);
    data_fixed(w, WITNESS_start_s, seconds_between(sc->started_ns, at), 6);
    call_record_write(w, WITNESS_rtt_ns, t);
    data_end_row(w);
}

/* One byte of every page of a retouch buffer, twice: as it was left, then
 * hot; each pass a witness row of kind. */
static void retouch_twice(struct schedule *sc, int round, const struct row_record *next,
                          const char *kind, volatile unsigned char *pages)
{
    size_t bytes = sc->job->n_bars * sizeof(double);
    for (int seq = 1; seq <= 2 && pages != NULL; seq++) {
        struct call_record t;
        memset(&t, 0, sizeof t);
        long faults = thread_minor_faults();
        uint64_t began = clock_ns();
        for (size_t b = 0; b < bytes; b += RETOUCH_PAGE)
            pages[b]++;
        t.rtt_ns = clock_ns() - began;
        t.client_minor_faults = (uint64_t)(thread_minor_faults() - faults);
        t.has_client_faults = 1;
        witness_row(sc, round, next, kind, seq, sc->job->n_bars, began, &t);
    }
}

/* The set's retouch buffer, left a round. */
static void probe_retouch(struct schedule *sc, int round, const struct row_record *next,
                          int at)
{
    char kind[32];
    snprintf(kind, sizeof kind, "retouch%s", PROBE_TIMES[at].suffix);
    retouch_twice(sc, round, next, kind, sc->away_pages[at]);
}

/* The doubles an away probe echoes each way. */
static size_t away_floats(const struct schedule *sc, const struct away_probe *p)
{
    size_t bars = sc->job->n_bars;
    return p->payload == AWAY_SERIES ? bars : p->payload == AWAY_FIFTH ? bars / 5 : 1;
}

/* A set of the round's away probes, before the run of next (numbered next). */
static void probe_away(struct schedule *sc, int round, const struct row_record *next, int at)
{
    int cpu = sc->can_duet ? sc->duet_cpus[(round + 1) % 2] : CPU_ANY;
    pin_this_thread(cpu);                    /* a duet side's place: one CPU */
    const struct probe_time *set = &PROBE_TIMES[at];
    for (int j = 0; j < set->probes; j++)
        if (sc->away_open[at][set->which[j]] && sc->away[at][set->which[j]].pid > 0)
            pin_process(sc->away[at][set->which[j]].pid, cpu);
    probe_retouch(sc, round, next, at);
    for (int i = 0; i < set->probes; i++) {
        /* at the start, odd rounds send the series first */
        int k = set->which[i < set->turns ? (round + i) % set->turns : i];
        size_t floats = away_floats(sc, &AWAY[k]);
        struct call_record t;
        char err[ERR_SIZE], kind[32];
        uint64_t began = clock_ns();
        if (!sc->away_open[at][k])
            continue;
        int failed = AWAY[k].payload == AWAY_FIFTH
                         ? session_load(&sc->away[at][k], sc->job->close, floats, &t, err,
                                        sizeof err)
                         : session_echo(&sc->away[at][k], sc->job->close, floats,
                                        sc->away_back[at], &t, err, sizeof err);
        if (failed != 0) {
            fprintf(stderr, "ipctax-bench: the away probe (%s%s) failed: %s\n", AWAY[k].name,
                    PROBE_TIMES[at].suffix, err);
            session_close(&sc->away[at][k]);
            sc->away_open[at][k] = 0;
            continue;
        }
        snprintf(kind, sizeof kind, "%s%s", AWAY[k].kind, PROBE_TIMES[at].suffix);
        witness_row(sc, round, next, kind, i + 1, floats, began, &t);
    }
    pin_this_thread(CPU_ANY);
}

/* <<set-every-row-up>>, paper/42-pairs.md */
/* 0, or -1 at the first row that failed (stop_row said why). */
static int set_up(struct schedule *sc)
{
    char err[ERR_SIZE];
    for (size_t i = 0; i < sc->n; i++) {
        struct row_record *r = &sc->rec[i];
        fprintf(stderr, "ipctax-bench: starting %s\n", r->row->name);
        r->state = arch_open(r->row, sc->env, sc->has_worker ? &sc->worker : NULL, &r->job,
                             err, sizeof err);
        if (r->state == NULL) {
            stop_row(r, err);
            record_failure(sc, r);
            return -1;
        }
        r->active = 1;
        warm_up(sc, r);
        if (!r->active) {
            record_failure(sc, r);
            return -1;
        }
    }
    open_away_probes(sc);
    return 0;
}

/* <<write-a-runs-calls>>, paper/42-pairs.md */
/* Where a run sits in the schedule. */
struct run_place {
    const char *pairing;               /* pairing_name() of the row's */
    int round, position;
    long unit;
    int slot;
};


static void write_calls(struct schedule *sc, const char *arch, int round, long run,
                        const struct call_sink *sink)
{
    struct data_out *o = &sc->calls, *w = &sc->witnesses;
    for (size_t i = 0; i < sink->n; i++) {
        data_text(o, CALLS_architecture, arch);
        data_int(o, CALLS_round, round);
        data_int(o, CALLS_run, run);
        data_int(o, CALLS_call, (int64_t)sink->calls[i].call);
        call_record_write(o, CALLS_rtt_ns, &sink->calls[i].t);
        data_end_row(o);
    }
    for (size_t i = 0; i < sink->n_witnesses; i++) {
        const struct witness *x = &sink->witnesses[i];
        data_text(w, WITNESS_architecture, arch);
        data_int(w, WITNESS_round, round);
        data_int(w, WITNESS_run, run);
        data_text(w, WITNESS_kind, witness_kind_name(x->kind));
        data_int(w, WITNESS_seq, x->seq);
        data_int(w, WITNESS_floats, (int64_t)x->floats);
        data_fixed(w, WITNESS_start_s, seconds_between(sc->started_ns, x->at_ns), 6);
        call_record_write(w, WITNESS_rtt_ns, &x->t);
        data_end_row(w);
    }
}

/* <<write-a-runs-row>>, paper/42-pairs.md */
static void write_run(struct schedule *sc, const struct row_record *r, const struct side *s,
                      const struct run_place *at, long run, long partner, const char *status)
{
    struct data_out *o = &sc->runs;
    const struct run_measure *m = &s->m;
    data_text(o, RUNS_architecture, r->row->name);
    data_text(o, RUNS_pairing, at->pairing);
    data_int(o, RUNS_round, at->round);
    data_int(o, RUNS_position, at->position);
    data_int(o, RUNS_unit, at->unit);
    data_int(o, RUNS_slot, at->slot);
    data_int(o, RUNS_run, run);
    data_known(o, RUNS_partner, partner > 0, partner);
    data_int(o, RUNS_bars, (int64_t)s->job->n_bars);
    data_int(o, RUNS_combos, (int64_t)s->job->n_combos);
    data_text(o, RUNS_status, status);
    data_fixed(o, RUNS_start_s, seconds_between(sc->started_ns, s->start_ns), 6);
    data_fixed(o, RUNS_seconds, m->seconds, 9);
    data_fixed(o, RUNS_client_cpu_s, m->client_cpu_s, 6);
    data_fixed(o, RUNS_engine_cpu_s, m->engine_cpu_s, 6);
    data_text(o, RUNS_cpus_allowed, s->allowed);
    data_known(o, RUNS_cpu_start, m->cpu_start >= 0, m->cpu_start);
    data_known(o, RUNS_cpu_end, m->cpu_end >= 0, m->cpu_end);
    data_known(o, RUNS_engine_cpu, m->engine_cpu >= 0, m->engine_cpu);
    data_known(o, RUNS_client_minor_faults, m->client_minor_faults >= 0, m->client_minor_faults);
    data_known(o, RUNS_engine_minor_faults, m->engine_minor_faults >= 0, m->engine_minor_faults);
    data_end_row(o);
}

/* <<record-a-run>>, paper/42-pairs.md */
/* Gates a side's run of part's job, writes it, and says whether it counts. */
static int record_side(struct schedule *sc, struct row_record *r, const struct row_record *part,
                       const struct side *s, const struct run_place *at, long run, long partner)
{
    const char *status = "ok";
    if (s->failed || s->sink->lost) {
        status = "failed";
        stop_row(r, s->failed ? s->err : "out of memory for the run's calls");
    } else if (!judge(r, part, s->results)) {
        status = "gate_failed";
        stop_row(r, "results differ from in_process");
    }
    write_run(sc, r, s, at, run, partner, status);
    write_calls(sc, r->row->name, at->round, run, s->sink);
    return strcmp(status, "ok") == 0;
}

/* <<run-a-couple-of-duets>>, paper/42-pairs.md */
static struct side side_of(struct schedule *sc, struct row_record *r,
                           const struct row_record *part, int which, int cpu)
{
    call_sink_clear(&sc->sinks[which]);
    sc->sinks[which].keep = 1;
    return (struct side){.state = r->state, .job = &part->job, .results = sc->results[which],
                         .sink = &sc->sinks[which], .cpu = cpu};
}

static double run_couple(struct schedule *sc, struct row_record *r, int round, int position)
{
    struct row_record *base = &sc->rec[sc->baseline];
    const struct unit_layout *l = unit_layout(PAIRING_DUET);      /* both sides in each slot */
    struct run_place at = {pairing_name(PAIRING_DUET), round, position, ++sc->next_unit, 0};
    int first = (int)random_below(&sc->mt, 2);
    double row_s[MAX_UNIT_SLOTS] = {0}, base_s[MAX_UNIT_SLOTS] = {0};
    char err[ERR_SIZE];
    for (at.slot = 1; at.slot <= l->slots; at.slot++) {
        int cpu = sc->duet_cpus[(first + at.slot - 1) % 2];
        int other = sc->duet_cpus[(first + at.slot) % 2];
        struct side x = side_of(sc, r, r, 0, cpu), b = side_of(sc, base, r, 1, other);
        if (side_run_duet(&x, &b, err, sizeof err) != 0) {
            stop_row(r, err);
            return NAN;
        }
        long run_x = ++sc->next_run, run_b = ++sc->next_run;     /* the row's first */
        int ok = record_side(sc, r, r, &x, &at, run_x, run_b);
        ok &= record_side(sc, base, r, &b, &at, run_b, run_x);
        if (!ok)
            return NAN;
        row_s[at.slot - 1] = x.m.seconds;
        base_s[at.slot - 1] = b.m.seconds;
    }
    return paired_ratio(PAIRING_DUET, row_s, base_s);
}

/* <<run-in-turn>>, paper/42-pairs.md */
static double run_in_turn(struct schedule *sc, struct row_record *r, int round, int position)
{
    struct row_record *base = &sc->rec[sc->baseline];
    const struct unit_layout *l = unit_layout(PAIRING_SEQUENTIAL);    /* one run a slot */
    struct run_place at = {pairing_name(PAIRING_SEQUENTIAL), round, position, ++sc->next_unit, 0};
    double seconds[2][MAX_UNIT_SLOTS] = {{0}};     /* [row, baseline][their runs in order] */
    int n[2] = {0, 0};
    for (at.slot = 1; at.slot <= l->slots; at.slot++) {
        int b = l->sides[at.slot - 1] == SLOT_BASELINE;
        struct row_record *who = b ? base : r;
        struct side s = side_of(sc, who, r, 0, CPU_ANY);
        side_run_alone(&s);
        if (!record_side(sc, who, r, &s, &at, ++sc->next_run, 0))
            return NAN;
        seconds[b][n[b]++] = s.m.seconds;
    }
    return paired_ratio(PAIRING_SEQUENTIAL, seconds[0], seconds[1]);
}

/* <<the-stopping-rule>>, paper/42-pairs.md */
static int is_control(const struct schedule *sc, const struct row_record *r)
{
    const struct arch_row *a = r->row, *b = sc->rec[sc->baseline].row;
    return a != b && a->client == b->client && a->transport == b->transport &&
           strcmp(a->kernel, b->kernel) == 0 && a->encoding == b->encoding &&
           a->grain == b->grain && a->part.bar_divisor == 1 && a->part.combo_step == 1;
}

/* How far the deciding controls' intervals reach from 1 (INFINITY: not yet). */
static double control_reach(const struct schedule *sc)
{
    enum arch_pairing deciding = sc->can_duet ? PAIRING_DUET : PAIRING_SEQUENTIAL;
    double reach = -1.0;
    for (size_t i = 0; sc->baseline >= 0 && i < sc->n; i++) {
        const struct row_record *r = &sc->rec[i];
        if (!is_control(sc, r) || r->row->pairing != deciding)
            continue;
        struct estimate e = estimate_median(r->ratios, r->n_ratios);
        double w = e.coverage >= 0.95 ? fmax(fabs(e.low - 1.0), fabs(e.high - 1.0)) : INFINITY;
        reach = isnan(w) ? INFINITY : fmax(reach, w);
    }
    return reach < 0.0 ? INFINITY : reach;
}

/* <<run-a-round>>, paper/42-pairs.md */
static int push_ratio(struct row_record *r, double ratio)
{
    double *grown = realloc(r->ratios, (r->n_ratios + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    r->ratios = grown;
    r->ratios[r->n_ratios++] = ratio;
    return 0;
}

/* Whether row i still wants a unit: an active row short of its plan. */
static int wants_a_unit(const struct schedule *sc, size_t i)
{
    const struct row_record *r = &sc->rec[i];
    return r->active && (int)i != sc->baseline && r->n_ratios < (size_t)r->planned;
}

/* The units row i gets in this round: what finishes its plan by round
 * sc->pace at an even pace, one a round past that round (a unit lost to a
 * failed run), none once it is made. */
static int units_in_round(const struct schedule *sc, size_t i, int round)
{
    if (!wants_a_unit(sc, i))
        return 0;
    long left = (long)sc->rec[i].planned - (long)sc->rec[i].n_ratios;
    long rounds = round < sc->pace ? sc->pace - round + 1 : 1;
    long units = (left + rounds - 1) / rounds;
    return units < 1 ? 1 : units > MOST_UNITS_A_ROUND ? MOST_UNITS_A_ROUND : (int)units;
}

static void run_round(struct schedule *sc, int round, uint32_t seed)
{
    size_t rows[N_ARCH_ROWS * MOST_UNITS_A_ROUND], order[N_ARCH_ROWS * MOST_UNITS_A_ROUND];
    size_t n = 0;
    for (size_t i = 0; i < sc->n; i++)
        for (int u = units_in_round(sc, i, round); u > 0; u--)
            rows[n++] = i;
    mt19937_seed(&sc->mt, round_seed(seed, round));
    random_order(&sc->mt, order, n);
    if (n > 0)
        probe_away(sc, round, &sc->rec[rows[order[0]]], AT_START);
    for (size_t p = 0; p < n && sc->rec[sc->baseline].active; p++) {
        struct row_record *r = &sc->rec[rows[order[p]]];
        if (p == n / 2 && p > 0)                 /* halfway, among the runs */
            probe_away(sc, round, r, AT_MIDDLE);
        retouch_twice(sc, round, r, "retouch-unit", sc->unit_pages);  /* left a unit */
        uint64_t t0 = clock_ns();
        double ratio = r->row->pairing == PAIRING_DUET && sc->can_duet
                           ? run_couple(sc, r, round, (int)p + 1)
                           : run_in_turn(sc, r, round, (int)p + 1);
        r->last_unit_s = seconds_between(t0, clock_ns());
        if (isfinite(ratio) && push_ratio(r, ratio) != 0)
            stop_row(r, "out of memory for its ratios");
    }
}

/* Seconds the next round (round) will take, and all the rounds left, by
 * the rows' last units: each row still short of its plan, for its units in
 * that round or for every unit it still wants. */
static double rounds_left_s(const struct schedule *sc, int round, int all)
{
    double s = 0.0;
    for (size_t i = 0; i < sc->n; i++)
        if (wants_a_unit(sc, i))
            s += sc->rec[i].last_unit_s *
                 (all ? (double)((size_t)sc->rec[i].planned - sc->rec[i].n_ratios)
                      : (double)units_in_round(sc, i, round));
    return s;
}

static size_t rows_wanting(const struct schedule *sc)
{
    size_t n = 0;
    for (size_t i = 0; i < sc->n; i++)
        n += wants_a_unit(sc, i);
    return n;
}

/* The plan's units made and wanted, over every active row. */
static void plan_progress(const struct schedule *sc, long *made, long *wanted)
{
    *made = *wanted = 0;
    for (size_t i = 0; i < sc->n; i++)
        if (sc->rec[i].active && (int)i != sc->baseline) {
            *wanted += sc->rec[i].planned;
            *made += (long)(sc->rec[i].n_ratios < (size_t)sc->rec[i].planned
                                ? sc->rec[i].n_ratios
                                : (size_t)sc->rec[i].planned);
        }
}

/* <<prepare-the-schedule>>, paper/42-pairs.md */
/* The units the plan wants of a row: "row=N" in the plan, or the default:
 * the minimum, a headline row's twelve unless the rounds are fixed (one a
 * round then); never fewer than the minimum. */
static int planned_units(const struct arch_row *row, const struct schedule_limits *lim)
{
    int fixed = lim->min_rounds == lim->max_rounds;
    int units = row->headline && !fixed ? HEADLINE_UNITS : lim->min_rounds;
    size_t len = strlen(row->name);
    for (const char *p = lim->units; p != NULL && *p != '\0';) {
        if (strncmp(p, row->name, len) == 0 && p[len] == '=')
            units = atoi(p + len + 1);
        p = strchr(p, ',');
        p = p != NULL ? p + 1 : NULL;
    }
    return units > lim->min_rounds ? units : lim->min_rounds;
}

static int prepare(struct schedule *sc, const char *rows, const struct schedule_limits *lim,
                   const char *out_dir, char *err, size_t err_size)
{
    sc->rec = calloc(N_ARCH_ROWS, sizeof *sc->rec);
    for (int s = 0; s < 2; s++)
        sc->results[s] = calloc(sc->job->n_combos, sizeof *sc->results[s]);
    if (sc->rec == NULL || sc->results[0] == NULL || sc->results[1] == NULL)
        return set_error(err, err_size, "out of memory");
    sc->baseline = -1;
    int python = 0;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        if (!names_include(rows, ARCH_ROWS[i].name) && ARCH_ROWS[i].pairing != PAIRING_NONE)
            continue;                          /* the baseline always runs */
        struct row_record *r = &sc->rec[sc->n++];
        r->row = &ARCH_ROWS[i];
        r->planned = planned_units(r->row, lim);
        if (make_part(sc, r, err, err_size) != 0)
            return -1;
        if (r->row->pairing == PAIRING_NONE)
            sc->baseline = (int)(sc->n - 1);
        python |= r->row->client == CLIENT_PYTHON;
        int fewest = (r->planned + MOST_UNITS_A_ROUND - 1) / MOST_UNITS_A_ROUND;
        sc->pace = fewest > sc->pace ? fewest : sc->pace;
    }
    sc->pace = lim->min_rounds > sc->pace ? lim->min_rounds : sc->pace;
    placement_init();
    sc->can_duet = placement_duet_cpus(sc->duet_cpus) == 0;
    if (python && worker_start(&sc->worker, sc->env, sc->job, err, err_size) != 0)
        return -1;
    sc->has_worker = python;
    if (data_out_open(&sc->runs, out_dir, "architectures.csv", err, err_size) != 0)
        return -1;
    if (data_out_open(&sc->calls, out_dir, "calls.csv", err, err_size) != 0)
        return -1;
    return data_out_open(&sc->witnesses, out_dir, "witnesses.csv", err, err_size);
}

/* <<finish-the-schedule>>, paper/42-pairs.md */
static void finish(struct schedule *sc)
{
    for (size_t i = 0; i < sc->n; i++) {
        if (sc->rec[i].state != NULL)
            arch_pin(sc->rec[i].state, CPU_ANY);
        arch_close(sc->rec[i].state);
        free(sc->rec[i].params);
        free(sc->rec[i].reference);
        free(sc->rec[i].ratios);
    }
    if (sc->has_worker)
        worker_stop(&sc->worker);
    for (int s = 0; s < 2; s++) {
        free(sc->results[s]);
        call_sink_free(&sc->sinks[s]);
    }
    for (int at = 0; at < N_PROBE_TIMES; at++) {
        for (int k = 0; k < N_AWAY_PROBES; k++)
            if (sc->away_open[at][k])
                session_close(&sc->away[at][k]);
        free(sc->away_back[at]);
        free((void *)sc->away_pages[at]);
    }
    free((void *)sc->unit_pages);
    free(sc->rec);
}

/* <<run-rounds-until-the-rule-stops-them>>, paper/42-pairs.md */
static void print_round(const struct schedule *sc, const struct schedule_limits *lim,
                        int round, const struct schedule_outcome *how)
{
    long made, wanted;
    char control[64];
    plan_progress(sc, &made, &wanted);
    double left = fmin(rounds_left_s(sc, round + 1, 1), fmax(lim->budget_s - how->seconds, 0.0));
    if (isinf(how->reach))
        snprintf(control, sizeof control, "A/A control: too few units yet");
    else
        snprintf(control, sizeof control, "A/A control within +-%.1f%%", how->reach * 100.0);
    fprintf(stderr, "  round %3d  %6.0f s  %4ld of %ld planned units  about %4.0f s left  %s\n",
            round, how->seconds, made, wanted, left, control);
}

static void print_ending(const struct schedule *sc, const struct schedule_outcome *how)
{
    static const char *const why[] = {"resolved", "every row has its planned units",
                                       "budget", "the budget would be overrun by another round",
                                       "max_rounds", "the most rounds allowed were made"};
    const char *said = how->stop_reason;
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i += 2)
        if (strcmp(why[i], how->stop_reason) == 0)
            said = why[i + 1];
    fprintf(stderr, "ipctax-bench: %d rounds in %.0f s, stopped: %s\n", how->rounds,
            how->seconds, said);
    for (size_t i = 0; i < sc->n; i++)
        if (wants_a_unit(sc, i))
            fprintf(stderr, "  %s: %zu of its %d planned units\n", sc->rec[i].row->name,
                    sc->rec[i].n_ratios, sc->rec[i].planned);
}

static void run_rounds(struct schedule *sc, const struct schedule_limits *lim, uint32_t seed,
                       struct schedule_outcome *how)
{
    sc->started_ns = clock_ns();
    how->stop_reason = "max_rounds";
    for (int round = 1; round <= lim->max_rounds && sc->rec[sc->baseline].active; round++) {
        run_round(sc, round, seed);
        if (lim->hook.after_round != NULL) {
            uint64_t t0 = clock_ns();
            lim->hook.after_round(lim->hook.arg, round);
            sc->hook_s = seconds_between(t0, clock_ns());
        }
        how->rounds = round;
        how->seconds = seconds_between(sc->started_ns, clock_ns());
        how->reach = control_reach(sc);
        print_round(sc, lim, round, how);
        if (round < lim->min_rounds)
            continue;
        if (rows_wanting(sc) == 0) {
            how->stop_reason = "resolved";
            break;
        }
        if (how->seconds + rounds_left_s(sc, round + 1, 0) + sc->hook_s > lim->budget_s) {
            how->stop_reason = "budget";
            break;
        }
    }
    print_ending(sc, how);
}

/* <<schedule-run>>, paper/42-pairs.md */
int schedule_run(const struct harness_env *env, const struct sweep_job *job,
                 const struct combo_result *reference, const char *rows, uint32_t seed,
                 const struct schedule_limits *limits, const char *out_dir,
                 struct schedule_outcome *how, char *err, size_t err_size)
{
    struct schedule sc = {.env = env, .job = job, .reference = reference};
    memset(how, 0, sizeof *how);
    int status = prepare(&sc, rows, limits, out_dir, err, err_size);
    if (status == 0) {
        if (set_up(&sc) == 0)
            run_rounds(&sc, limits, seed, how);
        else
            how->stop_reason = "failed";
        for (size_t i = 0; i < sc.n; i++) {
            how->gate_failures += sc.rec[i].verdict.combos > 0 && !sc.rec[i].verdict.passed;
            how->failures += sc.rec[i].error[0] != '\0';
        }
        how->duet_cpus[0] = sc.can_duet ? sc.duet_cpus[0] : -1;
        how->duet_cpus[1] = sc.can_duet ? sc.duet_cpus[1] : -1;
        if (data_out_close(&sc.runs) != 0 || data_out_close(&sc.calls) != 0 ||
            data_out_close(&sc.witnesses) != 0 ||
            write_gate(&sc, out_dir) != 0)
            status = set_error(err, err_size, "cannot write the architectures' files in %s",
                               out_dir);
    } else {
        data_out_abandon(&sc.runs);
        data_out_abandon(&sc.calls);
        data_out_abandon(&sc.witnesses);
    }
    finish(&sc);
    return status;
}
