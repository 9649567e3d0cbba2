/*
 * replay.h - a fuzz target's seeds and kept regression inputs, replayed as
 * a cmocka test program, without libFuzzer.
 *
 * A replay test includes its target (which defines LLVMFuzzerTestOneInput
 * and the variable that names the input being run), tests/fuzz/seeds.c with
 * FUZZ_SEEDS_NO_MAIN, and then this file, having defined:
 *
 *   REPLAY_TARGET           the target's name: its regressions are kept in
 *                           tests/fuzz/regressions/REPLAY_TARGET/
 *   REPLAY_INPUT_NAME       the target's input-name variable
 *   REPLAY_SEEDS            the target's seed generator in seeds.c
 *   REPLAY_MIN_SEEDS        how many seeds there must be at least
 *   REPLAY_MIN_REGRESSIONS  how many kept inputs there must be at least; 0
 *                           for a target that has found no defect yet
 *
 * Nothing here passes by replaying nothing: a regressions folder that cannot
 * be opened, or holds fewer inputs than the target says it keeps, fails and
 * names the folder; so does a target that keeps none when its folder holds
 * inputs that no test would then replay. A failing input prints its name and
 * the property, then aborts.
 */
#include <dirent.h>
#include <errno.h>
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
    if (replayed < REPLAY_MIN_SEEDS)
        fail_msg("%s: %d seeds replayed, fewer than the %d the target has", REPLAY_TARGET,
                 replayed, REPLAY_MIN_SEEDS);
}

/* tests/fuzz/regressions/WHICH under IPCTAX_ROOT (or here). */
static const char *regressions_path(char *dir, size_t size, const char *which)
{
    const char *root = getenv("IPCTAX_ROOT");
    snprintf(dir, size, "%s/tests/fuzz/regressions%s%s", root && *root ? root : ".",
             which[0] ? "/" : "", which);
    return dir;
}

/* The inputs in dir: each regular file that does not start with a dot is
 * replayed (replay 1) or only counted (0). How many; -1 (errno set) if the
 * folder cannot be opened. */
static int each_input(const char *dir, int replay_them)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        n++;
        if (!replay_them)
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
    return n;
}

#if REPLAY_MIN_REGRESSIONS > 0
/* Every input kept in the target's folder of regressions passes. */
static void test_regressions_pass(void **state)
{
    (void)state;
    char dir[4096];
    regressions_path(dir, sizeof dir, REPLAY_TARGET);
    int n = each_input(dir, 1);
    if (n < 0)
        fail_msg("cannot open the regressions folder %s: %s", dir, strerror(errno));
    if (n < REPLAY_MIN_REGRESSIONS)
        fail_msg("the regressions folder %s holds %d input%s to replay; the %s target keeps "
                 "at least %d", dir, n, n == 1 ? "" : "s", REPLAY_TARGET, REPLAY_MIN_REGRESSIONS);
}
#else
/* A target that has found no defect keeps no input; one put in its folder
 * must come with REPLAY_MIN_REGRESSIONS, or no test would replay it. The
 * folder of every target's regressions must be there, so that a wrong root
 * does not pass for an empty folder. */
static void test_regressions_pass(void **state)
{
    (void)state;
    char parent[4096], dir[4096];
    regressions_path(parent, sizeof parent, "");
    if (each_input(parent, 0) < 0)
        fail_msg("cannot open the regressions folder %s: %s", parent, strerror(errno));
    int n = each_input(regressions_path(dir, sizeof dir, REPLAY_TARGET), 0);
    if (n < 0 && errno != ENOENT)
        fail_msg("cannot open %s: %s", dir, strerror(errno));
    if (n > 0)
        fail_msg("%s holds %d input%s, but the %s target keeps none (REPLAY_MIN_REGRESSIONS "
                 "0): say how many it keeps", dir, n, n == 1 ? "" : "s", REPLAY_TARGET);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeds_pass),
        cmocka_unit_test(test_regressions_pass),
    };
    return cmocka_run_group_tests_name(REPLAY_TARGET, tests, NULL, NULL);
}
