/*
 * testvalues.h - what the tests of the summary share: reading values.csv
 * back, and the layout test's cells.
 */
#ifndef IPCTAX_TESTVALUES_H
#define IPCTAX_TESTVALUES_H

#include <string.h>

#include "testutil.h"
#include "report/csvread.h"

/* The text values.csv (loaded into t) holds for key, or NULL. */
static inline const char *values_text(const struct csv_table *t, const char *key)
{
    int k = csv_table_column(t, "key"), v = csv_table_column(t, "value");
    for (size_t r = 0; k >= 0 && v >= 0 && r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), key) == 0)
            return csv_table_cell(t, r, v);
    return NULL;
}

/* values.csv's text for key is `expected`, or the test fails naming both. */
static inline void expect_values_text(const struct csv_table *t, const char *key,
                                      const char *expected)
{
    const char *got = values_text(t, key);
    if (got == NULL)
        fail_msg("values.csv has no %s (expected %s)", key, expected);
    if (strcmp(got, expected) != 0)
        fail_msg("values.csv: %s is \"%s\"; expected \"%s\"", key, got, expected);
}

/* A layout test's two cells (arrays at offsets 0 and 576) in each of 8
 * passes: in logs, a pass's offset plus or minus half the cells' difference
 * in that pass, one that keeps its sign (an effect of about 5%) or one that
 * changes it (none). */
enum { LAYOUT_PASSES = 8 };
static const double LAYOUT_PASS[LAYOUT_PASSES] = {0, 0.02, -0.01, 0.03, -0.02, 0.01, 0, -0.03};
static const double LAYOUT_EFFECT_GAP[LAYOUT_PASSES] = {0.050, 0.060, 0.040, 0.055,
                                                        0.045, 0.065, 0.035, 0.050};
static const double LAYOUT_NO_GAP[LAYOUT_PASSES] = {0.0312, -0.0221, 0.0137, -0.0268,
                                                    0.0183, -0.0094, 0.0245, -0.0171};
#define LAYOUT_BASE_S 0.3

#endif
