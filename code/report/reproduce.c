/*
 * reproduce.c - a run kept as a reproduction; the claims across them.
 *
 * Tangled from paper/96-reproductions.md.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/csvread.h"
#include "report/manifest.h"
#include "report/reproduce.h"
#include "report/summarize.h"
#include "util/error.h"

static const char *kv_or(const struct kv_file *f, const char *key, const char *otherwise)
{
    const char *v = kv_get(f, key);
    return v != NULL && v[0] != '\0' ? v : otherwise;
}

static void reproduction_id(const struct run_data *d, char *id, size_t size)
{
    const char *vendor = kv_or(&d->machine, "cpu_vendor", "cpu");
    double bytes = kv_number(&d->machine, "tuned_vector_bytes");
    const char *simd = bytes >= 64 ? "avx512" : bytes >= 32 ? "avx2" : "sse2";
    char date[16];
    snprintf(date, sizeof date, "%.10s", kv_or(&d->machine, "date", "undated"));
    snprintf(id, size, "%s-f%sm%s-%s-%s",
             strcmp(vendor, "AuthenticAMD") == 0 ? "amd"
             : strcmp(vendor, "GenuineIntel") == 0 ? "intel" : vendor,
             kv_or(&d->machine, "cpu_family", "x"), kv_or(&d->machine, "cpu_model", "x"), simd,
             date);
}

static int write_readme(const char *dir, const char *id, const struct run_data *d,
                        const char *by, const char *conditions, char *err, size_t err_size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "# Reproduction %s\n\n", id);
    fprintf(f, "- machine: %s (%s, family %s, model %s, stepping %s), %s cores\n",
            kv_or(&d->machine, "cpu", "?"), kv_or(&d->machine, "cpu_vendor", "?"),
            kv_or(&d->machine, "cpu_family", "?"), kv_or(&d->machine, "cpu_model", "?"),
            kv_or(&d->machine, "cpu_stepping", "?"), kv_or(&d->machine, "cores", "?"));
    fprintf(f, "- simd: %s\n", kv_or(&d->machine, "simd", "?"));
    fprintf(f, "- kernel: %s\n", kv_or(&d->machine, "kernel", "?"));
    fprintf(f, "- hypervisor: %s\n", kv_or(&d->machine, "hypervisor_name", "?"));
    fprintf(f, "- date: %s\n", kv_or(&d->machine, "date", "?"));
    fprintf(f, "- commit: %s\n", kv_or(&d->machine, "commit", "?"));
    fprintf(f, "- by: %s\n", by != NULL && by[0] != '\0' ? by : "not said");
    fprintf(f, "- conditions: %s\n\n", conditions != NULL && conditions[0] != '\0'
                                            ? conditions : "an ordinary run");
    fprintf(f, "Made by `make paper` and then `make reproduction` in a clone of this\n"
               "repository. The files are those of `data/` for that run, each listed\n"
               "with its SHA-256 in `manifest.csv`; the weave refuses the folder if\n"
               "one of them was changed.\n");
    return fclose(f) == 0 ? 0 : set_error(err, err_size, "cannot write %s", path);
}

int reproduction_add(const char *data, const char *root, const char *id, const char *by,
                     const char *conditions, char *made, size_t made_size, char *err,
                     size_t err_size)
{
    struct run_data d;
    char dir[4096], part[4200], from[4300], to[4300];
    if (run_data_load(&d, data, err, err_size) != 0)
        return -1;
    if (id == NULL || id[0] == '\0')
        reproduction_id(&d, made, made_size);
    else
        snprintf(made, made_size, "%s", id);
    snprintf(dir, sizeof dir, "%s/%s", root, made);
    snprintf(part, sizeof part, "%s.partial", dir);
    mkdir(root, 0777);
    int status = 0;
    struct stat st;
    if (strchr(made, '/') != NULL || made[0] == '.')
        status = set_error(err, err_size, "%s is not a name for a reproduction", made);
    else if (stat(dir, &st) == 0)
        status = set_error(err, err_size, "%s exists already: give another ID= (a "
                            "reproduction is never overwritten)", dir);
    else if (mkdir(part, 0777) != 0)
        status = set_error(err, err_size, "cannot make %s: %s", part, strerror(errno));
    for (size_t i = 0; status == 0 && i <= N_DATA_FILES; i++) {
        const char *name = i < N_DATA_FILES ? DATA_FILES[i].name : "manifest.csv";
        snprintf(from, sizeof from, "%s/%s", data, name);
        snprintf(to, sizeof to, "%s/%s", part, name);
        if (i < N_DATA_FILES && (DATA_FILES[i].flags & ADDED_FILE) && access(from, F_OK) != 0)
            continue;                          /* a run made before the file existed */
        status = copy_file(from, to, err, err_size);
    }
    if (status == 0)
        status = write_readme(part, made, &d, by, conditions, err, err_size);
    if (status == 0 && rename(part, dir) != 0)
        status = set_error(err, err_size, "cannot rename %s to %s: %s", part, dir,
                           strerror(errno));
    run_data_free(&d);
    return status;
}

