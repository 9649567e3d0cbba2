/*
 * bench.c - ipctax-bench: times every architecture and writes data/.
 *
 * Tangled from paper/40-harness.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/arch.h"
#include "harness/csvout.h"
#include "harness/gate.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "harness/machine.h"
#include "wire/options.h"
#include "kernel/series.h"
#include "wire/timing.h"

/* MAX_ARCHITECTURES bounds the registry, which holds a few dozen at most. */
enum { DEFAULT_RUNS = 10, MAX_RUNS = 100000, MAX_ARCHITECTURES = 64 };

struct bench_config {
    size_t n_bars;
    size_t n_combos;
    unsigned seed;
    int runs;
    const char *out_dir;
    const char *only;               /* comma-separated architecture names, or NULL */
    const char *measures;           /* comma-separated measurement names, or NULL */
    double scale;                   /* measurements' repetition multiplier */
    struct arch_options arch_opts;
};

static void usage(FILE *to)
{
    fprintf(to,
        "usage: ipctax-bench [options]\n"
        "Times each architecture on the HMA/HMA3 sweep and writes tidy CSV.\n"
        "\n"
        "  --bars N      bars in the series (default %d)\n"
        "  --combos N    parameter combinations (default %d)\n"
        "  --runs N      timed runs per architecture, after one warm-up (default %d)\n"
        "  --seed N      seed of the series (default %d)\n"
        "  --arch LIST   comma-separated architectures to run (default: all)\n"
        "  --measure LIST comma-separated measurements to run (default: all;\n"
        "                'none' for none)\n"
        "  --scale X     multiply the measurements' repetitions by X (default 1)\n"
        "  --out DIR     where the CSV files go (default data)\n"
        "  --engine PATH the ipctax-engine binary (default build/ipctax-engine)\n"
        "  --list        list the architectures and measurements, and exit\n"
        "  --help        this text\n"
        "\n"
        "Writes DIR/architectures.csv (every timed run), DIR/sweep.csv (the\n"
        "in-process result per combination), DIR/gate.csv (the equivalence\n"
        "verdicts) and DIR/machine.csv. Exits 1 if any architecture's results\n"
        "differ from in_process, 2 on bad usage or a failed run.\n",
        DEFAULT_BARS, DEFAULT_COMBOS, DEFAULT_RUNS, DEFAULT_SEED);
}

