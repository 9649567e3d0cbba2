/*
 * sum_model.c - every crossing architecture's boundary per call, predicted
 * from the primitives alone and set beside what its calls measured.
 *
 * Tangled from paper/68-model.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "schema/architectures.h"
#include "report/summarize.h"
#include "report/units.h"

/* <<model-primitives>>, paper/68-model.md */
/* A state probe's phases, µs: one double each way, or the series. */
struct probe_phases {
    double rtt, encode, request, reply, decode;
};

/* The engine's stretches the probes follow: short, long, and the sweep's
 * (a fifth's sweep of work: the C client's, in a run that made it). */
enum { N_POINTS = 3 };

struct primitives {
    double stretch_us[N_POINTS];       /* the stretches, as the engine timed them */
    /* the probe after each stretch that a call of each client meets, partner busy, by
     * client (enum arch_client): the `engine` probe (an older run's Python: `client`);
     * one double, a fifth of the series (NAN where none) and the series */
    struct probe_phases one[3][N_POINTS], fifth[3][N_POINTS], series[3][N_POINTS];
    /* what the reply of the call that carried each stretch cost over the
     * reply of the echo after it, by client: the reply after a kernel */
    double kernel_reply[3][N_POINTS];
    double away_us;                    /* the away probes' pause, as the client timed it */
    struct probe_phases away[3], away_fifth[3];    /* the series and fifth after it */
    struct probe_phases round_one, round_fifth, round_series;   /* the rounds' (C) */
    struct probe_phases round_shm_one; /* ... and the one over shared memory */
    double fifth_bytes, series_bytes;  /* the fifth's and the series' payload, each way */
    double fault_us[3];                /* first-touch price by client (enum arch_client) */
    double engine_fault_us;            /* ... and the engine's */
    double exit_us;                    /* a process started, loaded and ended */
    double exit_faults;                /* ... and the pages it touched first */
    /* a page handed between process and kernel: the kernel's first copy out
     * of a page the process touched first, the process's first read of one
     * the kernel faulted in, and a fault the kernel's copy takes (NAN in a
     * run made before the probe) */
    double out_us, in_us, kernel_fault_us;
    double json_encode_us, json_decode_us;  /* the series through jansson */
    double json_busy_us;               /* ... encoded and decoded beside a busy partner */
    double json_bytes;                 /* ... and the series' length as JSON */
};

/* The estimate under key, its value, or NAN when the run has none. */
static double value_of(const struct store *s, const char *key)
{
    struct estimate e = store_estimate(s, key);
    return e.n > 0 ? e.value : NAN;
}

static void read_probe(const struct store *s, const char *client, const char *state,
                       const char *stretch, const char *payload, struct probe_phases *out)
{
    char key[KEY_SIZE];
    static const char *const fields[] = {"rtt", "encode", "request", "reply", "decode"};
    double *at[] = {&out->rtt, &out->encode, &out->request, &out->reply, &out->decode};
    for (int f = 0; f < 5; f++)
        *at[f] = value_of(s, keyf(key, "mech.%s.%s.%s.busy.%s.%s_us", client, state, stretch,
                                  payload, fields[f]));
}

static void read_hot(const struct store *s, const char *client, const char *payload,
                     struct probe_phases *out)
{
    char key[KEY_SIZE];
    static const char *const fields[] = {"rtt", "encode", "request", "reply", "decode"};
    double *at[] = {&out->rtt, &out->encode, &out->request, &out->reply, &out->decode};
    for (int f = 0; f < 5; f++)
        *at[f] = value_of(s, keyf(key, "mech.%s.hot.none.busy.%s.%s_us", client, payload,
                                  fields[f]));
}

static void read_away(const struct store *s, const char *client, const char *payload,
                      struct probe_phases *out)
{
    char key[KEY_SIZE];
    static const char *const fields[] = {"rtt", "encode", "request", "reply", "decode"};
    double *at[] = {&out->rtt, &out->encode, &out->request, &out->reply, &out->decode};
    for (int f = 0; f < 5; f++)
        *at[f] = value_of(s, keyf(key, "mech.%s.idle.away.busy.%s.%s_us", client, payload,
                                  fields[f]));
}

/* A probe of the rounds (payload "one", "series", ...), NAN where none. */
static void read_round(const struct store *s, const char *payload, struct probe_phases *out)
{
    char key[KEY_SIZE];
    static const char *const fields[] = {"rtt", "encode", "request", "reply", "decode"};
    double *at[] = {&out->rtt, &out->encode, &out->request, &out->reply, &out->decode};
    for (int f = 0; f < 5; f++)
        *at[f] = value_of(s, keyf(key, "mech.round.%s.%s_us", payload, fields[f]));
}

/* What a call's crossing after a kernel costs beyond the echo after it,
 * by client and stretch: a chained stretch call's boundary over the echo's
 * round trip (a chained call follows a call, as a later call does); in a
 * run made before the chain, the one stretch call's reply over the echo's
 * reply. The Python client's short probe is its hot echo, which follows no
 * kernel: its excess is 0. A run made before the stretch's own call was
 * written has neither, and the model prices nothing apart from the probe
 * (mech.kernel.measured). */
static double kernel_reply_of(const struct store *s, const char *client, const char *stretch)
{
    char key[KEY_SIZE];
    double chain = value_of(s, keyf(key, "mech.%s.chain.%s.over_echo_us", client, stretch));
    double one = value_of(s, keyf(key, "mech.%s.kernel.%s.reply_over_echo_us", client, stretch));
    return isfinite(chain) ? chain : isfinite(one) ? one : 0.0;
}

static void read_kernel_replies(const struct store *s, struct primitives *p)
{
    p->kernel_reply[CLIENT_C][0] = kernel_reply_of(s, "c", "short");
    p->kernel_reply[CLIENT_C][1] = kernel_reply_of(s, "c", "long");
    p->kernel_reply[CLIENT_C][2] = kernel_reply_of(s, "c", "sweep");
    p->kernel_reply[CLIENT_PYTHON][0] = 0.0;
    p->kernel_reply[CLIENT_PYTHON][1] = kernel_reply_of(s, "python", "long");
    p->kernel_reply[CLIENT_PYTHON][2] = p->kernel_reply[CLIENT_NONE][2] = NAN;
    p->kernel_reply[CLIENT_NONE][0] = p->kernel_reply[CLIENT_NONE][1] = 0.0;
}

static const struct probe_phases NO_PROBE = {NAN, NAN, NAN, NAN, NAN};

