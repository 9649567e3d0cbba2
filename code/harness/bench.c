/*
 * bench.c - ipctax-bench: runs every architecture and measurement, writes a run.
 *
 * Tangled from paper/40-harness.md.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/arch.h"
#include "harness/env.h"
#include "harness/machine.h"
#include "harness/measure.h"
#include "harness/schedule.h"
#include "harness/worker.h"
#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "kernel/series.h"
#include "schema/data_out.h"
#include "schema/domains.h"
#include "util/error.h"
#include "util/names.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<bench-config>>, paper/40-harness.md */
/* MAX_COMBOS, MAX_SCALE: the bounds data/ is checked against (schema/domains.h) */
struct bench_config {
    size_t n_bars;
    size_t n_combos;
    uint32_t seed;
    struct schedule_limits limits;
    const char *out_dir;
    const char *rows;          /* comma-separated architecture names, or NULL for all */
    const char *measures;      /* comma-separated measurement names, NULL for all, "none" */
    double scale;              /* measurements' repetition multiplier */
    const char *engine, *python;
};

static const struct bench_config DEFAULT_CONFIG = {
    .n_bars = DEFAULT_BARS, .n_combos = DEFAULT_COMBOS, .seed = DEFAULT_SEED,
    .limits = SCHEDULE_DEFAULT_LIMITS, .out_dir = "build/run", .scale = 1.0,
};

/* <<bench-usage>>, paper/40-harness.md */
static void usage(FILE *to)
{
    fprintf(to,
        "usage: ipctax-bench [options]\n"
        "Runs every architecture of the HMA/HMA3 sweep in randomized rounds, gates\n"
        "every result bit for bit, runs the boundary measurements, and writes tidy\n"
        "CSV files (see data/README.md).\n"
        "\n"
        "  --bars N        bars in the series, up to 100000000 (default %d), and at\n"
        "                  least what the grid's longest window needs (200 for 2 or\n"
        "                  more combinations), times the part some architectures run\n"
        "  --combos N      parameter combinations, 1..%d (default %d)\n"
        "  --seed N        seed of the series and of the rounds' order (default %d)\n"
        "  --budget S      seconds of rounds at most, 1..86400 (default %.0f)\n"
        "  --target PCT    the duet A/A control's goal, +-PCT%% of one, reported\n"
        "                  beside every round (no longer a stop rule), 0..100 (default %.1f)\n"
        "  --units PLAN    units each row wants, as row=N,... (N 1..1000); a row not\n"
        "                  named wants --min-rounds, a headline row %d (with a fixed\n"
        "                  number of rounds, one a round)\n"
        "  --min-rounds N  rounds at least, 1..10000 (default %d)\n"
        "  --max-rounds N  rounds at most, 1..10000 (default %d)\n"
        "  --rounds N      exactly N rounds (sets both)\n"
        "  --arch LIST     comma-separated architectures (default: all; see --list)\n"
        "  --measure LIST  comma-separated measurements (default: all; 'none')\n"
        "  --scale X       multiply the measurements' repetitions, 0.01..20 (default 1)\n"
        "  --out DIR       where the CSV files go: an empty or new folder (default\n"
        "                  build/run; never data/: see make measure); checked first\n"
        "  --engine PATH   the engine (default: ipctax-engine beside this program)\n"
        "  --python PATH   the Python with numpy and numba (default /usr/bin/python3)\n"
        "  --list          the architectures, measurements and tuned kernel's paths\n"
        "  --version       the release and the commit this program was built from\n"
        "  -h, --help      this text\n"
        "\n"
        "IPCTAX_TUNED_PATH forces a path of the tuned kernel here and in its engines.\n"
        "\n"
        "Exit status: 0; 1 if any architecture's results differ from in_process;\n"
        "2 for a refused command line, or a failed run or measurement.\n",
        DEFAULT_BARS, (int)MAX_COMBOS, DEFAULT_COMBOS, DEFAULT_SEED,
        SCHEDULE_DEFAULT_LIMITS.budget_s, SCHEDULE_DEFAULT_LIMITS.target * 100.0,
        HEADLINE_UNITS, SCHEDULE_DEFAULT_LIMITS.min_rounds, SCHEDULE_DEFAULT_LIMITS.max_rounds);
}

