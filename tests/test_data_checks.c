/*
 * test_data_checks.c - the report refuses a data folder it cannot trust:
 * numbers out of their range or not finite, files that disagree with each
 * other (a truncated sweep, duplicated rows, a round missing), header-only
 * files, and files of another run than the manifest's; and its formatting
 * holds at every double. The bench's own output does not go to data/.
 *
 * Every case starts from one small, complete, hand-made run (FIXTURE below)
 * that loads, and changes one thing in it. The fixture's manifest is
 * written here, by nettle directly, not by the code under test; a changed
 * file gets a new manifest entry unless the case is about the manifest, so
 * that each case reaches the check it is about.
 */
#include <float.h>
#include <math.h>
#include <nettle/sha2.h>

#include "testengine.h"
#include "report/csvread.h"
#include "report/model.h"
#include "report/store.h"

/* ---- The fixture: a run of 2 architectures x 2 rounds, 2 combinations --- */

struct fixture_file {
    const char *name;
    const char *text;
};

/* Files that are not of a run: kept across runs, outside the manifest. */
static const char *const KEPT_ACROSS_RUNS[] = {"original.csv", "fuzz.csv"};

static const struct fixture_file FIXTURE[] = {
    {"run.csv", "key,value\nbars,300\ncombos,2\nseed,42\n"
                "series_sha256,0000000000000000000000000000000000000000000000000000000000000000\n"
                "scale,1\nbudget_s,600\ntarget,0.01\nmin_rounds,2\nmax_rounds,2\nrounds,2\n"
                "stop_reason,max_rounds\nrounds_seconds,1.5\n"
                "cold_reps,1\nspawn_reps,1\nserialization_reps,2\nlayout_passes,1\n"},
    {"machine.csv", "key,value\ncpu,test processor\ncores,2\ndate,2026-12-01T00:00:00Z\n"
                    "date_epoch,1796083200\ncommit,abc1234\n"},
    {"oracle.csv", "key,value\nbars,300\ncombos,2\nidentical,2\nnumpy,1.24.2\n"},
    {"load.csv", "key,value\nworkers,16\nseconds,4.3\n"},
    {"valgrind.csv", "key,value\nvalgrind,3.19.0\nsocket.errors,0\n"},
    {"fuzz.csv", "key,value\nrequest.seconds,901\nrequest.commit,0905064\n"
                 "request.executions,2045792\nrequest.crashes,0\n"},
    {"echo_settings.csv", "key,value\nwarmup,1\npasses,2\nreps_small,2\nreps_large,1\n"
                          "large_from,1000\nsizes,1\n"},
    {"roofline_settings.csv", "key,value\nchains,12\npasses,2\n"},
    /* two rounds, each one couple of duets of batch_unix beside in_process */
    {"architectures.csv",
     "architecture,pairing,round,position,unit,slot,run,partner,bars,combos,status,start_s,"
     "seconds,client_cpu_s,engine_cpu_s,cpus_allowed,cpu_start,cpu_end,engine_cpu,"
     "client_minor_faults,engine_minor_faults\n"
     "batch_unix,duet,1,1,1,1,1,2,300,2,ok,0.000000,0.250000000,0.001000,0.245000,0,0,0,0,0,0\n"
     "in_process,duet,1,1,1,1,2,1,300,2,ok,0.000001,0.260000000,0.260000,,1,1,1,,0,\n"
     "batch_unix,duet,1,1,1,2,3,4,300,2,ok,0.260000,0.251000000,0.001000,0.246000,1,1,1,1,0,0\n"
     "in_process,duet,1,1,1,2,4,3,300,2,ok,0.260001,0.261000000,0.261000,,0,0,0,,0,\n"
     "batch_unix,duet,2,1,2,1,5,6,300,2,ok,0.520000,0.252000000,0.001000,0.247000,1,1,1,1,0,0\n"
     "in_process,duet,2,1,2,1,6,5,300,2,ok,0.520001,0.262000000,0.262000,,0,0,0,,0,\n"
     "batch_unix,duet,2,1,2,2,7,8,300,2,ok,0.790000,0.253000000,0.001000,0.248000,0,0,0,0,0,0\n"
     "in_process,duet,2,1,2,2,8,7,300,2,ok,0.790001,0.263000000,0.263000,,1,1,1,,0,\n"},
    {"calls.csv",
     "architecture,round,run,call,rtt_ns,encode_ns,send_ns,wait_ns,receive_ns,decode_ns,"
     "engine_ns,engine_decode_ns,compute_ns,engine_encode_ns,engine_cpu_ns,process_ns,"
     "process_cpu_ns,process_minor_faults,request_bytes,reply_bytes\n"
     "batch_unix,1,1,0,250000000,1000,2000,249000000,1000,1000,248000000,1000,247000000,1000,"
     "245000000,,,,2500,40\n"
     "batch_unix,1,3,0,251000000,1000,2000,250000000,1000,1000,249000000,1000,248000000,1000,"
     "246000000,,,,2500,40\n"
     "batch_unix,2,5,0,252000000,1000,2000,251000000,1000,1000,250000000,1000,249000000,1000,"
     "247000000,,,,2500,40\n"
     "batch_unix,2,7,0,253000000,1000,2000,252000000,1000,1000,251000000,1000,250000000,1000,"
     "248000000,,,,2500,40\n"},
    {"gate.csv", "architecture,combos,identical,max_abs_pnl_diff,verdict,error\n"
                 "in_process,2,2,0,pass,\nbatch_unix,2,2,0,pass,\n"},
    {"sweep.csv", NULL},                       /* the grid's first two combinations */
    {"echo.csv", "client,transport,placement,client_cpu,engine_cpu,mode,floats,bytes,pass,"
                 "block,rep,rtt_ns,engine_ns\n"
                 "c,unix,same,0,0,protocol,1,8,1,1,1,5000,\n"
                 "c,unix,same,0,0,protocol,1,8,1,1,2,5100,\n"
                 "c,unix,same,1,1,protocol,1,8,2,2,1,5200,\n"
                 "c,unix,same,1,1,protocol,1,8,2,2,2,5300,\n"},
    {"cold.csv", "client,rep,warmth,cpu,engine_cpu,rtt_ns,encode_ns,send_ns,wait_ns,receive_ns,"
                 "decode_ns,engine_ns,engine_decode_ns,compute_ns,engine_encode_ns,"
                 "client_minor_faults,engine_minor_faults,request_bytes,reply_bytes\n"
                 "c,1,cold,0,0,30000000,5000000,4000000,20000000,10000,200,19000000,5000000,"
                 "14000000,2000,290,2358,1200061,60\n"
                 "c,1,warm,0,0,3000000,90000,400000,2500000,3000,100,2400000,40000,2300000,"
                 "400,0,0,1200061,60\n"},
    {"serialization.csv", "language,format,operation,rep,ns,bytes\n"
                          "c,raw,encode,1,1000,2400\nc,raw,encode,2,1100,2400\n"},
    {"spawn.csv", "kind,rep,combo,rtt_ns,process_ns,process_cpu_ns,minor_faults,compute_ns\n"
                  "sweep,1,0,1000000,900000,800000,100,500000\n"
                  "echo,1,0,900000,800000,700000,60,\n"},
    {"layout.csv", "side,code_shift,series_offset,array_offset,array_stagger,pass,seconds\n"
                   "engine,,0,576,576,1,0.338212606\nin_process,,0,576,576,1,0.330000000\n"},
    {"roofline.csv", "kind,lanes,threads,pass,flops,seconds\n"
                     "scalar,1,1,1,1152000000,0.158177805\nscalar,1,1,2,1152000000,0.158000000\n"},
    {"counts.csv", "side,what,requests,value\nin_process,kernel_instructions,1,204832185\n"
                   "engine,kernel_instructions,2,409664370\n"
                   "engine,total_instructions,1,205426406\nengine,total_instructions,3,615739055\n"
                   "engine,syscalls,1,92\nengine,syscalls,3,99\njob,bars,0,300\n"},
    {"original.csv", "key,value,unit,source\nmachine,\"Apple M2 Max, as quoted\",text,setup\n"},
};
enum { N_FIXTURE = sizeof FIXTURE / sizeof FIXTURE[0] };

