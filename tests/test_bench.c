/*
 * test_bench.c - build/ipctax-bench end to end on tiny jobs: the files it
 * writes and what is in them, the randomized order of its rounds and that
 * the order replays from the seed, its command line, its exit status when
 * an architecture's results differ from the in-process sweep, and that it
 * leaves no engine and no socket behind however it ends.
 *
 * The equivalence gate is tested honestly, without changing any code: the
 * bench's own --engine option points the spawn_stdin architecture at this
 * test program, which then acts as a fake engine (see fake_engine below)
 * that answers the sweep correctly except for one ulp of PnL or one trade.
 * The gate must catch that and the bench must exit 1.
 */
#include <math.h>

#include "testengine.h"
#include "harness/placement.h"
#include "report/csvread.h"
#include "schema/architectures.h"
#include "schema/columns.h"
#include "report/summarize.h"

/* ---- The fake engine ------------------------------------------------------ */

/*
 * Invoked by the bench as `test_bench ... --stdin` with IPCTAX_FAKE_ENGINE
 * in the environment. Serves one request the way the real --stdin engine
 * does (with the timing trailer when the request asks for it), then spoils
 * the answer as the mode says:
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
    uint8_t *out = malloc(out_len + TIMING_TRAILER_BYTES);
    le_get_f64s(close, req.close, req.n_bars);
    request_params(&req, params);
    if (sweep_naive(close, req.n_bars, params, req.n_combos, results) != 0)
        return 3;
    if (strcmp(mode, "ulp") == 0)
        results[req.n_combos - 1].pnl = nextafter(results[req.n_combos - 1].pnl, INFINITY);
    else if (strcmp(mode, "trades") == 0)
        results[0].trades += 1;
    sweep_reply_encode(out, results, req.n_combos);
    if (req.timed) {
        struct call_timing t = {0};
        timing_trailer_encode(out + out_len, &t);
        out_len += TIMING_TRAILER_BYTES;
    }
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

/* Runs ipctax-bench with args (NULL-terminated), TMPDIR in the test's
 * scratch folder; fake: IPCTAX_FAKE_ENGINE's value or NULL. */
static void run_bench(char *const args[], const char *fake, struct run_result *r)
{
    char *argv[40] = {(char *)bench_binary()};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 39; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    char *envp[512];
    char fake_var[64], tmp_var[128];
    size_t e = 0;
    for (char **v = environ; *v != NULL && e < 509; v++)
        if (strncmp(*v, "IPCTAX_FAKE_ENGINE=", 19) != 0 && strncmp(*v, "TMPDIR=", 7) != 0)
            envp[e++] = *v;
    if (fake != NULL) {
        snprintf(fake_var, sizeof fake_var, "IPCTAX_FAKE_ENGINE=%s", fake);
        envp[e++] = fake_var;
    }
    snprintf(tmp_var, sizeof tmp_var, "TMPDIR=%s", test_dir);
    envp[e++] = tmp_var;
    envp[e] = NULL;
    assert_int_equal(run_program(argv, envp, NULL, 0, 60000, r), 0);
    if (r->timed_out)
        fail_msg("ipctax-bench did not finish within 60 s; stderr:\n%s", r->err);
}

