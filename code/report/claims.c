/*
 * claims.c - the paper's claims as checks over the values of this build.
 *
 * Tangled from paper/88-claims.md. Runs after every other summarizer.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/summarize.h"

enum claim_test { AT_MOST, AT_LEAST, BELOW, ABOVE, BETWEEN };

struct claim {
    const char *id;            /* claim.ID in the prose */
    const char *statement;
    const char *metric;        /* a value key */
    const char *divisor;       /* if set, the claim is on metric / divisor */
    enum claim_test test;
    double low, high;          /* BETWEEN uses both; the others use low */
};

static const struct claim CLAIMS[] = {
    {"resolution", "the in-process sweep timed twice, as two architectures, agrees within 1%",
     "arch.in_process_control.overhead_pct", NULL, BETWEEN, -1, 1},
    {"identical", "every architecture returns the in-process results bit for bit",
     "gate.failed", NULL, AT_MOST, 0, 0},
    {"oracle", "an independent numpy implementation agrees on every combination",
     "oracle.mismatches", NULL, AT_MOST, 0, 0},
    {"tuned_one_core", "the tuned kernel is at least 4x faster than the naive one on one core",
     "arch.in_process_tuned_1core.speedup", NULL, AT_LEAST, 4, 0},
    {"tuned_all_cores", "the tuned kernel on every core is at least 10x faster than the naive one",
     "arch.in_process_tuned.speedup", NULL, AT_LEAST, 10, 0},
    {"batch_within_1pct", "a sweep over a Unix socket, crossing once, is at most 1% slower than "
     "in-process",
     "arch.batch_unix.overhead_pct", NULL, AT_MOST, 1, 0},
    {"one_crossing", "one round trip of the whole series costs under 1% of the sweep",
     "cross.one_crossing_pct", NULL, BELOW, 1, 0},
    {"echo_floor", "the protocol's 8-byte echo is within 1.25x of the raw transport",
     "echo.floor_ratio", NULL, AT_MOST, 1.25, 0},
    {"echo_big", "the protocol's 1.2 MB echo is within 1.5x of the raw transport",
     "echo.big_ratio", NULL, AT_MOST, 1.5, 0},
    {"raw_encode", "encoding the series raw is within 2x of one memcpy",
     "serial.raw.memcpy_ratio", NULL, AT_MOST, 2, 0},
    {"json_tax", "encoding the series as JSON costs at least 100x encoding it raw",
     "serial.json.encode_ratio", NULL, AT_LEAST, 100, 0},
    {"chatty_slower", "crossing once per combination is slower than crossing once per sweep",
     "cross.chatty_over_batch", NULL, ABOVE, 1, 0},
    {"chatty_model", "the echo model predicts chatty's extra cost within a factor of 2",
     "cross.measured_over_predicted", NULL, BETWEEN, 0.5, 2},
    {"spawn_per_sweep", "spawning the engine once per sweep costs under 1% of the sweep",
     "cross.spawn_over_batch_pct", NULL, BELOW, 1, 0},
    {"spawn_per_call", "a spawn per combination costs one spawn per call, within a factor of 2",
     "cross.spawn_call_over_alone", NULL, BETWEEN, 0.5, 2},
    {"spawn_per_call_working", "a spawn per combination costs one spawned one-combination sweep "
     "per call, within a factor of 2", "cross.spawn_call_over_sweep_alone", NULL, BETWEEN, 0.5, 2},
    {"stateful_within_1pct", "loading the series once puts a per-combination API at most 1% "
     "slower than in-process", "arch.stateful_unix.overhead_pct", NULL, AT_MOST, 1, 0},
    {"per_bar_dominated", "an engine consulted per bar spends more time crossing than computing",
     "arch.per_bar_unix.ratio", NULL, ABOVE, 2, 0},
    {"json_chatty", "a chatty JSON service takes more than twice the in-process time",
     "arch.json_chatty_unix.ratio", NULL, ABOVE, 2, 0},
    {"shm_floor", "shared memory's 8-byte round trip is at least 20x below the Unix socket's",
     "echo.unix.min_us.1", "echo.shm_spin.min_us.1", AT_LEAST, 20, 0},
    {"load_none_lost", "under load and faults the engine answers every well-formed request "
     "correctly", "load.lost", NULL, AT_MOST, 0, 0},
    {"valgrind_clean", "valgrind finds no memory error in the engine",
     "valgrind.socket.errors", NULL, AT_MOST, 0, 0},
    {"valgrind_no_leak", "valgrind finds no byte definitely lost by the engine",
     "valgrind.socket.definitely_lost", NULL, AT_MOST, 0, 0},
};
enum { N_CLAIMS = sizeof CLAIMS / sizeof CLAIMS[0] };

