/*
 * sum_robust.c - the load test's, valgrind's and the fuzzers' figures.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nettle/sha2.h>

#include "report/csvread.h"
#include "report/summarize.h"

/* <<pass-a-key-value-file-through>>, paper/90-appendix-report.md */
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

/* <<the-load-tests-table>>, paper/90-appendix-report.md */
/* What the load test's clients sent, per kind, and what each must get back. */
static void load_table(const struct run_data *d, struct store *s)
{
    /* <<the-load-tests-kinds-of-request>>, paper/92-appendix-robustness.md */
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

/* <<sum-the-fuzzers-over-their-targets>>, paper/90-appendix-report.md */
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

/* <<digest-the-sources-a-record-checked>>, paper/90-appendix-report.md */
static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_source(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[0] != '.' && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

static int push(char ***paths, size_t *n, size_t *cap, const char *path)
{
    if (*n == *cap) {
        char **more = realloc(*paths, (*cap ? 2 * *cap : 64) * sizeof *more);
        if (more == NULL)
            return -1;
        *paths = more;
        *cap = *cap ? 2 * *cap : 64;
    }
    if (((*paths)[*n] = strdup(path)) == NULL)
        return -1;
    (*n)++;
    return 0;
}

/* Adds the sources directly inside the folder path (or path itself, a
 * file) to *paths; -1 when it cannot be read or memory runs out. */
static int add_sources(const char *path, char ***paths, size_t *n, size_t *cap)
{
    struct stat st;
    char one[4096];
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        const char *base = strrchr(path, '/');
        return is_source(base != NULL ? base + 1 : path) ? push(paths, n, cap, path) : 0;
    }
    DIR *dir = opendir(path);
    if (dir == NULL)
        return -1;
    int bad = 0;
    for (struct dirent *e = readdir(dir); e != NULL && !bad; e = readdir(dir))
        if (is_source(e->d_name)) {
            int len = snprintf(one, sizeof one, "%s/%s", path, e->d_name);
            /* a path cut short would name another file: refused, not read */
            bad = len < 0 || (size_t)len >= sizeof one ? -1 : push(paths, n, cap, one);
        }
    closedir(dir);
    return bad;
}

/* The digest of the sources listed (space-separated) in list, into hex;
 * -1 when one cannot be read. */
static int sources_digest(const char *list, char hex[65])
{
    char **paths = NULL, word[4096], line[4200], sha[65];
    size_t n = 0, cap = 0;
    int bad = 0;
    for (const char *p = list; !bad && *p != '\0';) {
        size_t len = strcspn(p, " ");
        if (len > 0 && len < sizeof word) {
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            bad = add_sources(word, &paths, &n, &cap) != 0;
        }
        p += len + (p[len] == ' ');
    }
    qsort(paths, n, sizeof *paths, by_path);
    struct sha256_ctx all;
    sha256_init(&all);
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes;
        char err[256];
        bad |= file_digest(paths[i], UINT64_MAX, &bytes, sha, err, sizeof err) != 0;
        int len = snprintf(line, sizeof line, "%s  %s\n", sha, paths[i]);
        sha256_update(&all, (size_t)len, (const uint8_t *)line);
        free(paths[i]);
    }
    free(paths);
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&all, sizeof digest, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return bad || n == 0 ? -1 : 0;
}

/* <<is-the-fuzz-record-of-this-code>>, paper/90-appendix-report.md */
static void fuzz_current(const struct run_data *d, struct store *s)
{
    char stale[512] = "", key[KEY_SIZE], hex[65];
    int targets = 0, untied = 0;
    for (size_t i = 0; i < d->fuzz.n; i++) {
        const char *dot = strchr(d->fuzz.rows[i].key, '.');
        if (dot == NULL || strcmp(dot + 1, "seconds") != 0)
            continue;
        int len = (int)(dot - d->fuzz.rows[i].key);
        targets++;
        snprintf(key, sizeof key, "%.*s.sources", len, d->fuzz.rows[i].key);
        const char *list = kv_get(&d->fuzz, key);
        snprintf(key, sizeof key, "%.*s.sources_sha256", len, d->fuzz.rows[i].key);
        const char *then = kv_get(&d->fuzz, key);
        if (list == NULL || then == NULL) {
            untied++;
        } else if (sources_digest(list, hex) != 0 || strcmp(hex, then) != 0) {
            size_t used = strlen(stale);
            snprintf(stale + used, sizeof stale - used, "%s%.*s", used ? ", " : "", len,
                     d->fuzz.rows[i].key);
        }
    }
    if (targets == 0)
        return;
    put_text(s, "fuzz.current", stale[0] != '\0' ? "stale" : untied ? "not tied" : "current");
    put_names(s, "fuzz.stale_targets", stale);
}

/* <<summarize-robustness>>, paper/90-appendix-report.md */
void summarize_robustness(const struct run_data *d, struct store *s)
{
    load_table(d, s);
    fuzz_totals(d, s);
    fuzz_current(d, s);
    pass_through(&d->load, "load", s);
    pass_through(&d->valgrind, "valgrind", s);
    pass_through(&d->fuzz, "fuzz", s);
}
