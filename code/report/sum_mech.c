/*
 * sum_mech.c - what a crossing meets, read back pass by pass: the price of
 * each state over the hot echo, and of a first touch in each role.
 *
 * Tangled from paper/67-mechanisms.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

/* <<mechanisms-by-pass>>, paper/67-mechanisms.md */
enum { MAX_PASSES = MAX_MECH_PASSES };   /* states.csv's pass column holds no more */

/* A probe's payload: one double, the series, or its first fifth (a run's
 * bars over five doubles; any other count above one is the series, as in
 * a run made before the fifth). */
enum { ONE, SERIES, FIFTH, N_PAYLOADS };
static const char *const PAYLOADS[N_PAYLOADS] = {"one", "series", "fifth"};

struct probe {
    const char *client, *state, *stretch, *partner;
    int payload;
};

static double fifth_floats(const struct run_data *d)
{
    return floor(kv_number(&d->run, "bars") / 5.0);
}

/* The payload of an echo of `floats` doubles each way. */
static int payload_of(const struct run_data *d, double floats)
{
    return floats <= 1 ? ONE : floats == fifth_floats(d) ? FIFTH : SERIES;
}

/* The field at `field` (a time, in ns) of the probe's row in each pass, in µs. */
static void probe_by_pass(const struct run_data *d, const struct probe *p, size_t field,
                          double by_pass[MAX_PASSES])
{
    for (size_t k = 0; k < MAX_PASSES; k++)
        by_pass[k] = NAN;
    for (size_t i = 0; i < d->n_states; i++) {
        const struct state_row *r = &d->states[i];
        int payload = payload_of(d, r->floats);
        if (r->pass < 1 || r->pass >= MAX_PASSES || strcmp(r->client, p->client) != 0 ||
            strcmp(r->state, p->state) != 0 || strcmp(r->stretch, p->stretch) != 0 ||
            strcmp(r->partner, p->partner) != 0 || payload != p->payload)
            continue;
        by_pass[r->pass] = *(const double *)((const char *)r + field) * 1e-3;
    }
}

/* The finite values of by_pass (less `minus`, pass by pass, when given). */
static struct estimate over_passes(const double *by_pass, const double *minus)
{
    double v[MAX_PASSES];
    size_t n = 0;
    for (size_t k = 0; k < MAX_PASSES; k++) {
        double x = by_pass[k] - (minus != NULL ? minus[k] : 0.0);
        if (isfinite(x))
            v[n++] = x;
    }
    return estimate_median(v, n);
}

/* <<mechanisms-states>>, paper/67-mechanisms.md */
struct probe_field {
    const char *name;
    size_t at;
};

static const struct probe_field PROBE_FIELDS[] = {
    {"rtt_us", offsetof(struct state_row, rtt_ns)},
    {"request_us", offsetof(struct state_row, request_ns)},
    {"reply_us", offsetof(struct state_row, reply_ns)},
    {"encode_us", offsetof(struct state_row, encode_ns)},
    {"decode_us", offsetof(struct state_row, decode_ns)},
    {"stretch_us", offsetof(struct state_row, stretch_ns)},
};

static void probe_row(struct csv_out *t, const struct probe *p, struct estimate rtt,
                      struct estimate extra)
{
    char buf[200];
    csv_out_text(t, p->client);
    csv_out_text(t, p->state);
    csv_out_text(t, p->stretch);
    csv_out_text(t, p->partner);
    static const char *const label[N_PAYLOADS] = {"one double", "the series",
                                                  "a fifth of the series"};
    csv_out_text(t, label[p->payload]);
    csv_out_text(t, format_estimate(buf, rtt, 1));
    csv_out_text(t, extra.n > 0 ? format_estimate(buf, extra, 1) : "");
    csv_out_end_row(t);
}