static char sweep_text[1024];

static void make_sweep_text(void)
{
    struct combo_params p[2];
    grid_fill(p, 2);
    int n = snprintf(sweep_text, sizeof sweep_text,
                     "combo,L,h_half,h_len,h_sqrt,t_third,t_half,t_len,pnl,trades\n");
    for (int k = 0; k < 2; k++)
        n += snprintf(sweep_text + n, sizeof sweep_text - (size_t)n,
                      "%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%d\n", k, (long long)p[k].h_len,
                      (long long)p[k].h_half, (long long)p[k].h_len, (long long)p[k].h_sqrt,
                      (long long)p[k].t_third, (long long)p[k].t_half, (long long)p[k].t_len,
                      k == 0 ? "-5.25" : "3.5", 10 + k);
}

static const char *fixture_text(size_t i)
{
    return FIXTURE[i].text != NULL ? FIXTURE[i].text : sweep_text;
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void sha256_of_file(const char *dir, const char *name, char hex[65])
{
    char path[512];
    uint8_t buf[4096], digest[SHA256_DIGEST_SIZE];
    struct sha256_ctx sha;
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    sha256_init(&sha);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&sha, n, buf);
    fclose(f);
    sha256_digest(&sha, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static int is_of_the_run(const char *name)
{
    for (size_t i = 0; i < sizeof KEPT_ACROSS_RUNS / sizeof KEPT_ACROSS_RUNS[0]; i++)
        if (strcmp(name, KEPT_ACROSS_RUNS[i]) == 0)
            return 0;
    return 1;
}

/* dir/manifest.csv: every file of the run with the SHA-256 it has now. */
static void write_manifest(const char *dir)
{
    char text[8192] = "file,sha256\n", hex[65];
    size_t n = strlen(text);
    for (size_t i = 0; i < N_FIXTURE; i++) {
        if (!is_of_the_run(FIXTURE[i].name))
            continue;
        sha256_of_file(dir, FIXTURE[i].name, hex);
        n += (size_t)snprintf(text + n, sizeof text - n, "%s,%s\n", FIXTURE[i].name, hex);
    }
    write_text(dir, "manifest.csv", text);
}

/* A fresh copy of the fixture in test_dir/case, with `name`'s text changed:
 * `from` replaced by `to` (its first occurrence), or all of it by `to` when
 * `from` is NULL. name NULL: unchanged. The manifest follows the change. */
static const char *fixture_in(const char *folder, const char *name, const char *from,
                              const char *to)
{
    static char dirs[2][256];
    static int which;
    char *dir = dirs[which++ % 2];
    scratch_path(dir, sizeof dirs[0], folder);
    remove_tree(dir, 0);                       /* flat: a fixture has no folders */
    assert_int_equal(mkdir(dir, 0777), 0);
    for (size_t i = 0; i < N_FIXTURE; i++) {
        const char *text = fixture_text(i);
        char changed[8192];
        if (name != NULL && strcmp(name, FIXTURE[i].name) == 0) {
            if (from == NULL) {
                snprintf(changed, sizeof changed, "%s", to);
            } else {
                const char *at = strstr(text, from);
                if (at == NULL)
                    fail_msg("%s has no '%s' to change", name, from);
                snprintf(changed, sizeof changed, "%.*s%s%s", (int)(at - text), text, to,
                         at + strlen(from));
            }
            text = changed;
        }
        write_text(dir, FIXTURE[i].name, text);
    }
    write_manifest(dir);
    return dir;
}

static const char *fixture_with(const char *name, const char *from, const char *to)
{
    return fixture_in("case", name, from, to);
}

/* Loads dir and expects a refusal whose message holds every needle. */
static void assert_refused(const char *dir, const char *const needles[])
{
    struct run_data d;
    char err[512] = "";
    if (run_data_load(&d, dir, err, sizeof err) == 0) {
        run_data_free(&d);
        fail_msg("the data was loaded; expected a refusal naming %s", needles[0]);
    }
    for (size_t i = 0; needles[i] != NULL; i++)
        if (strstr(err, needles[i]) == NULL)
            fail_msg("the refusal \"%s\" does not name \"%s\"", err, needles[i]);
}

#define REFUSED(dir, ...) assert_refused(dir, (const char *const[]){__VA_ARGS__, NULL})

/* Runs build/ipctax-summary with up to three arguments (NULL-terminated). */
/* A registry of one claim on the fixture's batch ratio, its registered copy with
 * the threshold `registered_high`, and the deviations given (a CSV body). */
static const char *write_registry(const char *name, const char *registered_high,
                                  const char *deviations)
{
    static char dir[512];
    static const char *const header = "id,statement,estimate,test,low,high,unit,decimals,"
                                      "reason,overturn\n";
    char text[1024];
    scratch_path(dir, sizeof dir, name);
    mkdir(dir, 0777);
    snprintf(text, sizeof text, "%sbatch,The batch call costs about the in-process sweep,"
             "arch.batch_unix.ratio,within,0.5,2,x,2,A test's reason,A ratio outside\n", header);
    write_text(dir, "claims.csv", text);
    snprintf(text, sizeof text, "%sbatch,The batch call costs about the in-process sweep,"
             "arch.batch_unix.ratio,within,0.5,%s,x,2,A test's reason,A ratio outside\n", header,
             registered_high);
    write_text(dir, "claims-registered.csv", text);
    snprintf(text, sizeof text, "commit,kind,claims,change,reason,chunks\n%s", deviations);
    write_text(dir, "deviations.csv", text);
    write_text(dir, "registration.csv", "key,value\ncommit,0123abc\n");
    return dir;
}

static void run_summary(const char *a, const char *b, const char *c, struct run_result *r)
{
    char summary[4096];
    root_path(summary, sizeof summary, "build/ipctax-summary");
    const char *registry = write_registry("registry", "2", "");
    char *const argv[] = {summary, "--registry", (char *)registry, (char *)a, (char *)b,
                          (char *)c, NULL};
    assert_int_equal(run_program(argv, NULL, NULL, 0, 60000, r), 0);
}

/* A claim whose threshold differs from its registered one stops the summary,
 * unless a deviation says why. */
static void an_undeclared_deviation_stops_the_summary(void **state)
{
    (void)state;
    char summary[4096], out[256];
    const char *dir = fixture_with(NULL, NULL, NULL);
    root_path(summary, sizeof summary, "build/ipctax-summary");
    struct run_result r;
    const char *changed = write_registry("changed", "3", "");
    char *const quiet[] = {summary, "--registry", (char *)changed, (char *)dir,
                           (char *)scratch_path(out, sizeof out, "woven-changed"), NULL};
    assert_int_equal(run_program(quiet, NULL, NULL, 0, 60000, &r), 0);
    if (exit_code(&r) != 1 || strstr(r.err, "claim batch differs from its registration") == NULL)
        fail_msg("exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
    const char *declared = write_registry("declared", "3",
                                          "0123abc,threshold,batch,high 3 -> 2,a reason given,\n");
    char *const said[] = {summary, "--registry", (char *)declared, (char *)dir,
                          (char *)scratch_path(out, sizeof out, "woven-declared"), NULL};
    assert_int_equal(run_program(said, NULL, NULL, 0, 60000, &r), 0);
    if (exit_code(&r) != 0)
        fail_msg("with the deviation listed: exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
}

/* ---- The fixture itself is a run the report accepts ------------------------ */

static void the_fixture_loads(void **state)
{
    (void)state;
    struct run_data d;
    char err[512] = "";
    const char *dir = fixture_with(NULL, NULL, NULL);
    if (run_data_load(&d, dir, err, sizeof err) != 0)
        fail_msg("the fixture was refused: %s", err);
    assert_int_equal(d.n_runs, 8);
    assert_int_equal(d.n_sweep, 2);
    assert_true(isnan(d.runs[1].engine_cpu_s));          /* empty: not applicable */
    run_data_free(&d);
}

/* ---- An older run lacks the columns added since (issue 34) ---------------- */

/* The fixture's serialization.csv predates position, buffer and minor_faults:
 * it loads, and they read as empty; written, they are read. */
static void a_file_without_its_optional_columns_loads_them_empty(void **state)
{
    (void)state;
    struct run_data d;
    char err[512] = "";
    const char *old = fixture_with(NULL, NULL, NULL);
    if (run_data_load(&d, old, err, sizeof err) != 0)
        fail_msg("an older serialization.csv was refused: %s", err);
    assert_true(isnan(d.serial[0].position));
    assert_string_equal(d.serial[0].buffer, "");
    assert_true(isnan(d.serial[0].minor_faults));
    run_data_free(&d);
    const char *now = fixture_with("serialization.csv", NULL,
                                   "language,format,operation,rep,ns,bytes,position,buffer,"
                                   "minor_faults\nc,raw_fresh,encode,1,1000,2400,2,fresh,1\n"
                                   "c,raw_fresh,encode,2,1100,2400,1,fresh,1\n");
    if (run_data_load(&d, now, err, sizeof err) != 0)
        fail_msg("a serialization.csv with every column was refused: %s", err);
    assert_true(d.serial[0].position == 2.0);
    assert_string_equal(d.serial[0].buffer, "fresh");
    assert_true(d.serial[1].minor_faults == 1.0);
    run_data_free(&d);
}

/* A column that is not optional is still required... */
static void a_required_column_is_still_required(void **state)
{
    (void)state;
    REFUSED(fixture_with("serialization.csv", NULL,
                         "language,format,operation,rep,bytes\nc,raw,encode,1,2400\n"),
            "serialization.csv", "has no column ns");
}

/* ...and an optional column must read as empty: a number that may be empty, or
 * a text that may have no bytes (the schema's rule, over every file). */
static void every_optional_column_may_be_empty(void **state)
{
    (void)state;
    int optional = 0;
    for (size_t i = 0; i < N_DATA_FILES; i++)
        for (size_t c = 0; c < DATA_FILES[i].n_columns; c++) {
            const struct data_column *col = &DATA_FILES[i].columns[c];
            if (!(col->flags & COLUMN_MAY_BE_ABSENT))
                continue;
            optional++;
            if (!(col->type == COLUMN_NUM_OR_EMPTY || (col->type == COLUMN_TEXT && col->min == 0)))
                fail_msg("%s: the optional column %s cannot be empty", DATA_FILES[i].name,
                         col->name);
        }
    assert_true(optional >= 3);
}

/* ...and summarizes to exit 0, so that every refusal below is the check's. */
static void the_fixture_summarizes(void **state)
{
    (void)state;
    char out[256];
    const char *dir = fixture_with(NULL, NULL, NULL);
    struct run_result r;
    run_summary(dir, scratch_path(out, sizeof out, "woven"), NULL, &r);
    if (exit_code(&r) != 0)
        fail_msg("ipctax-summary on the fixture: exit %d, stderr:\n%s", exit_code(&r), r.err);
    run_result_free(&r);
    /* the fixture has no A/A control: no pairing is the most precise (once "duet") */
    char path[300], err[256];
    struct csv_table values;
    snprintf(path, sizeof path, "%s/values.csv", out);
    if (csv_table_load(path, &values, err, sizeof err) != 0)
        fail_msg("%s", err);
    int k = csv_table_column(&values, "key"), v = csv_table_column(&values, "value");
    const char *best = NULL;
    for (size_t i = 0; i < values.n_rows; i++)
        if (strcmp(csv_table_cell(&values, i, k), "design.best") == 0)
            best = csv_table_cell(&values, i, v);
    assert_non_null(best);
    assert_string_equal(best, "not measured");
    csv_table_free(&values);
}

/* ---- The report crashes on large numbers (issue 22) ------------------------ */

/* A finite 1e46 in the files the issue names is refused, with its place. */
static void a_huge_number_is_refused_with_its_place(void **state)
{
    (void)state;
    static const struct {
        const char *file, *from, *to, *line, *column;
    } cases[] = {
        {"architectures.csv", "0.250000000", "1e46", "line 2", "seconds"},
        {"run.csv", "bars,300", "bars,1e46", "line 2", "bars"},
        {"oracle.csv", "identical,2", "identical,1e46", "line 4", "identical"},
        {"counts.csv", "204832185", "1e46", "line 2", "value"},
        {"echo_settings.csv", "passes,2", "passes,1e46", "line 3", "passes"},
        {"roofline_settings.csv", "chains,12", "chains,1e46", "line 2", "chains"},
        {"load.csv", "seconds,4.3", "seconds,1e+46", "line 3", "seconds"},
        {"valgrind.csv", "socket.errors,0", "socket.errors,nan", "line 3", "socket.errors"},
        {"calls.csv", "245000000,,,,2500,40", "245000000,,,,1e46,40", "line 2",
         "request_bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        REFUSED(fixture_with(cases[i].file, cases[i].from, cases[i].to), cases[i].file,
                cases[i].line, cases[i].column);
}

/* A pass past what the summary reads is refused where it stands: the
 * summaries once kept the first 64 layout passes and 256 echo passes of a
 * run made at --scale 100, and dropped the rest without a word. */
static void a_pass_the_summary_cannot_read_is_refused(void **state)
{
    (void)state;
    REFUSED(fixture_with("layout.csv", "576,576,1,0.330000000", "576,576,65,0.330000000"),
            "layout.csv", "line 3", "pass", "out of its range 1..64");
    REFUSED(fixture_with("echo.csv", "protocol,1,8,1,1,2,5100", "protocol,1,8,257,1,2,5100"),
            "echo.csv", "line 3", "pass", "out of its range 1..256");
}

/* An undeclared value is a number only as the writer writes numbers: a
 * commit that strtod would read as 8e12345 (infinite) stays a text. */
static void a_commit_that_reads_as_a_number_is_a_text(void **state)
{
    (void)state;
    struct run_data d;
    char err[512] = "";
    const char *dir = fixture_with("fuzz.csv", "0905064", "8e12345");
    if (run_data_load(&d, dir, err, sizeof err) != 0)
        fail_msg("refused: %s", err);
    run_data_free(&d);
}

/* End to end: ipctax-summary stops with the message and exit 1, not a signal. */
static void the_summary_names_a_huge_number_and_exits_1(void **state)
{
    (void)state;
    char out[256];
    const char *dir = fixture_with("architectures.csv", "0.250000000", "1e46");
    struct run_result r;
    run_summary(dir, scratch_path(out, sizeof out, "woven"), NULL, &r);
    if (exit_code(&r) != 1 || strstr(r.err, "architectures.csv line 2") == NULL ||
        strstr(r.err, "seconds") == NULL)
        fail_msg("exit %d (status %#x), stderr \"%s\"", exit_code(&r), r.status, r.err);
    run_result_free(&r);
}

/* Formatting holds at every double: nothing past the 64 bytes promised. */
static void formatting_holds_at_every_double(void **state)
{
    (void)state;
    const double xs[] = {DBL_MAX, -DBL_MAX, 1e46, -1e46, 1e21, DBL_MIN, -DBL_MIN,
                         5e-324, -5e-324, NAN, INFINITY, -INFINITY, 0.0, -0.0};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        for (int decimals = 0; decimals <= 6; decimals += 3) {
            char buf[64 + 16];
            memset(buf, 'X', sizeof buf);
            format_fixed(buf, xs[i], decimals);
            for (size_t k = 64; k < sizeof buf; k++)
                if (buf[k] != 'X')
                    fail_msg("format_fixed(%g, %d) wrote past 64 bytes", xs[i], decimals);
            assert_true(strlen(buf) < 64);
        }
    char buf[64];
    assert_string_equal(format_fixed(buf, -5e-324, 2), "0.00");
    assert_string_equal(format_fixed(buf, INFINITY, 2), "inf");
    assert_string_equal(format_fixed(buf, 123456789012.0, 0), "123,456,789,012");
    format_fixed(buf, 1e46, 2);
    assert_true(buf[0] == '1');                /* the number, in whatever notation fits */
    format_fixed(buf, -DBL_MAX, 0);
    assert_true(buf[0] == '-' && buf[1] == '1');
}

/* ---- Damaged data weaves a wrong paper (issue 22) -------------------------- */

/* sweep.csv cut short: fewer combinations than run.csv's. */
static void a_truncated_sweep_is_refused(void **state)
{
    (void)state;
    char cut[1024];
    const char *second = strchr(strchr(sweep_text, '\n') + 1, '\n') + 1;
    snprintf(cut, sizeof cut, "%.*s", (int)(second - sweep_text), sweep_text);  /* one row */
    REFUSED(fixture_with("sweep.csv", NULL, cut), "sweep.csv", "combo", "run.csv");
}

/* A combination whose windows are not the grid's is another sweep. */
static void a_sweep_of_other_windows_is_refused(void **state)
{
    (void)state;
    char other[1024];
    snprintf(other, sizeof other, "%s", sweep_text);
    char *row = strchr(other, '\n') + 1;     /* combo 0: its L becomes 7 */
    char *field = strchr(row, ',') + 1;
    *field = '7';
    REFUSED(fixture_with("sweep.csv", NULL, other), "sweep.csv", "line 2", "L");
}

static void duplicated_rows_are_refused(void **state)
{
    (void)state;
    char twice[2048];
    const char *row = strchr(sweep_text, '\n') + 1;
    snprintf(twice, sizeof twice, "%s%.*s", sweep_text, (int)(strchr(row, '\n') + 1 - row), row);
    REFUSED(fixture_with("sweep.csv", NULL, twice), "sweep.csv", "line 4", "line 2");
    const char *last = "in_process,duet,2,1,2,2,8,7,300,2,ok,0.790001,0.263000000,0.263000,,1,1,1,,0,\n";
    char last_twice[512];
    snprintf(last_twice, sizeof last_twice, "%s%s", last, last);
    REFUSED(fixture_with("architectures.csv", last, last_twice), "architectures.csv", "line 10",
            "line 9");
    REFUSED(fixture_with("run.csv", "rounds,2\n", "rounds,2\nrounds,2\n"), "run.csv", "line 12",
            "rounds");
}

/* A unit that lacks a run, a round fewer than run.csv says, a pass missing, a
 * call of no run. */
static void an_incomplete_unit_is_refused(void **state)
{
    (void)state;
    REFUSED(fixture_with("architectures.csv",
                         "in_process,duet,2,1,2,2,8,7,300,2,ok,0.790001,0.263000000,0.263000,,1,1,1,,0,\n",
                         ""),
            "architectures.csv", "partner");
    REFUSED(fixture_with("run.csv", "\nrounds,2", "\nrounds,3"), "architectures.csv", "round",
            "run.csv");
    REFUSED(fixture_with("echo.csv",
                         "c,unix,same,1,1,protocol,1,8,2,2,1,5200,\n"
                         "c,unix,same,1,1,protocol,1,8,2,2,2,5300,\n", ""),
            "echo.csv", "pass", "echo_settings.csv");
    REFUSED(fixture_with("calls.csv", "batch_unix,2,7,0", "batch_unix,2,9,0"), "calls.csv",
            "line 5", "architectures.csv");
}

/* Issue 33: with the manifest rewritten, these files cut to half their rows
 * wove with exit 0 (the paper then printed n/a). Each is now held to what
 * the run says it made; and rows' times to the run's length. */
static void a_file_a_claim_reads_cut_short_is_refused(void **state)
{
    (void)state;
    REFUSED(fixture_with("cold.csv", "c,1,warm,", "c,1,cold,"), "cold.csv");
    REFUSED(fixture_with("run.csv", "cold_reps,1", "cold_reps,2"), "cold.csv", "rep",
            "cold_reps");
    REFUSED(fixture_with("serialization.csv", "c,raw,encode,2,1100,2400\n", ""),
            "serialization.csv", "ends at 1", "serialization_reps");
    REFUSED(fixture_with("run.csv", "spawn_reps,1", "spawn_reps,2"), "spawn.csv",
            "spawn_reps");
    REFUSED(fixture_with("run.csv", "layout_passes,1", "layout_passes,2"), "layout.csv",
            "layout_passes");
    REFUSED(fixture_with("calls.csv",
                         "batch_unix,2,7,0,253000000,1000,2000,252000000,1000,1000,251000000,1000,"
                         "250000000,1000,248000000,,,,2500,40\n", ""),
            "calls.csv", "run 7 (batch_unix) has 0 calls");
    REFUSED(fixture_with("counts.csv", "engine,syscalls,3,99\n", ""), "counts.csv",
            "engine,syscalls,3");
    REFUSED(fixture_with("fuzz.csv", "request.crashes,0\n", ""), "fuzz.csv", "request.crashes");
    /* a run.csv from before the counts were recorded: what its scale made */
    REFUSED(fixture_with("run.csv", "cold_reps,1\nspawn_reps,1\nserialization_reps,2\n"
                                    "layout_passes,1\n", ""),
            "cold.csv", "cold_reps (what its scale made) 20");
}

static void rows_that_outlast_the_run_are_refused(void **state)
{
    (void)state;
    REFUSED(fixture_with("run.csv", "rounds_seconds,1.5", "rounds_seconds,1.0"),
            "architectures.csv", "line 8", "ends 1.043 s into the rounds", "1.000 s");
    REFUSED(fixture_with("calls.csv", "batch_unix,1,1,0,250000000,", "batch_unix,1,1,0,350000000,"),
            "calls.csv", "run 1", "0.350 s", "0.250 s");
}

/* The files that state the bar count or the combinations agree. */
static void files_that_disagree_are_refused(void **state)
{
    (void)state;
    REFUSED(fixture_with("oracle.csv", "bars,300", "bars,200"), "oracle.csv", "bars", "run.csv");
    REFUSED(fixture_with("gate.csv", "batch_unix,2,2", "batch_unix,3,2"), "gate.csv", "line 3",
            "combos");
}

static void bad_seconds_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"-1", "0", "nan", "inf", "-inf", "0x1p-3", "1e999", "0.2.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        REFUSED(fixture_with("architectures.csv", "0.260000000", bad[i]), "architectures.csv",
                "line 3", "seconds");
    REFUSED(fixture_with("roofline.csv", "0.158177805", "-0.158177805"), "roofline.csv",
            "line 2", "seconds");
    REFUSED(fixture_with("architectures.csv", "0.260000000", ""), "architectures.csv", "line 3",
            "seconds");                        /* empty where a number is required */
}

static void a_header_only_file_is_refused(void **state)
{
    (void)state;
    static const char *const files[] = {"architectures.csv", "calls.csv", "sweep.csv",
                                        "echo.csv", "roofline.csv", "run.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char header[512];
        for (size_t k = 0; k < N_FIXTURE; k++)
            if (strcmp(FIXTURE[k].name, files[i]) == 0) {
                const char *text = fixture_text(k);
                snprintf(header, sizeof header, "%.*s", (int)(strchr(text, '\n') + 1 - text), text);
            }
        REFUSED(fixture_with(files[i], NULL, header), files[i], "no rows");
    }
}

/* ---- Mixed runs in data/ (issue 22) ---------------------------------------- */

/* A file of another run beside the rest: its bytes are not the manifest's. */
static void a_file_of_another_run_is_refused(void **state)
{
    (void)state;
    const char *dir = fixture_with(NULL, NULL, NULL);
    write_text(dir, "architectures.csv",
               "architecture,round,position,status,start_s,seconds,client_cpu_s,engine_cpu_s\n"
               "batch_unix,1,1,ok,0.000,0.002000000,0.001000,0.001000\n"
               "in_process,1,2,ok,0.002,0.002000000,0.002000,\n"
               "in_process,2,1,ok,0.004,0.002000000,0.002000,\n"
               "batch_unix,2,2,ok,0.006,0.002000000,0.001000,0.001000\n");
    REFUSED(dir, "architectures.csv", "manifest.csv", "SHA-256");
}

static void a_folder_without_its_manifest_is_refused(void **state)
{
    (void)state;
    char path[512];
    const char *dir = fixture_with(NULL, NULL, NULL);
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    assert_int_equal(unlink(path), 0);
    REFUSED(dir, "manifest.csv");
}

/* A manifest that leaves out a file of the run, or lists one that is not there. */
static void a_manifest_that_does_not_list_the_files_is_refused(void **state)
{
    (void)state;
    char path[512];
    const char *dir = fixture_with(NULL, NULL, NULL);
    write_text(dir, "manifest.csv", "file,sha256\n");
    REFUSED(dir, "manifest.csv", "does not list");
    dir = fixture_with(NULL, NULL, NULL);
    snprintf(path, sizeof path, "%s/spawn.csv", dir);
    assert_int_equal(unlink(path), 0);
    REFUSED(dir, "spawn.csv");
}

/* ---- data/ changes as a whole or not at all (issue 22) --------------------- */

static void remove_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(unlink(path), 0);
}

/* A data folder, with its README, and a stage as the bench leaves one: the
 * run's files only, without a manifest or the files kept across runs. */
static void data_and_stage(const char **data, const char **stage, const char *name,
                           const char *from, const char *to)
{
    *data = fixture_in("published", NULL, NULL, NULL);
    write_text(*data, "README.md", "# the data folder\n");
    *stage = fixture_in("stage", name, from, to);
    remove_file(*stage, "manifest.csv");
    for (size_t i = 0; i < sizeof KEPT_ACROSS_RUNS / sizeof KEPT_ACROSS_RUNS[0]; i++)
        remove_file(*stage, KEPT_ACROSS_RUNS[i]);
}

/* data is still the fixture's, whole: it loads, and its echo is the fixture's. */
static void assert_data_untouched(const char *data)
{
    struct run_data d;
    char err[512];
    if (run_data_load(&d, data, err, sizeof err) != 0)
        fail_msg("data/ no longer loads: %s", err);
    assert_true(d.n_echo == 4 && d.echo[0].rtt_ns == 5000);
    run_data_free(&d);
}

static void assert_install_refused(const char *stage, const char *data, const char *needle)
{
    struct run_result r;
    run_summary("--install", stage, data, &r);
    if (exit_code(&r) != 1 || strstr(r.err, needle) == NULL)
        fail_msg("exit %d, stderr \"%s\"; expected 1 and \"%s\"", exit_code(&r), r.err, needle);
    run_result_free(&r);
    assert_data_untouched(data);
}

/* A run stopped before its last measurement never replaces data/. */
static void an_interrupted_run_never_replaces_data(void **state)
{
    (void)state;
    const char *data, *stage;
    data_and_stage(&data, &stage, "echo.csv", "5000,", "6000,");
    remove_file(stage, "spawn.csv");
    assert_install_refused(stage, data, "spawn.csv");
}

/* A stage holding what a killed writer left is not a run either. */
static void a_stage_with_a_leftover_is_refused(void **state)
{
    (void)state;
    const char *data, *stage;
    data_and_stage(&data, &stage, "echo.csv", "5000,", "6000,");
    write_text(stage, "echo.csv.tmp", "client,transport\n");
    assert_install_refused(stage, data, "echo.csv.tmp");
}

/* A complete run becomes data/ whole, with its manifest and the kept files,
 * and the previous data/ is left whole where the stage was. */
static void a_complete_run_replaces_data_whole(void **state)
{
    (void)state;
    const char *data, *stage;
    struct run_result r;
    char path[512];
    data_and_stage(&data, &stage, "echo.csv", "5000,", "6000,");
    run_summary("--install", stage, data, &r);
    if (exit_code(&r) != 0)
        fail_msg("exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
    struct run_data d;
    char err[512];
    if (run_data_load(&d, data, err, sizeof err) != 0)
        fail_msg("the new data/ does not load: %s", err);
    assert_true(d.echo[0].rtt_ns == 6000 && d.n_original == 1);
    run_data_free(&d);
    snprintf(path, sizeof path, "%s/README.md", data);
    assert_int_equal(access(path, F_OK), 0);
    assert_data_untouched(stage);                      /* the previous data/, whole */
}

/* The bench writes a run where it is told to, never into data/ by default.
 * It runs in the scratch folder as in a checkout, as build/ipctax-bench. */
static void the_bench_does_not_write_data_by_default(void **state)
{
    (void)state;
    char old[4096], path[512], root[4096];
    snprintf(path, sizeof path, "%s/build", test_dir);
    assert_int_equal(mkdir(path, 0777), 0);
    const char *r0 = getenv("IPCTAX_ROOT");
    if (r0 == NULL || r0[0] != '/') {                 /* the bench's path must stay valid */
        assert_non_null(realpath(r0 != NULL ? r0 : ".", root));
        setenv("IPCTAX_ROOT", root, 1);
    }
    char *const argv[] = {(char *)bench_binary(), "--bars", "300", "--combos", "2",
                          "--measure", "none", "--rounds", "1", "--arch", "in_process", NULL};
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(test_dir), 0);
    struct run_result r;
    int started = run_program(argv, NULL, NULL, 0, 60000, &r);
    assert_int_equal(chdir(old), 0);
    assert_int_equal(started, 0);
    snprintf(path, sizeof path, "%s/data", test_dir);
    int wrote_data = access(path, F_OK) == 0;
    snprintf(path, sizeof path, "%s/build/run/sweep.csv", test_dir);
    int wrote_stage = access(path, F_OK) == 0;
    if (exit_code(&r) != 0 || wrote_data || !wrote_stage)
        fail_msg("exit %d, data/ %s, build/run/sweep.csv %s; stderr:\n%s", exit_code(&r),
                 wrote_data ? "written" : "untouched", wrote_stage ? "written" : "missing",
                 r.err);
    run_result_free(&r);
}

static int group_setup(void **state)
{
    (void)state;
    make_sweep_text();
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
        T(the_fixture_loads),
        T(the_fixture_summarizes),
        T(a_file_without_its_optional_columns_loads_them_empty),
        T(a_required_column_is_still_required),
        T(every_optional_column_may_be_empty),
        T(a_huge_number_is_refused_with_its_place),
        T(a_pass_the_summary_cannot_read_is_refused),
        T(a_commit_that_reads_as_a_number_is_a_text),
        T(the_summary_names_a_huge_number_and_exits_1),
        T(formatting_holds_at_every_double),
        T(a_truncated_sweep_is_refused),
        T(a_sweep_of_other_windows_is_refused),
        T(duplicated_rows_are_refused),
        T(an_incomplete_unit_is_refused),
        T(an_undeclared_deviation_stops_the_summary),
        T(files_that_disagree_are_refused),
        T(a_file_a_claim_reads_cut_short_is_refused),
        T(rows_that_outlast_the_run_are_refused),
        T(bad_seconds_are_refused),
        T(a_header_only_file_is_refused),
        T(a_file_of_another_run_is_refused),
        T(a_folder_without_its_manifest_is_refused),
        T(a_manifest_that_does_not_list_the_files_is_refused),
        T(an_interrupted_run_never_replaces_data),
        T(a_stage_with_a_leftover_is_refused),
        T(a_complete_run_replaces_data_whole),
        T(the_bench_does_not_write_data_by_default),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
