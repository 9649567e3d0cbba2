/*
 * test_roofline.c - the clock, the table of pipes, and the peak the summary
 * sets the kernels against (paper/77-roofline.md, paper/90-appendix-report.md).
 *
 * The clock's chain must add exactly as many times as it is asked, since its
 * count is the cycles a clock is measured over. The table must know every
 * processor a kept run names: the reproductions' machines, the published
 * run's, and the reader's Intel run kept in tests/kept-machines/. The
 * summary's roofline is then run on runs made here in memory, row by row,
 * whose answers the hand knows: a clock of 1e9 additions in 0.25 s is
 * 4.00 GHz; Zen 5 at 512 bits is 32 operations a cycle, so at 3.5 GHz one
 * core's bound is 112.00 GFLOP/s and two CPUs at 3.5 and 3.4 GHz make
 * 220.80; a processor the table lacks falls back to the register loop and
 * says why; a kernel above the peak stops the summary; an older run, with
 * loops that load only, has no peak and no fraction, and stops nothing.
 */
#include <glob.h>
#include <math.h>

#include "testengine.h"
#include "harness/measure.h"
#include "report/csvread.h"
#include "report/model.h"
#include "report/pipes.h"
#include "report/store.h"
#include "report/summarize.h"

/* ---- The clock's chain ------------------------------------------------------ */

static void the_clock_chain_adds_as_often_as_asked(void **state)
{
    (void)state;
    static const uint64_t counts[] = {0, 1, 7, 8, 9, 64, 1000003};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (clock_chain(counts[i]) != counts[i])
            fail_msg("clock_chain(%llu) added %llu times", (unsigned long long)counts[i],
                     (unsigned long long)clock_chain(counts[i]));
}

/* ---- The table knows every processor a kept run names ------------------------ */

static int machine_of(const char *path, char vendor[64], long *family, long *model)
{
    struct csv_table t;
    char err[512];
    if (csv_table_load(path, &t, err, sizeof err) != 0)
        fail_msg("%s", err);
    int k = csv_table_column(&t, "key"), v = csv_table_column(&t, "value"), found = 0;
    for (size_t r = 0; k >= 0 && v >= 0 && r < t.n_rows; r++) {
        const char *key = csv_table_cell(&t, r, k), *value = csv_table_cell(&t, r, v);
        if (strcmp(key, "cpu_vendor") == 0)
            found |= 1, snprintf(vendor, 64, "%s", value);
        else if (strcmp(key, "cpu_family") == 0)
            found |= 2, *family = strtol(value, NULL, 10);
        else if (strcmp(key, "cpu_model") == 0)
            found |= 4, *model = strtol(value, NULL, 10);
    }
    csv_table_free(&t);
    return found == 7 ? 0 : -1;
}

static void every_processor_a_kept_run_names_has_its_pipes(void **state)
{
    (void)state;
    static const char *const patterns[] = {"data/machine.csv", "reproductions/*/machine.csv",
                                           "reproductions/*/machine.csv.gz",
                                           "tests/kept-machines/*.csv"};
    size_t machines = 0;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        char pattern[4096];
        glob_t g;
        if (glob(root_path(pattern, sizeof pattern, patterns[i]), 0, NULL, &g) != 0)
            continue;
        for (size_t j = 0; j < g.gl_pathc; j++) {
            char vendor[64];
            long family = 0, model = 0;
            if (machine_of(g.gl_pathv[j], vendor, &family, &model) != 0)
                fail_msg("%s names no vendor, family and model", g.gl_pathv[j]);
            const struct processor_pipes *p = processor_pipes(vendor, family, model);
            if (p == NULL)
                fail_msg("%s: the table of pipes has no %s family %ld model %ld",
                         g.gl_pathv[j], vendor, family, model);
            for (int bits = 64; bits <= 512; bits *= 2)
                if (!(pipes_flops_per_cycle(p, bits) > 0))
                    fail_msg("%s: %s has no pipes at %d bits", g.gl_pathv[j], p->name, bits);
            machines++;
        }
        globfree(&g);
    }
    if (machines < 3)
        fail_msg("found %zu kept machines; the published run, the reproductions and the "
                 "reader's Intel run are at least three", machines);
}

