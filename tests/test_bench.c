/*
 * test_bench.c - build/ipctax-bench end to end on a tiny job: the files it
 * writes and what is in them, its exit status on bad options, and its exit
 * status when an architecture's results differ from the in-process sweep.
 *
 * The equivalence gate is tested honestly, without changing any code: the
 * bench's own --engine option points the spawn_stdin architecture at this
 * test program, which then acts as a fake engine (see fake_engine below)
 * that answers the sweep correctly except for one ulp of PnL or one trade.
 * The gate must catch that and the bench must exit 1.
 */
#include <math.h>

#include "testengine.h"
#include "report/csvread.h"

/* ---- The fake engine ------------------------------------------------------ */

/*
 * Invoked by the bench as `test_bench --kernel naive --stdin` with
 * IPCTAX_FAKE_ENGINE in the environment. Serves one request the way the real
 * --stdin engine does, then spoils the answer as the mode says:
 *   ulp     the last combination's PnL is one ulp larger
 *   trades  the first combination has one more trade
 *   error   an error frame instead of a reply
 */
static int fake_engine(const char *mode)
{
    uint8_t header[4];
    if (read_exact(STDIN_FILENO, header, 4, NO_DEADLINE) != 0)
        return 3;
    uint32_t len = le_get_u32(header);
    uint8_t *body = malloc(len ? len : 1);
    struct request_view req;
    char err[256];
    if (body == NULL || read_exact(STDIN_FILENO, body, len, NO_DEADLINE) != 0 ||
        request_decode(body, len, &req, err, sizeof err) != 0 || req.opcode != OP_SWEEP ||
        req.n_combos == 0)
        return 3;
    if (strcmp(mode, "error") == 0) {
        const char *message = "fake engine refuses on purpose";
        uint32_t n = error_frame_header(header, strlen(message));
        struct iovec iov[2] = {{header, 4}, {(void *)message, n}};
        write_all(STDOUT_FILENO, iov, 2, NO_DEADLINE);
        return 1;
    }
    double *close = malloc((size_t)req.n_bars * sizeof *close);
    struct combo_params *params = malloc(req.n_combos * sizeof *params);
    struct combo_result *results = malloc(req.n_combos * sizeof *results);
    size_t out_len = (size_t)sweep_reply_size(req.n_combos);
    uint8_t *out = malloc(out_len);
    le_get_f64s(close, req.close, req.n_bars);
    request_params(&req, params);
    if (sweep_naive(close, req.n_bars, params, req.n_combos, results) != 0)
        return 3;
    if (strcmp(mode, "ulp") == 0)
        results[req.n_combos - 1].pnl = nextafter(results[req.n_combos - 1].pnl, INFINITY);
    else if (strcmp(mode, "trades") == 0)
        results[0].trades += 1;
    sweep_reply_encode(out, results, req.n_combos);
    le_put_u32(header, (uint32_t)out_len);
    struct iovec iov[2] = {{header, 4}, {out, out_len}};
    return write_all(STDOUT_FILENO, iov, 2, NO_DEADLINE) == 0 ? 0 : 3;
}

static char self_path[4096];

/* ---- Running the bench ---------------------------------------------------- */

static const char *out_dir(char buf[256], const char *name)
{
    return scratch_path(buf, 256, name);
}

/* Runs ipctax-bench with args (NULL-terminated); fake: IPCTAX_FAKE_ENGINE's value or NULL. */
static void run_bench(char *const args[], const char *fake, struct run_result *r)
{
    char *argv[32] = {(char *)bench_binary()};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char *envp[512];
    char fake_var[64];
    size_t e = 0;
    for (char **v = environ; *v != NULL && e < 510; v++)
        if (strncmp(*v, "IPCTAX_FAKE_ENGINE=", 19) != 0)
            envp[e++] = *v;
    if (fake != NULL) {
        snprintf(fake_var, sizeof fake_var, "IPCTAX_FAKE_ENGINE=%s", fake);
        envp[e++] = fake_var;
    }
    envp[e] = NULL;
    assert_int_equal(run_program(argv, envp, NULL, 0, 15000, r), 0);
    if (r->timed_out)
        fail_msg("ipctax-bench did not finish within 15 s; stderr:\n%s", r->err);
}

static void load(const char *dir, const char *name, struct csv_table *t)
{
    char path[512], err[256] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (csv_table_load(path, t, err, sizeof err) != 0)
        fail_msg("cannot read %s: %s", path, err);
}

static int column(const struct csv_table *t, const char *name)
{
    int c = csv_table_column(t, name);
    if (c < 0)
        fail_msg("no column '%s'", name);
    return c;
}

/* The cell of `column` in the row whose `key_column` is `key`, or fail. */
static const char *lookup(const struct csv_table *t, const char *key_column, const char *key,
                          const char *value_column)
{
    int k = column(t, key_column), v = column(t, value_column);
    for (size_t r = 0; r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), key) == 0)
            return csv_table_cell(t, r, v);
    fail_msg("no row with %s = %s", key_column, key);
    return NULL;
}

/* ---- Tests ----------------------------------------------------------------- */

enum { BARS = 500, COMBOS = 3 };

