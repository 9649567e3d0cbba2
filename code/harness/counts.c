/*
 * counts.c - callgrind's instruction counts and strace's system calls, for
 * the kernel in and out of the engine and for one request.
 *
 * Tangled from paper/78-counts.md.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/measure.h"
#include "harness/session.h"
#include "kernel/grid.h"
#include "util/error.h"

/* <<counts-job>>, paper/78-counts.md */
enum { COUNT_BARS = 20000, COUNT_COMBOS = 4 };

/* The job of the counts: the series' first COUNT_BARS bars (the series is a
 * running sum from its start, so these are ipctax-kernel's too) and the grid
 * of COUNT_COMBOS combinations, which spans the same lengths as the study's. */
struct count_job {
    size_t n_bars;
    struct combo_params params[COUNT_COMBOS];
    struct combo_result results[COUNT_COMBOS];
};

static void make_count_job(const struct sweep_job *job, struct count_job *cj)
{
    cj->n_bars = job->n_bars < COUNT_BARS ? job->n_bars : COUNT_BARS;
    grid_fill(cj->params, COUNT_COMBOS);
}

/* <<read-the-counts>>, paper/78-counts.md */
static int read_callgrind_total(const char *path, double *total)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen(path, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "totals: %lf", total) == 1 || sscanf(line, "summary: %lf", total) == 1)
            found = 1;
    if (f != NULL)
        fclose(f);
    return found ? 0 : -1;
}

static int read_strace_total(const char *path, double *calls)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen(path, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        double pct, secs, usecs, n;
        char word[32];
        if (sscanf(line, "%lf %lf %lf %lf %*s %31s", &pct, &secs, &usecs, &n, word) == 5 &&
            strcmp(word, "total") == 0)
            *calls = n, found = 1;
        else if (sscanf(line, "%lf %lf %lf %lf %31s", &pct, &secs, &usecs, &n, word) == 5 &&
                 strcmp(word, "total") == 0)
            *calls = n, found = 1;
    }
    if (f != NULL)
        fclose(f);
    return found ? 0 : -1;
}

static void write_count(struct data_out *out, const char *side, const char *what, int requests,
                        double value)
{
    data_text(out, COUNTS_side, side);
    data_text(out, COUNTS_what, what);
    data_int(out, COUNTS_requests, requests);
    data_double(out, COUNTS_value, value);
    data_end_row(out);
}

/* <<count-in-the-process>>, paper/78-counts.md */
/* Runs argv to its end, its output discarded; 0 if it exited 0. */
static int run_to_end(char *const argv[], char *err, size_t err_size)
{
    int status, null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    pid_t pid = env_spawn(argv, -1, null, err, err_size);
    if (null >= 0)
        close(null);
    if (pid < 0)
        return -1;
    pid_t got = waitpid(pid, &status, 0);
    env_untrack_child(pid);
    if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return set_error(err, err_size, "%s %s failed (status %d)", argv[0], argv[1], status);
    return 0;
}

static int count_in_process(const struct measure_context *ctx, const struct count_job *cj,
                            double *instructions, char *err, size_t err_size)
{
    char tool[PATH_MAX + 32], dir[PATH_MAX], file[PATH_MAX + 16], out_arg[PATH_MAX + 64];
    char bars[32], combos[32];
    snprintf(dir, sizeof dir, "%s", ctx->env->engine);
    snprintf(tool, sizeof tool, "%s/ipctax-kernel", dirname(dir));
    env_scratch_path(ctx->env, "kernel.callgrind", file, sizeof file);
    snprintf(out_arg, sizeof out_arg, "--callgrind-out-file=%s", file);
    snprintf(bars, sizeof bars, "%zu", cj->n_bars);
    snprintf(combos, sizeof combos, "%d", COUNT_COMBOS);
    char *argv[] = {"/usr/bin/valgrind", "--tool=callgrind", "-q", out_arg,
                    "--toggle-collect=sweep_naive_in", tool, bars, combos, NULL};
    int status = run_to_end(argv, err, err_size);
    if (status == 0 && read_callgrind_total(file, instructions) != 0)
        status = set_error(err, err_size, "no callgrind totals in %s", file);
    remove(file);
    return status;
}