static void read_primitives(const struct store *s, const struct run_data *d,
                            struct primitives *p)
{
    static const char *const stretch[N_POINTS] = {"short", "long", "sweep"};
    char key[KEY_SIZE];
    for (int c = 0; c < 3; c++)        /* what a run or a client did not probe */
        for (int k = 0; k < N_POINTS; k++)
            p->one[c][k] = p->fifth[c][k] = p->series[c][k] = NO_PROBE;
    /* <<read-the-c-clients-probes>>, paper/68-model.md */
    for (int k = 0; k < N_POINTS; k++) {
        p->stretch_us[k] = value_of(s, keyf(key, "mech.c.engine.%s.busy.one.stretch_us",
                                            stretch[k]));
        /* a C call's crossing follows the engine's kernel, the client having waited */
        read_probe(s, "c", "engine", stretch[k], "one", &p->one[CLIENT_C][k]);
        read_probe(s, "c", "engine", stretch[k], "series", &p->series[CLIENT_C][k]);
        if (k > 0)                         /* the short stretch echoes no fifth */
            read_probe(s, "c", "engine", stretch[k], "fifth", &p->fifth[CLIENT_C][k]);
    }
    /* <<read-the-python-clients-probes>>, paper/68-model.md */
    /* a Python call's too; a run older than the Python engine probe has
     * only the client's own stretch over a workspace of the engine's size,
     * the caches as a kernel leaves them but the order reversed. Its calls
     * all follow a long kernel, and its short probe is its hot echo */
    const char *py = isfinite(value_of(s, "mech.python.engine.long.busy.one.rtt_us"))
                         ? "engine" : "client";
    read_probe(s, "python", py, "long", "one", &p->one[CLIENT_PYTHON][1]);
    read_probe(s, "python", py, "long", "series", &p->series[CLIENT_PYTHON][1]);
    read_hot(s, "python", "one", &p->one[CLIENT_PYTHON][0]);
    read_hot(s, "python", "series", &p->series[CLIENT_PYTHON][0]);
    read_kernel_replies(s, p);
    /* <<read-the-probes-of-a-round>>, paper/68-model.md */
    p->away_us = value_of(s, "mech.c.idle.away.busy.series.stretch_us");
    read_away(s, "c", "series", &p->away[CLIENT_C]);
    read_away(s, "python", "series", &p->away[CLIENT_PYTHON]);
    read_away(s, "c", "fifth", &p->away_fifth[CLIENT_C]);
    p->away_fifth[CLIENT_PYTHON] = p->away_fifth[CLIENT_NONE] = NO_PROBE;
    /* a round's state: the set halfway through the runs, which follows
     * runs as a first call does, or in an older run the set at the start
     * (which echoes no fifth) */
    int mid = isfinite(value_of(s, "mech.round.mid_series.rtt_us")) &&
              isfinite(value_of(s, "mech.round.mid_one.rtt_us"));
    read_round(s, mid ? "mid_one" : "one", &p->round_one);
    read_round(s, mid ? "mid_series" : "series", &p->round_series);
    /* its fifth is a load: the engine decodes it into the series it keeps,
     * as a sweep's engine decodes a request, and that decoding is the price
     * the engine's term takes where an echo's stands in for it elsewhere */
    p->round_fifth = NO_PROBE;
    if (mid && isfinite(value_of(s, "mech.round.mid_load.rtt_us"))) {
        read_round(s, "mid_load", &p->round_fifth);
        p->round_fifth.decode = value_of(s, "mech.round.mid_load.engine_decode_us");
    }
    read_round(s, "shm_one", &p->round_shm_one);   /* made at the start alone */
    /* <<read-the-faults-spawns-and-codec>>, paper/68-model.md */
    p->series_bytes = p->fifth_bytes = NAN;   /* the largest payload, and the smallest above one */
    for (size_t i = 0; i < d->n_states; i++) {
        double b = 8.0 * (double)d->states[i].floats;
        if (d->states[i].floats > 1 && !(b <= p->series_bytes))
            p->series_bytes = b;
        if (d->states[i].floats > 1 && !(b >= p->fifth_bytes))
            p->fifth_bytes = b;
    }
    if (!(p->fifth_bytes < p->series_bytes))  /* a run made before the fifth */
        p->fifth_bytes = NAN;
    p->fault_us[CLIENT_NONE] = NAN;
    p->fault_us[CLIENT_C] = value_of(s, "mech.fault.c.us_per_fault");
    p->fault_us[CLIENT_PYTHON] = value_of(s, "mech.fault.python.us_per_fault");
    p->engine_fault_us = value_of(s, "mech.fault.engine.us_per_fault");
    p->exit_us = value_of(s, "spawn.exit_ms") * 1e3;
    p->exit_faults = store_number(s, "spawn.exit_faults");   /* a count, not an estimate */
    p->out_us = value_of(s, "mech.handover.out_us_per_page");
    p->in_us = value_of(s, "mech.handover.in_us_per_page");
    p->kernel_fault_us = value_of(s, "mech.handover.kernel_fault_us");
    /* the codec after a kernel, as a call meets it; an older run's back to back */
    int cold = isfinite(value_of(s, "serial.c.json_cold.encode_us")) &&
               isfinite(value_of(s, "serial.c.json_cold.decode_us"));
    p->json_encode_us = value_of(s, cold ? "serial.c.json_cold.encode_us" : "serial.c.json.encode_us");
    p->json_decode_us = value_of(s, cold ? "serial.c.json_cold.decode_us" : "serial.c.json.decode_us");
    p->json_busy_us = value_of(s, "serial.c.json_busy.encode_us") +
                      value_of(s, "serial.c.json_busy.decode_us");
    p->json_bytes = store_number(s, "serial.c.json.bytes");   /* a count, not an estimate */
}

/* The fitted echo of lane (client, transport, mode) on one CPU at b bytes each way. */
static double echo_fit_us(const struct store *s, const char *client, const char *transport,
                          const char *mode, double b)
{
    char key[KEY_SIZE];
    snprintf(key, sizeof key, "echo.%s.%s.same.%s.floor_us", client, transport, mode);
    double floor_us = store_number(s, key);
    snprintf(key, sizeof key, "echo.%s.%s.same.%s.bandwidth_gbps", client, transport, mode);
    double gbps = store_number(s, key);
    return floor_us + 2.0 * b / (gbps * 1e3);
}

/* Whether the run measured every primitive the model reads, so that no
 * price stands on an older run's stand-in. */
static int every_primitive(const struct store *s, const struct primitives *p)
{
    return isfinite(value_of(s, "mech.c.chain.long.over_echo_us")) &&
           isfinite(value_of(s, "mech.python.engine.long.busy.one.rtt_us")) &&
           isfinite(p->stretch_us[2]) && p->fifth_bytes < p->series_bytes &&
           isfinite(value_of(s, "mech.round.mid_load.rtt_us")) && isfinite(p->out_us) &&
           isfinite(p->in_us) && isfinite(p->kernel_fault_us) &&
           isfinite(value_of(s, "serial.c.json_cold.encode_us"));
}

/* <<model-first-calls>>, paper/68-model.md */
/* A unit's first calls and later calls: the boundary (µs) of each of its
 * runs' call 0, and of every later call, pushed into first and later;
 * the calls counted into *calls, the runs into *runs. */
static void unit_first_and_later(const struct run_data *d, const struct unit_view *u,
                                 struct doubles *first, struct doubles *later, double *calls,
                                 double *runs)
{
    long run[2] = {u->row[0] != NULL ? u->row[0]->run : -1,
                   u->duet && u->row[1] != NULL ? u->row[1]->run : -1};
    *runs += (run[0] >= 0) + (run[1] >= 0);
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        if (c->run < 0 || (c->run != run[0] && c->run != run[1]))
            continue;
        ++*calls;
        if (!isnan(c->compute_ns))
            doubles_push(c->call == 0 ? first : later, (c->rtt_ns - c->compute_ns) * 1e-3);
    }
}

/* Each row's calls per run, and where a run makes more than one, its
 * first call's boundary over its later calls', unit by unit. */
static void summarize_first_calls(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Architecture", "Calls per run", "First call (µs)",
                                         "Later calls (µs)", "First over later [95% interval]"};
    char key[KEY_SIZE], buf[200];
    struct csv_out t;
    if (table_open(s, "first-calls", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t a = 0; a < N_ARCH_ROWS; a++) {
        const char *arch = ARCH_ROWS[a].name;
        struct unit_view *units;
        struct doubles firsts = {0}, laters = {0}, ratio = {0};
        double calls = 0, runs = 0;
        /* <<medians-of-each-units-first-and-later-calls>>, paper/68-model.md */
        size_t n = arch_units(d, arch, &units);
        for (size_t i = 0; i < n; i++) {
            struct doubles first = {0}, later = {0};
            if (units[i].complete)
                unit_first_and_later(d, &units[i], &first, &later, &calls, &runs);
            if (first.n > 0 && later.n > 0) {
                double f = doubles_estimate(&first).value, l = doubles_estimate(&later).value;
                doubles_push(&firsts, f);
                doubles_push(&laters, l);
                doubles_push(&ratio, f / l);
            }
            doubles_free(&first);
            doubles_free(&later);
        }
        free(units);
        /* <<store-and-tabulate-a-rows-first-calls>>, paper/68-model.md */
        if (runs > 0 && ARCH_ROWS[a].transport != TRANSPORT_NONE)
            put_number(s, keyf(key, "first.%s.calls_per_run", arch), calls / runs, 1);
        if (ratio.n > 0) {
            const char *unit = unit_name(d, arch);
            struct estimate f = doubles_estimate(&firsts), l = doubles_estimate(&laters);
            struct estimate r = doubles_estimate(&ratio);
            put_estimate(s, keyf(key, "first.%s.first_us", arch), f, 1, unit);
            put_estimate(s, keyf(key, "first.%s.later_us", arch), l, 1, unit);
            put_estimate(s, keyf(key, "first.%s.over_later", arch), r, 2, unit);
            csv_out_text(&t, arch);
            cell_number(&t, calls / runs, 0);
            cell_number(&t, f.value, 1);
            cell_number(&t, l.value, 1);
            csv_out_text(&t, format_estimate(buf, r, 2));
            csv_out_end_row(&t);
        }
        doubles_free(&firsts);
        doubles_free(&laters);
        doubles_free(&ratio);
    }
    table_close(s, &t);
}