/* <<price-the-fifth-against-the-line>>, paper/67-mechanisms.md */
static void price_the_fifth_against_the_line(const struct run_data *d, struct store *s,
                                             const struct probe *p)
{
    double fifth[MAX_PASSES], one[MAX_PASSES], series[MAX_PASSES], over[MAX_PASSES];
    double bars = kv_number(&d->run, "bars"), share = (fifth_floats(d) - 1.0) / (bars - 1.0);
    char key[KEY_SIZE];
    struct probe q = *p;
    probe_by_pass(d, p, offsetof(struct state_row, rtt_ns), fifth);
    q.payload = ONE;
    probe_by_pass(d, &q, offsetof(struct state_row, rtt_ns), one);
    q.payload = SERIES;
    probe_by_pass(d, &q, offsetof(struct state_row, rtt_ns), series);
    for (size_t k = 0; k < MAX_PASSES; k++)
        over[k] = fifth[k] / (one[k] + share * (series[k] - one[k]));
    struct estimate e = over_passes(over, NULL);
    if (e.n > 0)
        put_estimate(s, keyf(key, "mech.%s.%s.%s.%s.fifth.over_line", p->client, p->state,
                             p->stretch, p->partner), e, 2, "passes");
}

static void summarize_probe(const struct run_data *d, struct store *s, const struct probe *p,
                            struct csv_out *t)
{
    struct estimate rtt = {0, NAN, NAN, NAN, 0.0}, extra = rtt;
    double value[MAX_PASSES], hot[MAX_PASSES];   /* on the stack: summaries run side by side */
    char key[KEY_SIZE];
    const char *payload = PAYLOADS[p->payload];
    struct probe h = {p->client, "hot", "none", p->partner, p->payload};
    for (size_t f = 0; f < sizeof PROBE_FIELDS / sizeof PROBE_FIELDS[0]; f++) {
        probe_by_pass(d, p, PROBE_FIELDS[f].at, value);
        struct estimate e = over_passes(value, NULL);
        if (e.n == 0)
            continue;
        put_estimate(s, keyf(key, "mech.%s.%s.%s.%s.%s.%s", p->client, p->state, p->stretch,
                             p->partner, payload, PROBE_FIELDS[f].name), e, 1, "passes");
        if (f != 0)
            continue;
        rtt = e;
        if (strcmp(p->state, "hot") == 0)
            continue;
        probe_by_pass(d, &h, PROBE_FIELDS[f].at, hot);
        extra = over_passes(value, hot);
        put_estimate(s, keyf(key, "mech.%s.%s.%s.%s.%s.extra_us", p->client, p->state,
                             p->stretch, p->partner, payload), extra, 1, "passes");
    }
    if (rtt.n > 0 && p->payload == FIFTH)
        price_the_fifth_against_the_line(d, s, p);
    if (rtt.n > 0 && t != NULL && p->payload != FIFTH)   /* the fifth: its line, below */
        probe_row(t, p, rtt, extra);
}

static void summarize_round_away(const struct run_data *d, struct store *s,
                                 struct csv_out *t);   /* the rounds' probes, below */
static void summarize_kernel_calls(const struct run_data *d, struct store *s);   /* below */

static void summarize_states(const struct run_data *d, struct store *s)
{
    static const char *const clients[] = {"c", "python"};
    static const char *const states[] = {"engine", "client", "idle"};
    static const char *const stretches[] = {"short", "long", "away", "sweep"};
    static const char *const partners[] = {"busy", "idle"};
    static const char *const header[] = {"Client", "After", "Stretch", "Other CPU", "Echo of",
                                         "Round trip (µs) [95% interval]",
                                         "Over the hot echo (µs) [95% interval]"};
    struct csv_out table, *t = &table;
    if (table_open(s, "mechanisms", &table, header, CSV_COLUMNS(header)) != 0)
        t = NULL;
    for (int cl = 0; cl < 2; cl++)
        for (int pa = 0; pa < 2; pa++)
            for (int payload = 0; payload < N_PAYLOADS; payload++) {
                summarize_probe(d, s, &(struct probe){clients[cl], "hot", "none", partners[pa],
                                                      payload}, t);
                for (int st = 0; st < 3; st++)
                    for (int sr = 0; sr < 4; sr++)
                        summarize_probe(d, s, &(struct probe){clients[cl], states[st],
                                                              stretches[sr], partners[pa],
                                                              payload}, t);
            }
    put_text(s, "mech.fifth.measured",
             isfinite(store_number(s, "mech.c.engine.long.busy.fifth.over_line")) ? "yes" : "no");
    put_text(s, "mech.sweep.measured",
             isfinite(store_number(s, "mech.c.engine.sweep.busy.fifth.over_line")) ? "yes" : "no");
    summarize_round_away(d, s, t);
    if (t != NULL)
        table_close(s, t);
    summarize_kernel_calls(d, s);
}