static int parse_options(int argc, char **argv, struct bench_config *cfg)
{
    static const struct option options[] = {
        {"bars", required_argument, 0, 'b'}, {"combos", required_argument, 0, 'c'},
        {"runs", required_argument, 0, 'r'}, {"seed", required_argument, 0, 's'},
        {"arch", required_argument, 0, 'a'}, {"out", required_argument, 0, 'o'},
        {"engine", required_argument, 0, 'e'}, {"list", no_argument, 0, 'l'},
        {"measure", required_argument, 0, 'm'}, {"scale", required_argument, 0, 'x'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    int opt;
    long v;
    char *end;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'b': if (parse_long_in_range(optarg, 1, 100000000, &v)) goto bad; cfg->n_bars = v; break;
        case 'c': if (parse_long_in_range(optarg, 1, 100000, &v)) goto bad; cfg->n_combos = v; break;
        case 'r': if (parse_long_in_range(optarg, 1, MAX_RUNS, &v)) goto bad; cfg->runs = v; break;
        case 's': if (parse_long_in_range(optarg, 0, 0xffffffffL, &v)) goto bad; cfg->seed = v; break;
        case 'a': cfg->only = optarg; break;
        case 'o': cfg->out_dir = optarg; break;
        case 'e': cfg->arch_opts.engine_path = optarg; break;
        case 'm': cfg->measures = optarg; break;
        case 'x':
            cfg->scale = strtod(optarg, &end);
            if (*end != '\0' || !(cfg->scale > 0.0 && cfg->scale <= 100.0)) goto bad;
            break;
        case 'l':
            printf("architectures:\n");
            for (size_t i = 0; ARCHITECTURES[i] != NULL; i++)
                printf("  %-22s %s\n", ARCHITECTURES[i]->name, ARCHITECTURES[i]->description);
            printf("measurements:\n");
            for (size_t i = 0; MEASUREMENTS[i] != NULL; i++)
                printf("  %-22s %s\n", MEASUREMENTS[i]->name, MEASUREMENTS[i]->description);
            exit(0);
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind == argc)
        return 0;
bad:
    fprintf(stderr, "ipctax-bench: bad value for an option (see --help)\n");
    return -1;
}

static void report_progress(int done, int total, double elapsed)
{
    double left = elapsed / done * (total - done);
    fprintf(stderr, "  round %3d of %-3d  %7.1f s elapsed, ~%.1f s left\n",
            done, total, elapsed, left);
}

struct arch_record {
    const struct architecture *arch;
    void *state;                   /* from setup until teardown */
    double *seconds;               /* cfg.runs timings */
    struct gate_verdict verdict;
    int failed;                    /* the architecture could not complete its runs */
};

struct bench_results {
    double *close;
    struct combo_params *params;
    struct combo_result *reference, *candidate;
    struct arch_record records[MAX_ARCHITECTURES];
    size_t n_records;
    int failed_runs, failed_gates;
    char series_sha256[65];
};

static int bench_results_alloc(struct bench_results *res, const struct bench_config *cfg)
{
    memset(res, 0, sizeof *res);
    res->close = malloc(cfg->n_bars * sizeof *res->close);
    res->params = malloc(cfg->n_combos * sizeof *res->params);
    res->reference = malloc(cfg->n_combos * sizeof *res->reference);
    res->candidate = malloc(cfg->n_combos * sizeof *res->candidate);
    int ok = res->close && res->params && res->reference && res->candidate;
    for (size_t i = 0; i < sizeof res->records / sizeof res->records[0]; i++) {
        res->records[i].seconds = calloc(cfg->runs, sizeof(double));
        ok = ok && res->records[i].seconds != NULL;
    }
    return ok ? 0 : -1;
}
static int write_architectures(const char *path, const struct bench_config *cfg,
                               const struct bench_results *res)
{
    static const char *const header[] = {"architecture", "run", "seconds"};
    struct csv_out out;
    if (csv_out_open(&out, path) != 0)
        return -1;
    csv_out_header(&out, header, 3);
    for (size_t i = 0; i < res->n_records; i++) {
        if (res->records[i].failed)
            continue;
        for (int run = 0; run < cfg->runs; run++) {
            csv_out_text(&out, res->records[i].arch->name);
            csv_out_int(&out, run + 1);
            csv_out_fixed(&out, res->records[i].seconds[run], 9);
            csv_out_end_row(&out);
        }
    }
    return csv_out_close(&out);
}
static int write_sweep(const char *path, const struct bench_config *cfg,
                       const struct bench_results *res)
{
    static const char *const header[] = {"combo", "L", "h_half", "h_len", "h_sqrt",
                                         "t_third", "t_half", "t_len", "pnl", "trades"};
    struct csv_out out;
    if (csv_out_open(&out, path) != 0)
        return -1;
    csv_out_header(&out, header, 10);
    for (size_t k = 0; k < cfg->n_combos; k++) {
        const struct combo_params *p = &res->params[k];
        const int64_t fields[] = {(int64_t)k, p->h_len, p->h_half, p->h_len, p->h_sqrt,
                                  p->t_third, p->t_half, p->t_len};
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            csv_out_int(&out, fields[f]);
        csv_out_double(&out, res->reference[k].pnl);
        csv_out_int(&out, res->reference[k].trades);
        csv_out_end_row(&out);
    }
    return csv_out_close(&out);
}
static int write_gate(const char *path, const struct bench_results *res)
{
    static const char *const header[] = {"architecture", "combos", "identical",
                                         "max_abs_pnl_diff", "verdict"};
    struct csv_out out;
    if (csv_out_open(&out, path) != 0)
        return -1;
    csv_out_header(&out, header, 5);
    for (size_t i = 0; i < res->n_records; i++) {
        const struct arch_record *r = &res->records[i];
        csv_out_text(&out, r->arch->name);
        csv_out_int(&out, (int64_t)r->verdict.combos);
        csv_out_int(&out, (int64_t)r->verdict.identical);
        csv_out_double(&out, r->verdict.max_abs_pnl_diff);
        csv_out_text(&out, r->failed ? "not run" : r->verdict.passed ? "pass" : "FAIL");
        csv_out_end_row(&out);
    }
    return csv_out_close(&out);
}

static int write_machine(const char *path, const struct bench_config *cfg,
                         const struct bench_results *res)
{
    static const char *const header[] = {"key", "value"};
    struct machine_info m;
    struct csv_out out;
    machine_describe(&m);
    if (csv_out_open(&out, path) != 0)
        return -1;
    csv_out_header(&out, header, 2);
    machine_write_rows(&out, &m);
    const struct { const char *key; int64_t value; } settings[] = {
        {"bars", (int64_t)cfg->n_bars}, {"combos", (int64_t)cfg->n_combos},
        {"runs", cfg->runs}, {"seed", cfg->seed},
    };
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        csv_out_text(&out, settings[i].key);
        csv_out_int(&out, settings[i].value);
        csv_out_end_row(&out);
    }
    csv_out_text(&out, "series_sha256");
    csv_out_text(&out, res->series_sha256);
    csv_out_end_row(&out);
    return csv_out_close(&out);
}
static const char *data_path(char path[4096], const struct bench_config *cfg, const char *name)
{
    snprintf(path, 4096, "%s/%s", cfg->out_dir, name);
    return path;
}