/* <<full-speed>>, paper/68-model.md */
static const double FULL_SPEED = 1.25;   /* a kernel's time over its row's fastest, at most */

/* <<model-a-duets-two-sides>>, paper/68-model.md */
/* A row's duet units, side by side: each side's first call, their ratio,
 * and, for a unit after the row's first, how long the row was left (s)
 * with the same unit's ratio beside it; then the sides whose kernel ran
 * at full speed, and each side's reply by its kernel's speed (0 full,
 * 1 slowed; @sec:model-slowed). */
struct duet_sides {
    struct doubles side[2], ratio, left, left_ratio;
    struct doubles apart;              /* s from the first side's start to the second's */
    struct doubles full[2], reply[2];
    long slowed;
    long spin_known[2], spin_slow[2];  /* [0] full speed, [1] slowed: sides whose
                                        * round's host spin on their CPU was read,
                                        * and of them, found slow */
};

/* The first call of one side of a duet unit, as the sides need it. */
struct side_call {
    double boundary_us, compute_us, reply_us;
    int spin;                          /* its round's host spin on its CPU: 1 slow,
                                        * 0 not, -1 none (@sec:model-slowed) */
};

/* <<the-host-spin-of-a-sides-round>>, paper/68-model.md */
/* Whether the host spin after `round` on `cpu` ran slow: 1, 0, or -1
 * where the run has none (an older run, or a CPU not known). */
static const double SPIN_SLOW = 1.10;    /* the run's fastest spin's rate over a slow one's */

static int spin_was_slow(const struct run_data *d, long round, double cpu)
{
    double fastest = 0.0, rate = NAN;
    for (size_t i = 0; i < d->n_host; i++) {
        const struct host_row *h = &d->host[i];
        double free_us = (h->spin_ns - h->gap_ns) * 1e-3;
        if (!(free_us > 0))
            continue;
        fastest = fmax(fastest, h->reads / free_us);
        if (h->pass == round && h->cpu == cpu)
            rate = h->reads / free_us;
    }
    return isnan(rate) ? -1 : rate * SPIN_SLOW < fastest;
}

/* The first call of each side of a duet unit: side 0 is the run in slot
 * 1; NAN where a side has none (a reply NAN in a run without crossings). */
static void unit_side_firsts(const struct run_data *d, const struct unit_view *u,
                             struct side_call side[2])
{
    side[0] = side[1] = (struct side_call){NAN, NAN, NAN, -1};
    for (size_t i = 0; i < d->n_calls; i++) {
        const struct call_row *c = &d->calls[i];
        for (int k = 0; k < 2; k++)
            if (c->call == 0 && u->row[k] != NULL && c->run == u->row[k]->run &&
                !isnan(c->compute_ns))
                side[k] = (struct side_call){(c->rtt_ns - c->compute_ns) * 1e-3,
                                             c->compute_ns * 1e-3, c->reply_ns * 1e-3,
                                             spin_was_slow(d, u->round, u->row[k]->cpu_start)};
    }
}

/* <<gather-a-rows-duet-sides>>, paper/68-model.md */
static void gather_duet_sides(const struct run_data *d, const char *arch, struct duet_sides *x)
{
    struct unit_view *units;
    size_t n = arch_units(d, arch, &units);
    struct side_call (*first)[2] = calloc(n > 0 ? n : 1, sizeof *first);
    double fastest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        unit_side_firsts(d, &units[i], first[i]);
        if (units[i].complete && units[i].duet)
            fastest = fmin(fastest, fmin(first[i][0].compute_us, first[i][1].compute_us));
    }
    for (size_t i = 0; i < n; i++) {
        const struct side_call *f = first[i];
        if (!units[i].complete || !units[i].duet || !(f[0].boundary_us > 0) ||
            !(f[1].boundary_us > 0))
            continue;
        doubles_push(&x->side[0], f[0].boundary_us);
        doubles_push(&x->side[1], f[1].boundary_us);
        doubles_push(&x->ratio, f[0].boundary_us / f[1].boundary_us);
        doubles_push(&x->apart, units[i].row[1]->start_s - units[i].row[0]->start_s);
        if (i > 0 && units[i].start_s > units[i - 1].end_s) {
            doubles_push(&x->left, units[i].start_s - units[i - 1].end_s);
            doubles_push(&x->left_ratio, f[0].boundary_us / f[1].boundary_us);
        }
        /* <<sort-a-units-sides-by-their-kernels-speed>>, paper/68-model.md */
        for (int k = 0; k < 2; k++) {
            int slowed = f[k].compute_us > FULL_SPEED * fastest;
            x->slowed += slowed;
            if (!slowed)
                doubles_push(&x->full[k], f[k].boundary_us);
            if (!isnan(f[k].reply_us))
                doubles_push(&x->reply[slowed], f[k].reply_us);
            if (f[k].spin >= 0) {
                x->spin_known[slowed]++;
                x->spin_slow[slowed] += f[k].spin;
            }
        }
    }
    free(first);
    free(units);
}