/* <<mechanisms-a-round-away>>, paper/67-mechanisms.md */
static const struct probe_field ROUND_FIELDS[] = {
    {"rtt_us", offsetof(struct witness_row, rtt_ns)},
    {"request_us", offsetof(struct witness_row, request_ns)},
    {"reply_us", offsetof(struct witness_row, reply_ns)},
    {"encode_us", offsetof(struct witness_row, encode_ns)},
    {"decode_us", offsetof(struct witness_row, decode_ns)},
    {"engine_decode_us", offsetof(struct witness_row, engine_decode_ns)},
};

/* The rounds' away probes: the witnesses' kind, the payload, the key's name. */
static const struct round_probe {
    const char *kind;
    int payload;
    const char *name, *stretch;        /* in the keys, and in the table */
} ROUND_PROBES[] = {{"away", ONE, "one", "round"},
                    {"away", SERIES, "series", "round"},
                    {"away-shm", ONE, "shm_one", "round (shm)"},
                    {"away-mid", ONE, "mid_one", "mid-round"},
                    {"away-mid", SERIES, "mid_series", "mid-round"},
                    {"load-mid", FIFTH, "mid_load", "mid-round (load)"}};

static void summarize_round_away(const struct run_data *d, struct store *s, struct csv_out *t)
{
    char key[KEY_SIZE];
    long rounds = 0;
    for (size_t p = 0; p < sizeof ROUND_PROBES / sizeof ROUND_PROBES[0]; p++) {
        const struct round_probe *rp = &ROUND_PROBES[p];
        struct estimate rtt = {0, NAN, NAN, NAN, 0.0};
        for (size_t f = 0; f < sizeof ROUND_FIELDS / sizeof ROUND_FIELDS[0]; f++) {
            struct doubles v = {0};
            for (size_t i = 0; i < d->n_witnesses; i++) {
                const struct witness_row *w = &d->witnesses[i];
                double x = *(const double *)((const char *)w + ROUND_FIELDS[f].at);
                if (strcmp(w->kind, rp->kind) == 0 && w->round >= 2 &&
                    payload_of(d, w->floats) == rp->payload && isfinite(x))
                    doubles_push(&v, x * 1e-3);
            }
            struct estimate e = doubles_estimate(&v);
            if (e.n > 0)
                put_estimate(s, keyf(key, "mech.round.%s.%s", rp->name, ROUND_FIELDS[f].name),
                             e, 1, "rounds");
            if (f == 0)
                rtt = e, rounds = (long)e.n > rounds ? (long)e.n : rounds;
            doubles_free(&v);
        }
        if (rtt.n > 0 && t != NULL)
            probe_row(t, &(struct probe){"c", "idle", rp->stretch, "idle", rp->payload}, rtt,
                      (struct estimate){0, NAN, NAN, NAN, 0.0});
    }
    if (rounds > 0)
        put_count(s, "mech.round.rounds", (double)rounds);
    put_text(s, "mech.round.mid_load.measured",
             isfinite(store_number(s, "mech.round.mid_load.rtt_us")) ? "yes" : "no");
}

/* <<mechanisms-kernel-calls>>, paper/67-mechanisms.md */
static const size_t NO_FIELD = (size_t)-1;

