/*
 * summarize_serialization.c - medians per format and operation, ratios to
 * the raw codec, bytes on the wire, and the chatty-JSON arithmetic.
 *
 * Tangled from paper/70-serialization.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/grid.h"
#include "report/summarize.h"
#include "wire/timing.h"

enum { RAW_ENC, RAW_DEC, COPY, JSON_ENC, JSON_DEC, TEXT_ENC, TEXT_DEC, N_CELLS };

static const char *const CELL_NAMES[N_CELLS][2] = {
    {"raw", "encode"}, {"raw", "decode"}, {"memcpy", "copy"}, {"json", "encode"},
    {"json", "decode"}, {"text", "encode"}, {"text", "decode"},
};

struct serial_cell {
    struct sample_stats us;
    double bytes;
};

/* Fills every cell from serialization.csv; returns -1 if one has no samples. */
static int collect_cells(struct summary *s, const struct csv_table *t, struct serial_cell *cells)
{
    int fc = csv_table_column(t, "format"), oc = csv_table_column(t, "operation");
    int sc = csv_table_column(t, "seconds"), bc = csv_table_column(t, "bytes");
    double *samples = malloc((t->n_rows + 1) * sizeof *samples);
    int status = fc < 0 || oc < 0 || sc < 0 || bc < 0 || samples == NULL ? -1 : 0;
    for (int c = 0; status == 0 && c < N_CELLS; c++) {
        size_t n = 0;
        cells[c].bytes = 0;
        for (size_t r = 0; r < t->n_rows; r++) {
            if (strcmp(csv_table_cell(t, r, fc), CELL_NAMES[c][0]) != 0 ||
                strcmp(csv_table_cell(t, r, oc), CELL_NAMES[c][1]) != 0 ||
                csv_table_number(t, r, sc, &samples[n]) != 0)
                continue;
            samples[n++] *= 1e6;
            csv_table_number(t, r, bc, &cells[c].bytes);
        }
        cells[c].us = sample_stats(samples, n);
        if (n == 0)
            status = -1;
    }
    free(samples);
    if (status != 0) {
        fprintf(stderr, "ipctax-summary: serialization.csv lacks a column or a format\n");
        s->errors++;
    }
    return status;
}

/* The run's combination count, or the study's if machine.csv lacks it. */
static double run_combos(struct summary *s)
{
    struct csv_table t;
    double combos = DEFAULT_COMBOS;
    if (load_data(s, "machine.csv", &t) != 0)
        return combos;
    for (size_t r = 0; t.n_cols >= 2 && r < t.n_rows; r++)
        if (strcmp(csv_table_cell(&t, r, 0), "combos") == 0)
            csv_table_number(&t, r, 1, &combos);
    csv_table_free(&t);
    return combos;
}

/* Median seconds of the in-process sweep, or 0 if it was not run. */
static double in_process_median(struct summary *s)
{
    struct csv_table t;
    if (load_data(s, "architectures.csv", &t) != 0)
        return 0.0;
    int ac = csv_table_column(&t, "architecture"), sc = csv_table_column(&t, "seconds");
    double *seconds = malloc((t.n_rows + 1) * sizeof *seconds);
    size_t n = 0;
    for (size_t r = 0; seconds != NULL && ac >= 0 && sc >= 0 && r < t.n_rows; r++)
        if (strcmp(csv_table_cell(&t, r, ac), "in_process") == 0 &&
            csv_table_number(&t, r, sc, &seconds[n]) == 0)
            n++;
    double median = n > 0 ? sample_stats(seconds, n).p50 : 0.0;
    free(seconds);
    csv_table_free(&t);
    return median;
}

static double median_us(const struct serial_cell *c, int which)
{
    return c[which].us.p50;
}

static void put_ratio(struct summary *s, const char *key, double num, double den, int decimals)
{
    if (den > 0)
        put_fixed(s, key, num / den, decimals);
}