/* <<store-a-rows-duet-sides>>, paper/68-model.md */
static void store_duet_sides(const struct run_data *d, struct store *s, const char *arch,
                             const struct duet_sides *x)
{
    char key[KEY_SIZE];
    const char *unit = unit_name(d, arch);
    struct doubles longer = {0}, shorter = {0};
    /* a short run can leave a row no couple with both first calls: the
     * prose's choices on the sides must still find their flags */
    put_text(s, keyf(key, "first.%s.sides.measured", arch), x->ratio.n > 0 ? "yes" : "no");
    if (x->ratio.n == 0) {
        if (store_number(s, keyf(key, "first.%s.calls_per_run", arch)) == 1.0)
            put_text(s, keyf(key, "first.%s.slowed.measured", arch), "no");
        return;
    }
    put_estimate(s, keyf(key, "first.%s.first_side_us", arch), doubles_estimate(&x->side[0]), 1,
                 unit);
    put_estimate(s, keyf(key, "first.%s.second_side_us", arch), doubles_estimate(&x->side[1]),
                 1, unit);
    put_estimate(s, keyf(key, "first.%s.sides_ratio", arch), doubles_estimate(&x->ratio), 2, unit);
    put_estimate(s, keyf(key, "first.%s.sides_apart_s", arch), doubles_estimate(&x->apart), 2,
                 unit);
    /* <<store-a-rows-sides-at-full-speed>>, paper/68-model.md */
    /* only a row whose every call is a run's first has a whole sweep's
     * kernel in each side, long enough for the host's share to show in it */
    int sweeps = store_number(s, keyf(key, "first.%s.calls_per_run", arch)) == 1.0;
    if (sweeps)
        put_count(s, keyf(key, "first.%s.slowed_sides", arch), x->slowed);
    for (int k = 0; sweeps && k < 2 && x->full[0].n > 0 && x->full[1].n > 0; k++)
        put_estimate(s, keyf(key, "first.%s.%s_full_us", arch, k == 0 ? "first_side" : "second_side"),
                     doubles_estimate(&x->full[k]), 1, unit);
    int both = sweeps && x->reply[0].n > 0 && x->reply[1].n > 0;
    if (both) {
        struct estimate full = doubles_estimate(&x->reply[0]), slowed = doubles_estimate(&x->reply[1]);
        put_estimate(s, keyf(key, "first.%s.full_reply_us", arch), full, 1, unit);
        put_estimate(s, keyf(key, "first.%s.slowed_reply_us", arch), slowed, 1, unit);
        /* the prose sets one speed against the other only where their
         * intervals leave each other out */
        put_text(s, keyf(key, "first.%s.replies_apart", arch),
                 slowed.low > full.high || full.low > slowed.high ? "yes" : "no");
    }
    /* whether the prose can set the two speeds apart: a run on a host that
     * left its CPUs alone, or one without the replies timed, cannot */
    if (sweeps)
        put_text(s, keyf(key, "first.%s.slowed.measured", arch),
                 both && x->full[0].n > 0 && x->full[1].n > 0 ? "yes" : "no");
    /* <<store-a-rows-sides-beside-their-spins>>, paper/68-model.md */
    static const char *const SPEED[2] = {"full", "slowed"};
    for (int v = 0; sweeps && d->n_host > 0 && v < 2; v++) {
        put_count(s, keyf(key, "first.%s.spin_known.%s", arch, SPEED[v]), x->spin_known[v]);
        put_count(s, keyf(key, "first.%s.spin_slow.%s", arch, SPEED[v]), x->spin_slow[v]);
    }
    if (x->left.n > 0) {
        struct estimate left = doubles_estimate(&x->left);
        put_estimate(s, keyf(key, "first.%s.left_s", arch), left, 0, unit);
        for (size_t i = 0; i < x->left.n; i++)
            doubles_push(x->left.v[i] > left.value ? &longer : &shorter, x->left_ratio.v[i]);
    }
    /* one unit left, or every unit left as long, splits nothing */
    int split = longer.n > 0 && shorter.n > 0;
    put_text(s, keyf(key, "first.%s.left.measured", arch), split ? "yes" : "no");
    if (split) {
        struct estimate l = doubles_estimate(&longer), sh = doubles_estimate(&shorter);
        put_estimate(s, keyf(key, "first.%s.sides_ratio_left_longer", arch), l, 2, unit);
        put_estimate(s, keyf(key, "first.%s.sides_ratio_left_shorter", arch), sh, 2, unit);
        /* the prose sets the two against each other only where they are apart */
        put_text(s, keyf(key, "first.%s.left_apart", arch),
                 l.low > sh.high || sh.low > l.high ? "yes" : "no");
    }
    doubles_free(&longer);
    doubles_free(&shorter);
}

/* Each crossing row paired in duets: its two sides, set apart. */
static void summarize_duet_sides(const struct run_data *d, struct store *s)
{
    for (size_t a = 0; a < N_ARCH_ROWS; a++) {
        struct duet_sides x;
        if (ARCH_ROWS[a].transport == TRANSPORT_NONE)
            continue;
        memset(&x, 0, sizeof x);
        gather_duet_sides(d, ARCH_ROWS[a].name, &x);
        store_duet_sides(d, s, ARCH_ROWS[a].name, &x);
        doubles_free(&x.side[0]);
        doubles_free(&x.side[1]);
        doubles_free(&x.ratio);
        doubles_free(&x.left);
        doubles_free(&x.left_ratio);
        doubles_free(&x.apart);
        for (int k = 0; k < 2; k++) {
            doubles_free(&x.full[k]);
            doubles_free(&x.reply[k]);
        }
    }
}

/* <<model-inputs>>, paper/68-model.md */
struct call_inputs {
    double compute_us, request_bytes, reply_bytes, client_faults, engine_faults;
    double process_faults;             /* a spawned engine's, from its start to its end */
    double first_share;                /* of its calls, a run's first: 1 / calls per run */
    double left_us;                    /* how long a later call's request buffers were left */
    double round_share;                /* of its calls, the first its engine serves in a round */
    double partner_share;              /* of its time, the share its duet partner computes */
    struct estimate measured;          /* the row's boundary per call, with its interval */
};

/* Of a duet row's time, the share its partner computed beside it: over its
 * runs, the median of the partner run's seconds over the run's, at most 1;
 * none for a row run in turn, beside which nothing computes. */
static double partner_share(const struct run_data *d, const struct arch_row *row)
{
    struct doubles x = {0};
    for (size_t i = 0; row->pairing == PAIRING_DUET && i < d->n_runs; i++) {
        const struct run_row *r = &d->runs[i];
        if (strcmp(r->architecture, row->name) != 0 || strcmp(r->status, "ok") != 0 ||
            !(r->seconds > 0.0))
            continue;
        for (size_t j = 0; j < d->n_runs; j++)
            if ((double)d->runs[j].run == r->partner && strcmp(d->runs[j].status, "ok") == 0)
                doubles_push(&x, fmin(d->runs[j].seconds / r->seconds, 1.0));
    }
    double share = x.n > 0 ? doubles_estimate(&x).value : 0.0;
    doubles_free(&x);
    return share;
}

static int read_inputs(const struct run_data *d, const struct store *s,
                       const struct arch_row *row, struct call_inputs *in)
{
    const char *a = row->name;
    char key[KEY_SIZE];
    in->partner_share = partner_share(d, row);
    in->compute_us = value_of(s, keyf(key, "call.%s.compute_us", a));
    in->request_bytes = value_of(s, keyf(key, "call.%s.request_bytes", a));
    in->reply_bytes = value_of(s, keyf(key, "call.%s.reply_bytes", a));
    in->client_faults = value_of(s, keyf(key, "call.%s.client_faults", a));
    in->engine_faults = value_of(s, keyf(key, "call.%s.engine_faults", a));
    in->process_faults = store_number(s, keyf(key, "call.%s.faults", a));
    in->first_share = 1.0 / store_number(s, keyf(key, "first.%s.calls_per_run", a));
    /* a duet's two sides are two runs of one engine, seconds apart: only the
     * first side's first call meets what a round left */
    in->round_share = row->pairing == PAIRING_DUET ? in->first_share / 2.0 : in->first_share;
    /* a later call's request follows the connection's previous call, a
     * kernel ago; a duet's second side of one call a run follows the first
     * side's call, as far back as the sides started apart */
    double apart = value_of(s, keyf(key, "first.%s.sides_apart_s", a)) * 1e6;
    in->left_us = in->first_share >= 1.0 && apart > 0 ? apart : in->compute_us;
    /* A spawned sweep is measured in the call, over the persistent server's
     * (cross.spawn_over_persistent_us): its kernel's first touches are not
     * in that measure, and a sweep's time varies between units by more than
     * all of them, so it cannot test a price that includes them. */
    if (row->transport == TRANSPORT_SPAWN && row->grain == GRAIN_SWEEP)
        return -1;
    if (row->transport == TRANSPORT_SPAWN)
        keyf(key, "call.%s.over_warm_us", a);
    else
        keyf(key, "call.%s.per_call_us", a);
    in->measured = store_estimate(s, key);
    return in->measured.n > 0 && isfinite(in->request_bytes) ? 0 : -1;
}

/* <<model-terms>>, paper/68-model.md */
enum term { T_STATE, T_REPLY, T_BYTES, T_LANE, T_CODEC, T_FAULTS, T_HANDOVER, T_PROCESS,
            T_HOST, N_TERMS };
static const char *const TERM_NAMES[N_TERMS] = {"state", "reply", "bytes", "lane", "codec",
                                                 "faults", "handover", "process", "host"};
enum { PAGE_SIZE_BYTES = 4096 };       /* the probes' pages, as faults.csv counts them */

/* The share of a row's calls priced as a run's first, for the statistic
 * its measure takes: the median of a unit's calls, which is a later
 * call's when fewer than half are first (a run of 20 calls), a first
 * call's when more are (a run of one), and between them at one half. */
