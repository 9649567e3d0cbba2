/*
 * sum_robust.c - the load test's, valgrind's and the fuzzers' figures.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What the load test's clients sent, per kind, and what each must get back. */
static void load_table(const struct run_data *d, struct store *s)
{
    static const struct {
        const char *key, *what, *answer;
    } KINDS[] = {
        {"echo", "an echo of up to a few thousand doubles", "return them bit for bit"},
        {"sweep", "a sweep of a short series", "return the in-process results, bit for bit"},
        {"load", "a load of that series", "keep it; reply with an empty body"},
        {"sweep_loaded", "a sweep of the loaded series", "return the in-process results"},
        {"stream_open", "a stream's opening", "start it; reply with an empty body"},
        {"stream_bar", "one bar of a stream", "return each combination's position"},
        {"stream_close", "a stream's closing", "return the stream's results, bit for bit"},
        {"bad_frames", "a malformed frame", "send an error frame, close the connection"},
        {"cut_requests", "a request cut short", "free the connection, serve the others"},
        {"cut_replies", "a reply left unread", "drop the connection, serve the others"},
    };
    static const char *const header[] = {"Request", "Sent", "What the engine must do"};
    struct csv_out t;
    if (d->load.n == 0 || table_open(s, "load", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++) {
        csv_out_text(&t, KINDS[i].what);
        cell_number(&t, kv_number(&d->load, KINDS[i].key), 0);
        csv_out_text(&t, KINDS[i].answer);
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}

/* The fuzzers' rows are TARGET.FIELD; the prose of Part I and the
 * precondition read the sums over the targets. */
static void fuzz_totals(const struct run_data *d, struct store *s)
{
    static const char *const summed[] = {"seconds", "executions", "crashes"};
    double total[3] = {0, 0, 0};
    int targets = 0;
    for (size_t i = 0; i < d->fuzz.n; i++) {
        const char *field = strchr(d->fuzz.rows[i].key, '.');
        if (field == NULL)
            continue;
        targets += strcmp(field + 1, "seconds") == 0;
        for (size_t k = 0; k < 3; k++)
            if (strcmp(field + 1, summed[k]) == 0)
                total[k] += strtod(d->fuzz.rows[i].value, NULL);
    }
    if (targets == 0)
        return;
    put_count(s, "fuzz.targets", targets);
    put_count(s, "fuzz.seconds", total[0]);
    put_count(s, "fuzz.executions", total[1]);
    put_count(s, "fuzz.crashes", total[2]);
}

void summarize_robustness(const struct run_data *d, struct store *s)
{
    load_table(d, s);
    fuzz_totals(d, s);
    pass_through(&d->load, "load", s);
    pass_through(&d->valgrind, "valgrind", s);
    pass_through(&d->fuzz, "fuzz", s);
}