static int write_results(const struct bench_config *cfg, const struct bench_results *res)
{
    char path[4096];
    mkdir(cfg->out_dir, 0777);         /* an existing directory is fine */
    if (write_architectures(data_path(path, cfg, "architectures.csv"), cfg, res) != 0 ||
        write_sweep(data_path(path, cfg, "sweep.csv"), cfg, res) != 0 ||
        write_gate(data_path(path, cfg, "gate.csv"), res) != 0 ||
        write_machine(data_path(path, cfg, "machine.csv"), cfg, res) != 0) {
        fprintf(stderr, "ipctax-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int is_known(const char *kind, const char *name)
{
    if (strcmp(kind, "architecture") == 0)
        return architecture_named(name) != NULL;
    return strcmp(name, "none") == 0 || measurement_named(name) != NULL;
}

/* Every item of a comma-separated list must name something that exists. */
static int check_names(const char *list, const char *kind)
{
    for (const char *p = list; p != NULL && *p != '\0';) {
        char name[64];
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), p);
        if (!is_known(kind, name)) {
            fprintf(stderr, "ipctax-bench: no %s named '%s' (see --list)\n", kind, name);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

static int selected(const char *only, const char *name)
{
    if (only == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p != '\0';) {
        size_t item = strcspn(p, ",");
        if (item == n && strncmp(p, name, n) == 0)
            return 1;
        p += item + (p[item] == ',');
    }
    return 0;
}

/* Sets up every selected architecture and makes its untimed warm-up run. */
static void start_architectures(struct bench_results *res, const struct bench_config *cfg,
                                const struct sweep_job *job)
{
    for (size_t a = 0; ARCHITECTURES[a] != NULL; a++) {
        const struct architecture *arch = ARCHITECTURES[a];
        char err[ARCH_ERROR_SIZE] = "";
        if (!selected(cfg->only, arch->name))
            continue;
        struct arch_record *rec = &res->records[res->n_records++];
        rec->arch = arch;
        rec->verdict.passed = 1;
        fprintf(stderr, "ipctax-bench: starting %s\n", arch->name);
        if (arch->setup != NULL && arch->setup(&rec->state, &cfg->arch_opts, job, err) != 0) {
            fprintf(stderr, "ipctax-bench: %s: setup failed: %s\n", arch->name, err);
            rec->failed = 1;
        } else if (arch->run(rec->state, job, res->candidate, err) != 0) {
            fprintf(stderr, "ipctax-bench: %s: warm-up failed: %s\n", arch->name, err);
            rec->failed = 1;
        }
        res->failed_runs += rec->failed;
    }
}
static void time_one_run(struct arch_record *rec, struct bench_results *res,
                         const struct sweep_job *job, int run)
{
    char err[ARCH_ERROR_SIZE] = "";
    uint64_t t0 = clock_ns();
    int status = rec->arch->run(rec->state, job, res->candidate, err);
    rec->seconds[run] = seconds_between(t0, clock_ns());
    if (status != 0) {
        fprintf(stderr, "ipctax-bench: %s: run %d: %s\n", rec->arch->name, run + 1, err);
        rec->failed = 1;
        res->failed_runs++;
        return;
    }
    struct gate_verdict v = gate_compare(res->reference, res->candidate, job->n_combos);
    if (rec->verdict.passed)
        rec->verdict = v;
}

static void run_rounds(struct bench_results *res, const struct bench_config *cfg,
                       const struct sweep_job *job)
{
    uint64_t started = clock_ns();
    for (int run = 0; run < cfg->runs; run++) {
        for (size_t i = 0; i < res->n_records; i++)
            if (!res->records[i].failed)
                time_one_run(&res->records[i], res, job, run);
        report_progress(run + 1, cfg->runs, seconds_between(started, clock_ns()));
    }
}

static void stop_architectures(struct bench_results *res)
{
    for (size_t i = 0; i < res->n_records; i++)
        if (res->records[i].arch->teardown != NULL && res->records[i].state != NULL)
            res->records[i].arch->teardown(res->records[i].state);
}

int main(int argc, char **argv)
{
    struct bench_config cfg = {
        DEFAULT_BARS, DEFAULT_COMBOS, DEFAULT_SEED, DEFAULT_RUNS, "data", NULL, NULL, 1.0,
        {"build/ipctax-engine", "build"},
    };
    if (parse_options(argc, argv, &cfg) != 0)
        return 2;
    if (check_names(cfg.only, "architecture") != 0 || check_names(cfg.measures, "measurement") != 0)
        return 2;

    struct bench_results res;
    if (bench_results_alloc(&res, &cfg) != 0) {
        fprintf(stderr, "ipctax-bench: out of memory\n");
        return 2;
    }
    gbm_series(res.close, cfg.n_bars, cfg.seed);
    grid_fill(res.params, cfg.n_combos);
    series_sha256_hex(res.close, cfg.n_bars, res.series_sha256);
    if (cfg.n_bars == DEFAULT_BARS && cfg.seed == DEFAULT_SEED &&
        strcmp(res.series_sha256, SPEC_SERIES_SHA256) != 0) {
        fprintf(stderr, "ipctax-bench: the series hashes to %s, not the specification's %s\n",
                res.series_sha256, SPEC_SERIES_SHA256);
        return 2;
    }
    struct sweep_job job = {res.close, cfg.n_bars, res.params, cfg.n_combos};
    if (sweep_naive(job.close, job.n_bars, job.params, job.n_combos, res.reference) != 0) {
        fprintf(stderr, "ipctax-bench: out of memory for the reference sweep\n");
        return 2;
    }
    fprintf(stderr, "ipctax-bench: %zu bars x %zu combos, %d rounds\n", cfg.n_bars, cfg.n_combos,
            cfg.runs);
    start_architectures(&res, &cfg, &job);
    run_rounds(&res, &cfg, &job);
    stop_architectures(&res);
    for (size_t i = 0; i < res.n_records; i++) {
        const struct arch_record *rec = &res.records[i];
        if (!rec->failed && !rec->verdict.passed) {
            fprintf(stderr, "ipctax-bench: %s FAILS the equivalence gate: %zu of %zu combos "
                    "identical\n", rec->arch->name, rec->verdict.identical, rec->verdict.combos);
            res.failed_gates++;
        }
    }
    if (write_results(&cfg, &res) != 0)
        return 2;
    struct measure_context mctx = {&job, &cfg.arch_opts, cfg.out_dir, cfg.scale};
    for (size_t m = 0; MEASUREMENTS[m] != NULL; m++) {
        char err[ARCH_ERROR_SIZE] = "";
        if (!selected(cfg.measures, MEASUREMENTS[m]->name))
            continue;
        fprintf(stderr, "ipctax-bench: measuring %s\n", MEASUREMENTS[m]->name);
        if (MEASUREMENTS[m]->run(&mctx, err) != 0) {
            fprintf(stderr, "ipctax-bench: %s failed: %s\n", MEASUREMENTS[m]->name, err);
            res.failed_runs++;
        }
    }
    return res.failed_runs ? 2 : res.failed_gates ? 1 : 0;
}