static void put_serialization_values(struct summary *s, const struct serial_cell *c)
{
    char key[KEY_SIZE];
    for (int i = 0; i < N_CELLS; i++) {
        if (i == COPY)
            keyf(key, "serial.%s_us", CELL_NAMES[i][0]);
        else
            keyf(key, "serial.%s.%s_us", CELL_NAMES[i][0], CELL_NAMES[i][1]);
        put_fixed(s, key, median_us(c, i), 1);
    }
    for (int i = JSON_ENC; i <= TEXT_DEC; i++)        /* tens of ms read better in ms */
        put_fixed(s, keyf(key, "serial.%s.%s_ms", CELL_NAMES[i][0], CELL_NAMES[i][1]),
                  median_us(c, i) / 1e3, 1);
    put_count(s, "serial.doubles", (int64_t)(c[COPY].bytes / 8));
    put_count(s, "serial.reps.fast", (int64_t)c[RAW_ENC].us.n);
    put_count(s, "serial.reps.slow", (int64_t)c[JSON_ENC].us.n);
    put_count(s, "serial.raw.bytes", (int64_t)c[RAW_ENC].bytes);
    put_count(s, "serial.memcpy.bytes", (int64_t)c[COPY].bytes);
    put_count(s, "serial.json.bytes", (int64_t)c[JSON_ENC].bytes);
    put_count(s, "serial.text.bytes", (int64_t)c[TEXT_ENC].bytes);
    put_ratio(s, "serial.json.bytes_ratio", c[JSON_ENC].bytes, c[RAW_ENC].bytes, 2);
    put_ratio(s, "serial.json.bytes_per_double", c[JSON_ENC].bytes, c[COPY].bytes / 8, 1);
    put_ratio(s, "serial.text.bytes_per_double", c[TEXT_ENC].bytes, c[COPY].bytes / 8, 1);
    /* bytes per microsecond is megabytes per second; / 1e3 gives GB/s */
    put_ratio(s, "serial.memcpy_gbps", c[COPY].bytes / 1e3, median_us(c, COPY), 2);
    put_ratio(s, "serial.raw.encode_gbps", c[RAW_ENC].bytes / 1e3, median_us(c, RAW_ENC), 2);

    double goal = median_us(c, RAW_ENC) / median_us(c, COPY);
    put_ratio(s, "serial.raw.memcpy_ratio", median_us(c, RAW_ENC), median_us(c, COPY), 2);
    put_ratio(s, "serial.raw.decode_memcpy_ratio", median_us(c, RAW_DEC), median_us(c, COPY), 2);
    put_text(s, "serial.goal", goal <= 2.0 ? "met" : "not met");

    put_ratio(s, "serial.json.encode_ratio", median_us(c, JSON_ENC), median_us(c, RAW_ENC), 0);
    put_ratio(s, "serial.json.decode_ratio", median_us(c, JSON_DEC), median_us(c, RAW_DEC), 0);
    put_ratio(s, "serial.text.encode_ratio", median_us(c, TEXT_ENC), median_us(c, RAW_ENC), 0);
    put_ratio(s, "serial.text.decode_ratio", median_us(c, TEXT_DEC), median_us(c, RAW_DEC), 0);
    put_ratio(s, "serial.json.decode_over_text", median_us(c, JSON_DEC), median_us(c, TEXT_DEC),
              1);
    put_ratio(s, "serial.text.json_share_pct", 100 * median_us(c, TEXT_ENC),
              median_us(c, JSON_ENC), 0);
}
static void put_chatty_values(struct summary *s, const struct serial_cell *c, double combos,
                              double sweep_s)
{
    double json_encode_s = combos * median_us(c, JSON_ENC) / 1e6;
    double json_both_s = combos * (median_us(c, JSON_ENC) + median_us(c, JSON_DEC)) / 1e6;
    double raw_both_ms = combos * (median_us(c, RAW_ENC) + median_us(c, RAW_DEC)) / 1e3;
    put_fixed(s, "serial.chatty.json_encode_s", json_encode_s, 2);
    put_fixed(s, "serial.chatty.json_both_s", json_both_s, 2);
    put_fixed(s, "serial.chatty.raw_both_ms", raw_both_ms, 1);
    put_ratio(s, "serial.chatty.job_ratio", json_encode_s, sweep_s, 2);
    if (sweep_s > 0)
        put_text(s, "serial.chatty.text_vs_compute", json_encode_s > sweep_s
                 ? "more time encoding its text than computing, as the original's did"
                 : "less time encoding its text than computing, unlike the original's");
}

