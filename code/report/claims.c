/*
 * claims.c - the original's findings as tests on this run's intervals, and
 * the preconditions.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/claims.h"
#include "report/summarize.h"

enum verdict judge_interval(struct estimate e, enum claim_test test, double low, double high)
{
    if (e.n == 0 || isnan(e.low) || isnan(e.high) || !(e.coverage >= 0.95))
        return UNDECIDED;                  /* no interval, or one short of its promise */
    switch (test) {
    case BELOW:
        return e.high < low ? HOLDS : e.low >= low ? FAILS : UNDECIDED;
    case ABOVE:
        return e.low > low ? HOLDS : e.high <= low ? FAILS : UNDECIDED;
    case WITHIN:
        return e.low >= low && e.high <= high ? HOLDS
             : e.high < low || e.low > high   ? FAILS
                                              : UNDECIDED;
    }
    return UNDECIDED;
}

const char *verdict_name(enum verdict v)
{
    return v == HOLDS ? "holds" : v == FAILS ? "fails" : "undecided";
}

struct claim {
    const char *id;            /* claim.ID.* in the prose */
    const char *statement;
    const char *metric;        /* the estimate's key */
    enum claim_test test;
    double low, high;
    int decimals;
    const char *unit;          /* printed after the estimate and the threshold */
};

static const struct claim CLAIMS[] = {
    {"one_crossing", "Crossing once per sweep, in raw bytes, costs under 1% of the sweep",
     "call.batch_unix.share_pct", BELOW, 1, 0, 3, "%"},
    {"one_crossing_python", "... and so it does from a Python client, as in the original",
     "call.python_batch_unix.share_pct", BELOW, 1, 0, 3, "%"},
    {"json_tax", "Encoding the series as JSON costs over 100 times encoding it raw",
     "serial.c.json.over_raw", ABOVE, 100, 0, 0, "x"},
    {"json_tax_python", "... and so it does in Python: json.dumps against tobytes",
     "serial.python.json.over_tobytes", ABOVE, 100, 0, 0, "x"},
    {"chatty_crossing", "A call per combination costs about one crossing of its payload each "
     "(within a factor of 2 of the echo model)", "cross.chatty_over_model", WITHIN, 0.5, 2, 2,
     "x"},
    {"stateful_cheap", "Loading the series once makes a call per combination cost under 1% of "
     "the sweep", "call.stateful_unix.share_pct", BELOW, 1, 0, 3, "%"},
    {"spawn_per_sweep", "A fresh process per sweep costs under 1% of the sweep",
     "call.spawn_stdin.share_pct", BELOW, 1, 0, 3, "%"},
    {"spawn_per_call", "A fresh process per call costs one spawn each (within a factor of 2)",
     "cross.spawn_call_over_bare", WITHIN, 0.5, 2, 2, "x"},
    {"per_bar_dominated", "An engine consulted per bar spends most of its time crossing",
     "call.per_bar_unix.share_pct", ABOVE, 50, 0, 1, "%"},
    {"json_chatty", "A chatty JSON service takes more than twice the in-process time",
     "arch.json_chatty_unix.ratio", ABOVE, 2, 0, 2, "x"},
    {"compute_gap", "A compiled kernel is slower than numba's, as the original found: "
     "numba's time over the C kernel's is below 1",
     "pair.numba_over_in_process", BELOW, 1, 0, 3, "x"},
    {"engine_loses", "The engine behind a socket, called from Python, is slower than numba in "
     "the process, as the original found", "pair.python_batch_over_numba", ABOVE, 1, 0, 3,
     "x"},
    {"tuned_flips", "A tuned kernel behind the socket beats numba in the process (left open)",
     "pair.python_tuned_over_numba", BELOW, 1, 0, 3, "x"},
    {"echo_flat", "Below a few kilobytes a call costs per call, not per byte: 1,000 doubles "
     "take less than twice one", "echo.flat_ratio", BELOW, 2, 0, 2, "x"},
    {"shm_floor", "A shared-memory ring round trip is at least 20 times below the socket's",
     "echo.shm_below_unix", ABOVE, 20, 0, 1, "x"},
};
enum { N_CLAIMS = sizeof CLAIMS / sizeof CLAIMS[0] };

static void describe_threshold(const struct claim *c, char *buf, size_t size)
{
    char low[64], high[64];
    int decimals = c->low == floor(c->low) && c->high == floor(c->high) ? 0 : 1;
    format_fixed(low, c->low, decimals);
    format_fixed(high, c->high, decimals);
    if (c->test == WITHIN)
        snprintf(buf, size, "%s to %s%s", low, high, c->unit);
    else
        snprintf(buf, size, "%s %s%s", c->test == BELOW ? "below" : "above", low, c->unit);
}