/* <<count-in-the-engine>>, paper/78-counts.md */
/* Runs `requests` sweeps through an engine wrapped in `wrapper`. */
static int serve_under(const struct measure_context *ctx, struct count_job *cj,
                       char *const wrapper[], const char *name, int requests, char *err,
                       size_t err_size)
{
    struct session s;
    struct session_options o = {TRANSPORT_UNIX, name, "naive", NULL, 0, 1, NULL, wrapper};
    if (session_open(&s, ctx->env, &o, err, err_size) != 0)
        return -1;
    int status = 0;
    for (int r = 0; status == 0 && r < requests; r++)
        status = session_sweep(&s, ctx->job->close, cj->n_bars, cj->params, COUNT_COMBOS,
                               cj->results, NULL, err, err_size);
    session_close(&s);
    return status;
}

static int callgrind_engine(const struct measure_context *ctx, struct count_job *cj,
                            int kernel_only, int requests, double *total, char *err,
                            size_t err_size)
{
    char file[PATH_MAX + 16], out_arg[PATH_MAX + 64], name[64];
    snprintf(name, sizeof name, "count-%s-%d", kernel_only ? "kernel" : "all", requests);
    env_scratch_path(ctx->env, name, file, sizeof file);
    snprintf(out_arg, sizeof out_arg, "--callgrind-out-file=%s.out", file);
    char *wrapper[] = {"/usr/bin/valgrind", "--tool=callgrind", "-q", out_arg,
                       kernel_only ? "--toggle-collect=sweep_naive_in" : NULL, NULL};
    if (serve_under(ctx, cj, wrapper, name, requests, err, err_size) != 0)
        return -1;
    snprintf(file + strlen(file), sizeof file - strlen(file), ".out");
    int status = read_callgrind_total(file, total);
    remove(file);
    return status == 0 ? 0 : set_error(err, err_size, "no callgrind totals in %s", file);
}

static int strace_engine(const struct measure_context *ctx, struct count_job *cj, int requests,
                         double *calls, char *err, size_t err_size)
{
    char file[PATH_MAX + 16], name[64];
    snprintf(name, sizeof name, "count-strace-%d", requests);
    env_scratch_path(ctx->env, name, file, sizeof file);
    char *wrapper[] = {"/usr/bin/strace", "-f", "-qq", "-c", "-o", file, NULL};
    if (serve_under(ctx, cj, wrapper, name, requests, err, err_size) != 0)
        return -1;
    int status = read_strace_total(file, calls);
    remove(file);
    return status == 0 ? 0 : set_error(err, err_size,
                                       "no strace summary in %s (is strace installed?)", file);
}

/* <<measure-counts>>, paper/78-counts.md */
int measure_counts(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct count_job cj;
    struct data_out out;
    double in_kernel = 0, kernel2 = 0, total1 = 0, total3 = 0, calls1 = 0, calls_more = 0;
    make_count_job(ctx->job, &cj);
    if (count_in_process(ctx, &cj, &in_kernel, err, err_size) != 0 ||
        callgrind_engine(ctx, &cj, 1, 2, &kernel2, err, err_size) != 0 ||
        callgrind_engine(ctx, &cj, 0, 1, &total1, err, err_size) != 0 ||
        callgrind_engine(ctx, &cj, 0, 3, &total3, err, err_size) != 0 ||
        strace_engine(ctx, &cj, 1, &calls1, err, err_size) != 0 ||
        strace_engine(ctx, &cj, STRACE_REQUESTS, &calls_more, err, err_size) != 0)
        return -1;
    if (measure_open(ctx, "counts.csv", &out, err, err_size) != 0)
        return -1;
    write_count(&out, IN_PROCESS_SIDE, "kernel_instructions", 1, in_kernel);
    write_count(&out, "engine", "kernel_instructions", 2, kernel2);
    write_count(&out, "engine", "total_instructions", 1, total1);
    write_count(&out, "engine", "total_instructions", 3, total3);
    write_count(&out, "engine", "syscalls", 1, calls1);
    write_count(&out, "engine", "syscalls", STRACE_REQUESTS, calls_more);
    write_count(&out, "job", "bars", 0, (double)cj.n_bars);
    write_count(&out, "job", "combos", 0, COUNT_COMBOS);
    return data_out_close(&out) == 0 ? 0 : set_error(err, err_size, "cannot write counts.csv");
}
