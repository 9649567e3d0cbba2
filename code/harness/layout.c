/*
 * layout.c - the kernel's sensitivity to where its data and its code sit.
 *
 * Tangled from paper/76-layout.md.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/measure.h"
#include "harness/session.h"
#include "kernel/kernel_tuned.h"
#include "util/error.h"
#include "util/options.h"
#include "util/random.h"
#include "util/timing.h"

/* <<layout-configurations>>, paper/76-layout.md */
enum layout_side {
    SIDE_IN_PROCESS,           /* the naive kernel in the harness */
    SIDE_ENGINE,               /* the naive kernel in an engine, timed by the engine */
    SIDE_TUNED_FRESH,          /* the tuned kernel in the harness, a fresh workspace each time */
    SIDE_TUNED_KEPT,           /* ... with a workspace kept from sweep to sweep */
    SIDE_ENGINE_TUNED,         /* the tuned kernel in an engine */
};
static const char *const SIDE_NAMES[] = {IN_PROCESS_SIDE, "engine", "in_process_tuned_fresh",
                                         "in_process_tuned_kept", "engine_tuned"};

struct layout_config {
    enum layout_side side;
    const char *layout;        /* "series,array,stagger" bytes */
    int code_shift;            /* -1: the aligned build; else the shifted engine's offset */
};

static const char *const DATA_LAYOUTS[] = {
    "0,0,0", "0,576,576", "0,2048,0", "64,0,0", "64,576,576", "64,2048,0",
    "2048,0,0", "2048,576,576", "2048,2048,0",
};
enum { N_DATA = sizeof DATA_LAYOUTS / sizeof DATA_LAYOUTS[0] };
static const int CODE_SHIFTS[] = {0, 16, 32, 48};
enum { N_SHIFTS = sizeof CODE_SHIFTS / sizeof CODE_SHIFTS[0] };
enum {
    N_CONFIGS = 2 * N_DATA + N_SHIFTS + 3,
    LAYOUT_COMBO_STEP = 10,    /* every tenth combination */
};

static void make_configs(struct layout_config *c)
{
    size_t n = 0;
    for (int i = 0; i < N_DATA; i++) {
        c[n++] = (struct layout_config){SIDE_IN_PROCESS, DATA_LAYOUTS[i], -1};
        c[n++] = (struct layout_config){SIDE_ENGINE, DATA_LAYOUTS[i], -1};
    }
    for (int i = 0; i < N_SHIFTS; i++)
        c[n++] = (struct layout_config){SIDE_ENGINE, "0,576,576", CODE_SHIFTS[i]};
    c[n++] = (struct layout_config){SIDE_TUNED_FRESH, "0,576,576", -1};
    c[n++] = (struct layout_config){SIDE_TUNED_KEPT, "0,576,576", -1};
    c[n++] = (struct layout_config){SIDE_ENGINE_TUNED, "0,576,576", -1};
}

/* <<layout-state>>, paper/76-layout.md */
struct layout_run {
    const struct measure_context *ctx;
    struct layout_config config[N_CONFIGS];
    struct sweep_workspace ws[N_CONFIGS];
    struct session session[N_CONFIGS];
    int has_session[N_CONFIGS];
    struct combo_params *params;
    struct combo_result *results;
    size_t n_combos;
};

static int open_config(struct layout_run *lr, int i, char *err, size_t err_size)
{
    const struct layout_config *c = &lr->config[i];
    struct sweep_layout layout;
    if (option_layout("layout", c->layout, &layout, err, err_size) != 0)
        return -1;
    sweep_workspace_init(&lr->ws[i], &layout);
    if (c->side != SIDE_ENGINE && c->side != SIDE_ENGINE_TUNED)
        return sweep_workspace_load(&lr->ws[i], lr->ctx->job->close, lr->ctx->job->n_bars) == 0
                   ? 0 : set_error(err, err_size, "out of memory for a workspace");
    char name[64], engine[PATH_MAX + 32], dir[PATH_MAX];
    snprintf(name, sizeof name, "layout-%d", i);
    struct session_options o = {TRANSPORT_UNIX, name,
                                c->side == SIDE_ENGINE_TUNED ? "tuned" : "naive",
                                c->layout, 0, 1, NULL, NULL};
    if (c->code_shift >= 0) {
        snprintf(dir, sizeof dir, "%s", lr->ctx->env->engine);
        snprintf(engine, sizeof engine, "%s/ipctax-engine-shift%d", dirname(dir), c->code_shift);
        o.engine = engine;
    }
    if (session_open(&lr->session[i], lr->ctx->env, &o, err, err_size) != 0)
        return -1;
    lr->has_session[i] = 1;
    return 0;
}