static void tiny_job_writes_the_four_files(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "tiny");
    char *const args[] = {"--bars", "500", "--combos", "3", "--runs", "2", "--arch",
                          "in_process,batch_unix", "--measure", "none", "--out", dir,
                          "--engine", (char *)engine_binary(), NULL};
    struct run_result r;
    run_bench(args, NULL, &r);
    if (exit_code(&r) != 0)
        fail_msg("ipctax-bench exited %d; stderr:\n%s", exit_code(&r), r.err);
    run_result_free(&r);

    /* What the in-process kernel says, computed here independently of the bench. */
    double close[BARS];
    struct combo_params params[COMBOS];
    struct combo_result expected[COMBOS];
    gbm_series(close, BARS, DEFAULT_SEED);
    grid_fill(params, COMBOS);
    assert_int_equal(sweep_naive(close, BARS, params, COMBOS, expected), 0);

    struct csv_table t;
    load(dir, "architectures.csv", &t);
    assert_int_equal(t.n_rows, 4);
    const char *const archs[] = {"in_process", "in_process", "batch_unix", "batch_unix"};
    const char *const runs[] = {"1", "2", "1", "2"};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(csv_table_cell(&t, i, column(&t, "architecture")), archs[i]);
        assert_string_equal(csv_table_cell(&t, i, column(&t, "run")), runs[i]);
        double seconds;
        assert_int_equal(csv_table_number(&t, i, column(&t, "seconds"), &seconds), 0);
        assert_true(isfinite(seconds) && seconds >= 0.0);    /* a number, not a timing claim */
    }
    csv_table_free(&t);

    load(dir, "sweep.csv", &t);
    assert_int_equal(t.n_rows, COMBOS);
    for (size_t k = 0; k < COMBOS; k++) {
        char text[64];
        snprintf(text, sizeof text, "%zu", k);
        assert_string_equal(csv_table_cell(&t, k, column(&t, "combo")), text);
        snprintf(text, sizeof text, "%lld", (long long)params[k].h_len);
        assert_string_equal(csv_table_cell(&t, k, column(&t, "L")), text);
        const int64_t six[] = {params[k].h_half, params[k].h_len, params[k].h_sqrt,
                               params[k].t_third, params[k].t_half, params[k].t_len};
        const char *const names[] = {"h_half", "h_len", "h_sqrt", "t_third", "t_half", "t_len"};
        for (int p = 0; p < 6; p++) {
            snprintf(text, sizeof text, "%lld", (long long)six[p]);
            assert_string_equal(csv_table_cell(&t, k, column(&t, names[p])), text);
        }
        snprintf(text, sizeof text, "%.17g", expected[k].pnl);
        assert_string_equal(csv_table_cell(&t, k, column(&t, "pnl")), text);
        double pnl;
        assert_int_equal(csv_table_number(&t, k, column(&t, "pnl"), &pnl), 0);
        assert_same_double(pnl, expected[k].pnl);             /* %.17g round-trips */
        snprintf(text, sizeof text, "%lld", (long long)expected[k].trades);
        assert_string_equal(csv_table_cell(&t, k, column(&t, "trades")), text);
    }
    csv_table_free(&t);

    load(dir, "gate.csv", &t);
    assert_int_equal(t.n_rows, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(csv_table_cell(&t, i, column(&t, "architecture")),
                            i == 0 ? "in_process" : "batch_unix");
        assert_string_equal(csv_table_cell(&t, i, column(&t, "combos")), "3");
        assert_string_equal(csv_table_cell(&t, i, column(&t, "identical")), "3");
        assert_string_equal(csv_table_cell(&t, i, column(&t, "max_abs_pnl_diff")), "0");
        assert_string_equal(csv_table_cell(&t, i, column(&t, "verdict")), "pass");
    }
    csv_table_free(&t);

    load(dir, "machine.csv", &t);
    assert_string_equal(lookup(&t, "key", "bars", "value"), "500");
    assert_string_equal(lookup(&t, "key", "combos", "value"), "3");
    assert_string_equal(lookup(&t, "key", "runs", "value"), "2");
    assert_string_equal(lookup(&t, "key", "seed", "value"), "42");
    char sha[65];
    series_sha256_hex(close, BARS, sha);
    assert_string_equal(lookup(&t, "key", "series_sha256", "value"), sha);
    csv_table_free(&t);
}