struct precondition {
    const char *id;
    const char *statement;
    const char *key;
    const char *must_be;       /* the value's exact text */
};

static const struct precondition PRECONDITIONS[] = {
    {"gate", "every architecture returns the in-process results bit for bit", "gate.failed",
     "0"},
    {"oracle", "an independent numpy implementation agrees on every combination",
     "oracle.mismatches", "0"},
    {"counts", "the kernel executes the same instructions in the process and in the engine",
     "counts.kernel_equal", "yes"},
    {"valgrind_errors", "valgrind finds no memory error in the engine", "valgrind.socket.errors",
     "0"},
    {"valgrind_leaks", "valgrind finds no byte definitely lost by the engine",
     "valgrind.socket.definitely_lost", "0"},
    {"load", "under load and faults the engine answers every well-formed request correctly",
     "load.lost", "0"},
    {"fuzz", "the fuzzers found no crash", "fuzz.crashes", "0"},
};
enum { N_PRECONDITIONS = sizeof PRECONDITIONS / sizeof PRECONDITIONS[0] };

static void judge_claims(struct store *s, FILE *text)
{
    static const char *const header[] = {"Claim", "Estimate", "95% interval", "Threshold",
                                         "Verdict"};
    struct csv_out t;
    char key[KEY_SIZE], threshold[192], est[64], lo[64], hi[64], interval[200];
    int counts[3] = {0, 0, 0};
    if (table_open(s, "claims", &t, header, 5) != 0)
        return;
    for (size_t i = 0; i < N_CLAIMS; i++) {
        const struct claim *c = &CLAIMS[i];
        struct estimate e = store_estimate(s, c->metric);
        enum verdict v = judge_interval(e, c->test, c->low, c->high);
        counts[v]++;
        describe_threshold(c, threshold, sizeof threshold);
        snprintf(interval, sizeof interval, "%s to %s", format_fixed(lo, e.low, c->decimals),
                 format_fixed(hi, e.high, c->decimals));
        format_fixed(est, e.value, c->decimals);
        put_text(s, keyf(key, "claim.%s.verdict", c->id), verdict_name(v));
        put_text(s, keyf(key, "claim.%s.threshold", c->id), threshold);
        csv_out_text(&t, c->statement);
        csv_out_text(&t, est);
        csv_out_text(&t, interval);
        csv_out_text(&t, threshold);
        csv_out_text(&t, verdict_name(v));
        csv_out_end_row(&t);
        fprintf(text, "%-10s %-20s %12s [%s]  %s\n", verdict_name(v), c->id, est, interval,
                threshold);
    }
    table_close(s, &t);
    put_count(s, "claims.count", N_CLAIMS);
    put_count(s, "claims.held", counts[HOLDS]);
    put_count(s, "claims.failed", counts[FAILS]);
    put_count(s, "claims.undecided", counts[UNDECIDED]);
    fprintf(text, "%d of %d claims hold, %d fail, %d %s undecided at this run's resolution\n",
            counts[HOLDS], N_CLAIMS, counts[FAILS], counts[UNDECIDED],
            counts[UNDECIDED] == 1 ? "is" : "are");
}

static void check_preconditions(struct store *s, FILE *text)
{
    static const char *const header[] = {"Precondition", "Value", "Required", "Result"};
    struct csv_out t;
    char key[KEY_SIZE];
    int passed = 0;
    if (table_open(s, "preconditions", &t, header, 4) != 0)
        return;
    for (size_t i = 0; i < N_PRECONDITIONS; i++) {
        const struct precondition *p = &PRECONDITIONS[i];
        const struct value *v = store_get(s, p->key);
        int ok = v != NULL && strcmp(v->text, p->must_be) == 0;
        passed += ok;
        put_text(s, keyf(key, "precondition.%s", p->id), ok ? "passed" : "FAILED");
        csv_out_text(&t, p->statement);
        csv_out_text(&t, v != NULL ? v->text : "not measured");
        csv_out_text(&t, p->must_be);
        csv_out_text(&t, ok ? "passed" : "FAILED");
        csv_out_end_row(&t);
        fprintf(text, "%-10s precondition %s\n", ok ? "passed" : "FAILED", p->id);
    }
    table_close(s, &t);
    put_count(s, "preconditions.count", N_PRECONDITIONS);
    put_count(s, "preconditions.passed", passed);
}

void summarize_claims(const struct run_data *d, struct store *s)
{
    char path[4096];
    (void)d;
    snprintf(path, sizeof path, "%s/claims.txt", s->out_dir);
    FILE *text = fopen(path, "w");
    if (text == NULL) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", path);
        s->errors++;
        return;
    }
    judge_claims(s, text);
    check_preconditions(s, text);
    if (fclose(text) != 0)
        s->errors++;
}