enum { MAX_REPRODUCTIONS = 64 };

struct reproduction {
    char id[256], label[16];           /* label: R1, R2, ... in the folders' order */
    int ok;                            /* it was read and summarized without an error */
    struct store s;
    char machine[512], simd[256], kernel[256], date[64], conditions[256];
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders of root, sorted by name; how many. */
static size_t folders(const char *root, char *names[MAX_REPRODUCTIONS])
{
    DIR *dir = opendir(root);
    size_t n = 0;
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL && n < MAX_REPRODUCTIONS;) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (e->d_name[0] != '.' && strstr(e->d_name, ".partial") == NULL &&
            stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            names[n++] = strdup(e->d_name);
    }
    if (dir != NULL)
        closedir(dir);
    qsort(names, n, sizeof *names, by_name);
    return n;
}

/* The value of a README's "- key: value" line, or "". */
static void readme_line(const char *dir, const char *key, char *value, size_t size)
{
    char path[4400], line[1024];
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = fopen(path, "r");
    value[0] = '\0';
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "- ", 2) == 0 && strncmp(line + 2, key, strlen(key)) == 0 &&
            line[2 + strlen(key)] == ':') {
            snprintf(value, size, "%.*s", (int)(size - 1), line + 4 + strlen(key));
            value[strcspn(value, "\n")] = '\0';
        }
    if (f != NULL)
        fclose(f);
}

static int summarize_one(const char *out_dir, const char *registry, const char *root,
                         const char *id, struct reproduction *r)
{
    char dir[4096], out[4096], err[1024];
    struct run_data d;
    snprintf(dir, sizeof dir, "%s/%s", root, id);
    snprintf(out, sizeof out, "%s/reproductions", out_dir);
    mkdir(out, 0777);
    snprintf(out, sizeof out, "%s/reproductions/%s", out_dir, id);
    mkdir(out, 0777);
    if (run_data_load(&d, dir, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: reproduction %s: %s\n", id, err);
        return -1;
    }
    snprintf(r->id, sizeof r->id, "%s", id);
    store_init(&r->s, strdup(out));
    r->s.registry = registry;
    summarize_all(&d, &r->s);
    snprintf(r->machine, sizeof r->machine, "%s, family %s model %s, %s cores",
             kv_or(&d.machine, "cpu", "?"), kv_or(&d.machine, "cpu_family", "?"),
             kv_or(&d.machine, "cpu_model", "?"), kv_or(&d.machine, "cores", "?"));
    snprintf(r->simd, sizeof r->simd, "%s", kv_or(&d.machine, "simd_enabled", "?"));
    snprintf(r->kernel, sizeof r->kernel, "%s", kv_or(&d.machine, "kernel", "?"));
    snprintf(r->date, sizeof r->date, "%.10s", kv_or(&d.machine, "date", "?"));
    readme_line(dir, "conditions", r->conditions, sizeof r->conditions);
    run_data_free(&d);
    return r->s.errors > 0 ? -1 : 0;
}

static const char *verdict_of(const struct store *s, const char *claim)
{
    char key[KEY_SIZE];
    const struct value *v = store_get(s, keyf(key, "claim.%s.verdict", claim));
    return v != NULL ? v->text : "n/a";
}

/* The commonest verdict's count among n reproductions. */
static int agreeing(struct reproduction *r, size_t n, const char *claim, const char **most)
{
    int best = 0;
    for (size_t i = 0; i < n; i++) {
        int same = 0;
        for (size_t j = 0; j < n; j++)
            same += strcmp(verdict_of(&r[i].s, claim), verdict_of(&r[j].s, claim)) == 0;
        if (same > best)
            best = same, *most = verdict_of(&r[i].s, claim);
    }
    return best;
}

static void describe_difference(char *list, struct reproduction *r, size_t n,
                                const char *claim, const char *most, int agree)
{
    size_t used = strlen(list);
    used += snprintf(list + used, TEXT_SIZE - used, "%s%s (%s in %d of %zu", used ? "; " : "",
                     claim, most, agree, n);
    for (size_t i = 0; i < n && used < TEXT_SIZE; i++)
        if (strcmp(verdict_of(&r[i].s, claim), most) != 0)
            used += snprintf(list + used, TEXT_SIZE - used, ", %s in %s",
                             verdict_of(&r[i].s, claim), r[i].label);
    if (used < TEXT_SIZE)
        snprintf(list + used, TEXT_SIZE - used, ")");
}

static void claims_table(struct store *s, struct reproduction *r, size_t n)
{
    const char *header[MAX_REPRODUCTIONS + 2] = {"Claim"};
    char key[KEY_SIZE], cell[64], everywhere[TEXT_SIZE] = "", differ[TEXT_SIZE] = "";
    struct csv_out t;
    for (size_t i = 0; i < n; i++)
        header[i + 1] = r[i].label;
    header[n + 1] = "Agree";
    if (table_open(s, "reproductions", &t, header, (int)n + 2) != 0)
        return;
    int unanimous = 0;
    size_t n_claims = 0;
    char (*claims)[KEY_SIZE] = calloc(s->n ? s->n : 1, sizeof *claims);
    for (size_t c = 0; claims != NULL && c < s->n; c++) {
        const char *k = s->values[c].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) == 0 && len > 14 && strcmp(k + len - 8, ".verdict") == 0)
            snprintf(claims[n_claims++], KEY_SIZE, "%.*s", (int)(len - 14), k + 6);
    }
    for (size_t c = 0; c < n_claims; c++) {
        const char *claim = claims[c];
        const char *most = "n/a";
        int agree = agreeing(r, n, claim, &most);
        csv_out_text(&t, claim);
        for (size_t i = 0; i < n; i++)
            csv_out_text(&t, verdict_of(&r[i].s, claim));
        snprintf(cell, sizeof cell, "%d of %zu", agree, n);
        csv_out_text(&t, cell);
        csv_out_end_row(&t);
        int all = agree == (int)n;
        unanimous += all;
        put_text(s, keyf(key, "across.%s.unanimous", claim), all ? "yes" : "no");
        put_text(s, keyf(key, "across.%s.commonest", claim), most);
        if (!all)
            describe_difference(differ, r, n, claim, most, agree);
        else if (strcmp(most, "holds") == 0)
            snprintf(everywhere + strlen(everywhere), TEXT_SIZE - strlen(everywhere), "%s%s",
                     everywhere[0] != '\0' ? ", " : "", claim);
    }
    free(claims);
    table_close(s, &t);
    put_count(s, "across.unanimous", unanimous);
    put_text(s, "across.held_everywhere", everywhere[0] != '\0' ? everywhere : "none");
    put_text(s, "across.differ", differ[0] != '\0' ? differ : "none");
}