static void bad_options_exit_2_and_write_nothing(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "never");
    struct {
        char *args[8];
        const char *needle;
    } cases[] = {
        {{"--runs", "1O"}, "bad value"},
        {{"--arch", "nosuch"}, "no architecture named 'nosuch'"},
        {{"--arch", "in_process,nosuch"}, "no architecture named 'nosuch'"},
        {{"--measure", "nosuch"}, "no measurement named 'nosuch'"},
        {{"--bars", "0"}, "bad value"},
        {{"--combos", "-1"}, "bad value"},
        {{"--scale", "0"}, "bad value"},
        {{"stray"}, "bad value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *args[16];
        size_t n = 0;
        for (size_t k = 0; cases[i].args[k] != NULL; k++)
            args[n++] = cases[i].args[k];
        char *const rest[] = {"--bars", "500", "--combos", "3", "--runs", "1", "--measure",
                              "none", "--out", dir};
        /* The bad option goes last, so it is not overridden by a good one. */
        memmove(args + 10, args, n * sizeof *args);
        memcpy(args, rest, sizeof rest);
        args[n + 10] = NULL;
        struct run_result r;
        run_bench(args, NULL, &r);
        if (exit_code(&r) != 2 || strstr(r.err, cases[i].needle) == NULL)
            fail_msg("%s %s: exit %d, stderr \"%s\"; expected 2 and \"%s\"", cases[i].args[0],
                     cases[i].args[1] ? cases[i].args[1] : "", exit_code(&r), r.err,
                     cases[i].needle);
        run_result_free(&r);
        assert_int_equal(access(dir, F_OK), -1);          /* no partial data/ */
    }
}

/* The spawn_stdin architecture with the real engine passes: the control. */
static void real_engine_passes_the_gate(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "control");
    char *const args[] = {"--bars", "500", "--combos", "3", "--runs", "1", "--arch",
                          "in_process,spawn_stdin", "--measure", "none", "--out", dir,
                          "--engine", (char *)engine_binary(), NULL};
    struct run_result r;
    run_bench(args, NULL, &r);
    if (exit_code(&r) != 0)
        fail_msg("ipctax-bench exited %d; stderr:\n%s", exit_code(&r), r.err);
    run_result_free(&r);
    struct csv_table t;
    load(dir, "gate.csv", &t);
    assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "verdict"), "pass");
    csv_table_free(&t);
}

/* One ulp of one PnL, or one trade: the gate fails, the bench exits 1. */
static void wrong_results_fail_the_gate_and_exit_1(void **state)
{
    (void)state;
    const char *const modes[] = {"ulp", "trades"};
    for (size_t m = 0; m < 2; m++) {
        char dir[256], name[32];
        snprintf(name, sizeof name, "gate-%s", modes[m]);
        out_dir(dir, name);
        char *const args[] = {"--bars", "500", "--combos", "3", "--runs", "1", "--arch",
                              "in_process,spawn_stdin", "--measure", "none", "--out", dir,
                              "--engine", self_path, NULL};
        struct run_result r;
        run_bench(args, modes[m], &r);
        if (exit_code(&r) != 1 ||
            strstr(r.err, "spawn_stdin FAILS the equivalence gate: 2 of 3 combos identical") == NULL)
            fail_msg("fake engine (%s): exit %d, stderr:\n%s", modes[m], exit_code(&r), r.err);
        run_result_free(&r);

        struct csv_table t;
        load(dir, "gate.csv", &t);
        assert_int_equal(t.n_rows, 2);
        assert_string_equal(lookup(&t, "architecture", "in_process", "verdict"), "pass");
        assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "verdict"), "FAIL");
        assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "identical"), "2");
        double diff = strtod(lookup(&t, "architecture", "spawn_stdin", "max_abs_pnl_diff"), NULL);
        if (m == 0)
            assert_true(diff > 0.0);                       /* one ulp */
        else
            assert_same_double(diff, 0.0);                 /* same PnL, other trades */
        csv_table_free(&t);
        load(dir, "architectures.csv", &t);                /* the timings are still kept */
        assert_int_equal(t.n_rows, 2);
        csv_table_free(&t);
    }
}

/* An architecture that cannot complete is a failed run: exit 2, "not run". */
static void engine_refusing_is_a_failed_run(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "refused");
    char *const args[] = {"--bars", "500", "--combos", "3", "--runs", "1", "--arch",
                          "in_process,spawn_stdin", "--measure", "none", "--out", dir,
                          "--engine", self_path, NULL};
    struct run_result r;
    run_bench(args, "error", &r);
    if (exit_code(&r) != 2 || strstr(r.err, "fake engine refuses on purpose") == NULL)
        fail_msg("refusing engine: exit %d, stderr:\n%s", exit_code(&r), r.err);
    run_result_free(&r);
    struct csv_table t;
    load(dir, "gate.csv", &t);
    assert_string_equal(lookup(&t, "architecture", "in_process", "verdict"), "pass");
    assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "verdict"), "not run");
    csv_table_free(&t);
}

static int group_setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return -1;
    self_path[n] = '\0';
    /* The bench puts its engines' sockets in build/, relative to where it runs. */
    char root[4096];
    if (chdir(root_path(root, sizeof root, ".")) != 0)
        return -1;
    if (build_programs() != 0 || test_dir_create() != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    test_dir_remove();
    return 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_arm_watchdog, test_disarm_watchdog)

int main(int argc, char **argv)
{
    const char *fake = getenv("IPCTAX_FAKE_ENGINE");
    if (fake != NULL) {
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "--stdin") == 0)
                return fake_engine(fake);
        return 3;
    }
    const struct CMUnitTest tests[] = {
        T(tiny_job_writes_the_four_files),
        T(bad_options_exit_2_and_write_nothing),
        T(real_engine_passes_the_gate),
        T(wrong_results_fail_the_gate_and_exit_1),
        T(engine_refusing_is_a_failed_run),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