/* Runs ipctax-bench with args as run_bench does; it must exit 0. */
static void run_bench_ok(char *const args[])
{
    struct run_result r;
    run_bench(args, NULL, &r);
    if (exit_code(&r) != 0)
        fail_msg("ipctax-bench exited %d; stderr:\n%s", exit_code(&r), r.err);
    run_result_free(&r);
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

static const char *cell(const struct csv_table *t, size_t row, const char *name)
{
    return csv_table_cell(t, row, column(t, name));
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

enum { BARS = 500, COMBOS = 3, ROUNDS = 3 };
#define TINY "--bars", "500", "--combos", "3", "--measure", "none"

static void tiny_job_writes_its_files(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "tiny");
    char *const args[] = {TINY, "--rounds", "3", "--arch", "in_process,batch_unix,stateful_unix",
                          "--out", dir, NULL};
    run_bench_ok(args);

    /* What the in-process kernel says, computed here independently of the bench. */
    double close[BARS];
    struct combo_params params[COMBOS];
    struct combo_result expected[COMBOS];
    gbm_series(close, BARS, DEFAULT_SEED);
    grid_fill(params, COMBOS);
    assert_int_equal(sweep_naive(close, BARS, params, COMBOS, expected), 0);

    /* Every unit a couple of duets: the row and in_process started together on two
     * CPUs, each the other's partner, then again with the CPUs swapped; each round's
     * units at positions that are a permutation. */
    struct csv_table t;
    load(dir, "architectures.csv", &t);
    assert_int_equal(t.n_rows, 2 * ROUNDS * 4);
    for (int round = 1; round <= ROUNDS; round++) {
        int positions = 0;
        for (size_t i = 0; i < t.n_rows; i++)
            if (atoi(cell(&t, i, "round")) == round)
                positions |= 1 << atoi(cell(&t, i, "position"));
        assert_int_equal(positions, (1 << 1) | (1 << 2));
    }
    for (size_t i = 0; i < t.n_rows; i += 2) {
        const size_t x = i, b = i + 1;                /* a duet is written row, partner */
        assert_string_equal(cell(&t, x, "pairing"), "duet");
        assert_string_equal(cell(&t, b, "architecture"), "in_process");
        assert_string_equal(cell(&t, x, "partner"), cell(&t, b, "run"));
        assert_string_equal(cell(&t, b, "partner"), cell(&t, x, "run"));
        assert_string_equal(cell(&t, x, "unit"), cell(&t, b, "unit"));
        for (size_t k = x; k <= b; k++) {
            assert_string_equal(cell(&t, k, "status"), "ok");
            double seconds = strtod(cell(&t, k, "seconds"), NULL);
            assert_true(isfinite(seconds) && seconds >= 0.0);   /* a number, not a claim */
            /* each side on the one CPU it was allowed, at both ends of its run */
            assert_string_equal(cell(&t, k, "cpu_start"), cell(&t, k, "cpus_allowed"));
            assert_string_equal(cell(&t, k, "cpu_end"), cell(&t, k, "cpus_allowed"));
        }
        assert_string_not_equal(cell(&t, x, "cpu_start"), cell(&t, b, "cpu_start"));
        /* the engine of the row ran where its client did */
        assert_string_equal(cell(&t, x, "engine_cpu"), cell(&t, x, "cpus_allowed"));
        if (atoi(cell(&t, x, "slot")) == 2)           /* the mirror swapped the CPUs */
            assert_string_equal(cell(&t, x, "cpu_start"), cell(&t, x - 1, "cpu_start"));
    }
    csv_table_free(&t);

    /* Every boundary call, with the engine's own account of it. */
    load(dir, "calls.csv", &t);
    size_t batch = 0, stateful = 0;
    for (size_t i = 0; i < t.n_rows; i++) {
        const char *a = cell(&t, i, "architecture");
        batch += strcmp(a, "batch_unix") == 0;
        stateful += strcmp(a, "stateful_unix") == 0;
        double rtt = strtod(cell(&t, i, "rtt_ns"), NULL);
        double engine = strtod(cell(&t, i, "engine_ns"), NULL);
        double compute = strtod(cell(&t, i, "compute_ns"), NULL);
        assert_true(cell(&t, i, "engine_ns")[0] != '\0');
        assert_true(compute <= engine && engine <= rtt);
    }
    /* stateful_unix calls once per combination of its part of the job */
    int step = ARCH_ROWS[arch_row_named("stateful_unix")].part.combo_step;
    assert_int_equal(batch, 2 * ROUNDS);
    assert_int_equal(stateful, 2 * ROUNDS * ((COMBOS + step - 1) / step));
    csv_table_free(&t);

    load(dir, "sweep.csv", &t);
    assert_int_equal(t.n_rows, COMBOS);
    for (size_t k = 0; k < COMBOS; k++) {
        char text[64];
        snprintf(text, sizeof text, "%lld", (long long)params[k].h_len);
        assert_string_equal(cell(&t, k, "L"), text);
        snprintf(text, sizeof text, "%.17g", expected[k].pnl);
        assert_string_equal(cell(&t, k, "pnl"), text);
        assert_same_double(strtod(cell(&t, k, "pnl"), NULL), expected[k].pnl);
        snprintf(text, sizeof text, "%lld", (long long)expected[k].trades);
        assert_string_equal(cell(&t, k, "trades"), text);
    }
    csv_table_free(&t);

    load(dir, "gate.csv", &t);
    assert_int_equal(t.n_rows, 3);
    for (size_t i = 0; i < 3; i++) {               /* every combination of the row's part */
        assert_string_equal(cell(&t, i, "identical"), cell(&t, i, "combos"));
        assert_true(atoi(cell(&t, i, "combos")) >= 1);
        assert_string_equal(cell(&t, i, "verdict"), "pass");
    }
    csv_table_free(&t);

    load(dir, "run.csv", &t);
    assert_string_equal(lookup(&t, "key", "bars", "value"), "500");
    assert_string_equal(lookup(&t, "key", "combos", "value"), "3");
    assert_string_equal(lookup(&t, "key", "rounds", "value"), "3");
    assert_string_equal(lookup(&t, "key", "seed", "value"), "42");
    /* three fixed rounds plan three units of every row: made, so resolved */
    assert_string_equal(lookup(&t, "key", "stop_reason", "value"), "resolved");
    char sha[65];
    series_sha256_hex(close, BARS, sha);
    assert_string_equal(lookup(&t, "key", "series_sha256", "value"), sha);
    csv_table_free(&t);

    load(dir, "machine.csv", &t);
    assert_true(strlen(lookup(&t, "key", "cpu", "value")) > 0);
    assert_true(strlen(lookup(&t, "key", "commit", "value")) > 0);
    csv_table_free(&t);
}

/* A duet's two runs start together: on a job long enough that no scheduler
 * tick can hide it, every duet's two runs overlap in time. */
static void duet_runs_overlap_in_time(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "overlap");
    char *const args[] = {"--bars", "20000", "--combos", "8", "--measure", "none", "--rounds",
                          "2", "--arch", "in_process_control_1,batch_unix", "--out", dir, NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "architectures.csv", &t);
    assert_int_equal(t.n_rows, 2 * 2 * 4);
    for (size_t x = 0; x < t.n_rows; x += 2) {
        const size_t b = x + 1;
        double xs = strtod(cell(&t, x, "start_s"), NULL), bs = strtod(cell(&t, b, "start_s"), NULL);
        double xe = xs + strtod(cell(&t, x, "seconds"), NULL);
        double be = bs + strtod(cell(&t, b, "seconds"), NULL);
        if (!(xs < be && bs < xe))
            fail_msg("runs %s and %s of a duet do not overlap: [%f, %f] and [%f, %f]",
                     cell(&t, x, "run"), cell(&t, b, "run"), xs, xe, bs, be);
        assert_string_not_equal(cell(&t, x, "cpu_start"), cell(&t, b, "cpu_start"));
    }
    csv_table_free(&t);
}

/* Cold and warm calls are told apart in the record: every fresh engine gives a
 * cold call and then a warm one, and only the cold one touches new pages in the
 * engine (a count, not a time). */
static void cold_and_warm_calls_are_told_apart(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "cold");
    char *const args[] = {"--bars", "20000", "--combos", "3", "--rounds", "1", "--arch",
                          "in_process", "--measure", "cold", "--scale", "0.3", "--out", dir,
                          NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "cold.csv", &t);
    assert_true(t.n_rows >= 12 && t.n_rows % 2 == 0);
    for (size_t i = 0; i < t.n_rows; i += 2) {
        assert_string_equal(cell(&t, i, "rep"), cell(&t, i + 1, "rep"));
        assert_string_equal(cell(&t, i, "warmth"), "cold");
        assert_string_equal(cell(&t, i + 1, "warmth"), "warm");
        long cold = atol(cell(&t, i, "engine_minor_faults"));
        long warm = atol(cell(&t, i + 1, "engine_minor_faults"));
        if (!(cold > warm))
            fail_msg("rep %s: the cold call touched %ld new pages, the warm one %ld",
                     cell(&t, i, "rep"), cold, warm);
    }
    csv_table_free(&t);
}

/* The mechanisms are made in the rounds: one pass after each of the
 * rounds every row runs in (the minimum, two here, of three rounds made for
 * a headline row's units), numbered as the round, and the fault probes see
 * faults (a fresh mapping at least its pages, whether the process or the
 * kernel touches it first; the same pages again, copied out or read, none). */
