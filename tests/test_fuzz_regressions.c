/*
 * test_fuzz_regressions.c - replays the fuzzer's seeds and every input kept
 * in tests/fuzz/regressions/ through the fuzz target, compiled here as
 * ordinary C without libFuzzer. Each regression input once broke a property
 * of tests/fuzz/fuzz_request.c (see tests/fuzz/regressions/README.md); each
 * must now pass. A failure prints the input's name and the property, then
 * aborts the test program.
 *
 * `make check-sanitize` runs this same test built with AddressSanitizer and
 * UndefinedBehaviorSanitizer, so the replay is also a sanitized run of every
 * kept input on machines without clang.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "testutil.h"

#define FUZZ_SEEDS_NO_MAIN
#include "fuzz/fuzz_request.c"
#include "fuzz/seeds.c"

static int replayed;

static void replay(const char *name, const uint8_t *data, size_t len)
{
    fuzz_input_name = name;
    LLVMFuzzerTestOneInput(data, len);
    fuzz_input_name = "";
    replayed++;
}

static void test_seeds_pass(void **state)
{
    (void)state;
    replayed = 0;
    fuzz_seeds(replay);
    assert_true(replayed >= 20);
}

static void test_regressions_pass(void **state)
{
    (void)state;
    char dir[4096];
    const char *root = getenv("IPCTAX_ROOT");
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions", root && *root ? root : ".");
    DIR *d = opendir(dir);
    if (d == NULL)
        fail_msg("cannot open %s", dir);
    int inputs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || strstr(e->d_name, ".md") != NULL ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        FILE *f = fopen(path, "rb");
        uint8_t *data = malloc((size_t)st.st_size + 1);
        if (f == NULL || data == NULL ||
            fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
            fail_msg("cannot read %s", path);
        fclose(f);
        replay(e->d_name, data, (size_t)st.st_size);
        free(data);
        inputs++;
    }
    closedir(d);
    assert_true(inputs > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeds_pass),
        cmocka_unit_test(test_regressions_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
