/*
 * replay.h - a fuzz target's seeds and kept regression inputs, replayed as
 * a cmocka test program, without libFuzzer.
 *
 * A replay test includes its target (which defines LLVMFuzzerTestOneInput
 * and the variable that names the input being run), tests/fuzz/seeds.c with
 * FUZZ_SEEDS_NO_MAIN, and then this file, having defined:
 *
 *   REPLAY_TARGET      the target's name: its regressions are kept in
 *                      tests/fuzz/regressions/REPLAY_TARGET/
 *   REPLAY_INPUT_NAME  the target's input-name variable
 *   REPLAY_SEEDS       the target's seed generator in seeds.c
 *   REPLAY_MIN_SEEDS   how many seeds there must be at least
 *
 * A failing input prints its name and the property, then aborts.
 */
#include <dirent.h>
#include <sys/stat.h>

static int replayed;

static void replay(const char *name, const uint8_t *data, size_t len)
{
    REPLAY_INPUT_NAME = name;
    LLVMFuzzerTestOneInput(data, len);
    REPLAY_INPUT_NAME = "";
    replayed++;
}

static void test_seeds_pass(void **state)
{
    (void)state;
    replayed = 0;
    REPLAY_SEEDS(replay);
    assert_true(replayed >= REPLAY_MIN_SEEDS);
}

/* Every file in the target's folder of regressions (which may be empty:
 * only inputs that once found a defect are kept). */
static void test_regressions_pass(void **state)
{
    (void)state;
    char dir[4096];
    const char *root = getenv("IPCTAX_ROOT");
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/%s", root && *root ? root : ".",
             REPLAY_TARGET);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        FILE *f = fopen(path, "rb");
        uint8_t *data = malloc((size_t)st.st_size + 1);
        if (f == NULL || data == NULL ||
            fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
            fail_msg("cannot read %s", path);
        fclose(f);
        replay(e->d_name, data, (size_t)st.st_size);
        free(data);
    }
    closedir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeds_pass),
        cmocka_unit_test(test_regressions_pass),
    };
    return cmocka_run_group_tests_name(REPLAY_TARGET, tests, NULL, NULL);
}