static double median_first_share(double first)
{
    return first < 0.5 ? 0.0 : first > 0.5 ? 1.0 : 0.5;
}

/* Where among the stretches a kernel lies: w of the way (in log time)
 * from stretch k to stretch k + 1, held at the ends. */
struct place {
    int k;
    double w;
};

/* The longest stretch client's probes follow: the sweep's where the run
 * made it, else the long one. */
static int last_stretch(const struct primitives *p, int client)
{
    return isfinite(p->stretch_us[2]) && isfinite(p->one[client][2].rtt) ? 2 : 1;
}

static double log_weight(double c, double lo, double hi)
{
    return !(c > lo) ? 0.0 : !(c < hi) ? 1.0 : log(c / lo) / log(hi / lo);
}

static struct place place_of(const struct primitives *p, int client, double c)
{
    int k = last_stretch(p, client) == 2 && c > p->stretch_us[1] ? 1 : 0;
    return (struct place){k, log_weight(c, p->stretch_us[k], p->stretch_us[k + 1])};
}

/* What the reply after a kernel at place g costs over the echo's. */
static double reply_after(const struct primitives *p, int client, struct place g)
{
    const double *r = &p->kernel_reply[client][g.k];
    return r[0] + g.w * (r[1] - r[0]);
}

/* w of the way from probe x[0] to x[1]: each phase between; at either end
 * that end alone, so that a probe the run did not make (NAN) at the other
 * end does not matter. */
static struct probe_phases between(const struct probe_phases x[2], double w)
{
    if (w <= 0.0)
        return x[0];
    if (w >= 1.0)
        return x[1];
    return (struct probe_phases){x[0].rtt + w * (x[1].rtt - x[0].rtt),
                                 x[0].encode + w * (x[1].encode - x[0].encode),
                                 x[0].request + w * (x[1].request - x[0].request),
                                 x[0].reply + w * (x[1].reply - x[0].reply),
                                 x[0].decode + w * (x[1].decode - x[0].decode)};
}

/* The probe of a payload at place g among the stretches' probes x. */
static struct probe_phases between_at(const struct probe_phases x[N_POINTS], struct place g)
{
    return between(&x[g.k], g.w);
}

/* The probe of a payload (x by stretch, `away` after the pause) a call of
 * c µs meets: among the stretches', and past the longest between it and
 * the away probe (an older run has none). */
static struct probe_phases payload_at(const struct primitives *p, int client,
                                      const struct probe_phases x[N_POINTS],
                                      struct probe_phases away, double c)
{
    int last = last_stretch(p, client);
    double hi = p->stretch_us[last];
    if (!(c > hi) || !(p->away_us > hi) || !isfinite(away.rtt))
        return between_at(x, place_of(p, client, c));
    struct probe_phases pair[2] = {x[last], away};
    return between(pair, log_weight(c, hi, p->away_us));
}

static struct probe_phases series_at(const struct primitives *p, int client, double c)
{
    return payload_at(p, client, p->series[client], p->away[client], c);
}

static struct probe_phases fifth_at(const struct primitives *p, int client, double c)
{
    return payload_at(p, client, p->fifth[client], p->away_fifth[client], c);
}

/* What a request meets: `first` of the calls (a run's first) the state a
 * round leaves, the rounds' away probe `round` (or, in an older run
 * without one, the longest-left probe it has, `fallback`), and the rest
 * the state after a kernel, `after`. */
static struct probe_phases request_state(struct probe_phases after, struct probe_phases round,
                                         struct probe_phases fallback, double first)
{
    struct probe_phases left = isfinite(round.rtt) ? round : fallback;
    if (!isfinite(left.rtt) || !(first > 0.0))
        return after;
    struct probe_phases pair[2] = {after, left};
    return between(pair, fmin(first, 1.0));
}

/* What b bytes each way cost over one double, in a state whose probes of
 * one double, the fifth and the series cost x1, x5 and xs: on the line
 * through the three, or straight from one double to the series where the
 * state has no fifth. */
static double along(const struct primitives *p, double x1, double x5, double xs, double b)
{
    double b5 = p->fifth_bytes, bs = p->series_bytes;
    if (!(b > 8.0))
        return 0.0;
    if (!isfinite(x5) || !(b5 > 8.0))
        return (xs - x1) * (b - 8.0) / (bs - 8.0);
    if (b <= b5)
        return (x5 - x1) * (b - 8.0) / (b5 - 8.0);
    return (x5 - x1) + (xs - x5) * (b - b5) / (bs - b5);
}

/* A call's bytes at the state's prices: out (with the engine's decoding)
 * at the request's, its buffers left `left` µs if not since a round, back
 * (with the engine's encoding) after the kernel of c µs. */
static double bytes_term(const struct primitives *p, int client, double c, double left,
                         double first, double out, double back)
{
    struct probe_phases one = between_at(p->one[client], place_of(p, client, c));
    struct probe_phases rep = series_at(p, client, c), rep5 = fifth_at(p, client, c);
    struct probe_phases one_left = between_at(p->one[client], place_of(p, client, left));
    struct probe_phases req = request_state(series_at(p, client, left), p->round_series,
                                            p->away[client], first);
    struct probe_phases one_req = request_state(one_left, p->round_one, one_left, first);
    /* a fifth where both states the request mixes have one, else none */
    struct probe_phases req5 = first > 0.0 && !isfinite(p->round_fifth.rtt)
                                   ? NO_PROBE
                                   : request_state(fifth_at(p, client, left), p->round_fifth,
                                                   p->round_fifth, first);
    return along(p, one_req.encode + one_req.request, req5.encode + req5.request,
                 req.encode + req.request, out) +
           along(p, one.reply + one.decode, rep5.reply + rep5.decode, rep.reply + rep.decode,
                 back) +
           along(p, one_req.decode, req5.decode, req.decode, out) +
           along(p, one.encode, rep5.encode, rep.encode, back);
}

static void predict(const struct store *s, const struct arch_row *row,
                    const struct primitives *p, const struct call_inputs *in,
                    double term[N_TERMS])
{
    int spawns = row->transport == TRANSPORT_SPAWN;
    struct place w = place_of(p, row->client, in->compute_us);
    double first = median_first_share(in->round_share);
    double out = in->request_bytes - 4.0, back = in->reply_bytes - 4.0;    /* length words off */
    double each_way = (out + back) / 2.0;
    for (int t = 0; t < N_TERMS; t++)
        term[t] = 0.0;
    /* a spawned call is measured over its warm twin: the crossing cancels */
    struct probe_phases one = between_at(p->one[row->client], w);
    /* a first call over shared memory meets what a round leaves on its own
     * lane, which wakes its ends by a futex, where the rounds measured it */
    int own_lane = row->transport == TRANSPORT_SHM_FUTEX && isfinite(p->round_shm_one.rtt);
    /* <<price-the-state-the-reply-and-the-bytes>>, paper/68-model.md */
    struct probe_phases round = own_lane ? p->round_shm_one : p->round_one;
    term[T_STATE] = spawns ? 0.0 : request_state(one, round, one, first).rtt;
    /* a later call's reply leaves straight from its kernel to a client that
     * waited through it, which the probe's echo, after that reply, does not
     * see; a first call's state is the round's probe, both ends left */
    term[T_REPLY] = spawns ? 0.0 : (1.0 - first) * reply_after(p, row->client, w);
    term[T_BYTES] = spawns ? 0.0 : bytes_term(p, row->client, in->compute_us, in->left_us, first,
                                               out, back);
    /* <<price-the-lane-and-the-codec>>, paper/68-model.md */
    if (spawns)
        term[T_LANE] = echo_fit_us(s, "c", "pipe", "raw", each_way) -
                       echo_fit_us(s, "c", "unix", "raw", each_way);
    else if (row->transport != TRANSPORT_UNIX)   /* the lane's own probe holds its floor */
        term[T_LANE] = echo_fit_us(s, "c", transport_name(row->transport), "protocol",
                                   each_way) -
                       echo_fit_us(s, "c", "unix", "protocol", each_way) -
                       (own_lane ? first * (echo_fit_us(s, "c", "shm_futex", "protocol", 0.0) -
                                            echo_fit_us(s, "c", "unix", "protocol", 0.0))
                                 : 0.0);
    if (row->encoding == ENCODING_JSON) {
        double share = fmin(in->request_bytes / p->json_bytes, 1.0);   /* JSON over JSON */
        /* beside a busy partner for the share of the row's time one computes */
        double f = isfinite(p->json_busy_us) ? in->partner_share : 0.0;
        term[T_CODEC] = share * ((1.0 - f) * (p->json_encode_us + p->json_decode_us) +
                                 (f > 0.0 ? f * p->json_busy_us : 0.0));   /* 0 x NAN is NAN */
    }
    /* <<price-first-touches-and-a-new-process>>, paper/68-model.md */
    /* a spawned engine's process touched its request's buffer before it
     * served, beyond a process that only starts and ends (an older run
     * without those counts: none apart) */
    double before = 0.0;
    if (spawns && isfinite(in->process_faults) && isfinite(p->exit_faults))
        before = fmax(in->process_faults - in->engine_faults - p->exit_faults, 0.0);
    /* an older run without the handing over prices those pages as the engine's */
    double before_us = isfinite(p->kernel_fault_us) ? p->kernel_fault_us : p->engine_fault_us;
    term[T_FAULTS] = in->client_faults * p->fault_us[row->client] +
                     in->engine_faults * p->engine_fault_us + before * before_us;
    double handed_out = fmin(in->client_faults, ceil(out / PAGE_SIZE_BYTES));
    term[T_HANDOVER] = isfinite(p->out_us) ? handed_out * p->out_us + before * p->in_us : 0.0;
    term[T_PROCESS] = spawns ? p->exit_us : 0.0;
}