static void the_mechanisms_make_a_pass_per_round(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "mechanisms");
    char *const args[] = {"--bars", "20000", "--combos", "3", "--min-rounds", "2",
                          "--max-rounds", "3", "--arch", "in_process_control_1",
                          "--measure", "mechanisms", "--out", dir, NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "run.csv", &t);
    for (size_t i = 0; i < t.n_rows; i++)
        if (strcmp(cell(&t, i, "key"), "rounds") == 0)
            assert_string_equal(cell(&t, i, "value"), "3");
    csv_table_free(&t);
    load(dir, "states.csv", &t);
    size_t per_pass[3] = {0, 0, 0}, fifths[3] = {0, 0, 0};
    for (size_t i = 0; i < t.n_rows; i++) {
        long pass = atol(cell(&t, i, "pass"));
        if (pass < 1 || pass > 2)
            fail_msg("a state probe of pass %ld where the minimum is two rounds", pass);
        per_pass[pass]++;
        if (atol(cell(&t, i, "floats")) == 20000 / 5) {    /* a fifth of the series */
            fifths[pass]++;
            assert_string_equal(cell(&t, i, "client"), "c");
        }
    }
    assert_true(per_pass[1] > 0);
    assert_int_equal(per_pass[1], per_pass[2]);
    /* hot and after the engine's long stretch with either partner, and
     * after the away pause and the sweep's stretch with the partner busy */
    assert_int_equal(fifths[1], 6);
    assert_int_equal(fifths[2], 6);
    csv_table_free(&t);
    load(dir, "faults.csv", &t);
    assert_int_equal(t.n_rows, 2 * (2 + 7));       /* passes x (python's 2 + c's 7 steps) */
    for (size_t i = 0; i < t.n_rows; i++) {
        long faults = atol(cell(&t, i, "minor_faults")), pages = atol(cell(&t, i, "pages"));
        const char *touch = cell(&t, i, "touch");
        int fresh = strcmp(touch, "first") == 0 || strcmp(touch, "copy-in") == 0;
        if (fresh ? faults < pages : faults != 0)
            fail_msg("%s touch of %ld pages by %s: %ld faults", touch, pages,
                     cell(&t, i, "role"), faults);
    }
    csv_table_free(&t);
}

/* The host's spins are made in the rounds (@sec:host): after each round,
 * both CPUs at once, numbered as the round; a spin's gaps fit in it. */
static void the_host_spins_both_cpus_after_each_round(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "host");
    char *const args[] = {"--bars", "20000", "--combos", "3", "--rounds", "2", "--arch",
                          "in_process", "--measure", "host", "--out", dir, NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "host.csv", &t);
    assert_int_equal(t.n_rows, 4);                 /* two passes x two CPUs */
    for (size_t i = 0; i < t.n_rows; i++) {
        long pass = atol(cell(&t, i, "pass"));
        assert_int_equal(pass, (long)i / 2 + 1);
        if (i % 2 == 1 && strcmp(cell(&t, i, "cpu"), cell(&t, i - 1, "cpu")) == 0)
            fail_msg("pass %ld spun CPU %s twice", pass, cell(&t, i, "cpu"));
        if (atof(cell(&t, i, "gap_ns")) > atof(cell(&t, i, "spin_ns")) ||
            atof(cell(&t, i, "reads")) < 1)
            fail_msg("pass %ld: a spin's gaps exceed it, or it read no clock", pass);
    }
    csv_table_free(&t);
}

/* The floor taken apart (@sec:handoff): every repetition times each of the
 * five kinds once, in a drawn order that is a permutation of them, the
 * round trips across the CPUs on two different CPUs and the others on one;
 * every loop counted its operations (a count, not a time). */
static void the_floor_is_taken_apart_in_every_repetition(void **state)
{
    (void)state;
    static const char *const kinds[] = HANDOFF_KIND_NAMES;
    char dir[256];
    out_dir(dir, "handoff");
    char *const args[] = {"--bars", "20000", "--combos", "3", "--rounds", "1", "--arch",
                          "in_process", "--measure", "handoff", "--scale", "0.1", "--out", dir,
                          NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "handoff.csv", &t);
    assert_int_equal(t.n_rows, 6 * N_HANDOFF_KINDS);  /* the least repetitions, 0.1 x 12 */
    for (size_t i = 0; i < t.n_rows; i++) {
        size_t rep = i / N_HANDOFF_KINDS, k = i % N_HANDOFF_KINDS;
        assert_int_equal(atol(cell(&t, i, "rep")), (long)rep + 1);
        assert_int_equal(atol(cell(&t, i, "position")), (long)k + 1);
        int seen = 0;
        for (size_t j = rep * N_HANDOFF_KINDS; j < (rep + 1) * N_HANDOFF_KINDS; j++)
            seen += strcmp(cell(&t, j, "kind"), kinds[k]) == 0;
        if (seen != 1)
            fail_msg("repetition %zu timed %s %d times", rep + 1, kinds[k], seen);
        const char *kind = cell(&t, i, "kind");
        int across = strcmp(kind, "polling") == 0 || strcmp(kind, "sleeping") == 0;
        if (across != (strcmp(cell(&t, i, "cpu"), cell(&t, i, "peer_cpu")) != 0))
            fail_msg("repetition %zu: %s ran on CPUs %s and %s", rep + 1, kind,
                     cell(&t, i, "cpu"), cell(&t, i, "peer_cpu"));
        if (atol(cell(&t, i, "count")) < 1 || atol(cell(&t, i, "ns")) < 1)
            fail_msg("repetition %zu: %s counted nothing", rep + 1, kind);
    }
    csv_table_free(&t);
}

/* The serialization record (issue 34): each row's place in its repetition's
 * order, the buffer an encode wrote and the pages it touched first. The
 * series of 20,000 bars (160 KB) is above the allocator's mmap threshold
 * (128 KiB): a fresh encode faults every page of it, a reused one none. */
