/*
 * sum_robust.c - the load test's, valgrind's and the fuzzers' figures.
 *
 * Tangled from paper/91-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/summarize.h"

static void pass_through(const struct kv_file *f, const char *prefix, struct store *s)
{
    char key[KEY_SIZE], *end;
    for (size_t i = 0; i < f->n; i++) {
        double x = strtod(f->rows[i].value, &end);
        keyf(key, "%s.%s", prefix, f->rows[i].key);
        if (end != f->rows[i].value && *end == '\0' && x == floor(x) && fabs(x) < 1e15)
            put_count(s, key, x);
        else
            put_text(s, key, f->rows[i].value);
    }
}

void summarize_robustness(const struct run_data *d, struct store *s)
{
    pass_through(&d->load, "load", s);
    pass_through(&d->valgrind, "valgrind", s);
    pass_through(&d->fuzz, "fuzz", s);
}