/* <<model-break-even>>, paper/68-model.md */
/* The patterns the break-even figure shows: the naive kernel behind a Unix
 * socket, and a process per call finer than a sweep. */
static int break_even_pattern(const struct arch_row *row)
{
    return strcmp(row->kernel, "naive") == 0 &&
           (row->transport == TRANSPORT_UNIX ||
            (row->transport == TRANSPORT_SPAWN && row->grain != GRAIN_SWEEP));
}

static void write_break_even(struct store *s, const struct primitives *p)
{
    static const char *const header[] = {"label", "G", "share_pct", "low", "high"};
    char key[KEY_SIZE];
    struct csv_out out;
    struct place long_stretch = {0, 1.0};
    put_number(s, "cross.floor_us",
               p->one[CLIENT_C][1].rtt + reply_after(p, CLIENT_C, long_stretch), 1);
    if (figure_data_open(s, "breakeven.csv", &out, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *row = &ARCH_ROWS[i];
        double compute_us = value_of(s, keyf(key, "call.%s.compute_us", row->name));
        struct estimate share = store_estimate(s, keyf(key, "call.%s.share_pct", row->name));
        struct place w = place_of(p, row->client, compute_us);
        double price = between_at(p->one[row->client], w).rtt + reply_after(p, row->client, w);
        if (!break_even_pattern(row) || share.n == 0 || !(compute_us > 0) || !(price > 0))
            continue;
        put_rounded(s, keyf(key, "model.%s.g", row->name), compute_us / price);
        csv_out_text(&out, row->name);
        csv_out_double(&out, compute_us / price);
        csv_out_double(&out, share.value);
        csv_out_double(&out, share.low);
        csv_out_double(&out, share.high);
        csv_out_end_row(&out);
    }
    table_close(s, &out);
    const char *stateful = arch_like(CLIENT_C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_LOADED);
    const char *per_bar = arch_like(CLIENT_C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_BAR);
    put_number(s, "cross.g_per_combo", store_number(s, keyf(key, "model.%s.g", stateful)), 0);
    put_number(s, "cross.g_per_bar", store_number(s, keyf(key, "model.%s.g", per_bar)), 2);
}

/* <<model-spawn-alone>>, paper/68-model.md */
/* The row whose calls the spawn measurement repeats: an engine spawned per
 * combination, the naive kernel. */
static const struct arch_row *spawned_per_combo(void)
{
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (ARCH_ROWS[i].transport == TRANSPORT_SPAWN && ARCH_ROWS[i].grain == GRAIN_COMBO &&
            ARCH_ROWS[i].client == CLIENT_C)
            return &ARCH_ROWS[i];
    return NULL;
}

/* The medians over the spawn measurement's sweeps of the pages the engine
 * counted while it served and of those its whole process touched. */
static void sweep_faults(const struct run_data *d, double *engine, double *process)
{
    struct doubles e = {0}, p = {0};
    for (size_t i = 0; i < d->n_spawns; i++)
        if (strcmp(d->spawns[i].kind, "sweep") == 0) {
            doubles_push(&e, d->spawns[i].engine_minor_faults);
            doubles_push(&p, d->spawns[i].minor_faults);
        }
    *engine = e.n > 0 ? doubles_estimate(&e).value : NAN;
    *process = p.n > 0 ? doubles_estimate(&p).value : NAN;
    doubles_free(&e);
    doubles_free(&p);
}

static void price_the_spawn_alone(const struct run_data *d, struct store *s,
                                  const struct primitives *p)
{
    const struct arch_row *row = spawned_per_combo();
    struct estimate alone = store_estimate(s, "spawn.over_warm_ms");
    struct call_inputs in;
    if (row == NULL || alone.n == 0 || read_inputs(d, s, row, &in) != 0)
        return;
    sweep_faults(d, &in.engine_faults, &in.process_faults);
    in.client_faults = 0.0;            /* the client encodes into a buffer it keeps */
    double term[N_TERMS], predicted = 0.0;
    predict(s, row, p, &in, term);
    for (int k = 0; k < N_TERMS; k++)
        predicted += term[k];
    if (!isfinite(predicted))
        return;
    put_rounded(s, "model.spawn_alone.predicted_us", predicted);
    put_number(s, "model.spawn_alone.ratio", predicted / (alone.value * 1e3), 2);
}

/* <<model-band>>, paper/68-model.md */
static const double MODEL_BAND = 1.25;

/* <<a-miss-by-the-whole-interval>>, paper/68-model.md */
/* The prediction over every measurement the interval allows lies outside
 * the band on one side: the miss is resolved at this run's resolution. */
static int outside_by_its_interval(double predicted, struct estimate measured)
{
    if (!(measured.low > 0.0) || !(measured.high > 0.0))
        return 0;
    return predicted / measured.low < 1.0 / MODEL_BAND || predicted / measured.high > MODEL_BAND;
}

/* <<model-a-row-at-full-speed>>, paper/68-model.md */
/* A run's median kernel time per call (µs): its speed, since every run of
 * a row does the same work. NAN for a run with no timed call. */
static double run_kernel_us(const struct run_data *d, const struct run_row *run)
{
    struct doubles k = {0};
    for (size_t i = 0; run != NULL && i < d->n_calls; i++)
        if (d->calls[i].run == run->run && !isnan(d->calls[i].compute_ns))
            doubles_push(&k, d->calls[i].compute_ns * 1e-3);
    double median = k.n > 0 ? doubles_estimate(&k).value : NAN;
    doubles_free(&k);
    return median;
}

/* Each unit's runs' kernel times per call into speed[i] (the second NAN
 * but in a duet); returns the least of a complete unit's: the row's
 * fastest run. */
static double unit_kernels(const struct run_data *d, const struct unit_view *units, size_t n,
                           double (*speed)[2])
{
    double fastest = INFINITY;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            speed[i][k] = k == 0 || units[i].duet ? run_kernel_us(d, units[i].row[k]) : NAN;
            if (units[i].complete && speed[i][k] < fastest)
                fastest = speed[i][k];
        }
    return fastest;
}

/* The row's boundary per call over its complete units whose every run's
 * kernel ran within FULL_SPEED of the row's fastest run: the median of
 * those units' median calls, with its interval (n 0 where none did). The
 * units the host slowed are counted into *slowed. */