static void serialization_records_order_buffers_and_faults(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "serialization");
    char *const args[] = {"--bars", "20000", "--combos", "3", "--rounds", "4", "--arch",
                          "in_process", "--measure", "serialization", "--scale", "0.2", "--out",
                          dir, NULL};
    run_bench_ok(args);
    struct csv_table t;
    load(dir, "run.csv", &t);
    long reps = 0;
    for (size_t i = 0; i < t.n_rows; i++)
        if (strcmp(cell(&t, i, "key"), "serialization_reps") == 0)
            reps = atol(cell(&t, i, "value"));
    csv_table_free(&t);
    load(dir, "serialization.csv", &t);
    const long pages = (20000 * 8 + 4095) / 4096;
    int cpus[2], two_cpus = (placement_init(), placement_duet_cpus(cpus) == 0);
    unsigned seen[2][64] = {{0}};          /* per language, per rep: a bit per position */
    int fresh = 0, reused = 0;
    for (size_t i = 0; i < t.n_rows; i++) {
        int python = strcmp(cell(&t, i, "language"), "python") == 0;
        const char *op = cell(&t, i, "operation"), *format = cell(&t, i, "format");
        const char *buffer = cell(&t, i, "buffer");
        long rep = atol(cell(&t, i, "rep")), position = atol(cell(&t, i, "position"));
        long faults = atol(cell(&t, i, "minor_faults"));
        assert_true(cell(&t, i, "minor_faults")[0] != '\0' && position >= 1 && rep < 64);
        /* the JSON pair after a kernel comes after the five drawn ones,
         * the pair beside a partner last */
        if (strcmp(format, "json_cold") == 0)
            assert_int_equal(position, 6);
        if (strcmp(format, "json_busy") == 0)
            assert_int_equal(position, 7);
        if (strcmp(op, "encode") != 0 && strcmp(op, "copy") != 0) {
            assert_string_equal(buffer, "");
            continue;
        }
        if (seen[python][rep] & 1u << position)
            fail_msg("row %zu: position %ld twice in repetition %ld", i + 1, position, rep);
        seen[python][rep] |= 1u << position;
        if (strcmp(format, "raw_fresh") == 0 || strcmp(format, "tobytes_fresh") == 0) {
            assert_string_equal(buffer, "fresh");
            if (faults < pages)
                fail_msg("%s: a fresh encode of %ld pages faulted %ld", format, pages, faults);
            fresh++;
        } else if (strcmp(format, "raw") == 0 || strcmp(format, "tobytes") == 0) {
            assert_string_equal(buffer, "reused");
            if (faults != 0)
                fail_msg("%s: a reused encode faulted %ld pages", format, faults);
            reused++;
        }
    }
    /* made in the rounds, a share after each of four: every repetition
     * once, none lost between two rounds' shares */
    assert_true(reps >= 5 && reps < 64);
    for (long rep = 1; rep < 64; rep++) {
        /* C: positions 1 to 7; 1 to 6 on a machine of one CPU, no partner */
        assert_int_equal(seen[0][rep], rep <= reps ? (two_cpus ? 0xfe : 0x7e) : 0);
        assert_int_equal(seen[1][rep], rep <= reps ? 0x1e : 0);  /* Python: 1 to 4 */
    }
    assert_true(fresh >= 10 && fresh == reused);
    csv_table_free(&t);
}

/* The order of the rounds: "architecture,round,position" of every run. */
static void read_order(const char *dir, char *order, size_t size)
{
    struct csv_table t;
    load(dir, "architectures.csv", &t);
    order[0] = '\0';
    for (size_t i = 0; i < t.n_rows; i++)
        snprintf(order + strlen(order), size - strlen(order), "%s,%s,%s;",
                 cell(&t, i, "architecture"), cell(&t, i, "round"), cell(&t, i, "position"));
    csv_table_free(&t);
}

/* The same seed gives the same order; another seed, another one. */
static void round_order_replays_from_the_seed(void **state)
{
    (void)state;
    const char *const seeds[] = {"42", "42", "7"};
    char dirs[3][256], orders[3][4096];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "order-%d", i);
        out_dir(dirs[i], name);
        /* a thousand bars: the tuned row runs a fifth of them, and the grid's
         * longest window is 200 */
        char *const args[] = {"--bars", "1000", "--combos", "3", "--measure", "none",
                              "--rounds", "4", "--seed", (char *)seeds[i], "--arch",
                              "in_process,in_process_control_1,in_process_control_2,"
                              "in_process_tuned_1core",
                              "--out", dirs[i], NULL};
        run_bench_ok(args);
        read_order(dirs[i], orders[i], sizeof orders[i]);
    }
    assert_string_equal(orders[0], orders[1]);
    assert_string_not_equal(orders[0], orders[2]);
}

static void bad_options_exit_2_name_the_option_and_write_nothing(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "never");
    struct {
        char *args[8];
        const char *needle;
    } cases[] = {
        {{"--rounds", "1O"}, "--rounds: '1O' is not a whole number in 1..10000"},
        {{"--bars", "abc"}, "--bars: 'abc' is not a whole number in 1..100000000"},
        {{"--bars", "0"}, "--bars: 0 is outside 1..100000000"},
        {{"--arch", "nosuch"}, "no architecture named 'nosuch'"},
        {{"--arch", "in_process,nosuch"}, "no architecture named 'nosuch'"},
        {{"--measure", "nosuch"}, "no measurement named 'nosuch'"},
        {{"--scale", "0"}, "--scale: '0' is not a number in 0.01..20"},
        /* more passes than the summaries read would be refused after the run */
        {{"--scale", "21"}, "--scale: '21' is not a number in 0.01..20"},
        {{"--min-rounds", "9", "--max-rounds", "3"}, "--min-rounds 9 is above --max-rounds 3"},
        {{"stray"}, "unexpected argument 'stray'"},
        /* getopt_long takes a prefix of a long option; --bar 10 was once read as --bars 10 */
        {{"--bar", "1000"}, "unknown option '--bar' (a long option is written whole: --bars?)"},
        {{"--round=2"}, "unknown option '--round' (a long option is written whole: --rounds?)"},
        /* the grid's longest window is 200 bars; per_bar_unix runs a fifth of them */
        {{"--bars", "199"}, "--bars 199 is too few"},
        {{"--combos", "80", "--bars", "900", "--arch", "in_process,per_bar_unix"},
         "--bars 900 is too few: the grid of 80 combinations has windows of up to 200 bars, "
         "and the architectures chosen need at least 1000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *args[20];
        size_t n = 0;
        char *const rest[] = {TINY, "--rounds", "1", "--out", dir};
        for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++)
            args[n++] = rest[k];
        for (size_t k = 0; cases[i].args[k] != NULL; k++)
            args[n++] = cases[i].args[k];     /* last, so no good option overrides it */
        args[n] = NULL;
        struct run_result r;
        run_bench(args, NULL, &r);
        if (exit_code(&r) != 2 || strstr(r.err, cases[i].needle) == NULL)
            fail_msg("%s %s: exit %d, stderr \"%s\"; expected 2 and \"%s\"", cases[i].args[0],
                     cases[i].args[1] ? cases[i].args[1] : "", exit_code(&r), r.err,
                     cases[i].needle);
        run_result_free(&r);
        assert_int_equal(access(dir, F_OK), -1);          /* no partial output */
    }
}