/* <<list-everything>>, paper/40-harness.md */
static void list_everything(void)
{
    static const char *const CLIENT[] = {[CLIENT_NONE] = "none", [CLIENT_C] = "c",
                                         [CLIENT_PYTHON] = "python"};
    printf("architectures (name, client, what it runs):\n");
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        printf("  %-24s %-6s %s\n", ARCH_ROWS[i].name, CLIENT[ARCH_ROWS[i].client],
               ARCH_ROWS[i].description);
    printf("measurements:\n");
    for (size_t i = 0; i < N_MEASUREMENTS; i++)
        printf("  %-24s %s\n", MEASUREMENTS[i].name, MEASUREMENTS[i].description);
    printf("tuned kernel's paths (IPCTAX_TUNED_PATH; in use: %s):\n",
           tuned_path_name(tuned_path_in_use()));
    for (int p = 0; p < tuned_path_count(); p++) {
        const char *lack = tuned_path_lacks(p, cpu_simd_here());
        printf("  %-24s %d-byte vectors; %s\n", tuned_path_name(p), tuned_path_bytes(p),
               lack != NULL ? lack : "this machine runs it");
    }
}

/* <<take-one-option>>, paper/40-harness.md */
/* A plan, "row=N,...": every row a row of the table, every N from 1 to 1000. */
static int units_check(const char *plan, char *err, size_t n)
{
    char item[128];
    for (const char *p = plan; *p != '\0';) {
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        char *eq = strchr(item, '='), *end;
        long units = eq != NULL ? strtol(eq + 1, &end, 10) : 0;
        if (eq == NULL || eq == item || *end != '\0' || units < 1 || units > 1000)
            return set_error(err, n, "--units: '%s' is not row=N with N from 1 to 1000", item);
        *eq = '\0';
        if (arch_row_named(item) < 0)
            return set_error(err, n, "--units: no architecture named '%s' (see --list)", item);
        p += len;
        p += *p == ',';
    }
    return 0;
}

/* One option and its value; 0, or -1 with a message in err. */
static int take_option(int opt, struct bench_config *cfg, char *err, size_t n)
{
    struct schedule_limits *l = &cfg->limits;
    long v = 0;
    double pct = 0;
    int status = 0;
    switch (opt) {
    /* <<take-the-size-of-the-job>>, paper/40-harness.md */
    case 'b':
        status = option_long("--bars", optarg, 1, 100000000, &v, err, n);
        cfg->n_bars = (size_t)v;
        break;
    case 'c':
        status = option_long("--combos", optarg, 1, (long)MAX_COMBOS, &v, err, n);
        cfg->n_combos = (size_t)v;
        break;
    case 's':
        status = option_long("--seed", optarg, 0, 0xffffffffL, &v, err, n);
        cfg->seed = (uint32_t)v;
        break;
    /* <<take-the-limits-on-the-rounds>>, paper/40-harness.md */
    case 'm':
        status = option_long("--min-rounds", optarg, 1, 10000, &v, err, n);
        l->min_rounds = (int)v;
        break;
    case 'M':
        status = option_long("--max-rounds", optarg, 1, 10000, &v, err, n);
        l->max_rounds = (int)v;
        break;
    case 'r':
        status = option_long("--rounds", optarg, 1, 10000, &v, err, n);
        l->min_rounds = l->max_rounds = (int)v;
        break;
    case 'B': status = option_double("--budget", optarg, 1, 86400, &l->budget_s, err, n); break;
    case 'T':
        status = option_double("--target", optarg, 0, 100, &pct, err, n);
        l->target = pct / 100;
        break;
    case 'u':
        l->units = optarg;
        status = units_check(optarg, err, n);
        break;
    /* <<take-what-runs-and-where>>, paper/40-harness.md */
    case 'S': status = option_double("--scale", optarg, 0.01, MAX_SCALE, &cfg->scale, err, n); break;
    case 'a':
        cfg->rows = optarg;
        status = names_check("--arch", optarg, arch_row_named, "architecture", err, n);
        break;
    case 'x':
        cfg->measures = optarg;
        status = names_check("--measure", optarg, measurement_named, "measurement", err, n);
        break;
    case 'o': cfg->out_dir = optarg; break;
    case 'e': cfg->engine = optarg; break;
    case 'p': cfg->python = optarg; break;
    default: status = set_error(err, n, "option -%c is not handled", opt);
    }
    return status;
}

