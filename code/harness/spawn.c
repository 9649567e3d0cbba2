/*
 * spawn.c - the cost of one engine process per call, isolated.
 *
 * Tangled from paper/75-crossings.md.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/env.h"
#include "harness/measure.h"
#include "harness/placement.h"
#include "harness/session.h"
#include "util/error.h"
#include "util/random.h"
#include "util/timing.h"

enum {
    SPAWN_WARMUP = 5,          /* the first spawns also warm the page cache */
};

enum spawn_kind { SPAWN_EXIT, SPAWN_ECHO, SPAWN_SWEEP, SPAWN_WARM, N_SPAWN_KINDS };
static const char *const SPAWN_KINDS[N_SPAWN_KINDS] = {"exit", "echo", "sweep", "warm"};

/* <<write-a-spawn>>, paper/75-crossings.md */
static void write_spawn(struct data_out *out, enum spawn_kind kind, int rep, size_t combo,
                        const struct call_record *t)
{
    data_text(out, SPAWN_kind, SPAWN_KINDS[kind]);
    data_int(out, SPAWN_rep, rep);
    data_int(out, SPAWN_combo, (int64_t)combo);
    data_int(out, SPAWN_rtt_ns, (int64_t)t->rtt_ns);
    data_known(out, SPAWN_process_ns, t->has_process, (int64_t)t->process_ns);
    data_known(out, SPAWN_process_cpu_ns, t->has_usage, (int64_t)t->process_cpu_ns);
    data_known(out, SPAWN_minor_faults, t->has_usage, (int64_t)t->process_minor_faults);
    data_known(out, SPAWN_compute_ns, t->has_engine, (int64_t)t->compute_ns);
    data_known(out, SPAWN_spawn_ns, t->has_process, (int64_t)t->spawn_ns);
    data_known(out, SPAWN_request_ns, t->has_engine, (int64_t)t->request_ns);
    data_known(out, SPAWN_engine_decode_ns, t->has_engine, (int64_t)t->engine_decode_ns);
    data_known(out, SPAWN_engine_minor_faults, t->has_engine, (int64_t)t->engine_minor_faults);
    data_end_row(out);
}

/* <<one-spawned-call>>, paper/75-crossings.md */
/* <<spawn-and-exit>>, paper/75-crossings.md */
static int spawn_and_exit(const struct harness_env *env, struct call_record *t, char *err,
                          size_t err_size)
{
    char *argv[] = {(char *)env->engine, "--version", NULL};
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    struct rusage usage;
    memset(t, 0, sizeof *t);
    uint64_t t0 = clock_ns();
    pid_t pid = env_spawn(argv, -1, null, err, err_size);
    uint64_t spawned = clock_ns();
    if (null >= 0)
        close(null);
    if (pid < 0)
        return -1;
    int status;
    pid_t ended = wait4(pid, &status, 0, &usage);
    env_untrack_child(pid);
    if (ended != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return set_error(err, err_size, "%s --version did not exit cleanly", env->engine);
    t->rtt_ns = t->process_ns = clock_ns() - t0;
    t->spawn_ns = spawned - t0;
    t->process_cpu_ns = (uint64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000u +
                        (uint64_t)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000u;
    t->process_minor_faults = (uint64_t)usage.ru_minflt;
    t->has_process = t->has_usage = 1;
    return 0;
}

/* One sample of a kind; rep <= 0 is a warm-up, not written. */
static int spawn_sample(const struct measure_context *ctx, struct session *spawned,
                        struct session *warm, enum spawn_kind kind, int rep,
                        struct data_out *out, char *err, size_t err_size)
{
    const struct sweep_job *job = ctx->job;
    struct call_record t;
    struct combo_result result;
    double back;
    size_t combo = (size_t)(rep > 0 ? 2 * (rep - 1) : 0) % job->n_combos;
    int status;
    if (kind == SPAWN_EXIT)
        status = spawn_and_exit(ctx->env, &t, err, err_size);
    else if (kind == SPAWN_ECHO)
        status = session_echo(spawned, job->close, 1, &back, &t, err, err_size);
    else
        status = session_sweep(kind == SPAWN_WARM ? warm : spawned, job->close, job->n_bars,
                               &job->params[combo], 1, &result, &t, err, err_size);
    if (status == 0 && rep > 0)
        write_spawn(out, kind, rep, kind >= SPAWN_SWEEP ? combo : 0, &t);
    return status;
}

/* <<measure-spawns>>, paper/75-crossings.md */
int measure_spawn(const struct measure_context *ctx, char *err, size_t err_size)
{
    struct session spawned, warm;
    struct data_out out;
    struct session_options o = {TRANSPORT_SPAWN, "spawn", NULL, NULL, 0, 0, NULL, NULL};
    struct session_options w = {TRANSPORT_UNIX, "spawn-warm", NULL, NULL, 0, 1, NULL, NULL};
    int cpus[2];
    placement_init();
    if (placement_duet_cpus(cpus) != 0)
        cpus[0] = current_cpu();
    if (pin_this_thread(cpus[0]) != 0)
        return set_error(err, err_size, "cannot pin the client to CPU %d", cpus[0]);
    if (session_open(&spawned, ctx->env, &o, err, err_size) != 0)
        return -1;
    if (session_open(&warm, ctx->env, &w, err, err_size) != 0) {
        session_close(&spawned);
        return -1;
    }
    int status = measure_open(ctx, "spawn.csv", &out, err, err_size);
    for (int k = 0; status == 0 && k < SPAWN_WARMUP * N_SPAWN_KINDS; k++)
        status = spawn_sample(ctx, &spawned, &warm, (enum spawn_kind)(k % N_SPAWN_KINDS), 0,
                              &out, err, err_size);
    struct mt19937 mt;
    mt19937_seed(&mt, round_seed(ctx->seed ^ 0x73706177u, 0));          /* "spaw" */
    int reps = repetitions_at(REPEAT_SPAWN, ctx->scale);
    for (int rep = 1; status == 0 && rep <= reps; rep++) {
        size_t order[N_SPAWN_KINDS];
        random_order(&mt, order, N_SPAWN_KINDS);
        for (int k = 0; status == 0 && k < N_SPAWN_KINDS; k++)
            status = spawn_sample(ctx, &spawned, &warm, (enum spawn_kind)order[k], rep, &out,
                                  err, err_size);
    }
    if (status == 0 && data_out_close(&out) != 0)
        status = set_error(err, err_size, "cannot write spawn.csv");
    else if (status != 0)
        data_out_abandon(&out);
    session_close(&warm);
    session_close(&spawned);
    pin_this_thread(CPU_ANY);
    return status;
}