/* Zen 5: two pipes multiply, two add, 8 lanes at 512 bits: 2 x 2 x 8 = 32. Cypress
 * Cove: one pipe for both at 512 bits, half a pair: 2 x 0.5 x 8 = 8; two at 256
 * bits, one pair: 2 x 1 x 4 = 8. */
static void the_pipes_give_the_operations_a_cycle(void **state)
{
    (void)state;
    const struct processor_pipes *zen5 = processor_pipes("AuthenticAMD", 26, 2);
    const struct processor_pipes *rocket = processor_pipes("GenuineIntel", 6, 167);
    assert_non_null(zen5);
    assert_non_null(rocket);
    assert_true(pipes_flops_per_cycle(zen5, 512) == 32.0);
    assert_true(pipes_flops_per_cycle(zen5, 64) == 4.0);
    assert_true(pipes_flops_per_cycle(rocket, 512) == 8.0);
    assert_true(pipes_flops_per_cycle(rocket, 256) == 8.0);
    assert_null(processor_pipes("GenuineIntel", 6, 999));
    assert_null(processor_pipes(NULL, 26, 2));
}

/* ---- Runs made in memory -------------------------------------------------------- */

enum { PASSES = 5, UNITS = 6, MAX_ROWS = 64 };

struct made_run {
    struct run_data d;
    struct roof_row roof[MAX_ROWS];
    struct kv machine[3], run[1], settings[2];
    struct sweep_row sweep[1];
    struct run_row runs[3 * UNITS];
};

static void set_kv(struct kv *kv, const char *key, const char *value)
{
    snprintf(kv->key, sizeof kv->key, "%s", key);
    snprintf(kv->value, sizeof kv->value, "%s", value);
}

static void add_roof(struct made_run *m, const char *kind, long lanes, long threads, long pass,
                     double flops, double seconds)
{
    assert_true(m->d.n_roof < MAX_ROWS);
    struct roof_row *r = &m->roof[m->d.n_roof++];
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    r->lanes = lanes, r->threads = threads, r->pass = pass, r->flops = flops, r->seconds = seconds;
}

/* A run on a processor of that vendor, family and model: 1,000 bars, one
 * combination whose windows are all 1 (three operations a bar each: 7 x 3 + 5
 * = 26,000 operations a sweep); in_process_tuned_1core in UNITS triples, each
 * sweep taking `tuned_s`. */
static void make_run(struct made_run *m, const char *vendor, const char *family,
                     const char *model, double tuned_s)
{
    memset(m, 0, sizeof *m);
    set_kv(&m->machine[0], "cpu_vendor", vendor);
    set_kv(&m->machine[1], "cpu_family", family);
    set_kv(&m->machine[2], "cpu_model", model);
    set_kv(&m->run[0], "bars", "1000");
    set_kv(&m->settings[0], "chains", "12");
    set_kv(&m->settings[1], "passes", "5");
    m->sweep[0] = (struct sweep_row){.combo = 0, .L = 1, .h_half = 1, .h_len = 1, .h_sqrt = 1,
                                     .t_third = 1, .t_half = 1, .t_len = 1};
    for (int u = 0; u < UNITS; u++)
        for (int slot = 1; slot <= 3; slot++) {
            struct run_row *r = &m->runs[3 * u + slot - 1];
            snprintf(r->architecture, sizeof r->architecture, "%s",
                     slot == 2 ? "in_process_tuned_1core" : "in_process");
            snprintf(r->pairing, sizeof r->pairing, "sequential");
            snprintf(r->status, sizeof r->status, "ok");
            r->round = u + 1, r->unit = u, r->slot = slot, r->run = 3 * u + slot;
            r->seconds = slot == 2 ? tuned_s : 1.0;
            r->bars = 1000, r->combos = 1;     /* the whole job: a rate counts a run's part */
            r->partner = NAN;
        }
    m->d.machine = (struct kv_file){m->machine, 3};
    m->d.run = (struct kv_file){m->run, 1};
    m->d.roof_settings = (struct kv_file){m->settings, 2};
    m->d.sweep = m->sweep, m->d.n_sweep = 1;
    m->d.runs = m->runs, m->d.n_runs = 3 * UNITS;
    m->d.roof = m->roof;
}