enum verdict { HOLDS, FAILS, NOT_MEASURED };

static enum verdict judge(const struct summary *s, const struct claim *c, double *value)
{
    const struct number *m = value_number(s, c->metric);
    const struct number *d = c->divisor ? value_number(s, c->divisor) : NULL;
    if (m == NULL || (c->divisor != NULL && (d == NULL || d->value == 0)))
        return NOT_MEASURED;
    *value = d != NULL ? m->value / d->value : m->value;
    if (isnan(*value))
        return NOT_MEASURED;
    int ok = c->test == AT_MOST ? *value <= c->low
           : c->test == AT_LEAST ? *value >= c->low
           : c->test == BELOW ? *value < c->low
           : c->test == ABOVE ? *value > c->low
           : *value >= c->low && *value <= c->high;
    return ok ? HOLDS : FAILS;
}

static void describe_threshold(const struct claim *c, char *buf, size_t size)
{
    char low[64], high[64];
    int decimals = c->low == floor(c->low) && c->high == floor(c->high) ? 0 : 2;
    format_fixed(low, c->low, decimals);
    format_fixed(high, c->high, decimals);
    switch (c->test) {
    case AT_MOST: snprintf(buf, size, "<= %s", low); break;
    case AT_LEAST: snprintf(buf, size, ">= %s", low); break;
    case BELOW: snprintf(buf, size, "< %s", low); break;
    case ABOVE: snprintf(buf, size, "> %s", low); break;
    case BETWEEN: snprintf(buf, size, "%s to %s", low, high); break;
    }
}

static const char *const VERDICTS[] = {"holds", "does not hold", "not measured"};

void summarize_claims(struct summary *s)
{
    static const char *const header[] = {"Claim", "Value", "Threshold", "Verdict"};
    struct csv_out table;
    char path[4096], key[KEY_SIZE], threshold[160], shown[64];
    int counts[3] = {0, 0, 0};
    snprintf(path, sizeof path, "%s/claims.txt", s->out_dir);
    FILE *text = fopen(path, "w");
    if (open_table(s, "claims", &table, header, 4) != 0 || text == NULL) {
        if (text != NULL)
            fclose(text);
        return;
    }
    fprintf(text, "%-14s %-22s %-12s %s\n", "verdict", "claim", "value", "threshold");
    for (size_t i = 0; i < N_CLAIMS; i++) {
        const struct claim *c = &CLAIMS[i];
        double value = NAN;
        enum verdict v = judge(s, c, &value);
        counts[v]++;
        describe_threshold(c, threshold, sizeof threshold);
        format_fixed(shown, value, fabs(value) >= 100 ? 0 : 2);
        put_text(s, keyf(key, "claim.%s", c->id), VERDICTS[v]);
        put_text(s, keyf(key, "claim.%s.value", c->id), shown);
        put_text(s, keyf(key, "claim.%s.threshold", c->id), threshold);
        csv_out_text(&table, c->statement);
        csv_out_text(&table, shown);
        csv_out_text(&table, threshold);
        csv_out_text(&table, VERDICTS[v]);
        csv_out_end_row(&table);
        fprintf(text, "%-14s %-22s %-12s %s\n", VERDICTS[v], c->id, shown, threshold);
    }
    put_count(s, "claims.held", counts[HOLDS]);
    put_count(s, "claims.failed", counts[FAILS]);
    put_count(s, "claims.unmeasured", counts[NOT_MEASURED]);
    put_count(s, "claims.judged", counts[HOLDS] + counts[FAILS]);
    fprintf(text, "%d of %d judged claims hold; %d not measured\n", counts[HOLDS],
            counts[HOLDS] + counts[FAILS], counts[NOT_MEASURED]);
    fclose(text);
    if (csv_out_close(&table) != 0)
        s->errors++;
}
