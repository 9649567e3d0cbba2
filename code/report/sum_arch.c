/*
 * sum_arch.c - the headline table, the A/A resolution and the paired
 * comparisons of whole sweeps.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/summarize.h"

static struct sample_stats run_stats(const struct run_data *d, const char *arch)
{
    struct doubles x = {0};
    for (size_t i = 0; i < d->n_runs; i++)
        if (strcmp(d->runs[i].architecture, arch) == 0 && strcmp(d->runs[i].status, "ok") == 0)
            doubles_push(&x, d->runs[i].seconds);
    struct sample_stats st = sample_stats(x.v, x.n);
    doubles_free(&x);
    return st;
}

static const struct original_row *original(const struct run_data *d, const char *key)
{
    for (size_t i = 0; i < d->n_original; i++)
        if (strcmp(d->original[i].key, key) == 0)
            return &d->original[i];
    return NULL;
}

static void table_row(const struct run_data *d, struct store *s, struct csv_out *t,
                      struct csv_out *fig, const struct gate_row *g)
{
    char key[KEY_SIZE], buf[200], okey[KEY_SIZE];
    const char *a = g->architecture;
    struct sample_stats st = run_stats(d, a);
    struct estimate ratio = strcmp(a, "in_process") == 0
                                ? (struct estimate){st.n, 1.0, 1.0, 1.0}
                                : paired_ratio(d, a, "in_process");
    if (st.n > 0) {
        put_number(s, keyf(key, "arch.%s.median_s", a), st.p50, 3);
        put_estimate(s, keyf(key, "arch.%s.ratio", a), ratio, 3);
    }
    const struct original_row *os = original(d, keyf(okey, "arch.%s.seconds", a));
    const struct original_row *orr = original(d, keyf(okey, "arch.%s.ratio", a));
    const struct original_row *on = original(d, keyf(okey, "arch.%s.name", a));
    csv_out_text(t, a);
    if (st.n > 0) {
        cell_number(t, st.p50, 3);
        csv_out_text(t, strcmp(a, "in_process") == 0 ? "1 (reference)"
                                                      : format_estimate(buf, ratio, 3));
    } else {
        csv_out_text(t, "");
        csv_out_text(t, g->error[0] != '\0' ? g->error : "did not run");
    }
    cell_number(t, (double)st.n, 0);
    csv_out_text(t, on != NULL ? on->value : "");
    csv_out_text(t, os != NULL ? os->value : "");
    csv_out_text(t, orr != NULL ? orr->value : "");
    csv_out_text(t, g->verdict);
    csv_out_end_row(t);
    if (st.n == 0)
        return;
    csv_out_text(fig, a);
    csv_out_double(fig, ratio.value);
    csv_out_double(fig, ratio.low);
    csv_out_double(fig, ratio.high);
    csv_out_double(fig, st.p50);
    if (orr != NULL)
        csv_out_text(fig, orr->value);
    else
        csv_out_empty(fig);
    csv_out_end_row(fig);
}

static void headline_table(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {
        "Architecture", "Median (s)", "Ratio to in_process [95% interval]", "Rounds",
        "The original's", "Its median (s)", "Its ratio", "Gate"};
    static const char *const figure[] = {"architecture", "ratio", "low", "high", "median_s",
                                         "original_ratio"};
    struct csv_out t, fig;
    if (table_open(s, "architectures", &t, header, 8) != 0)
        return;
    if (figure_data_open(s, "architectures.csv", &fig, figure, 6) != 0) {
        csv_out_abandon(&t);
        return;
    }
    int ran = 0, failed = 0;
    for (size_t i = 0; i < d->n_gates; i++) {
        table_row(d, s, &t, &fig, &d->gates[i]);
        ran += has_runs(d, d->gates[i].architecture);
        failed += strcmp(d->gates[i].verdict, "FAIL") == 0;
    }
    table_close(s, &t);
    table_close(s, &fig);
    put_count(s, "arch.count", ran);
    put_count(s, "gate.failed", failed);
    put_count(s, "gate.architectures", (double)d->n_gates);
}

static void resolution(const struct run_data *d, struct store *s)
{
    static const char *const controls[] = {"in_process_control_1", "in_process_control_2",
                                           "in_process_control_3"};
    long n = run_rounds(d);
    double *base = seconds_by_round(d, "in_process", n);
    struct doubles ratios = {0};
    for (size_t c = 0; base != NULL && c < sizeof controls / sizeof controls[0]; c++) {
        double *x = seconds_by_round(d, controls[c], n);
        for (long r = 0; x != NULL && r < n; r++)
            doubles_push(&ratios, x[r] / base[r]);
        free(x);
    }
    struct estimate e = doubles_estimate(&ratios);
    put_estimate(s, "aa.ratio", e, 3);
    put_number(s, "aa.half_width_pct", estimate_half_width(e) * 100.0, 1);
    put_number(s, "aa.reach_pct",
               fmax(fabs(e.low - 1.0), fabs(e.high - 1.0)) * 100.0, 1);
    doubles_free(&ratios);
    free(base);
}

/* A ratio of a over b per round, put under key (a speed-up when b is the faster). */
static void pair(const struct run_data *d, struct store *s, const char *key, const char *a,
                 const char *b, int decimals)
{
    if (has_runs(d, a) && has_runs(d, b))
        put_estimate(s, key, paired_ratio(d, a, b), decimals);
}

void summarize_architectures(const struct run_data *d, struct store *s)
{
    struct sample_stats base = run_stats(d, "in_process");
    put_number(s, "arch.in_process.min_s", base.min, 3);
    put_number(s, "arch.in_process.max_s", base.max, 3);
    put_number(s, "arch.in_process.spread_pct", (base.max - base.min) / base.p50 * 100.0, 0);
    headline_table(d, s);
    resolution(d, s);
    pair(d, s, "speedup.tuned_1core", "in_process", "in_process_tuned_1core", 1);
    pair(d, s, "speedup.tuned_all", "in_process", "in_process_tuned", 1);
    pair(d, s, "speedup.cores", "in_process_tuned_1core", "in_process_tuned", 2);
    pair(d, s, "speedup.tuned_over_numba", "numba_in_process", "in_process_tuned", 1);
    pair(d, s, "pair.numba_over_in_process", "numba_in_process", "in_process", 3);
    pair(d, s, "pair.python_batch_over_numba", "python_batch_unix", "numba_in_process", 3);
    pair(d, s, "pair.python_tuned_over_numba", "python_batch_unix_tuned", "numba_in_process", 3);
    pair(d, s, "pair.python_batch_over_batch", "python_batch_unix", "batch_unix", 3);
    pair(d, s, "pair.batch_tuned_over_tuned", "batch_unix_tuned", "in_process_tuned_1core", 3);
    pair(d, s, "pair.spawn_over_batch", "spawn_stdin", "batch_unix", 3);
    pair(d, s, "pair.chatty_over_batch", "chatty_unix", "batch_unix", 3);
}
