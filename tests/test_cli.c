/*
 * test_cli.c - the one command-line convention of every ipctax program
 * (paper/40-harness.md, util/options): ipctax-engine, ipctax-bench,
 * ipctax-summary, ipctax-record, ipctax-kernel and the tangler.
 *
 *   - -h and --help print the usage on stdout, exit 0, and the usage gives
 *     the exit statuses; --version prints "NAME ..." on stdout and exits 0;
 *   - a refused command line gets exactly one line on stderr, which names
 *     the program and what was wrong and ends with "(see --help)", nothing
 *     on stdout, and exit status 2;
 *   - option values are read whole: " 5", "+5", "8, 8, 8", "inf" and an
 *     empty list are refused, not read as something else.
 *
 * Each of these once failed for at least one program: the summarizer, the
 * recorder and the kernel tool knew no --version, sent their usage to
 * stderr with status 2 on -h, or printed a usage instead of a one-line
 * error; the bench printed getopt's message and then its whole usage;
 * strtol's leniency let " 5" and "+5" through everywhere; `--arch ""` ran
 * nothing and exited 0.
 */
#include "testengine.h"

/* ---- The programs --------------------------------------------------------- */

static const char *const PROGRAMS[] = {"ipctax-engine", "ipctax-bench", "ipctax-summary",
                                       "ipctax-record", "ipctax-kernel", "tangle"};
enum { N_PROGRAMS = sizeof PROGRAMS / sizeof PROGRAMS[0] };

/* build/NAME under the checkout. */
static const char *program_path(const char *name, char *buf, size_t size)
{
    char rel[64];
    snprintf(rel, sizeof rel, "build/%s", name);
    return root_path(buf, size, rel);
}

/* Runs `name args...` (args NULL-terminated), bounded; the caller frees r. */
static void run(const char *name, const char *const args[], struct run_result *r)
{
    char path[4096];
    char *argv[16] = {(char *)program_path(name, path, sizeof path)};
    size_t n = 1;
    for (size_t i = 0; args[i] != NULL && n < 15; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    if (access(argv[0], X_OK) != 0)
        fail_msg("%s is not built (make all build/tangle)", argv[0]);
    assert_int_equal(run_program(argv, NULL, NULL, 0, 20000, r), 0);
    if (r->timed_out)
        fail_msg("%s did not finish within 20 s", name);
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text != '\0'; text++)
        n += *text == '\n';
    return n;
}

/* The refusal of `name args...`: exit 2, nothing on stdout, one line on
 * stderr that starts with "NAME: ", contains needle and ends "(see --help)". */
static void assert_refused(const char *name, const char *const args[], const char *needle)
{
    struct run_result r;
    char start[64];
    run(name, args, &r);
    snprintf(start, sizeof start, "%s: ", name);
    const char *end = "(see --help)\n";
    size_t len = strlen(r.err), end_len = strlen(end);
    if (exit_code(&r) != 2 || r.out_len != 0 || count_lines(r.err) != 1 ||
        strncmp(r.err, start, strlen(start)) != 0 || strstr(r.err, needle) == NULL ||
        len < end_len || strcmp(r.err + len - end_len, end) != 0)
        fail_msg("%s %s%s%s: exit %d, stdout \"%s\", stderr \"%s\"; expected 2, nothing, and "
                 "one line \"%s... %s... (see --help)\"", name, args[0] ? args[0] : "",
                 args[0] && args[1] ? " " : "", args[0] && args[1] ? args[1] : "",
                 exit_code(&r), r.out, r.err, start, needle);
    run_result_free(&r);
}

/* ---- The convention -------------------------------------------------------- */

static void help_goes_to_stdout_with_the_exit_statuses(void **state)
{
    (void)state;
    static const char *const helps[] = {"-h", "--help"};
    for (size_t p = 0; p < N_PROGRAMS; p++)
        for (size_t h = 0; h < 2; h++) {
            const char *args[] = {helps[h], NULL};
            struct run_result r;
            run(PROGRAMS[p], args, &r);
            if (exit_code(&r) != 0 || r.err_len != 0 || strncmp(r.out, "usage: ", 7) != 0 ||
                strstr(r.out, "Exit status:") == NULL)
                fail_msg("%s %s: exit %d, stderr \"%s\", stdout \"%.200s\"; expected 0, "
                         "nothing, and a usage that gives the exit statuses", PROGRAMS[p],
                         helps[h], exit_code(&r), r.err, r.out);
            run_result_free(&r);
        }
}

static void version_goes_to_stdout(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_PROGRAMS; p++) {
        const char *args[] = {"--version", NULL};
        char start[64];
        struct run_result r;
        run(PROGRAMS[p], args, &r);
        snprintf(start, sizeof start, "%s ", PROGRAMS[p]);
        if (exit_code(&r) != 0 || r.err_len != 0 || strncmp(r.out, start, strlen(start)) != 0 ||
            count_lines(r.out) != 1)
            fail_msg("%s --version: exit %d, stdout \"%s\", stderr \"%s\"; expected 0 and one "
                     "line \"%s...\"", PROGRAMS[p], exit_code(&r), r.out, r.err, start);
        run_result_free(&r);
    }
}

static void an_unknown_option_is_one_line_naming_it(void **state)
{
    (void)state;
    for (size_t p = 0; p < N_PROGRAMS; p++) {
        const char *args[] = {"--no-such-option", NULL};
        assert_refused(PROGRAMS[p], args, "'--no-such-option'");
    }
    const char *short_one[] = {"-q", NULL};
    assert_refused("ipctax-engine", short_one, "unknown option '-q'");
    assert_refused("tangle", short_one, "unknown option '-q'");
    /* a prefix of a long option is not that option (getopt_long would take it) */
    const char *engine[] = {"--std", NULL}, *bench[] = {"--bar", "1000", NULL},
               *tangle[] = {"--chec", "x.md", NULL};
    assert_refused("ipctax-engine", engine, "unknown option '--std' (a long option is "
                                            "written whole: --stdin?)");
    assert_refused("ipctax-bench", bench, "unknown option '--bar'");
    assert_refused("tangle", tangle, "unknown option '--chec'");
}