/* Each pass's median over the probe's calls there of field (a time, in ns)
 * less `minus` (NO_FIELD: nothing), in µs; NAN for a pass without one. */
static void calls_by_pass(const struct run_data *d, const struct probe *p, size_t field,
                          size_t minus, double by_pass[MAX_PASSES])
{
    struct doubles v = {0};
    for (size_t k = 0; k < MAX_PASSES; k++) {
        by_pass[k] = NAN;
        v.n = 0;
        for (size_t i = 0; i < d->n_states; i++) {
            const struct state_row *r = &d->states[i];
            if ((size_t)r->pass != k || strcmp(r->client, p->client) != 0 ||
                strcmp(r->state, p->state) != 0 || strcmp(r->stretch, p->stretch) != 0 ||
                strcmp(r->partner, p->partner) != 0)
                continue;
            double x = *(const double *)((const char *)r + field);
            if (minus != NO_FIELD)
                x -= *(const double *)((const char *)r + minus);
            if (isfinite(x))
                doubles_push(&v, x * 1e-3);
        }
        if (v.n > 0)
            by_pass[k] = doubles_estimate(&v).value;
    }
    doubles_free(&v);
}

static void summarize_kernel_calls(const struct run_data *d, struct store *s)
{
    static const char *const clients[] = {"c", "python"};
    static const char *const stretches[] = {"short", "long", "sweep"};
    static const char *const kinds[] = {"kernel", "chain"};
    double v[MAX_PASSES], echo[MAX_PASSES];
    char key[KEY_SIZE];
    for (int cl = 0; cl < 2; cl++)
        for (int sr = 0; sr < 3; sr++)
            for (int kd = 0; kd < 2; kd++) {
                const char *c = clients[cl], *st = stretches[sr], *kind = kinds[kd];
                struct probe k = {c, kind, st, "busy", 0};
                struct probe e = {c, "engine", st, "busy", 0};
                calls_by_pass(d, &k, offsetof(struct state_row, rtt_ns),
                              offsetof(struct state_row, compute_ns), v);
                struct estimate b = over_passes(v, NULL);
                if (b.n == 0)
                    continue;
                put_estimate(s, keyf(key, "mech.%s.%s.%s.boundary_us", c, kind, st), b, 1,
                             "passes");
                calls_by_pass(d, &k, offsetof(struct state_row, request_ns), NO_FIELD, v);
                put_estimate(s, keyf(key, "mech.%s.%s.%s.request_us", c, kind, st),
                             over_passes(v, NULL), 1, "passes");
                calls_by_pass(d, &k, offsetof(struct state_row, reply_ns), NO_FIELD, v);
                put_estimate(s, keyf(key, "mech.%s.%s.%s.reply_us", c, kind, st),
                             over_passes(v, NULL), 1, "passes");
                probe_by_pass(d, &e, offsetof(struct state_row, reply_ns), echo);
                put_estimate(s, keyf(key, "mech.%s.%s.%s.reply_over_echo_us", c, kind, st),
                             over_passes(v, echo), 1, "passes");
                calls_by_pass(d, &k, offsetof(struct state_row, rtt_ns),
                              offsetof(struct state_row, compute_ns), v);
                probe_by_pass(d, &e, offsetof(struct state_row, rtt_ns), echo);
                put_estimate(s, keyf(key, "mech.%s.%s.%s.over_echo_us", c, kind, st),
                             over_passes(v, echo), 1, "passes");
            }
}

/* <<mechanisms-a-page-left-a-round>>, paper/67-mechanisms.md */
static const struct witness_row *witness_of(const struct run_data *d, const char *kind,
                                            long round, long seq)
{
    for (size_t i = 0; i < d->n_witnesses; i++)
        if (strcmp(d->witnesses[i].kind, kind) == 0 && d->witnesses[i].round == round &&
            d->witnesses[i].seq == seq)
            return &d->witnesses[i];
    return NULL;
}