static void write_serialization_table(struct summary *s, const struct serial_cell *c)
{
    static const char *const header[] = {"Format", "Encode (µs)", "Decode (µs)",
        "Encode ÷ raw", "Bytes on the wire", "Original encode (µs)"};
    static const struct { const char *label; int enc, dec; const char *original; } rows[] = {
        {"raw binary (protocol codec)", RAW_ENC, RAW_DEC, "49.1"},
        {"one memcpy (yardstick)", COPY, -1, ""},
        {"JSON (jansson)", JSON_ENC, JSON_DEC, "66,243 (1,348× raw)"},
        {"decimal text (%.17g)", TEXT_ENC, TEXT_DEC, ""},
        {"pickle", -1, -1, "slightly under 49.1"},
    };
    struct csv_out out;
    char buf[64];
    if (open_table(s, "serialization", &out, header, 6) != 0)
        return;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int e = rows[r].enc, d = rows[r].dec;
        csv_out_text(&out, rows[r].label);
        csv_out_text(&out, e >= 0 ? format_fixed(buf, median_us(c, e), 1) : "");
        csv_out_text(&out, d >= 0 ? format_fixed(buf, median_us(c, d), 1) : "");
        csv_out_text(&out, e >= 0 ? format_fixed(buf, median_us(c, e) / median_us(c, RAW_ENC),
                                                 e == RAW_ENC || e == COPY ? 2 : 0) : "");
        csv_out_text(&out, e >= 0 ? format_fixed(buf, c[e].bytes, 0) : "");
        csv_out_text(&out, rows[r].original);
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void write_serialization_derived(struct summary *s, const struct serial_cell *c)
{
    static const char *const header[] = {"format", "label", "encode_us", "decode_us"};
    static const struct { const char *format, *label; int enc, dec; } rows[] = {
        {"raw", "raw binary", RAW_ENC, RAW_DEC},
        {"memcpy", "memcpy", COPY, -1},
        {"json", "JSON (jansson)", JSON_ENC, JSON_DEC},
        {"text", "text (%.17g)", TEXT_ENC, TEXT_DEC},
    };
    struct csv_out out;
    if (open_derived(s, "serialization_stats.csv", &out, header, 4) != 0)
        return;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        csv_out_text(&out, rows[r].format);
        csv_out_text(&out, rows[r].label);
        csv_out_double(&out, median_us(c, rows[r].enc));
        if (rows[r].dec >= 0)
            csv_out_double(&out, median_us(c, rows[r].dec));
        else
            csv_out_text(&out, "-");
        csv_out_end_row(&out);
    }
    if (csv_out_close(&out) != 0)
        s->errors++;
}

static void put_serialization_settings(struct summary *s)
{
    struct csv_table t;
    if (load_data(s, "serialization_settings.csv", &t) != 0)
        return;
    for (size_t r = 0; t.n_cols >= 2 && r < t.n_rows; r++)
        if (strcmp(csv_table_cell(&t, r, 0), "jansson") == 0)
            put_text(s, "serial.jansson", csv_table_cell(&t, r, 1));
    csv_table_free(&t);
}

void summarize_serialization(struct summary *s)
{
    struct csv_table t;
    struct serial_cell cells[N_CELLS];
    if (load_data(s, "serialization.csv", &t) != 0)
        return;
    if (collect_cells(s, &t, cells) == 0) {
        put_serialization_values(s, cells);
        put_chatty_values(s, cells, run_combos(s), in_process_median(s));
        write_serialization_table(s, cells);
        write_serialization_derived(s, cells);
    }
    put_serialization_settings(s);
    csv_table_free(&t);
}