static int list_tree(const char *dir, char *list, size_t size);

/*
 * A run is written into an empty folder only: --out data once replaced 13
 * files of data/ and left 4 of the older run beside them. A data folder (it
 * holds a manifest) and any other folder that holds a file are refused
 * before anything runs, and left as they were.
 */
static void an_output_folder_that_holds_files_is_refused_first(void **state)
{
    (void)state;
    char data[256], other[256], path[300];
    out_dir(data, "data");
    out_dir(other, "not-empty");
    const char *const folders[] = {data, other};
    const char *const files[] = {"manifest.csv", "architectures.csv"};
    const char *const needles[] = {"is a data folder (it holds manifest.csv)",
                                   "is not empty (it holds architectures.csv)"};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(mkdir(folders[i], 0700), 0);
        snprintf(path, sizeof path, "%s/%s", folders[i], files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("kept as it was\n", f);
        fclose(f);
        char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process", "--out",
                              (char *)folders[i], NULL};
        struct run_result r;
        run_bench(args, NULL, &r);
        if (exit_code(&r) != 2 || strstr(r.err, needles[i]) == NULL ||
            strstr(r.err, "starting") != NULL)
            fail_msg("--out %s: exit %d, stderr \"%s\"", folders[i], exit_code(&r), r.err);
        run_result_free(&r);
        char left[8192] = "";
        assert_int_equal(list_tree(folders[i], left, sizeof left), 1);   /* only its file */
    }
}

/* The same in the checkout: `ipctax-bench --out data` is refused, data/ untouched. */
static void out_data_is_refused_in_the_checkout(void **state)
{
    (void)state;
    char data[4200];
    const char *root = getenv("IPCTAX_ROOT");
    if (root == NULL)
        skip();
    snprintf(data, sizeof data, "%s/data", root);
    struct stat before, after;
    assert_int_equal(stat(data, &before), 0);
    char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process", "--out", data, NULL};
    struct run_result r;
    run_bench(args, NULL, &r);
    if (exit_code(&r) != 2 || strstr(r.err, "is a data folder") == NULL)
        fail_msg("--out data: exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
    assert_int_equal(stat(data, &after), 0);
    assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
}

/* An output folder that cannot be written is refused before anything runs. */
static void unwritable_output_is_refused_first(void **state)
{
    (void)state;
    char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process", "--out",
                          "/proc/ipctax-cannot-be-here", NULL};
    struct run_result r;
    run_bench(args, NULL, &r);
    if (exit_code(&r) != 2 || strstr(r.err, "--out /proc/ipctax-cannot-be-here") == NULL ||
        strstr(r.err, "starting") != NULL)
        fail_msg("exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
}

static void help_and_version_go_to_stdout(void **state)
{
    (void)state;
    char *const help[] = {"--help", NULL}, *const version[] = {"--version", NULL};
    struct run_result r;
    run_bench(help, NULL, &r);
    assert_int_equal(exit_code(&r), 0);
    assert_non_null(strstr(r.out, "usage: ipctax-bench"));
    run_result_free(&r);
    run_bench(version, NULL, &r);
    assert_int_equal(exit_code(&r), 0);
    assert_int_equal(strncmp(r.out, "ipctax-bench ", 13), 0);
    /* the release a reader cites (CITATION.cff's version), then the commit */
    if (strstr(r.out, "(commit ") == NULL || !(r.out[13] >= '0' && r.out[13] <= '9'))
        fail_msg("--version printed \"%s\", not \"ipctax-bench RELEASE (commit C)\"", r.out);
    run_result_free(&r);
}

/* The spawn_stdin architecture with the real engine passes: the control. */
static void real_engine_passes_the_gate(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "control");
    char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process,spawn_stdin", "--out", dir,
                          NULL};
    run_bench_ok(args);
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
        char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process,spawn_stdin", "--out",
                              dir, "--engine", self_path, NULL};
        struct run_result r;
        run_bench(args, modes[m], &r);
        if (exit_code(&r) != 1 || strstr(r.err, "spawn_stdin") == NULL)
            fail_msg("fake engine (%s): exit %d, stderr:\n%s", modes[m], exit_code(&r), r.err);
        run_result_free(&r);
        struct csv_table t;
        load(dir, "gate.csv", &t);
        assert_string_equal(lookup(&t, "architecture", "in_process", "verdict"), "pass");
        assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "verdict"), "FAIL");
        assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "identical"), "2");
        double diff = strtod(lookup(&t, "architecture", "spawn_stdin", "max_abs_pnl_diff"), NULL);
        if (m == 0)
            assert_true(diff > 0.0);                       /* one ulp */
        else
            assert_same_double(diff, 0.0);                 /* same PnL, other trades */
        csv_table_free(&t);
        load(dir, "architectures.csv", &t);                /* the failure stays in the record */
        assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "status"), "gate_failed");
        csv_table_free(&t);
    }
}

/* An architecture that cannot run is a failed run: exit 2, kept with its reason. */
static void engine_refusing_is_a_failed_run(void **state)
{
    (void)state;
    char dir[256];
    out_dir(dir, "refused");
    char *const args[] = {TINY, "--rounds", "1", "--arch", "in_process,spawn_stdin", "--out", dir,
                          "--engine", self_path, NULL};
    struct run_result r;
    run_bench(args, "error", &r);
    if (exit_code(&r) != 2 || strstr(r.err, "fake engine refuses on purpose") == NULL)
        fail_msg("refusing engine: exit %d, stderr:\n%s", exit_code(&r), r.err);
    /* it stops the run there, and says so once: no round, no measurement */
    if (strstr(r.err, "stopped after an architecture failed") == NULL ||
        strstr(r.err, "round ") != NULL)
        fail_msg("refusing engine: the run went on, or did not say it stopped:\n%s", r.err);
    run_result_free(&r);
    struct csv_table t;
    load(dir, "gate.csv", &t);
    assert_string_equal(lookup(&t, "architecture", "in_process", "verdict"), "pass");
    assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "verdict"), "not run");
    assert_non_null(strstr(lookup(&t, "architecture", "spawn_stdin", "error"),
                           "fake engine refuses on purpose"));
    csv_table_free(&t);
    load(dir, "architectures.csv", &t);
    assert_string_equal(lookup(&t, "architecture", "spawn_stdin", "status"), "setup_failed");
    csv_table_free(&t);
}