static void summarize_retouch(const struct run_data *d, struct store *s)
{
    struct doubles extra = {0}, faults = {0};
    double pages = 0.0;
    for (size_t i = 0; i < d->n_witnesses; i++) {
        const struct witness_row *w = &d->witnesses[i], *hot;
        if (strcmp(w->kind, "retouch") != 0 || w->seq != 1 || w->round < 2 ||
            (hot = witness_of(d, "retouch", w->round, 2)) == NULL || !isfinite(w->rtt_ns))
            continue;
        pages = ceil((double)w->floats * sizeof(double) / 4096.0);
        doubles_push(&extra, (w->rtt_ns - hot->rtt_ns) * 1e-3 / pages);
        if (isfinite(w->client_minor_faults))
            doubles_push(&faults, w->client_minor_faults);
    }
    struct estimate e = doubles_estimate(&extra), f = doubles_estimate(&faults);
    double over = store_number(s, "mech.round.series.rtt_us") -
                  store_number(s, "mech.c.hot.none.busy.series.rtt_us");
    int measured = e.n > 0 && f.n > 0 && isfinite(over) && over > 0.0;
    /* an older run has no retouch probe: said once, and its sentence left out */
    put_text(s, "mech.round.retouch.measured", measured ? "yes" : "no");
    if (measured) {
        put_estimate(s, "mech.round.retouch.extra_us_per_page", e, 3, "rounds");
        put_count(s, "mech.round.retouch.pages", pages);
        put_number(s, "mech.round.retouch.share_of_series_pct", 100.0 * pages * e.value / over, 0);
        put_number(s, "mech.round.retouch.faults", f.value, 0);
    }
    doubles_free(&extra);
    doubles_free(&faults);
}

/* <<mechanisms-the-middle-of-a-round>>, paper/67-mechanisms.md */
/* The series away probe's row of a set in a round, whatever its place. */
static const struct witness_row *series_probe(const struct run_data *d, const char *kind,
                                              long round)
{
    for (size_t i = 0; i < d->n_witnesses; i++) {
        const struct witness_row *w = &d->witnesses[i];
        if (strcmp(w->kind, kind) == 0 && w->round == round && payload_of(d, w->floats) == SERIES)
            return w;
    }
    return NULL;
}

static void summarize_middle(const struct run_data *d, struct store *s)
{
    struct doubles request = {0}, page = {0};
    for (long round = 2; round <= MAX_ROUNDS; round++) {
        const struct witness_row *start = series_probe(d, "away", round),
                                 *mid = series_probe(d, "away-mid", round);
        if (start == NULL)
            break;
        if (mid != NULL && start->request_ns > 0.0 && isfinite(mid->request_ns))
            doubles_push(&request, mid->request_ns / start->request_ns);
        const struct witness_row *a = witness_of(d, "retouch-mid", round, 1),
                                 *b = witness_of(d, "retouch-mid", round, 2);
        if (a != NULL && b != NULL && a->floats > 0)
            doubles_push(&page, (a->rtt_ns - b->rtt_ns) * 1e-3 /
                                    ceil((double)a->floats * sizeof(double) / 4096.0));
    }
    put_text(s, "mech.round.mid.measured", request.n > 0 && page.n > 0 ? "yes" : "no");
    if (request.n > 0 && page.n > 0) {
        put_estimate(s, "mech.round.mid.series_request_over_start", doubles_estimate(&request),
                     2, "rounds");
        put_estimate(s, "mech.round.mid.retouch_extra_us_per_page", doubles_estimate(&page), 3,
                     "rounds");
    }
    doubles_free(&request);
    doubles_free(&page);
}

/* <<mechanisms-a-page-left-a-unit>>, paper/67-mechanisms.md */
/* A round's passes of the unit retouch probe: age (s) and price (µs a page). */
struct aged_pass {
    double age_s, us_per_page;
};

/* The pairs of a round's passes with a price above zero: the median of
 * the slopes of log price against log age; NAN for fewer than two. */