static struct estimate full_speed_measure(const struct run_data *d, const char *arch,
                                          long *slowed)
{
    struct unit_view *units;
    size_t n = arch_units(d, arch, &units);
    double (*speed)[2] = calloc(n > 0 ? n : 1, sizeof *speed);
    double fastest = unit_kernels(d, units, n, speed);
    struct doubles full = {0};
    *slowed = 0;
    for (size_t i = 0; i < n; i++) {
        struct unit_calls c;
        if (!units[i].complete || unit_calls(d, &units[i], &c) != 0)
            continue;
        int slow = speed[i][0] > FULL_SPEED * fastest || speed[i][1] > FULL_SPEED * fastest;
        *slowed += slow;
        if (!slow)
            doubles_push(&full, c.boundary_us);
    }
    struct estimate e = full.n > 0 ? doubles_estimate(&full) : (struct estimate){0};
    doubles_free(&full);
    free(speed);
    free(units);
    return e;
}

/* The row's price over its full-speed measure, stored; 1 within the band,
 * 0 outside it, -1 where the row is not so measured. *fewest keeps the
 * fewest full-speed units any row so measured rests on. */
static int price_at_full_speed(const struct run_data *d, struct store *s,
                               const struct arch_row *row, double predicted, long *fewest)
{
    char key[KEY_SIZE];
    long slowed = 0;
    if (row->transport == TRANSPORT_SPAWN)
        return -1;
    struct estimate full = full_speed_measure(d, row->name, &slowed);
    /* A short run can have no unit whose every run was at full speed. */
    put_text(s, keyf(key, "model.%s.full.measured", row->name), full.n > 0 ? "yes" : "no");
    if (full.n == 0)
        return -1;
    put_estimate(s, keyf(key, "model.%s.full_us", row->name), full, 1, unit_name(d, row->name));
    put_count(s, keyf(key, "model.%s.slowed_units", row->name), slowed);
    if (*fewest < 0 || (long)full.n < *fewest)
        *fewest = (long)full.n;
    double ratio = predicted / full.value;
    put_number(s, keyf(key, "model.%s.full_ratio", row->name), ratio, 2);
    return ratio >= 1.0 / MODEL_BAND && ratio <= MODEL_BAND;
}

/* <<model-the-hosts-share>>, paper/68-model.md */
/* How slowly a row's calls ran: per complete unit, the mean of its runs'
 * kernel times per call over the row's fastest run's; the median over the
 * units. NAN for a row with no kernel timed. */
static double row_slowing(const struct run_data *d, const char *arch)
{
    struct unit_view *units;
    size_t n = arch_units(d, arch, &units);
    double (*speed)[2] = calloc(n > 0 ? n : 1, sizeof *speed);
    double fastest = unit_kernels(d, units, n, speed);
    struct doubles x = {0};
    for (size_t i = 0; fastest > 0.0 && isfinite(fastest) && i < n; i++) {
        double sum = 0.0;
        int runs = 0;
        for (int k = 0; units[i].complete && k < 2; k++)
            if (isfinite(speed[i][k]))
                sum += speed[i][k] / fastest, runs++;
        if (runs > 0)
            doubles_push(&x, sum / runs);
    }
    double slowing = x.n > 0 ? doubles_estimate(&x).value : NAN;
    doubles_free(&x);
    free(speed);
    free(units);
    return slowing;
}

/* A stretch of one combination that the engine computed: the same work
 * in every probe that has one. */
static int engine_long_stretch(const struct state_row *r)
{
    return strcmp(r->stretch, "long") == 0 && r->stretch_ns > 0.0 &&
           (strcmp(r->state, "engine") == 0 || strcmp(r->state, "kernel") == 0 ||
            strcmp(r->state, "chain") == 0);
}

/* How slowly the probes ran: the median over the engine's long stretches
 * of each one's time over the run's fastest. NAN for a run without such
 * stretches. */
static double probe_slowing(const struct run_data *d)
{
    double fastest = INFINITY;
    for (size_t i = 0; i < d->n_states; i++)
        if (engine_long_stretch(&d->states[i]))
            fastest = fmin(fastest, d->states[i].stretch_ns);
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_states; i++)
        if (engine_long_stretch(&d->states[i]))
            doubles_push(&x, d->states[i].stretch_ns / fastest);
    double slowing = x.n > 0 ? doubles_estimate(&x).value : NAN;
    doubles_free(&x);
    return slowing;
}

/* The host's term of a row priced at `rest` on its probes' speed: rest
 * times the row's slowing over the probes', less one; 0 where either is
 * not known. The row's relative slowing is stored. */
static double host_term(const struct run_data *d, struct store *s, const struct arch_row *row,
                        double probes, double rest)
{
    char key[KEY_SIZE];
    double relative = row_slowing(d, row->name) / probes;
    if (!isfinite(relative) || !(relative > 0.0))
        return 0.0;
    put_number(s, keyf(key, "model.%s.slowing", row->name), relative, 2);
    return rest * (relative - 1.0);
}

/* <<model-price-each-side>>, paper/68-model.md */
/* Each side's price over its first calls, and over its full-speed ones. */
static void price_each_side(struct store *s, const struct arch_row *row,
                            const struct primitives *p, const struct call_inputs *in)
{
    static const char *const SIDE[2] = {"first_side", "second_side"};
    char key[KEY_SIZE];
    if (row->pairing != PAIRING_DUET || !(in->first_share >= 1.0) ||
        row->transport == TRANSPORT_SPAWN)
        return;
    for (int k = 0; k < 2; k++) {
        struct call_inputs side = *in;
        double term[N_TERMS], predicted = 0.0;
        double measured = value_of(s, keyf(key, "first.%s.%s_us", row->name, SIDE[k]));
        double full = value_of(s, keyf(key, "first.%s.%s_full_us", row->name, SIDE[k]));
        side.round_share = k == 0 ? 1.0 : 0.0;     /* a first call's state, or a later's */
        predict(s, row, p, &side, term);
        for (int t = 0; t < N_TERMS; t++)
            predicted += term[t];
        if (isfinite(predicted) && measured > 0)
            put_number(s, keyf(key, "model.%s.%s_ratio", row->name, SIDE[k]),
                       predicted / measured, 2);
        if (isfinite(predicted) && full > 0)
            put_number(s, keyf(key, "model.%s.%s_full_ratio", row->name, SIDE[k]),
                       predicted / full, 2);
    }
}

/* <<model-summary>>, paper/68-model.md */
static void model_row(struct csv_out *t, struct csv_out *f, const struct arch_row *row,
                      const double term[N_TERMS], double predicted, const struct call_inputs *in)
{
    char buf[200];
    double ratio = predicted / in->measured.value;
    csv_out_text(t, row->name);
    cell_rounded(t, predicted);
    csv_out_text(t, format_estimate(buf, in->measured, 1));
    cell_number(t, ratio, 2);
    for (int k = 0; k < N_TERMS; k++)
        cell_rounded(t, term[k]);
    csv_out_end_row(t);
    csv_out_text(f, row->name);
    csv_out_double(f, predicted);
    csv_out_double(f, in->measured.value);
    csv_out_double(f, in->measured.low);
    csv_out_double(f, in->measured.high);
    csv_out_double(f, MODEL_BAND);
    csv_out_end_row(f);
}

/* The row's measure over the model's price, and its share of the sweep over
 * the share that price predicts (1/(1+G), G its kernel's time over the
 * price): the estimates the model's claims test. The interval is the
 * measure's; the price is taken as exact. */