/* --version names the release a reader cites (CITATION.cff's) and the commit. */
static void version_names_the_release_and_the_commit(void **state)
{
    (void)state;
    char want[64], path[4200];
    const char *root = getenv("IPCTAX_ROOT");
    snprintf(path, sizeof path, "%s/CITATION.cff", root != NULL ? root : ".");
    FILE *cff = fopen(path, "r");
    if (cff == NULL)
        skip();                             /* not run from the checkout */
    char line[256];
    want[0] = '\0';
    while (fgets(line, sizeof line, cff) != NULL)
        if (sscanf(line, "version: \"%40[^\"]\"", want + 1) == 1)
            want[0] = ' ';
    fclose(cff);
    assert_true(want[0] == ' ');
    strcat(want, " (commit ");
    for (size_t p = 0; p < N_PROGRAMS; p++) {
        const char *args[] = {"--version", NULL};
        struct run_result r;
        run(PROGRAMS[p], args, &r);
        if (exit_code(&r) != 0 || strstr(r.out, want) == NULL)
            fail_msg("%s --version: \"%s\", not its name, then\"%s...)\"", PROGRAMS[p], r.out, want);
        run_result_free(&r);
    }
}

static void a_missing_value_or_operand_is_one_line(void **state)
{
    (void)state;
    const char *engine[] = {"--unix", NULL}, *bench[] = {"--bars", NULL},
               *tangle[] = {"--stray", NULL}, *tangle_none[] = {"--check", NULL},
               *summary[] = {"data", NULL}, *record[] = {NULL},
               *kernel[] = {"10", "2", "3", NULL}, *bench_stray[] = {"stray", NULL};
    assert_refused("ipctax-engine", engine, "--unix needs a value");
    assert_refused("ipctax-bench", bench, "--bars needs a value");
    assert_refused("ipctax-bench", bench_stray, "unexpected argument 'stray'");
    assert_refused("tangle", tangle, "--stray needs a value");
    assert_refused("tangle", tangle_none, "no chapter");
    assert_refused("ipctax-summary", summary, "expected DATA_DIR OUT_DIR");
    assert_refused("ipctax-record", record, "expected one FILE");
    assert_refused("ipctax-kernel", kernel, "unexpected argument '3'");
}

/* Values that strtol, sscanf or strtod would have read as something else.
 * The bench is pointed at an output folder that cannot exist, so that a bench
 * that accepted a value would stop at once instead of measuring. */
#define NOWHERE "--out", "/proc/ipctax-cannot-be-here"

static void values_are_read_whole(void **state)
{
    (void)state;
    static const struct {
        const char *program;
        const char *args[8];
        const char *needle;
    } cases[] = {
        {"ipctax-engine", {"--max-clients", " 5", "--stdin"}, "--max-clients: ' 5' is not"},
        {"ipctax-engine", {"--max-clients", "+5", "--stdin"}, "--max-clients: '+5' is not"},
        {"ipctax-engine", {"--idle-timeout", "5 ", "--stdin"}, "--idle-timeout: '5 ' is not"},
        {"ipctax-engine", {"--layout", "8, 8, 8", "--stdin"}, "--layout: '8, 8, 8' is not"},
        {"ipctax-engine", {"--layout", "8,8,9", "--stdin"}, "multiple of 8"},
        {"ipctax-bench", {NOWHERE, "--bars", " 5"}, "--bars: ' 5' is not a whole number"},
        {"ipctax-bench", {NOWHERE, "--rounds", "+5"}, "--rounds: '+5' is not a whole number"},
        {"ipctax-bench", {NOWHERE, "--seed", "0x10"}, "--seed: '0x10' is not a whole number"},
        {"ipctax-bench", {NOWHERE, "--scale", "inf"}, "--scale: 'inf' is not a number"},
        {"ipctax-bench", {NOWHERE, "--budget", " 60"}, "--budget: ' 60' is not a number"},
        {"ipctax-bench", {NOWHERE, "--arch", ""}, "--arch: '' has an empty architecture name"},
        {"ipctax-bench", {NOWHERE, "--arch", "in_process,"}, "--arch: 'in_process,' has an empty"},
        {"ipctax-bench", {NOWHERE, "--measure", ""}, "--measure: '' has an empty measurement name"},
        {"ipctax-kernel", {" 5"}, "BARS: ' 5' is not a whole number"},
        {"ipctax-kernel", {"100", "+5"}, "COMBOS: '+5' is not a whole number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_refused(cases[i].program, cases[i].args, cases[i].needle);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(help_goes_to_stdout_with_the_exit_statuses,
                                        test_arm_watchdog, test_disarm_watchdog),
        cmocka_unit_test_setup_teardown(version_names_the_release_and_the_commit,
                                        test_arm_watchdog, test_disarm_watchdog),
        cmocka_unit_test_setup_teardown(version_goes_to_stdout, test_arm_watchdog,
                                        test_disarm_watchdog),
        cmocka_unit_test_setup_teardown(an_unknown_option_is_one_line_naming_it,
                                        test_arm_watchdog, test_disarm_watchdog),
        cmocka_unit_test_setup_teardown(a_missing_value_or_operand_is_one_line,
                                        test_arm_watchdog, test_disarm_watchdog),
        cmocka_unit_test_setup_teardown(values_are_read_whole, test_arm_watchdog,
                                        test_disarm_watchdog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