/* <<bars-the-grid-needs>>, paper/40-harness.md */
static int64_t longest_window(size_t n_combos)
{
    int64_t longest = 1;
    for (size_t k = 0; k < n_combos; k++) {
        struct combo_params p = grid_params(grid_length(k, n_combos));
        const int64_t w[] = {p.h_half, p.h_len, p.h_sqrt, p.t_third, p.t_half, p.t_len};
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
            longest = w[i] > longest ? w[i] : longest;
    }
    return longest;
}

static size_t least_bars(const struct bench_config *cfg)
{
    int divisor = 1;
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if ((names_include(cfg->rows, ARCH_ROWS[i].name) || ARCH_ROWS[i].pairing == PAIRING_NONE)
            && ARCH_ROWS[i].part.bar_divisor > divisor)
            divisor = ARCH_ROWS[i].part.bar_divisor;
    return (size_t)longest_window(cfg->n_combos) * (size_t)divisor;
}

/* <<parse-the-command-line>>, paper/40-harness.md */
/* 0: run. Otherwise the command line has been answered (--help, --version,
 * --list, or a refusal printed) and *status is the exit status. */
static int parse_options(int argc, char **argv, struct bench_config *cfg, int *status)
{
    /* <<the-benchs-long-options>>, paper/40-harness.md */
    static const struct option options[] = {
        {"bars", required_argument, 0, 'b'}, {"combos", required_argument, 0, 'c'},
        {"seed", required_argument, 0, 's'}, {"budget", required_argument, 0, 'B'},
        {"target", required_argument, 0, 'T'}, {"min-rounds", required_argument, 0, 'm'},
        {"units", required_argument, 0, 'u'},
        {"max-rounds", required_argument, 0, 'M'}, {"rounds", required_argument, 0, 'r'},
        {"arch", required_argument, 0, 'a'}, {"measure", required_argument, 0, 'x'},
        {"scale", required_argument, 0, 'S'}, {"out", required_argument, 0, 'o'},
        {"engine", required_argument, 0, 'e'}, {"python", required_argument, 0, 'p'},
        {"list", no_argument, 0, 'l'}, {"version", no_argument, 0, 'V'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    char err[512];
    int opt;
    *status = 0;
    /* <<take-the-options-until-one-answers>>, paper/40-harness.md */
    while ((opt = option_next(argc, argv, ":h", options, err, sizeof err)) != -1) {
        if (opt == 'h' || opt == 'V' || opt == 'l') {
            if (opt == 'h')
                usage(stdout);
            else if (opt == 'V')
                print_version("ipctax-bench", IPCTAX_COMMIT);
            else
                list_everything();
            return 1;
        }
        if (opt == '?' || take_option(opt, cfg, err, sizeof err) != 0) {
            *status = usage_error("ipctax-bench", "%s", err);
            return 1;
        }
    }
    /* <<check-what-no-one-option-can>>, paper/40-harness.md */
    if (optind < argc)
        *status = usage_error("ipctax-bench", "unexpected argument '%s'", argv[optind]);
    else if (cfg->limits.min_rounds > cfg->limits.max_rounds)
        *status = usage_error("ipctax-bench", "--min-rounds %d is above --max-rounds %d",
                              cfg->limits.min_rounds, cfg->limits.max_rounds);
    else if (cfg->n_bars < least_bars(cfg))
        *status = usage_error("ipctax-bench", "--bars %zu is too few: the grid of %zu "
                              "combinations has windows of up to %lld bars, and the "
                              "architectures chosen need at least %zu", cfg->n_bars,
                              cfg->n_combos, (long long)longest_window(cfg->n_combos),
                              least_bars(cfg));
    return *status != 0;
}

/* <<bench-check-the-output-folder>>, paper/40-harness.md */
/* 0 when dir holds nothing; else -1, with a refusal printed. */
static int out_dir_empty(const char *dir)
{
    char path[4200], first[256] = "";
    struct stat st;
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && first[0] == '\0';)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(first, sizeof first, "%s", e->d_name);
    if (d != NULL)
        closedir(d);
    if (first[0] == '\0')
        return 0;
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    if (stat(path, &st) == 0)
        fprintf(stderr, "ipctax-bench: --out %s is a data folder (it holds manifest.csv): a run "
                "reaches data/ only whole, through make measure; name an empty folder\n", dir);
    else
        fprintf(stderr, "ipctax-bench: --out %s is not empty (it holds %s): a run is written "
                "into an empty folder, so that no file of another run stays beside it\n", dir,
                first);
    return -1;
}

static int check_out_dir(const char *dir)
{
    char probe[4096];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ipctax-bench: --out %s: cannot create it: %s\n", dir, strerror(errno));
        return -1;
    }
    if (out_dir_empty(dir) != 0)
        return -1;
    snprintf(probe, sizeof probe, "%s/.ipctax-write-probe", dir);
    FILE *f = fopen(probe, "w");
    if (f == NULL || fclose(f) != 0) {
        fprintf(stderr, "ipctax-bench: --out %s: cannot write there: %s\n", dir,
                strerror(errno));
        return -1;
    }
    remove(probe);
    return 0;
}