/* Every pass: the clock of two CPUs (1e9 additions in 1/3.5 and 1/3.4 s), the
 * register loop on one thread at reg_one GFLOP/s and on two at twice that, and
 * the loop that loads at 90 GFLOP/s on one thread. */
static void add_register_loops(struct made_run *m, double reg_one)
{
    for (long p = 1; p <= PASSES; p++) {
        add_roof(m, "clock_cpu0", 1, 1, p, 1e9, 1 / 3.5);
        add_roof(m, "clock_cpu1", 1, 1, p, 1e9, 1 / 3.4);
        add_roof(m, "reg_avx512", 8, 1, p, reg_one * 1e9, 1.0);
        add_roof(m, "reg_avx512", 8, 2, p, 2 * reg_one * 1e9, 1.0);
        add_roof(m, "avx512", 8, 1, p, 90e9, 1.0);
    }
}

static struct csv_table values;

/* Summarizes the run's roofline into test_dir/name; returns the summary's errors. */
static int summarize(struct made_run *m, const char *name)
{
    char out[256], path[512], err[512];
    struct store s;
    assert_int_equal(mkdir(scratch_path(out, sizeof out, name), 0777), 0);
    store_init(&s, out);
    summarize_roofline(&m->d, &s);
    int errors = s.errors;
    assert_int_equal(store_write(&s), 0);
    store_free(&s);
    snprintf(path, sizeof path, "%s/values.csv", out);
    if (csv_table_load(path, &values, err, sizeof err) != 0)
        fail_msg("%s", err);
    return errors;
}

static const char *value_of(const char *key)
{
    int k = csv_table_column(&values, "key"), v = csv_table_column(&values, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < values.n_rows; r++)
        if (strcmp(csv_table_cell(&values, r, k), key) == 0)
            return csv_table_cell(&values, r, v);
    fail_msg("values.csv has no %s", key);
    return NULL;
}

/* Half a unit in the last printed decimal of a number as values.csv or a
 * test writes it (grouping commas skipped), and the number, in *x. */
static double half_unit(const char *text, double *x)
{
    char plain[64];
    size_t n = 0;
    for (const char *p = text; *p != '\0' && n + 1 < sizeof plain; p++)
        if (*p != ',')
            plain[n++] = *p;
    plain[n] = '\0';
    char *end;
    *x = strtod(plain, &end);
    const char *point = strchr(plain, '.');
    int decimals = point != NULL ? (int)(end - point - 1) : 0;
    return *end == '\0' && n > 0 ? 0.5 * pow(10.0, -decimals) : -1.0;
}

/* The value of key agrees with the one worked by hand to the coarser of
 * their two printed precisions (the summary decides a key's decimals; a text
 * value must match exactly). */
static void expect(const char *key, const char *by_hand)
{
    const char *got = value_of(key);
    double x, y, hx = half_unit(got, &x), hy = half_unit(by_hand, &y);
    int same = hx < 0.0 || hy < 0.0 ? strcmp(got, by_hand) == 0
                                    : fabs(x - y) <= fmax(hx, hy) + 1e-9 * fabs(y);
    if (!same)
        fail_msg("%s is %s; by hand it is %s", key, got, by_hand);
}

/* ---- The bound, the fallback, the stop ------------------------------------------ */

/* The register loop at 110 GFLOP/s is 110 / 112 = 98.2% of the bound: the bound
 * is the peak. The tuned kernel's 26,000 operations in 1e-6 s are 26 GFLOP/s,
 * 23.2% of 112. */
static void the_bound_is_the_pipes_at_the_measured_clock(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "AuthenticAMD", "26", "2", 1e-6);
    add_register_loops(&m, 110);
    assert_int_equal(summarize(&m, "bound"), 0);
    expect("roof.clock_ghz.cpu0", "3.50");
    expect("roof.clock_ghz.cpu1", "3.40");
    expect("roof.clock_ghz", "3.50");
    expect("roof.flops_per_cycle", "32");
    expect("roof.bound_one", "112.00");
    expect("roof.bound_all", "220.80");
    expect("roof.reg_one_pct", "98.2");
    expect("roof.loads_pct", "80.4");
    expect("roof.peak_source", "bound");
    expect("roof.peak_why", "none");
    expect("roof.processor", "Zen 5 (EPYC 9005)");
    expect("roof.in_process_tuned_1core.gflops", "26.00");
    expect("roof.in_process_tuned_1core.fraction_pct", "23.2");
    csv_table_free(&values);
}