static double age_slope(const struct aged_pass *p, size_t n)
{
    struct doubles slopes = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (p[i].us_per_page > 0.0 && p[j].us_per_page > 0.0 && p[i].age_s != p[j].age_s)
                doubles_push(&slopes, (log(p[j].us_per_page) - log(p[i].us_per_page)) /
                                          (log(p[j].age_s) - log(p[i].age_s)));
    double slope = slopes.n > 0 ? doubles_estimate(&slopes).value : NAN;
    doubles_free(&slopes);
    return slope;
}

static int by_age(const void *a, const void *b)
{
    double x = ((const struct aged_pass *)a)->age_s, y = ((const struct aged_pass *)b)->age_s;
    return (x > y) - (x < y);
}

/* <<mechanisms-the-passes-of-a-round>>, paper/67-mechanisms.md */
static int is_unit_pass(const struct witness_row *w, int seq)
{
    return w->seq == seq && strcmp(w->kind, "retouch-unit") == 0;
}

/* The hot pass of run's unit retouch; NULL if none. */
static const struct witness_row *unit_hot_pass(const struct run_data *d, long run)
{
    for (size_t i = 0; i < d->n_witnesses; i++)
        if (d->witnesses[i].run == run && is_unit_pass(&d->witnesses[i], 2))
            return &d->witnesses[i];
    return NULL;
}

/* The latest start (s) of a hot unit pass before t; NAN if none. */
static double hot_pass_before(const struct run_data *d, double t)
{
    double latest = NAN;
    for (size_t i = 0; i < d->n_witnesses; i++) {
        const struct witness_row *w = &d->witnesses[i];
        if (is_unit_pass(w, 2) && w->start_s < t && !(w->start_s <= latest))
            latest = w->start_s;
    }
    return latest;
}

/* The round's unit passes with an age, into *out (to be freed); their count. */
static size_t aged_passes(const struct run_data *d, long round, struct aged_pass **out)
{
    size_t n = 0;
    *out = malloc((d->n_witnesses + 1) * sizeof **out);
    for (size_t i = 0; *out != NULL && i < d->n_witnesses; i++) {
        const struct witness_row *w = &d->witnesses[i], *hot;
        if (w->round != round || !is_unit_pass(w, 1) || w->floats <= 0 ||
            (hot = unit_hot_pass(d, w->run)) == NULL)
            continue;
        double before = hot_pass_before(d, w->start_s);
        if (!isfinite(before) || !isfinite(w->rtt_ns) || !isfinite(hot->rtt_ns))
            continue;                          /* the run's first: after the allocation */
        (*out)[n].age_s = w->start_s - before;
        (*out)[n].us_per_page =
            (w->rtt_ns - hot->rtt_ns) * 1e-3 / ceil((double)w->floats * sizeof(double) / 4096.0);
        n++;
    }
    return n;
}

static void summarize_ages(const struct run_data *d, struct store *s)
{
    struct doubles half[2][2] = {{{0}}}, slope = {0};  /* [younger, older][age, price] */
    double passes = 0.0;
    for (long round = 1; round <= MAX_ROUNDS; round++) {
        struct aged_pass *p = NULL;
        size_t n = aged_passes(d, round, &p);
        if (n >= 2) {
            qsort(p, n, sizeof *p, by_age);
            /* <<mechanisms-split-a-round-at-its-median-age>>, paper/67-mechanisms.md */
            for (int h = 0; h < 2; h++) {
                struct doubles age = {0}, price = {0};
                for (size_t i = h == 0 ? 0 : (n + 1) / 2; i < (h == 0 ? n / 2 : n); i++) {
                    doubles_push(&age, p[i].age_s);
                    doubles_push(&price, p[i].us_per_page);
                }
                doubles_push(&half[h][0], doubles_estimate(&age).value);
                doubles_push(&half[h][1], doubles_estimate(&price).value);
                doubles_free(&age);
                doubles_free(&price);
            }
            double b = age_slope(p, n);
            if (isfinite(b))
                doubles_push(&slope, b);
        }
        passes += (double)n;
        free(p);
    }
    int measured = slope.n > 0;
    /* a run made before the probe: said once, and its sentence left out */
    put_text(s, "mech.age.measured", measured ? "yes" : "no");
    if (measured) {
        static const char *const name[2] = {"young", "old"};
        char key[KEY_SIZE];
        put_count(s, "mech.age.passes", passes);
        for (int h = 0; h < 2; h++) {
            put_estimate(s, keyf(key, "mech.age.%s_s", name[h]), doubles_estimate(&half[h][0]),
                         1, "rounds");
            put_estimate(s, keyf(key, "mech.age.%s_us_per_page", name[h]),
                         doubles_estimate(&half[h][1]), 3, "rounds");
        }
        put_estimate(s, "mech.age.slope", doubles_estimate(&slope), 2, "rounds");
    }
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 2; k++)
            doubles_free(&half[h][k]);
    doubles_free(&slope);
}

