/*
 * schema.c - the descriptions of the files of data/.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <string.h>

#include "schema/architectures.h"         /* MAX_UNIT_SLOTS, the slot's bound */
#include "schema/domains.h"
#include "schema/schema.h"

/* <<the-columns-described>>, paper/90-appendix-report.md */
#define DESCRIBE(row, name, type, range, unit, description) \
    {#name, COLUMN_##type, range, unit, description, COLUMN_FLAGS_##type},
#define COLUMNS(list) {list(DESCRIBE, unused)}
#define ROWS(member, row, prefix, ...) static const struct data_column prefix[] = COLUMNS(prefix##_COLUMNS);
#include "schema/files.def"
static const struct data_column MANIFEST[] = COLUMNS(MANIFEST_COLUMNS);
const struct data_column KEY_VALUE_COLUMNS[KV_N] = COLUMNS(KV_COLUMNS);
#define KEY(name, type, range, unit, description) {name, COLUMN_##type, range, unit, description, 0}
#define N(columns) (sizeof columns / sizeof columns[0])

/* <<keys-of-the-key-value-files>>, paper/90-appendix-report.md */
static const struct data_column RUN_KEYS[] = {
    KEY("bars", INT, RANGE(1, MAX_BARS), "bars", "bars in the series"),
    KEY("combos", INT, RANGE(1, MAX_COMBOS), "", "parameter combinations"),
    KEY("seed", INT, RANGE(0, 4294967295.0), "", "the seed of the series and of every order"),
    KEY("series_sha256", TEXT, NAME_OF(511), "", "SHA-256 of the series as little-endian doubles"),
    KEY("scale", NUM, RANGE(0.01, MAX_SCALE), "", "the repetition multiplier (1 = the paper's)"),
    KEY("budget_s", NUM, RANGE(1, 86400), "s", "the rounds' time budget"),
    KEY("target", NUM, RANGE(0, 1), "", "the A/A control's target half-width, a fraction"),
    KEY("min_rounds", INT, ROUND, "", "rounds at least"),
    KEY("max_rounds", INT, ROUND, "", "rounds at most"),
    KEY("rounds", INT, ROUND, "", "rounds made"),
    KEY("stop_reason", TEXT, NAME_OF(511), "", "resolved, budget or max_rounds"),
    KEY("rounds_seconds", NUM, SECONDS, "s", "time spent in rounds"),
};
static const struct data_column MACHINE_KEYS[] = {
    KEY("commit", TEXT, NAME_OF(511), "", "the commit the harness was built from"),
    KEY("date_epoch", INT, RANGE(0, MAX_EPOCH), "s", "when it was measured, since 1970"),
};
static const struct data_column ORACLE_KEYS[] = {
    KEY("bars", INT, RANGE(1, MAX_BARS), "bars", "bars the oracle swept"),
    KEY("combos", INT, RANGE(1, MAX_COMBOS), "", "combinations it compared"),
    KEY("identical", INT, RANGE(0, MAX_COMBOS), "", "of them identical to sweep.csv"),
    KEY("numpy", TEXT, NAME_OF(511), "", "numpy's version"),
};

/* <<keys-of-the-measurements>>, paper/65-echo.md */
static const struct data_column ECHO_SETTING_KEYS[] = {
    KEY("warmup", INT, COUNT, "", "untimed round trips per mode per block"),
    KEY("passes", INT, ORDINAL, "", "passes over the blocks"),
    KEY("reps_small", INT, ORDINAL, "", "timed round trips per block, small payloads"),
    KEY("reps_large", INT, ORDINAL, "", "timed round trips per block, large payloads"),
    KEY("large_from", INT, COUNT, "doubles", "where a payload is large"),
    KEY("sizes", INT, ORDINAL, "", "payload sizes"),
};
/* <<keys-of-the-measurements>>, paper/77-roofline.md */
static const struct data_column ROOF_SETTING_KEYS[] = {
    KEY("chains", INT, ORDINAL, "", "independent chains of the peak loop"),
    KEY("passes", INT, ORDINAL, "", "passes over the kinds"),
};

/* <<the-files-of-a-run>>, paper/90-appendix-report.md */
#define ROWS(member, row, prefix, name, key, flags, description) \
    {name, key, prefix, N(prefix), flags, description},
#define KEYS(member, name, keys, flags, description) \
    {name, "key", keys, N(keys), KEY_VALUE | (flags), description},
#define ANY_KEYS(member, name, flags, description) \
    {name, "key", NULL, 0, KEY_VALUE | (flags), description},
const struct data_file DATA_FILES[] = {
#include "schema/files.def"
};
const size_t N_DATA_FILES = N(DATA_FILES);
const struct data_file MANIFEST_FILE = {"manifest.csv", "file", MANIFEST, N(MANIFEST), 0,
                                        "the run's own list of its files"};

const struct data_file *data_file_named(const char *name)
{
    for (size_t i = 0; i < N_DATA_FILES; i++)
        if (strcmp(DATA_FILES[i].name, name) == 0)
            return &DATA_FILES[i];
    return NULL;
}

const struct data_column *data_file_header(const struct data_file *f, size_t *n_columns)
{
    *n_columns = f->flags & KEY_VALUE ? KV_N : f->n_columns;
    return f->flags & KEY_VALUE ? KEY_VALUE_COLUMNS : f->columns;
}

/* <<the-repetitions>>, paper/90-appendix-report.md */
const struct repetition REPETITIONS[N_REPEATED] = {
    [REPEAT_COLD] = {"cold_reps", 20, 6, 20},
    [REPEAT_SPAWN] = {"spawn_reps", 40, 10, 80},    /* four samples a repetition since */
    [REPEAT_SERIAL] = {"serialization_reps", 30, 5, 30},
    [REPEAT_LAYOUT] = {"layout_passes", 3, 2, 3},
};

static int scaled_count(int count, int floor, double scale)
{
    double n = count * scale;
    return n < floor ? floor : (int)n;
}

int repetitions_at(enum repeated which, double scale)
{
    return scaled_count(REPETITIONS[which].count, REPETITIONS[which].floor, scale);
}

int repetitions_before(enum repeated which, double scale)
{
    return scaled_count(REPETITIONS[which].before, REPETITIONS[which].floor, scale);
}