/* <<layout-one-sample>>, paper/76-layout.md */
static int sample(struct layout_run *lr, int i, double *seconds, char *err, size_t err_size)
{
    const struct sweep_job *job = lr->ctx->job;
    const struct layout_config *c = &lr->config[i];
    struct call_record t;
    uint64_t t0 = clock_ns();
    int status = 0;
    switch (c->side) {
    case SIDE_IN_PROCESS:
        status = sweep_naive_in(&lr->ws[i], lr->ws[i].series, job->n_bars, lr->params,
                                lr->n_combos, lr->results);
        break;
    case SIDE_TUNED_FRESH:
        status = sweep_tuned(job->close, job->n_bars, lr->params, lr->n_combos, lr->results, 1);
        break;
    case SIDE_TUNED_KEPT:
        status = sweep_tuned_in(&lr->ws[i], lr->ws[i].series, job->n_bars, lr->params,
                                lr->n_combos, lr->results, 1);
        break;
    case SIDE_ENGINE:
    case SIDE_ENGINE_TUNED:
        if (session_sweep(&lr->session[i], job->close, job->n_bars, lr->params, lr->n_combos,
                          lr->results, &t, err, err_size) != 0)
            return -1;
        *seconds = (double)t.compute_ns * 1e-9;
        return 0;
    }
    *seconds = seconds_between(t0, clock_ns());
    return status == 0 ? 0 : set_error(err, err_size, "out of memory in the kernel");
}

/* <<write-a-layout-sample>>, paper/76-layout.md */
static void write_sample(struct data_out *out, const struct layout_config *c, int pass,
                         double seconds)
{
    struct sweep_layout l = {0, 0, 0};
    char err[ERR_SIZE];
    option_layout("layout", c->layout, &l, err, sizeof err);   /* checked by open_config */
    data_text(out, LAYOUT_side, SIDE_NAMES[c->side]);
    if (c->code_shift >= 0)
        data_int(out, LAYOUT_code_shift, c->code_shift);
    else
        data_empty(out, LAYOUT_code_shift);
    data_int(out, LAYOUT_series_offset, l.series_offset);
    data_int(out, LAYOUT_array_offset, l.array_offset);
    data_int(out, LAYOUT_array_stagger, l.array_stagger);
    data_int(out, LAYOUT_pass, pass);
    data_fixed(out, LAYOUT_seconds, seconds, 9);
    data_end_row(out);
}

/* <<run-the-layout-passes>>, paper/76-layout.md */
static int run_layout(struct layout_run *lr, struct data_out *out, char *err, size_t err_size)
{
    size_t order[N_CONFIGS];
    double seconds;
    for (int i = 0; i < N_CONFIGS; i++)
        if (open_config(lr, i, err, err_size) != 0 || sample(lr, i, &seconds, err,
                                                             err_size) != 0)  /* warm-up */
            return -1;
    int passes = repetitions_at(REPEAT_LAYOUT, lr->ctx->scale);
    for (int pass = 1; pass <= passes; pass++) {
        struct mt19937 mt;
        mt19937_seed(&mt, round_seed(lr->ctx->seed ^ 0x6c61796fu, pass));   /* "layo" */
        random_order(&mt, order, N_CONFIGS);
        for (size_t k = 0; k < N_CONFIGS; k++) {
            if (sample(lr, (int)order[k], &seconds, err, err_size) != 0)
                return -1;
            write_sample(out, &lr->config[order[k]], pass, seconds);
        }
    }
    return 0;
}

/* <<measure-layout>>, paper/76-layout.md */
int measure_layout(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct layout_run lr = {.ctx = ctx};
    struct data_out out = {0};
    const struct sweep_job *job = ctx->job;
    lr.params = malloc(job->n_combos * sizeof *lr.params);
    lr.results = malloc(job->n_combos * sizeof *lr.results);
    make_configs(lr.config);
    int status = lr.params != NULL && lr.results != NULL ? 0 : set_error(err, err_size,
                                                                         "out of memory");
    for (size_t k = LAYOUT_COMBO_STEP / 2; status == 0 && k < job->n_combos;
         k += LAYOUT_COMBO_STEP)
        lr.params[lr.n_combos++] = job->params[k];
    if (status == 0 && lr.n_combos == 0)
        lr.params[lr.n_combos++] = job->params[0];
    if (status == 0)
        status = measure_open(ctx, "layout.csv", &out, err, err_size);
    if (status == 0)
        status = run_layout(&lr, &out, err, err_size);
    if (status == 0 && data_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write layout.csv");
    else if (status != 0)
        data_out_abandon(&out);
    for (int i = 0; i < N_CONFIGS; i++) {
        if (lr.has_session[i])
            session_close(&lr.session[i]);
        sweep_workspace_free(&lr.ws[i]);
    }
    free(lr.params);
    free(lr.results);
    return status;
}
