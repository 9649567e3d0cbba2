/*
 * sum_run.c - the machine, the run's settings, the original's figures, the
 * sweep's fingerprint and the oracle.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/grid.h"
#include "kernel/series.h"
#include "report/summarize.h"
#include "schema/architectures.h"

/* <<summarize-the-run>>, paper/90-appendix-report.md */
static const char *const MACHINE_TEXTS[] = {
    "cpu", "cpu_vendor", "cpu_family", "cpu_model", "cpu_stepping", "cpu_microcode", "simd",
    "simd_enabled", "tuned_path", "kernel", "hypervisor", "cpu_mhz", "governor",
    "clock_source", "tcp_congestion", "compiler",
    "cflags", "libc", "date", "commit", "version.libcsv-dev", "version.libjansson-dev",
    "version.nettle-dev", "version.pandoc", "version.gnuplot-nox", "version.texlive-base",
    "version.python3", "version.python3-numpy", "version.python3-numba", "version.valgrind",
};

/* The original's figure: as written, thousands grouped when it is a number. */
static void put_original(struct store *s, const struct original_row *o)
{
    char key[KEY_SIZE], *end;
    keyf(key, "orig.%s", o->key);
    double x = strtod(o->value, &end);
    if (strcmp(o->unit, "text") == 0 || end == o->value || *end != '\0') {
        put_text(s, key, o->value);
        return;
    }
    const char *dot = strchr(o->value, '.');
    put_number(s, key, x, dot != NULL ? (int)strlen(dot + 1) : 0);
}

/* The hypervisor's signature, "name name" said as "name". */
static void put_hypervisor_name(struct store *s, const char *v)
{
    char once[TEXT_SIZE];
    const char *space = v != NULL ? strchr(v, ' ') : NULL;
    size_t word = space != NULL ? (size_t)(space - v) : 0;
    if (space != NULL && word > 0 && strncmp(v, space + 1, word) == 0 && space[1 + word] == '\0')
        snprintf(once, sizeof once, "%.*s", (int)word, v);
    else
        snprintf(once, sizeof once, "%s", v != NULL ? v : "not recorded");
    put_text(s, "machine.hypervisor_name", once);
}

void summarize_run(const struct run_data *d, struct store *s)
{
    char key[KEY_SIZE];
    for (size_t i = 0; i < sizeof MACHINE_TEXTS / sizeof MACHINE_TEXTS[0]; i++) {
        const char *v = kv_get(&d->machine, MACHINE_TEXTS[i]);
        put_text(s, keyf(key, "machine.%s", MACHINE_TEXTS[i]), v != NULL ? v : "not recorded");
    }
    put_hypervisor_name(s, kv_get(&d->machine, "hypervisor_name"));
    put_count(s, "machine.cores", kv_number(&d->machine, "cores"));
    char text[TEXT_SIZE];
    snprintf(text, sizeof text, "family %s, model %s",
             kv_get(&d->machine, "cpu_family") ? kv_get(&d->machine, "cpu_family") : "?",
             kv_get(&d->machine, "cpu_model") ? kv_get(&d->machine, "cpu_model") : "?");
    put_text(s, "machine.cpu_family_model", text);
    put_count(s, "machine.tuned_vector_bits", kv_number(&d->machine, "tuned_vector_bytes") * 8);
    put_count(s, "machine.cache_l2_kib", kv_number(&d->machine, "cache_l2_kib"));
    put_number(s, "machine.memory_gib", kv_number(&d->machine, "memory_bytes") / 1073741824.0, 1);
    double bars = kv_number(&d->run, "bars"), combos = kv_number(&d->run, "combos");
    put_count(s, "run.bars", bars);
    put_count(s, "run.combos", combos);
    put_count(s, "run.seed", kv_number(&d->run, "seed"));
    put_count(s, "run.rounds", kv_number(&d->run, "rounds"));
    put_count(s, "run.min_rounds", kv_number(&d->run, "min_rounds"));
    double headline = kv_number(&d->run, "headline_units");   /* absent before the plan */
    put_count(s, "run.headline_units", isnan(headline) ? (double)HEADLINE_UNITS : headline);
    put_count(s, "run.max_rounds", kv_number(&d->run, "max_rounds"));
    put_number(s, "run.budget_s", kv_number(&d->run, "budget_s"), 0);
    put_number(s, "run.target_pct", kv_number(&d->run, "target") * 100.0, 1);
    put_number(s, "run.rounds_minutes", kv_number(&d->run, "rounds_seconds") / 60.0, 1);
    const char *why = kv_get(&d->run, "stop_reason");
    put_text(s, "run.stop_reason", why != NULL ? why : "unknown");
    const char *sha = kv_get(&d->run, "series_sha256");
    put_text(s, "series.sha256", sha != NULL ? sha : "unknown");
    put_text(s, "run.reduced", bars != DEFAULT_BARS || combos != DEFAULT_COMBOS ? "yes" : "no");
    put_count(s, "estimator.resamples", BOOTSTRAP_RESAMPLES);
    put_count(s, "estimator.seed", BOOTSTRAP_SEED);
    for (size_t i = 0; i < d->n_original; i++)
        put_original(s, &d->original[i]);
}

/* <<summarize-the-sweep>>, paper/90-appendix-report.md */
static void put_combo(struct store *s, const char *which, const struct sweep_row *r)
{
    char key[KEY_SIZE];
    put_number(s, keyf(key, "sweep.%s.pnl", which), r->pnl, 2);
    put_count(s, keyf(key, "sweep.%s.trades", which), (double)r->trades);
    put_count(s, keyf(key, "sweep.%s.L", which), (double)r->L);
}

static void put_results_digest(const struct run_data *d, struct store *s)
{
    struct sha256_ctx sha;
    uint8_t digest[SHA256_DIGEST_SIZE];
    char line[96], hex[2 * SHA256_DIGEST_SIZE + 1];
    sha256_init(&sha);
    for (size_t i = 0; i < d->n_sweep; i++) {
        int n = snprintf(line, sizeof line, "%ld %a %ld\n", d->sweep[i].combo, d->sweep[i].pnl,
                         d->sweep[i].trades);
        sha256_update(&sha, (size_t)n, (const uint8_t *)line);
    }
    sha256_digest(&sha, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    put_text(s, "sweep.sha256", hex);
}

void summarize_sweep(const struct run_data *d, struct store *s)
{
    if (d->n_sweep == 0) {
        fprintf(stderr, "ipctax-summary: sweep.csv has no rows\n");
        s->errors++;
        return;
    }
    put_combo(s, "first", &d->sweep[0]);
    put_combo(s, "last", &d->sweep[d->n_sweep - 1]);
    put_count(s, "sweep.combos", (double)d->n_sweep);
    put_results_digest(d, s);
    double combos = kv_number(&d->oracle, "combos"), identical = kv_number(&d->oracle, "identical");
    put_count(s, "oracle.combos", combos);
    put_count(s, "oracle.identical", identical);
    put_count(s, "oracle.bars", kv_number(&d->oracle, "bars"));
    put_count(s, "oracle.mismatches", combos - identical);
    const char *numpy = kv_get(&d->oracle, "numpy");
    put_text(s, "oracle.numpy", numpy != NULL ? numpy : "unknown");
}