static void machines_table(struct store *s, struct reproduction *r, size_t n)
{
    static const char *const header[] = {"", "Reproduction (its folder)", "Processor",
                                         "Vectors enabled", "Kernel", "Conditions"};
    struct csv_out t;
    if (table_open(s, "machines", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *cells[] = {r[i].label, r[i].id, r[i].machine, r[i].simd, r[i].kernel,
                               r[i].conditions};
        for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++)
            csv_out_text(&t, cells[c]);
        csv_out_end_row(&t);
    }
    table_close(s, &t);
}

struct summary_jobs {
    const struct run_data *d;          /* job 0: the run itself, into s */
    struct store *s;
    const char *out_dir, *registry;    /* s's, read before any job starts */
    const char *root;                  /* job i > 0: reproduction names[i - 1] */
    char **names;
    struct reproduction *r;            /* ... into r[i - 1] */
    size_t n_jobs;
    atomic_size_t next;
};

static void *summary_worker(void *arg)
{
    struct summary_jobs *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n_jobs;) {
        if (i == 0)
            summarize_all(j->d, j->s);
        else
            j->r[i - 1].ok = summarize_one(j->out_dir, j->registry, j->root,
                                           j->names[i - 1], &j->r[i - 1]) == 0;
    }
    return NULL;
}

static void run_side_by_side(struct summary_jobs *j)
{
    enum { MAX_THREADS = 16 };
    pthread_t threads[MAX_THREADS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t wanted = cpus > 1 ? (size_t)cpus - 1 : 0, started = 0;
    if (wanted > j->n_jobs - 1)
        wanted = j->n_jobs - 1;
    if (wanted > MAX_THREADS)
        wanted = MAX_THREADS;
    while (started < wanted && pthread_create(&threads[started], NULL, summary_worker, j) == 0)
        started++;
    summary_worker(j);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
}

void summarize_with_reproductions(const struct run_data *d, struct store *s,
                                  const char *root)
{
    char *names[MAX_REPRODUCTIONS];
    size_t n = root != NULL ? folders(root, names) : 0, kept = 0;
    struct reproduction *r = calloc(n ? n : 1, sizeof *r);
    struct summary_jobs j = {d, s, s->out_dir, s->registry, root, names, r,
                             r != NULL ? n + 1 : 1, 0};
    run_side_by_side(&j);
    for (size_t i = 0; i < n; i++) {
        if (r != NULL && r[i].ok) {
            r[kept] = r[i];
            snprintf(r[kept].label, sizeof r[kept].label, "R%zu", kept + 1);
            kept++;
        }
        else
            s->errors++;
        free(names[i]);
    }
    if (root != NULL) {
        put_count(s, "across.count", (double)kept);
        if (r != NULL) {               /* with none kept, the tables are their headers */
            claims_table(s, r, kept);
            machines_table(s, r, kept);
        }
    }
    for (size_t i = 0; r != NULL && i < kept; i++) {
        free((char *)r[i].s.out_dir);
        store_free(&r[i].s);
    }
    free(r);
}