/* <<write-the-reference-sweep>>, paper/40-harness.md */
static int write_sweep(const char *dir, const struct sweep_job *job,
                       const struct combo_result *reference)
{
    char err[ERR_SIZE];
    struct data_out out;
    if (data_out_open(&out, dir, "sweep.csv", err, sizeof err) != 0)
        return -1;
    for (size_t k = 0; k < job->n_combos; k++) {
        const struct combo_params *p = &job->params[k];
        data_int(&out, SWEEP_combo, (int64_t)k);
        data_int(&out, SWEEP_L, p->h_len);
        data_int(&out, SWEEP_h_half, p->h_half);
        data_int(&out, SWEEP_h_len, p->h_len);
        data_int(&out, SWEEP_h_sqrt, p->h_sqrt);
        data_int(&out, SWEEP_t_third, p->t_third);
        data_int(&out, SWEEP_t_half, p->t_half);
        data_int(&out, SWEEP_t_len, p->t_len);
        data_double(&out, SWEEP_pnl, reference[k].pnl);
        data_int(&out, SWEEP_trades, reference[k].trades);
        data_end_row(&out);
    }
    return data_out_close(&out);
}

/* <<write-the-machine-and-the-settings>>, paper/40-harness.md */
static int write_machine(const char *dir)
{
    char err[ERR_SIZE];
    struct data_out out;
    if (data_out_open(&out, dir, "machine.csv", err, sizeof err) != 0)
        return -1;
    machine_write_rows(&out);
    return data_out_close(&out);
}

static void setting(struct data_out *out, const char *key, const char *text, double number)
{
    data_text(out, KV_key, key);
    if (text != NULL)
        data_text(out, KV_value, text);
    else
        data_double(out, KV_value, number);
    data_end_row(out);
}

static int write_run(const char *dir, const struct bench_config *cfg, const char *sha256,
                     const struct schedule_outcome *how)
{
    char err[ERR_SIZE];
    struct data_out out;
    if (data_out_open(&out, dir, "run.csv", err, sizeof err) != 0)
        return -1;
    setting(&out, "bars", NULL, (double)cfg->n_bars);
    setting(&out, "combos", NULL, (double)cfg->n_combos);
    setting(&out, "seed", NULL, cfg->seed);
    setting(&out, "series_sha256", sha256, 0);
    setting(&out, "scale", NULL, cfg->scale);
    setting(&out, "budget_s", NULL, cfg->limits.budget_s);
    setting(&out, "target", NULL, cfg->limits.target);
    setting(&out, "units", cfg->limits.units != NULL ? cfg->limits.units : "default", 0);
    setting(&out, "headline_units", NULL, HEADLINE_UNITS);
    setting(&out, "min_rounds", NULL, cfg->limits.min_rounds);
    setting(&out, "max_rounds", NULL, cfg->limits.max_rounds);
    setting(&out, "rounds", NULL, how->rounds);
    setting(&out, "stop_reason", how->stop_reason, 0);
    setting(&out, "rounds_seconds", NULL, how->seconds);
    char cpus[32] = "none";
    if (how->duet_cpus[0] >= 0)
        snprintf(cpus, sizeof cpus, "%d %d", how->duet_cpus[0], how->duet_cpus[1]);
    setting(&out, "duet_cpus", cpus, 0);
    setting(&out, "aa_reach", NULL, how->reach);
    for (int i = 0; i < N_REPEATED; i++)
        setting(&out, REPETITIONS[i].key, NULL, repetitions_at(i, cfg->scale));
    return data_out_close(&out);
}