/* <<mechanisms-faults>>, paper/67-mechanisms.md */
/* The median over passes of (step - again) / count, where count is the
 * step's faults (per_fault) or its pages; an empty estimate if no pass
 * has both rows. */
static struct estimate pair_price(const struct run_data *d, const char *role, const char *step,
                                  const char *again_step, int per_fault)
{
    struct doubles price = {0};
    for (size_t i = 0; i < d->n_faults; i++) {
        const struct fault_row *a = &d->faults[i];
        double count = per_fault ? a->minor_faults : a->pages;
        if (strcmp(a->role, role) != 0 || strcmp(a->touch, step) != 0 || !(count > 0))
            continue;
        for (size_t j = 0; j < d->n_faults; j++) {
            const struct fault_row *b = &d->faults[j];
            if (b->pass == a->pass && strcmp(b->role, role) == 0 &&
                strcmp(b->touch, again_step) == 0)
                doubles_push(&price, (a->ns - b->ns) * 1e-3 / count);
        }
    }
    struct estimate e = doubles_estimate(&price);
    doubles_free(&price);
    return e;
}

static void summarize_fault_role(const struct run_data *d, struct store *s, const char *role)
{
    struct doubles faults = {0};
    char key[KEY_SIZE];
    struct estimate e = pair_price(d, role, "first", "again", 1);
    for (size_t i = 0; i < d->n_faults; i++)
        if (strcmp(d->faults[i].role, role) == 0 && strcmp(d->faults[i].touch, "first") == 0 &&
            d->faults[i].minor_faults > 0)
            doubles_push(&faults, d->faults[i].minor_faults);
    if (e.n > 0) {
        put_estimate(s, keyf(key, "mech.fault.%s.us_per_fault", role), e, 2, "passes");
        put_count(s, keyf(key, "mech.fault.%s.faults", role), doubles_estimate(&faults).value);
    }
    doubles_free(&faults);
}

/* The C probe's handing over: a page's first copy by the kernel out of
 * what the process touched first, the process's first read of what the
 * kernel faulted in, and a fault taken by the kernel's copy in. */
static void summarize_handover(const struct run_data *d, struct store *s)
{
    struct estimate out = pair_price(d, "c", "copy-out", "copy-out-again", 0);
    struct estimate in = pair_price(d, "c", "read-in", "read-in-again", 0);
    struct estimate by_kernel = pair_price(d, "c", "copy-in", "copy-out-again", 1);
    put_text(s, "mech.handover.measured", out.n > 0 && in.n > 0 ? "yes" : "no");
    if (out.n == 0 || in.n == 0)
        return;
    put_estimate(s, "mech.handover.out_us_per_page", out, 2, "passes");
    put_estimate(s, "mech.handover.in_us_per_page", in, 2, "passes");
    if (by_kernel.n > 0)
        put_estimate(s, "mech.handover.kernel_fault_us", by_kernel, 2, "passes");
}

static const struct spawn_row *spawn_of(const struct run_data *d, const char *kind, long rep)
{
    for (size_t i = 0; i < d->n_spawns; i++)
        if (d->spawns[i].rep == rep && strcmp(d->spawns[i].kind, kind) == 0)
            return &d->spawns[i];
    return NULL;
}
/* The pages a spawned sweep's process touched before it began to serve,
 * beyond a process that only starts and ends: its request's buffer. */