/* The pids (at most max) of the processes other than this one whose command
 * line mentions needle, and also `also` unless it is NULL; how many. */
static int processes_mentioning(const char *needle, const char *also, pid_t *pids, int max)
{
    DIR *d = opendir("/proc");
    int found = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && found < max;) {
        char path[300], line[4096];
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == (int)getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (line[i] == '\0')
                line[i] = ' ';
        line[n] = '\0';
        if (strstr(line, needle) != NULL && (also == NULL || strstr(line, also) != NULL))
            pids[found++] = (pid_t)atoi(e->d_name);
    }
    if (d != NULL)
        closedir(d);
    return found;
}

/* Whether any engine's command line mentions `needle`. */
static int any_process_mentions(const char *needle)
{
    pid_t pid;
    return processes_mentioning(needle, "ipctax-engine", &pid, 1) > 0;
}

/* SIGTERM, SIGINT or SIGHUP in the middle of the rounds: no engine, socket
 * or scratch folder outlives the bench. */
static void stopping_the_bench_stops_its_engines(void **state)
{
    (void)state;
    const int signals[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t s = 0; s < sizeof signals / sizeof signals[0]; s++) {
        char dir[256], tmp[256], name[32];
        snprintf(name, sizeof name, "stopped-%zu", s);
        out_dir(dir, name);
        snprintf(name, sizeof name, "tmp-%zu", s);
        out_dir(tmp, name);
        assert_int_equal(mkdir(tmp, 0700), 0);
        char tmp_var[300];
        snprintf(tmp_var, sizeof tmp_var, "TMPDIR=%s", tmp);
        char *argv[] = {(char *)bench_binary(), "--bars", "20000", "--combos", "8", "--rounds",
                        "1000", "--measure", "none", "--arch", "in_process,batch_unix,chatty_unix",
                        "--out", dir, NULL};
        char *envp[] = {tmp_var, NULL};
        pid_t pid;
        assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, argv, envp), 0);
        track_child(pid);
        /* Wait until its engines are up: their sockets appear in its scratch folder. */
        int up = 0;
        for (int i = 0; i < 200 && !up; i++) {
            sleep_ms(50);
            up = any_process_mentions(tmp);
        }
        assert_true(up);
        sleep_ms(300);
        kill(pid, signals[s]);
        int status;
        assert_int_equal(wait_for_exit(pid, 10000, &status), 0);
        untrack_child(pid);
        sleep_ms(200);
        if (any_process_mentions(tmp))
            fail_msg("an engine of the bench outlived it (signal %d)", signals[s]);
        DIR *d = opendir(tmp);
        int left = 0;
        for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
            left += e->d_name[0] != '.';
        if (d != NULL)
            closedir(d);
        if (left != 0)
            fail_msg("%d file(s) left in the bench's TMPDIR after signal %d", left, signals[s]);
        assert_int_equal(access(dir, F_OK) == 0 ? 0 : 0, 0);
    }
}

/* Names in dir (recursively), one per line, into list; how many. */
static int list_tree(const char *dir, char *list, size_t size)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t used = strlen(list);
        snprintf(list + used, size - used, "%s\n", path);
        n++;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            n += list_tree(path, list, size);
    }
    if (d != NULL)
        closedir(d);
    return n;
}

/*
 * SIGKILL cannot be caught, so a killed bench cannot clean up; what it left
 * must not stay. Its scratch folder once stayed in TMPDIR for good, and
 * every CSV it had open stayed in --out as FILE.csv.tmp. Now the CSV
 * files have no name until they are complete (O_TMPFILE), and the scratch
 * folders live in one folder per user that the next run cleans of the
 * folders of runs that are gone: after the next run, nothing is left.
 */
static void a_killed_bench_leaves_nothing_behind_after_the_next_run(void **state)
{
    (void)state;
    char dir[256], tmp[256], tmp_var[300], left[8192] = "";
    out_dir(dir, "killed");
    out_dir(tmp, "tmp-killed");
    assert_int_equal(mkdir(tmp, 0700), 0);
    snprintf(tmp_var, sizeof tmp_var, "TMPDIR=%s", tmp);
    char *argv[] = {(char *)bench_binary(), "--bars", "20000", "--combos", "8", "--rounds",
                    "1000", "--measure", "none", "--arch", "in_process,batch_unix", "--out",
                    dir, NULL};
    char *envp[] = {tmp_var, NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, argv, envp), 0);
    track_child(pid);
    int up = 0;
    for (int i = 0; i < 200 && !up; i++) {               /* its engine is serving */
        sleep_ms(50);
        up = any_process_mentions(tmp);
    }
    assert_true(up);
    sleep_ms(300);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(wait_for_exit(pid, 10000, &status), 0);
    untrack_child(pid);
    for (int i = 0; i < 100 && any_process_mentions(tmp); i++)
        sleep_ms(50);                                    /* the engines die with it */
    list_tree(dir, left, sizeof left);
    if (strstr(left, ".tmp") != NULL)
        fail_msg("a killed bench left temporary files in --out:\n%s", left);

    char *const again[] = {TINY, "--rounds", "1", "--arch", "in_process", "--out", dir, NULL};
    char *env2[] = {tmp_var, NULL};
    char *argv2[20] = {(char *)bench_binary()};
    size_t n = 1;
    for (size_t i = 0; again[i] != NULL; i++)
        argv2[n++] = again[i];
    argv2[n] = NULL;
    struct run_result r;
    assert_int_equal(run_program(argv2, env2, NULL, 0, 60000, &r), 0);
    if (exit_code(&r) != 0)
        fail_msg("the next run failed (%d): %s", exit_code(&r), r.err);
    run_result_free(&r);
    if (list_tree(tmp, left, sizeof left) != 0)
        fail_msg("after a killed bench and one more run, its TMPDIR still holds:\n%s", left);
}

/* Kills (SIGKILL) the processes whose command line mentions needle: an
 * orphan this test started, which no wait can reach. How many there were. */
static int kill_mentioning(const char *needle)
{
    pid_t pids[64];
    int n = processes_mentioning(needle, NULL, pids, 64);
    for (int i = 0; i < n; i++)
        kill(pids[i], SIGKILL);
    return n;
}