/* <<bench-main>>, paper/40-harness.md */
int main(int argc, char **argv)
{
    struct bench_config cfg = DEFAULT_CONFIG;
    struct harness_env env;
    char err[ERR_SIZE], sha256[65];
    int answered;
    /* <<bench-read-the-command-line>>, paper/40-harness.md */
    if (tuned_path_force_from_environment(err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-bench: %s\n", err);
        return 2;
    }
    if (parse_options(argc, argv, &cfg, &answered) != 0)
        return answered;
    if (check_out_dir(cfg.out_dir) != 0)
        return 2;
    /* <<bench-open-the-scratch-environment>>, paper/40-harness.md */
    char note[ENV_NOTE_BYTES];
    snprintf(note, sizeof note, "\nipctax-bench: interrupted: %s keeps only the files of the "
             "stages that had finished, which are not a run (no weave reads them); nothing "
             "else was written", cfg.out_dir);
    env_note_for_a_signal(note);
    if (env_open(&env, cfg.engine, cfg.python, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-bench: %s\n", err);
        return 2;
    }
    double *close = malloc(cfg.n_bars * sizeof *close);
    struct combo_params *params = malloc(cfg.n_combos * sizeof *params);
    struct combo_result *reference = malloc(cfg.n_combos * sizeof *reference);
    int status = 2;
    if (close == NULL || params == NULL || reference == NULL) {
        fprintf(stderr, "ipctax-bench: out of memory for the job\n");
        goto done;
    }
    /* <<bench-make-the-job>>, paper/40-harness.md */
    gbm_series(close, cfg.n_bars, cfg.seed);
    grid_fill(params, cfg.n_combos);
    series_sha256_hex(close, cfg.n_bars, sha256);
    if (cfg.n_bars == DEFAULT_BARS && cfg.seed == DEFAULT_SEED &&
        strcmp(sha256, SPEC_SERIES_SHA256) != 0) {
        fprintf(stderr, "ipctax-bench: the series hashes to %s, not the specification's %s\n",
                sha256, SPEC_SERIES_SHA256);
        goto done;
    }
    struct sweep_job job = {close, cfg.n_bars, params, cfg.n_combos};
    if (sweep_naive(close, cfg.n_bars, params, cfg.n_combos, reference) != 0) {
        fprintf(stderr, "ipctax-bench: out of memory for the reference sweep\n");
        goto done;
    }
    /* <<bench-run-the-architectures>>, paper/40-harness.md */
    fprintf(stderr, "ipctax-bench: %zu bars x %zu combos, seed %u, output in %s\n", cfg.n_bars,
            cfg.n_combos, cfg.seed, cfg.out_dir);
    struct schedule_outcome how = {0};
    int gate_failed = 0, failed = 0;
    struct measure_context ctx = {&env, &job, cfg.out_dir, cfg.scale, cfg.seed,
                                  cfg.limits.min_rounds};
    struct rounds_measurements in_rounds;
    rounds_measurements_begin(&in_rounds, &ctx, cfg.measures);
    cfg.limits.hook = (struct round_hook){rounds_measurements_pass, &in_rounds};
    if (schedule_run(&env, &job, reference, cfg.rows, cfg.seed, &cfg.limits, cfg.out_dir, &how,
                     err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-bench: architectures: %s\n", err);
        failed = 1;
    }
    gate_failed = how.gate_failures > 0;
    failed |= how.failures > how.gate_failures;        /* could not run, beyond a wrong answer */
    /* <<bench-make-the-measurements>>, paper/40-harness.md */
    int in_rounds_failed = rounds_measurements_end(&in_rounds, !failed && !gate_failed) != 0;
    if (failed || gate_failed) {
        fprintf(stderr, "ipctax-bench: stopped after an architecture failed (above): nothing was "
                "measured beyond it, and %s holds its gate.csv, not a run\n", cfg.out_dir);
    } else {
        failed |= measurements_run(&ctx, cfg.measures) != 0;
    }
    failed |= in_rounds_failed;
    /* <<bench-write-the-runs-files>>, paper/40-harness.md */
    if (write_sweep(cfg.out_dir, &job, reference) != 0 || write_machine(cfg.out_dir) != 0 ||
        write_run(cfg.out_dir, &cfg, sha256, &how) != 0) {
        fprintf(stderr, "ipctax-bench: cannot write the run's files in %s: %s\n", cfg.out_dir,
                strerror(errno));
        failed = 1;
    }
    status = failed ? 2 : gate_failed ? 1 : 0;
done:
    env_close(&env);
    free(close);
    free(params);
    free(reference);
    return status;
}
