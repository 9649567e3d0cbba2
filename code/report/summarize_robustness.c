/*
 * summarize_robustness.c - the fuzzing run, valgrind's totals and the load
 * test's counts, as the paper quotes them.
 *
 * Tangled from paper/86-robustness.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

/* Puts every row of a key,value file under prefix.KEY; returns 0 or -1. */
static int put_key_values(struct summary *s, const char *file, const char *prefix,
                          struct csv_table *t)
{
    char key[KEY_SIZE];
    if (load_data(s, file, t) != 0)
        return -1;
    int k = csv_table_column(t, "key"), v = csv_table_column(t, "value");
    if (k < 0 || v < 0) {
        fprintf(stderr, "ipctax-summary: %s has no key and value columns\n", file);
        s->errors++;
        csv_table_free(t);
        return -1;
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        double x;
        keyf(key, "%s.%s", prefix, csv_table_cell(t, r, k));
        if (csv_table_number(t, r, v, &x) != 0)
            put_text(s, key, csv_table_cell(t, r, v));
        else if (x == floor(x) && fabs(x) < 1e15)
            put_count(s, key, (int64_t)x);
        else
            put_fixed(s, key, x, 1);
    }
    return 0;
}

/* The number in row `name` of a key,value table, or NAN. */
static double key_value(const struct csv_table *t, const char *name)
{
    int k = csv_table_column(t, "key"), v = csv_table_column(t, "value");
    double x;
    for (size_t r = 0; r < t->n_rows; r++)
        if (strcmp(csv_table_cell(t, r, k), name) == 0 && csv_table_number(t, r, v, &x) == 0)
            return x;
    return NAN;
}

static void write_load_table(struct summary *s, const struct csv_table *t)
{
    static const char *const header[] = {"Request or fault", "Count", "What it had to get"};
    char bars[64], combos[64], echo[64], stream[64], kinds[64], lo[64], hi[64], read[64];
    format_fixed(bars, key_value(t, "series_bars"), 0);
    format_fixed(combos, key_value(t, "sweep_combos"), 0);
    format_fixed(echo, key_value(t, "max_echo"), 0);
    format_fixed(stream, key_value(t, "stream_bars"), 0);
    format_fixed(kinds, key_value(t, "bad_kinds"), 0);
    format_fixed(lo, key_value(t, "cut_reply_min_bytes") / 1000.0, 0);
    format_fixed(hi, key_value(t, "cut_reply_max_bytes") / 1000.0, 0);
    format_fixed(read, key_value(t, "cut_reply_read"), 0);
    char label[10][256];
    snprintf(label[0], 256, "echo of 0 to %s doubles", echo);
    snprintf(label[1], 256, "sweep of %s bars, %s combos", bars, combos);
    snprintf(label[2], 256, "load the %s-bar series", bars);
    snprintf(label[3], 256, "sweep one combo on the loaded series");
    snprintf(label[4], 256, "open a stream of %s combos", combos);
    snprintf(label[5], 256, "one bar of the stream");
    snprintf(label[6], 256, "close the stream after %s bars", stream);
    snprintf(label[7], 256, "a bad frame, one of %s kinds", kinds);
    snprintf(label[8], 256, "a sweep request cut off part-way");
    snprintf(label[9], 256, "an echo of %s to %s kB, abandoned after %s bytes", lo, hi, read);
    static const struct { const char *key, *answer; } rows[10] = {
        {"echo", "the same bytes"},
        {"sweep", "sweep_naive's results, bit for bit"},
        {"load", "an empty reply"},
        {"sweep_loaded", "sweep_naive's result, bit for bit"},
        {"stream_open", "an empty reply"},
        {"stream_bar", "one position per combo"},
        {"stream_close", "sweep_naive's results on those bars"},
        {"bad_frames", "an error frame, then the end"},
        {"cut_requests", "nothing: the client is gone"},
        {"cut_replies", "nothing: the client is gone"},
    };
    struct csv_out out;
    char buf[64];
    if (open_table(s, "load", &out, header, 3) != 0)
        return;
    for (size_t i = 0; i < 10; i++) {
        csv_out_text(&out, label[i]);
        csv_out_text(&out, format_fixed(buf, key_value(t, rows[i].key), 0));
        csv_out_text(&out, rows[i].answer);
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

void summarize_robustness(struct summary *s)
{
    struct csv_table t;
    char key[KEY_SIZE];
    if (put_key_values(s, "fuzz.csv", "fuzz", &t) == 0) {
        put_fixed(s, "fuzz.million_executions", key_value(&t, "executions") / 1e6, 1);
        csv_table_free(&t);
    }
    if (put_key_values(s, "valgrind.csv", "valgrind", &t) == 0)
        csv_table_free(&t);
    if (put_key_values(s, "load.csv", "load", &t) == 0) {
        static const char *const kb[] = {"rss_start", "rss_round1", "rss_end", "peak_rss",
                                         "peak_rss_bound", "growth_bound"};
        for (size_t i = 0; i < sizeof kb / sizeof kb[0]; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s_kb", kb[i]);
            put_fixed(s, keyf(key, "load.%s_mib", kb[i]), key_value(&t, name) / 1024.0, 1);
        }
        write_load_table(s, &t);
        csv_table_free(&t);
    }
}