static void put_over_model(struct store *s, const struct arch_row *row,
                           const struct call_inputs *in, double predicted)
{
    char key[KEY_SIZE];
    const struct value *unit = store_get(s, keyf(key, "call.%s.per_call_us.unit", row->name));
    char unit_name[TEXT_SIZE];         /* a copy: putting values moves the store's */
    snprintf(unit_name, sizeof unit_name, "%s", unit != NULL ? unit->text : "units");
    struct estimate m = in->measured;
    put_estimate(s, keyf(key, "model.%s.over_model", row->name),
                 (struct estimate){m.n, m.value / predicted, m.low / predicted,
                                   m.high / predicted, m.coverage},
                 2, unit_name);
    struct estimate share = store_estimate(s, keyf(key, "call.%s.share_pct", row->name));
    double predicted_pct = 100.0 * predicted / (predicted + in->compute_us);
    if (share.n > 0 && predicted_pct > 0.0)
        put_estimate(s, keyf(key, "model.%s.share_over_model", row->name),
                     (struct estimate){share.n, share.value / predicted_pct,
                                       share.low / predicted_pct, share.high / predicted_pct,
                                       share.coverage},
                     2, unit_name);
}

/* Append name to a list of names, comma-separated, where it fits. */
static void name_into(char *list, size_t size, const char *name)
{
    size_t used = strlen(list);
    if (used + strlen(name) + 3 < size)
        snprintf(list + used, size - used, "%s%s", used > 0 ? ", " : "", name);
}

/* The row whose calls witness row's first calls: the same client and
 * encoding, a call per combination over a Unix socket; or NULL. */
static const struct arch_row *first_call_witness(const struct arch_row *row)
{
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *w = &ARCH_ROWS[i];
        if (w->client == row->client && w->encoding == row->encoding &&
            w->transport == TRANSPORT_UNIX && w->grain == GRAIN_COMBO)
            return w;
    }
    return NULL;
}

/* A row whose every call is a run's first, and that crosses a socket or
 * memory: its measure over the model's price beside its witness row's
 * first call over its later ones. */
static int first_check_row(struct store *s, struct csv_out *t, const struct arch_row *row,
                           const struct call_inputs *in, double predicted)
{
    char key[KEY_SIZE], buf[200];
    const struct arch_row *w = first_call_witness(row);
    if (!(in->first_share >= 1.0) || row->transport == TRANSPORT_SPAWN || w == NULL)
        return -1;
    struct estimate f = store_estimate(s, keyf(key, "first.%s.over_later", w->name));
    if (f.n == 0)
        return -1;
    double miss = in->measured.value / predicted;
    int inside = miss >= f.low && miss <= f.high;
    put_text(s, keyf(key, "model.%s.first_inside", row->name), inside ? "yes" : "no");
    csv_out_text(t, row->name);
    cell_number(t, miss, 2);
    csv_out_text(t, w->name);
    csv_out_text(t, format_estimate(buf, f, 2));
    csv_out_text(t, inside ? "yes" : "no");
    csv_out_end_row(t);
    return inside;
}

void summarize_model(const struct run_data *d, struct store *s)
{
    /* <<name-the-model-tables-columns>>, paper/68-model.md */
    static const char *const header[] = {"Architecture", "Predicted (µs)",
                                         "Measured (µs) [95% interval]", "Predicted / measured",
                                         "State", "From kernel", "Bytes", "Lane", "Codec", "Faults",
                                         "Handed over", "Process", "Host"};
    static const char *const figure_header[] = {"architecture", "predicted_us", "measured_us",
                                                "low", "high", "band"};
    static const char *const first_header[] = {"Architecture", "Measured / predicted",
                                               "Witness row", "Its first / later [95% interval]",
                                               "Inside"};
    struct primitives p;
    struct csv_out t, f, c;
    char key[KEY_SIZE];
    summarize_first_calls(d, s);
    summarize_duet_sides(d, s);
    read_primitives(s, d, &p);
    put_text(s, "model.every_primitive", every_primitive(s, &p) ? "yes" : "no");
    double probes = probe_slowing(d);
    if (isfinite(probes))
        put_number(s, "model.probe_slowing", probes, 2);
    /* <<open-the-model-tables>>, paper/68-model.md */
    if (d->n_states == 0 || table_open(s, "model", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (figure_data_open(s, "model.csv", &f, figure_header, CSV_COLUMNS(figure_header)) != 0) {
        csv_out_abandon(&t);
        return;
    }
    if (table_open(s, "first-check", &c, first_header, CSV_COLUMNS(first_header)) != 0) {
        csv_out_abandon(&t);
        csv_out_abandon(&f);
        return;
    }
    int rows = 0, within = 0, first_rows = 0, first_inside = 0, full_rows = 0, full_within = 0;
    char outside[TEXT_SIZE] = "";      /* the rows outside the band, by name */
    char full_outside[TEXT_SIZE] = ""; /* ... and at full speed */
    char resolved[TEXT_SIZE] = "";     /* ... outside by the whole of their interval */
    long fewest_full = -1;             /* the fewest full-speed units of a row */
    double worst = 1.0;
    const char *worst_name = "none";
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *row = &ARCH_ROWS[i];
        struct call_inputs in;
        double term[N_TERMS], predicted = 0.0;
        /* <<price-a-row-by-the-model>>, paper/68-model.md */
        if (row->transport == TRANSPORT_NONE || read_inputs(d, s, row, &in) != 0)
            continue;
        predict(s, row, &p, &in, term);
        for (int k = 0; k < N_TERMS; k++)
            predicted += term[k];
        if (!isfinite(predicted))
            continue;
        double at_probes = predicted;          /* the price at the probes' speed */
        term[T_HOST] = host_term(d, s, row, probes, at_probes);
        predicted += term[T_HOST];
        model_row(&t, &f, row, term, predicted, &in);
        double ratio = predicted / in.measured.value;
        /* <<store-a-rows-prediction>>, paper/68-model.md */
        put_rounded(s, keyf(key, "model.%s.predicted_us", row->name), predicted);
        put_number(s, keyf(key, "model.%s.ratio", row->name), ratio, 2);
        put_over_model(s, row, &in, predicted);
        price_each_side(s, row, &p, &in);
        int full_near = price_at_full_speed(d, s, row, at_probes, &fewest_full);
        for (int k = 0; k < N_TERMS; k++)
            put_rounded(s, keyf(key, "model.%s.%s_us", row->name, TERM_NAMES[k]), term[k]);
        /* <<count-the-rows-near-their-measure>>, paper/68-model.md */
        rows++;
        int near = ratio >= 1.0 / MODEL_BAND && ratio <= MODEL_BAND;
        within += near;
        if (!near)
            name_into(outside, sizeof outside, row->name);
        if (!near && outside_by_its_interval(predicted, in.measured))
            name_into(resolved, sizeof resolved, row->name);
        full_rows += full_near >= 0;
        full_within += full_near > 0;
        if (full_near == 0)
            name_into(full_outside, sizeof full_outside, row->name);
        int inside = first_check_row(s, &c, row, &in, predicted);
        first_rows += inside >= 0;
        first_inside += inside > 0;
        if (fabs(log(ratio)) > fabs(log(worst)))
            worst = ratio, worst_name = row->name;
    }
    /* <<close-the-model-tables-and-store-the-counts>>, paper/68-model.md */
    table_close(s, &t);
    table_close(s, &f);
    table_close(s, &c);
    put_count(s, "model.first_rows", first_rows);
    put_count(s, "model.first_inside", first_inside);
    write_break_even(s, &p);
    price_the_spawn_alone(d, s, &p);
    put_count(s, "model.rows", rows);
    put_count(s, "model.within", within);
    put_count(s, "model.full.rows", full_rows);
    put_count(s, "model.full.within", full_within);
    put_number(s, "model.band", MODEL_BAND, 2);
    put_number(s, "model.worst.ratio", worst, 2);
    put_text(s, "model.worst.architecture", worst_name);
    put_names(s, "model.outside", outside);
    put_names(s, "model.full.outside", full_outside);
    put_names(s, "model.outside_resolved", resolved);
    put_text(s, "model.any_outside", within < rows ? "yes" : "no");
    put_text(s, "model.full.measured", fewest_full >= 0 ? "yes" : "no");
    if (fewest_full >= 0)
        put_count(s, "model.full.fewest_units", fewest_full);
}