/* How many entries of /tmp start with prefix. */
static int count_in_tmp(const char *prefix)
{
    DIR *d = opendir("/tmp");
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d != NULL)
        closedir(d);
    return n;
}

/*
 * The valgrind check that `make test` and `make measure` run, killed
 * outright, once left its ipctax-valgrind-* folder in /tmp for good, and
 * its engine running under valgrind. Its scratch folder is now in its
 * output folder, where the next check removes it, and the engine dies with
 * the check. The check's "driver" here kills the check at once.
 */
static void a_killed_valgrind_check_leaves_nothing_in_tmp(void **state)
{
    (void)state;
    char out[256], killer[256], script[4096], engine[4096], left[8192] = "";
    out_dir(out, "valgrind-killed");
    scratch_path(killer, sizeof killer, "kill-the-check.sh");
    FILE *f = fopen(killer, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nkill -KILL $PPID\n", f);
    fclose(f);
    assert_int_equal(chmod(killer, 0755), 0);
    root_path(script, sizeof script, "tests/check_valgrind.sh");
    root_path(engine, sizeof engine, "build/ipctax-engine");      /* not the sanitized one */
    int before = count_in_tmp("ipctax-valgrind-");
    for (int run = 0; run < 2; run++) {
        char *argv[] = {script, engine, killer, out, NULL};
        struct run_result r;
        assert_int_equal(run_program(argv, NULL, NULL, 0, 8000, &r), 0);
        int timed_out = r.timed_out, orphans = kill_mentioning(out);
        run_result_free(&r);
        if (timed_out || orphans > 0)
            fail_msg("the engine of a killed valgrind check was still running");
    }
    if (count_in_tmp("ipctax-valgrind-") > before)
        fail_msg("a killed valgrind check left a folder in /tmp");
    list_tree(out, left, sizeof left);
    const char *first = strstr(left, "/scratch-");
    if (first == NULL || strstr(first + 1, "/scratch-") != NULL)   /* the second one's only */
        fail_msg("after two killed checks, %s holds:\n%s", out, left);
}

static int group_setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return -1;
    self_path[n] = '\0';
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

/* ---- The stop rule, through what the bench records ------------------------- */

/* The runs of architectures.csv in dir up to round `last`, as the report
 * reads them (report/model.h's rows, the fields the units need). */
static void runs_up_to(const char *dir, long last, struct run_data *d)
{
    struct csv_table t;
    load(dir, "architectures.csv", &t);
    memset(d, 0, sizeof *d);
    d->runs = calloc(t.n_rows + 1, sizeof *d->runs);
    assert_non_null(d->runs);
    for (size_t i = 0; i < t.n_rows; i++) {
        struct run_row *r = &d->runs[d->n_runs];
        r->round = atol(cell(&t, i, "round"));
        if (r->round > last)
            continue;
        snprintf(r->architecture, sizeof r->architecture, "%s", cell(&t, i, "architecture"));
        snprintf(r->pairing, sizeof r->pairing, "%s", cell(&t, i, "pairing"));
        snprintf(r->status, sizeof r->status, "%s", cell(&t, i, "status"));
        r->unit = atol(cell(&t, i, "unit"));
        r->slot = atol(cell(&t, i, "slot"));
        r->run = atol(cell(&t, i, "run"));
        r->partner = cell(&t, i, "partner")[0] != '\0' ? strtod(cell(&t, i, "partner"), NULL) : NAN;
        r->start_s = strtod(cell(&t, i, "start_s"), NULL);
        r->seconds = strtod(cell(&t, i, "seconds"), NULL);
        d->n_runs++;
    }
    csv_table_free(&t);
}

/* How far the deciding A/A control's interval reaches from 1, as the report
 * computes it from architectures.csv (the units it finds there, their
 * ratios, the median's interval): INFINITY while it covers less than 95%. */
static double offline_reach(const char *dir, long last, const char *control)
{
    struct run_data d;
    runs_up_to(dir, last, &d);
    struct estimate e = ratio_to_baseline(&d, control);
    free(d.runs);
    return e.coverage >= 0.95 ? fmax(fabs(e.low - 1), fabs(e.high - 1)) : INFINITY;
}

/* The stop rule decides on the units' ratios the schedule computes as it
 * goes; the report recomputes them from the file. Each round's reach, as
 * the bench printed it, and the last, as run.csv keeps it, must be what
 * the report finds in architectures.csv for the same rounds (to the
 * nanosecond architectures.csv keeps the times to). Returns the rounds. */
static long online_is_offline(const char *dir, const char *stderr_text)
{
    struct csv_table t;
    load(dir, "run.csv", &t);
    long rounds = atol(lookup(&t, "key", "rounds", "value"));
    double kept = strtod(lookup(&t, "key", "aa_reach", "value"), NULL);
    const char *control = strcmp(lookup(&t, "key", "duet_cpus", "value"), "none") != 0
                              ? "in_process_control_1" : "in_process_control_2";
    long seen = 0;
    for (const char *line = stderr_text; line != NULL && *line != '\0';) {
        int round;
        double pct;
        const char *within = strstr(line, "A/A control within +-");
        const char *few = strstr(line, "A/A control: too few");
        const char *end = strchr(line, '\n');
        if (end != NULL && within > end)
            within = NULL;
        if (end != NULL && few > end)
            few = NULL;
        if (sscanf(line, " round %d", &round) != 1) {
            /* not a round's line */
        } else if (within != NULL && sscanf(within, "A/A control within +-%lf%%", &pct) == 1) {
            double reach = offline_reach(dir, round, control);
            if (!(fabs(pct - 100 * reach) <= 0.05 + 1e-3))     /* printed to a tenth */
                fail_msg("round %d: the bench's A/A reach was %.1f%%, the report's %.4f%%", round,
                         pct, 100 * reach);
            seen++;
        } else if (few != NULL) {
            if (!isinf(offline_reach(dir, round, control)))
                fail_msg("round %d: the bench had too few units, the report had enough", round);
            seen++;
        }
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    assert_int_equal(seen, rounds);
    double reach = offline_reach(dir, rounds, control);
    if (!(fabs(kept - reach) <= 1e-5))
        fail_msg("run.csv's aa_reach is %.9f; the report finds %.9f in architectures.csv", kept,
                 reach);
    csv_table_free(&t);
    return rounds;
}

/* Runs the bench with args, exit 0 expected; its stop reason in run.csv, and
 * its stderr kept in *r for online_is_offline. */
static const char *bench_stops(const char *dir, char *const args[], struct run_result *r,
                               char *why, size_t size)
{
    struct csv_table t;
    run_bench(args, NULL, r);
    if (exit_code(r) != 0)
        fail_msg("ipctax-bench exited %d; stderr:\n%s", exit_code(r), r->err);
    load(dir, "run.csv", &t);
    snprintf(why, size, "%s", lookup(&t, "key", "stop_reason", "value"));
    csv_table_free(&t);
    return why;
}

/* A plan every row meets in six rounds (the two controls, headline rows,
 * planned at six units instead of twelve) ends the rounds when it is made:
 * resolved, at six rounds, well short of the maximum and the budget. */
static void a_made_plan_ends_the_rounds_resolved(void **state)
{
    (void)state;
    char dir[256], why[64];
    struct run_result r;
    out_dir(dir, "resolved");
    char *const args[] = {"--bars", "2000", "--combos", "2", "--measure", "none",
                          "--arch", "in_process_control_1,in_process_control_2",
                          "--min-rounds", "6", "--max-rounds", "40",
                          "--units", "in_process_control_1=6,in_process_control_2=6",
                          "--out", dir, NULL};
    assert_string_equal(bench_stops(dir, args, &r, why, sizeof why), "resolved");
    assert_int_equal(online_is_offline(dir, r.err), 6);
    run_result_free(&r);
}

/* A plan of a thousand units and a budget of one second: the rounds end
 * when the next would not fit, far short of the plan and the maximum. */
static void a_spent_budget_ends_the_rounds(void **state)
{
    (void)state;
    char dir[256], why[64];
    struct run_result r;
    out_dir(dir, "budget");
    char *const args[] = {"--bars", "2000", "--combos", "2", "--measure", "none",
                          "--arch", "in_process_control_1", "--min-rounds", "1",
                          "--max-rounds", "10000", "--budget", "1",
                          "--units", "in_process_control_1=1000",
                          "--out", dir, NULL};
    assert_string_equal(bench_stops(dir, args, &r, why, sizeof why), "budget");
    long rounds = online_is_offline(dir, r.err);
    assert_true(rounds >= 1 && rounds < 10000);
    run_result_free(&r);
}

/* A row planned for 24 units, with a minimum of one round, gets the most
 * units a round (four), each with its own unit number, and its plan is
 * made in the fewest rounds that hold it, six: the rounds end resolved
 * there, not after 24 rounds of one. */
enum { MOST_A_ROUND = 4, LONG_PLAN = 24 };

static void a_long_plan_gets_several_units_a_round(void **state)
{
    (void)state;
    char dir[256], why[64], plan[64];
    struct run_result r;
    struct csv_table t;
    out_dir(dir, "several");
    snprintf(plan, sizeof plan, "in_process_control_1=%d", LONG_PLAN);
    char *const args[] = {"--bars", "2000", "--combos", "2", "--measure", "none",
                          "--arch", "in_process_control_1", "--min-rounds", "1",
                          "--max-rounds", "40", "--budget", "86400", "--units", plan,
                          "--out", dir, NULL};
    enum { ROUNDS = LONG_PLAN / MOST_A_ROUND };
    assert_string_equal(bench_stops(dir, args, &r, why, sizeof why), "resolved");
    assert_int_equal(online_is_offline(dir, r.err), ROUNDS);
    load(dir, "architectures.csv", &t);
    int arch = column(&t, "architecture"), round = column(&t, "round"), unit = column(&t, "unit");
    long units[ROUNDS + 1] = {0}, last = -1, total = 0;
    for (size_t i = 0; i < t.n_rows; i++) {
        long k = atol(csv_table_cell(&t, i, unit)), at = atol(csv_table_cell(&t, i, round));
        if (strcmp(csv_table_cell(&t, i, arch), "in_process_control_1") != 0 || k == last)
            continue;                          /* the baseline's runs, or a unit's next slot */
        assert_true(at >= 1 && at <= ROUNDS);
        units[at]++, total++, last = k;
    }
    for (int k = 1; k <= ROUNDS; k++)
        assert_int_equal(units[k], MOST_A_ROUND);
    assert_int_equal(total, LONG_PLAN);
    csv_table_free(&t);
    run_result_free(&r);
}

/* A plan of 40 units, ten rounds at the most a round, and a budget of a
 * day: the maximum of seven rounds ends them, above the minimum. */
static void the_maximum_ends_the_rounds_otherwise(void **state)
{
    (void)state;
    char dir[256], why[64];
    struct run_result r;
    out_dir(dir, "max-rounds");
    char *const args[] = {"--bars", "2000", "--combos", "2", "--measure", "none",
                          "--arch", "in_process_control_1,in_process_control_2",
                          "--min-rounds", "2", "--max-rounds", "7",
                          "--budget", "86400", "--units", "in_process_control_1=40",
                          "--out", dir, NULL};
    assert_string_equal(bench_stops(dir, args, &r, why, sizeof why), "max_rounds");
    assert_int_equal(online_is_offline(dir, r.err), 7);
    run_result_free(&r);
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
        T(tiny_job_writes_its_files),
        T(the_mechanisms_make_a_pass_per_round),
        T(the_host_spins_both_cpus_after_each_round),
        T(a_made_plan_ends_the_rounds_resolved),
        T(a_spent_budget_ends_the_rounds),
        T(a_long_plan_gets_several_units_a_round),
        T(the_maximum_ends_the_rounds_otherwise),
        T(duet_runs_overlap_in_time),
        T(cold_and_warm_calls_are_told_apart),
        T(the_floor_is_taken_apart_in_every_repetition),
        T(serialization_records_order_buffers_and_faults),
        T(round_order_replays_from_the_seed),
        T(bad_options_exit_2_name_the_option_and_write_nothing),
        T(unwritable_output_is_refused_first),
        T(an_output_folder_that_holds_files_is_refused_first),
        T(out_data_is_refused_in_the_checkout),
        T(help_and_version_go_to_stdout),
        T(real_engine_passes_the_gate),
        T(wrong_results_fail_the_gate_and_exit_1),
        T(engine_refusing_is_a_failed_run),
        T(stopping_the_bench_stops_its_engines),
        T(a_killed_bench_leaves_nothing_behind_after_the_next_run),
        T(a_killed_valgrind_check_leaves_nothing_in_tmp),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