/* A clock of 1e9 additions in 0.25 s: 4.00 GHz, whatever else the run holds. */
static void a_clock_is_its_additions_over_their_time(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "AuthenticAMD", "26", "2", 1e-6);
    for (long p = 1; p <= PASSES; p++)
        add_roof(&m, "clock_cpu3", 1, 1, p, 1e9, 0.25);
    assert_int_equal(summarize(&m, "clock"), 0);
    expect("roof.clock_ghz.cpu3", "4.00");
    csv_table_free(&values);
}

static void an_unknown_processor_falls_back_to_the_loop_with_a_warning(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "GenuineIntel", "6", "999", 1e-6);
    add_register_loops(&m, 110);
    assert_int_equal(summarize(&m, "unknown"), 0);
    expect("roof.peak_source", "loop");
    expect("roof.peak_why", "the table of pipes has no GenuineIntel processor of family 6, "
                            "model 999");
    expect("roof.processor", "not in the table");
    expect("roof.peak_one", "110.00");
    expect("roof.in_process_tuned_1core.fraction_pct", "23.6");
    csv_table_free(&values);
}

/* A register loop at 80 GFLOP/s is 71.4% of a bound of 112: the table does not
 * describe the machine, and the loop is the peak, with the reason. */
static void a_loop_far_from_the_bound_is_the_peak_and_says_why(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "AuthenticAMD", "26", "2", 1e-6);
    add_register_loops(&m, 80);
    assert_int_equal(summarize(&m, "far"), 0);
    expect("roof.peak_source", "loop");
    expect("roof.peak_why", "the register loop reached 71.4% of the table's bound for Zen 5 "
                            "(EPYC 9005), not within a tenth of it, so the table or the clock "
                            "does not describe this machine");
    csv_table_free(&values);
}

/* 26,000 operations in 2e-7 s are 130 GFLOP/s, above a bound of 112. */
static void a_kernel_above_the_peak_stops_the_summary(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "AuthenticAMD", "26", "2", 2e-7);
    add_register_loops(&m, 110);
    assert_true(summarize(&m, "above") > 0);
    expect("roof.in_process_tuned_1core.fraction_pct", "116.1");
    csv_table_free(&values);
}

/* An older run: loops that load, no clock, no register loop. */
static void an_older_run_has_no_peak_and_stops_nothing(void **state)
{
    (void)state;
    static struct made_run m;
    make_run(&m, "AuthenticAMD", "26", "2", 2e-7);
    for (long p = 1; p <= PASSES; p++) {
        add_roof(&m, "scalar", 1, 1, p, 9e9, 1.0);
        add_roof(&m, "avx512", 8, 1, p, 47e9, 1.0);
    }
    assert_int_equal(summarize(&m, "older"), 0);
    expect("roof.peak_source", "not measured");
    expect("roof.in_process_tuned_1core.gflops", "130.00");
    expect("roof.in_process_tuned_1core.fraction_pct", "n/a");
    expect("roof.parts", "not measured");
    expect("roof.avx512.1", "47.00");
    csv_table_free(&values);
}

static int group_setup(void **state)
{
    (void)state;
    return test_dir_create();
}

static int group_teardown(void **state)
{
    (void)state;
    test_dir_remove();
    return 0;
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_arm_watchdog, test_disarm_watchdog)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(the_clock_chain_adds_as_often_as_asked),
        T(every_processor_a_kept_run_names_has_its_pipes),
        T(the_pipes_give_the_operations_a_cycle),
        T(the_bound_is_the_pipes_at_the_measured_clock),
        T(a_clock_is_its_additions_over_their_time),
        T(an_unknown_processor_falls_back_to_the_loop_with_a_warning),
        T(a_loop_far_from_the_bound_is_the_peak_and_says_why),
        T(a_kernel_above_the_peak_stops_the_summary),
        T(an_older_run_has_no_peak_and_stops_nothing),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