static double pages_before_serving(const struct spawn_row *cold, const struct spawn_row *exit)
{
    double pages = cold->minor_faults - cold->engine_minor_faults -
                   (exit != NULL ? exit->minor_faults : NAN);
    return isfinite(pages) && pages > 0 ? pages : 0.0;
}

static void summarize_engine_faults(const struct run_data *d, struct store *s)
{
    struct doubles price = {0};
    struct estimate in = store_estimate(s, "mech.handover.in_us_per_page");
    double read_in_us = in.n > 0 ? in.value : 0.0;            /* an older run: not probed */
    for (size_t i = 0; i < d->n_spawns; i++) {
        const struct spawn_row *cold = &d->spawns[i], *warm;
        if (strcmp(cold->kind, "sweep") != 0 || (warm = spawn_of(d, "warm", cold->rep)) == NULL)
            continue;
        double faults = cold->engine_minor_faults - warm->engine_minor_faults;
        double decode_ns = cold->engine_decode_ns - warm->engine_decode_ns;
        double extra_ns = cold->compute_ns - warm->compute_ns +
                          (isfinite(decode_ns) ? decode_ns : 0.0) -   /* an older run: none */
                          read_in_us * 1e3 * pages_before_serving(cold, spawn_of(d, "exit",
                                                                                 cold->rep));
        if (faults > 0)
            doubles_push(&price, extra_ns * 1e-3 / faults);
    }
    if (price.n > 0)
        put_estimate(s, "mech.fault.engine.us_per_fault", doubles_estimate(&price), 2,
                     "repetitions");
    doubles_free(&price);
}

/* <<summarize-mechanisms>>, paper/67-mechanisms.md */
void summarize_mechanisms(const struct run_data *d, struct store *s)
{
    int python_engine = 0, kernel = 0, chain = 0;
    for (size_t i = 0; i < d->n_states; i++) {
        python_engine |= strcmp(d->states[i].client, "python") == 0 &&
                         strcmp(d->states[i].state, "engine") == 0;
        kernel |= strcmp(d->states[i].state, "kernel") == 0;
        chain |= strcmp(d->states[i].state, "chain") == 0;
    }
    put_text(s, "mech.measured", d->n_states > 0 && d->n_faults > 0 ? "yes" : "no");
    put_text(s, "witness.measured", d->n_witnesses > 0 ? "yes" : "no");
    put_text(s, "mech.python.engine.measured", python_engine ? "yes" : "no");
    put_text(s, "mech.kernel.measured", kernel ? "yes" : "no");
    put_text(s, "mech.chain.measured", chain ? "yes" : "no");
    if (d->n_states == 0) {
        put_text(s, "mech.round.retouch.measured", "no");
        put_text(s, "mech.handover.measured", "no");
        return;
    }
    summarize_states(d, s);
    summarize_fault_role(d, s, "c");
    summarize_fault_role(d, s, "python");
    summarize_handover(d, s);
    summarize_engine_faults(d, s);
    long passes = 0, away_passes = 0;
    for (size_t i = 0; i < d->n_states; i++) {
        passes = d->states[i].pass > passes ? d->states[i].pass : passes;
        if (strcmp(d->states[i].stretch, "away") == 0 && d->states[i].pass > away_passes)
            away_passes = d->states[i].pass;
    }
    put_count(s, "mech.passes", (double)passes);
    if (away_passes > 0) {
        put_count(s, "mech.away_passes", (double)away_passes);
        put_number(s, "mech.away_s",
                   store_number(s, "mech.c.idle.away.busy.series.stretch_us") * 1e-6, 1);
    }
    if (d->n_faults > 0)
        put_count(s, "mech.fault_pages", d->faults[0].pages);
    summarize_retouch(d, s);
    summarize_middle(d, s);
    summarize_ages(d, s);
}
