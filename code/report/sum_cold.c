/*
 * sum_cold.c - the first call on a fresh engine against the second.
 *
 * Tangled from paper/66-cold.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/calibrate.h"
#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"

/* <<cold-values-by-repetition>>, paper/66-cold.md */
struct cold_values {
    struct doubles boundary[2], decode[2], engine_faults[2], client_faults[2], cold_over_warm;
};

/* The repetition's cold (0) or warm (1) row, or NULL. */
static const struct cold_row *cold_row_of(const struct run_data *d, long rep, int warm)
{
    for (size_t i = 0; i < d->n_cold; i++)
        if (d->cold[i].rep == rep && strcmp(d->cold[i].warmth, warm ? "warm" : "cold") == 0)
            return &d->cold[i];
    return NULL;
}

static void collect_cold(const struct run_data *d, struct cold_values *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < d->n_cold; i++) {
        if (strcmp(d->cold[i].warmth, "cold") != 0)
            continue;
        const struct cold_row *r[2] = {&d->cold[i], cold_row_of(d, d->cold[i].rep, 1)};
        if (r[1] == NULL)
            continue;
        for (int w = 0; w < 2; w++) {
            doubles_push(&v->boundary[w], (r[w]->rtt_ns - r[w]->compute_ns) * 1e-6);
            doubles_push(&v->decode[w], r[w]->engine_decode_ns * 1e-6);
            doubles_push(&v->engine_faults[w], r[w]->engine_minor_faults);
            doubles_push(&v->client_faults[w], r[w]->client_minor_faults);
        }
        doubles_push(&v->cold_over_warm, (r[0]->rtt_ns - r[0]->compute_ns) /
                                             (r[1]->rtt_ns - r[1]->compute_ns));
    }
}

/* <<summarize-cold>>, paper/66-cold.md */
static double share_pct(const double *m, const void *ctx)
{
    (void)ctx;
    return 100.0 * m[0] / (m[0] + m[1]);
}

void summarize_cold(const struct run_data *d, struct store *s)
{
    static const char *const warmth[] = {"cold", "warm"};
    char key[KEY_SIZE];
    struct cold_values v;
    collect_cold(d, &v);
    /* <<put-the-cold-and-warm-calls>>, paper/66-cold.md */
    for (int w = 0; w < 2 && v.cold_over_warm.n > 0; w++) {
        put_estimate(s, keyf(key, "cold.%s.boundary_ms", warmth[w]),
                     doubles_estimate(&v.boundary[w]), 2, "fresh engines");
        put_estimate(s, keyf(key, "cold.%s.engine_decode_ms", warmth[w]),
                     doubles_estimate(&v.decode[w]), 2, "fresh engines");
        put_count(s, keyf(key, "cold.%s.engine_faults", warmth[w]),
                  doubles_estimate(&v.engine_faults[w]).value);
        put_count(s, keyf(key, "cold.%s.client_faults", warmth[w]),
                  doubles_estimate(&v.client_faults[w]).value);
    }
    if (v.cold_over_warm.n > 0) {
        put_estimate(s, "cold.over_warm", doubles_estimate(&v.cold_over_warm), 1,
                     "fresh engines");
        put_count(s, "cold.reps", (double)v.cold_over_warm.n);
        /* <<the-cold-boundary-as-a-share-of-a-sweep>>, paper/66-cold.md */
        /* the cold boundary against a whole sweep's kernel time, from the units
         * of the C client's call per sweep on a persistent engine */
        struct unit_view *u;
        size_t n = arch_units(d, arch_like(CLIENT_C, TRANSPORT_UNIX, "naive", ENCODING_BINARY,
                                           GRAIN_SWEEP), &u), k = 0;
        double *compute_ms = malloc((n ? n : 1) * sizeof *compute_ms);
        for (size_t i = 0; compute_ms != NULL && i < n; i++) {
            struct unit_calls c;
            if (u[i].complete && unit_calls(d, &u[i], &c) == 0)
                compute_ms[k++] = c.compute_us * 1e-3;
        }
        const double *groups[] = {v.boundary[0].v, compute_ms};
        size_t counts[] = {v.boundary[0].n, k};
        if (k > 0)
            put_estimate(s, "cold.share_pct",
                         calibrated_composite(2, groups, counts, share_pct, NULL, NULL), 3,
                         "fresh engines and couples");
        free(compute_ms);
        free(u);
    }
    /* <<free-the-cold-values>>, paper/66-cold.md */
    for (int w = 0; w < 2; w++) {
        doubles_free(&v.boundary[w]);
        doubles_free(&v.decode[w]);
        doubles_free(&v.engine_faults[w]);
        doubles_free(&v.client_faults[w]);
    }
    doubles_free(&v.cold_over_warm);
}
