/*
 * reproduce.c - a run kept as a reproduction; the claims across them.
 *
 * Tangled from paper/96-reproductions.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "kernel/grid.h"
#include "kernel/series.h"
#include "report/bundle.h"
#include "report/claims.h"
#include "report/csvread.h"
#include "report/manifest.h"
#include "report/plan.h"
#include "report/reproduce.h"
#include "report/summarize.h"
#include "schema/architectures.h"
#include "util/error.h"
#include "util/text.h"

/* <<name-a-reproduction>>, paper/96-reproductions.md */
static const char *kv_or(const struct kv_file *f, const char *key, const char *otherwise)
{
    const char *v = kv_get(f, key);
    return v != NULL && v[0] != '\0' ? v : otherwise;
}

int reproduction_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > MAX_ID_BYTES || !((name[0] >= 'a' && name[0] <= 'z') ||
                                        (name[0] >= 'A' && name[0] <= 'Z') ||
                                        (name[0] >= '0' && name[0] <= '9')))
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

/* A machine's word as a part of an ID: lower-case letters and digits, a
 * run of anything else one '-', into part (at most 16 bytes); `otherwise`
 * when it says nothing. */
static void id_part(const char *word, const char *otherwise, char *part, size_t size)
{
    size_t n = 0;
    if (strcmp(word, "not visible") == 0)
        word = "";
    for (const char *p = word; *p != '\0' && n + 1 < size && n < 16; p++) {
        char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            part[n++] = c;
        else if (n > 0 && part[n - 1] != '-')
            part[n++] = '-';
    }
    while (n > 0 && part[n - 1] == '-')
        n--;
    part[n] = '\0';
    if (n == 0)
        snprintf(part, size, "%s", otherwise);
}

static void reproduction_id(const struct run_data *d, char *id, size_t size)
{
    const char *vendor = kv_or(&d->machine, "cpu_vendor", "");
    double bytes = kv_number(&d->machine, "tuned_vector_bytes");
    const char *simd = bytes >= 64 ? "avx512" : bytes >= 32 ? "avx2" : "sse2";
    char who[32], family[32], model[32], date[32];
    id_part(strcmp(vendor, "AuthenticAMD") == 0 ? "amd"
            : strcmp(vendor, "GenuineIntel") == 0 ? "intel" : vendor, "cpu", who, sizeof who);
    id_part(kv_or(&d->machine, "cpu_family", ""), "x", family, sizeof family);
    id_part(kv_or(&d->machine, "cpu_model", ""), "x", model, sizeof model);
    id_part(kv_or(&d->machine, "date", ""), "undated", date, sizeof date);
    snprintf(id, size, "%s-f%sm%s-%s-%.10s", who, family, model, simd, date);
}

/* <<a-reduced-run>>, paper/96-reproductions.md */
void reproduction_reduced_because(const struct run_data *d, char *why, size_t size)
{
    double bars = kv_number(&d->run, "bars"), combos = kv_number(&d->run, "combos");
    double scale = kv_number(&d->run, "scale"), rounds = kv_number(&d->run, "rounds");
    double least = kv_number(&d->run, "min_rounds");
    size_t failed = 0, used = 0;
    for (size_t i = 0; i < d->n_runs; i++)
        failed += strcmp(d->runs[i].status, "ok") != 0;
    why[0] = '\0';
    if (bars != DEFAULT_BARS || combos != DEFAULT_COMBOS)
        used += (size_t)snprintf(why + used, size - used, "%s%.0f bars and %.0f combinations",
                                 used ? "; " : "", bars, combos);
    if (!(scale >= 1) && used < size)
        used += (size_t)snprintf(why + used, size - used, "%sscale %g", used ? "; " : "", scale);
    if (rounds < least && used < size)
        used += (size_t)snprintf(why + used, size - used, "%s%.0f rounds of at least %.0f",
                                 used ? "; " : "", rounds, least);
    if (failed > 0 && used < size)
        snprintf(why + used, size - used, "%s%zu timed runs failed", used ? "; " : "", failed);
}

/* <<write-a-reproductions-readme>>, paper/96-reproductions.md */
static int write_readme(const char *dir, const char *id, const struct run_data *d,
                        const char *by, const char *conditions, char *err, size_t err_size)
{
    char path[4400], why[256], who[1024] = "not said", how[4096] = "an ordinary run";
    if (by != NULL && by[0] != '\0')
        text_clean(who, sizeof who, by, strlen(by));
    if (conditions != NULL && conditions[0] != '\0')
        text_clean(how, sizeof how, conditions, strlen(conditions));
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    reproduction_reduced_because(d, why, sizeof why);
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
    fprintf(f, "- run: %s%s\n", why[0] != '\0' ? "reduced, " : "full", why);
    fprintf(f, "- by: %s\n", who);
    fprintf(f, "- conditions: %s\n\n", how);
    fprintf(f, "Made by `make paper` and then `make reproduction` in a clone of this\n"
               "repository. The files are those of `data/` for that run, compressed,\n"
               "each listed with its length and SHA-256 (of its content) in\n"
               "`manifest.csv`, and so is this file; the weave refuses the folder if\n"
               "one of them was changed. `gzip -dc FILE.csv.gz` prints a file.\n");
    return fclose(f) == 0 ? 0 : set_error(err, err_size, "cannot write %s", path);
}

/* <<keep-a-file-compressed>>, paper/96-reproductions.md */
/* Writes the content of `from` (plain or compressed) to `to`, compressed. */
static int keep_compressed(const char *from, const char *to, char *err, size_t err_size)
{
    char buf[65536];
    gzFile in = gzopen(from, "rb"), out = in != NULL ? gzopen(to, "wb9") : NULL;
    int n = 0, status = in == NULL || out == NULL ? -1 : 0;
    while (status == 0 && (n = gzread(in, buf, sizeof buf)) > 0)
        status = gzwrite(out, buf, (unsigned)n) == n ? 0 : -1;
    if (n < 0)
        status = -1;
    if (out != NULL && gzclose(out) != Z_OK)
        status = -1;
    if (in != NULL)
        gzclose(in);
    return status == 0 ? 0 : set_error(err, err_size, "cannot keep %s as %s: %s", from, to,
                                       errno != 0 ? strerror(errno) : "zlib failed");
}

/* <<a-folder-being-made>>, paper/96-reproductions.md */
/* Removes dir and the files in it (a folder being made holds nothing else). */
static void remove_made(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

/* Makes root/.ID.WHAT, a fresh hidden folder, into part; 0, or -1 with err. */
static int begin_folder(const char *root, const char *id, const char *what, char *part,
                        size_t size, char *err, size_t err_size)
{
    snprintf(part, size, "%s/.%s.%s", root, id, what);
    mkdir(root, 0777);
    remove_made(part);
    if (mkdir(part, 0777) != 0)
        return set_error(err, err_size, "cannot make %s: %s", part, strerror(errno));
    return 0;
}

/* Loads part as a kept run and, if it is one, renames it to root/id, never
 * over a folder of that name. On any failure, part is removed. */
static int finish_folder(const char *part, const char *root, const char *id, char *err,
                         size_t err_size)
{
    char dir[4400];
    struct run_data d;
    snprintf(dir, sizeof dir, "%s/%s", root, id);
    int status = run_data_load_folder(&d, part, RUN_KEPT, err, err_size);
    if (status == 0) {
        run_data_free(&d);
        if (renameat2(AT_FDCWD, part, AT_FDCWD, dir, RENAME_NOREPLACE) != 0)
            status = set_error(err, err_size, "cannot rename %s to %s: %s%s", part, dir,
                               strerror(errno), errno == EEXIST || errno == ENOTEMPTY
                                   ? " (a reproduction is never overwritten: give another ID)"
                                   : "");
    }
    if (status != 0)
        remove_made(part);
    return status;
}

/* <<add-a-reproduction>>, paper/96-reproductions.md */
int reproduction_add(const char *data, const char *root, const char *id, const char *by,
                     const char *conditions, char *made, size_t made_size, char *err,
                     size_t err_size)
{
    struct run_data d;
    char part[4400] = "", from[4400], to[4400], dir[4400];
    struct stat st;
    if (run_data_load(&d, data, err, err_size) != 0)
        return -1;
    if (id == NULL || id[0] == '\0')
        reproduction_id(&d, made, made_size);
    else
        snprintf(made, made_size, "%s", id);
    snprintf(dir, sizeof dir, "%s/%s", root, made);
    int status = 0;
    if (!reproduction_name_ok(made))
        status = set_error(err, err_size, "'%s' is not a name for a reproduction: 1 to %d "
                           "letters, digits, '.', '-' and '_', from a letter or a digit",
                           made, MAX_ID_BYTES);
    else if (lstat(dir, &st) == 0)
        status = set_error(err, err_size, "%s exists already: give another ID= (a "
                           "reproduction is never overwritten)", dir);
    else
        status = begin_folder(root, made, "partial", part, sizeof part, err, err_size);
    for (size_t i = 0; status == 0 && i < N_DATA_FILES; i++) {
        if (stored_path(data, DATA_FILES[i].name, from, sizeof from, err, err_size) != 0) {
            status = -1;
            break;
        }
        if ((DATA_FILES[i].flags & ADDED_FILE) && access(from, F_OK) != 0)
            continue;                          /* a run made before the file existed */
        snprintf(to, sizeof to, "%s/%s.gz", part, DATA_FILES[i].name);
        status = keep_compressed(from, to, err, err_size);
    }
    if (status == 0)
        status = write_readme(part, made, &d, by, conditions, err, err_size);
    if (status == 0)
        status = manifest_write(part, RUN_KEPT, err, err_size);
    run_data_free(&d);
    if (status == 0)
        return finish_folder(part, root, made, err, err_size);
    if (part[0] != '\0')
        remove_made(part);
    return -1;
}

/* <<a-kept-run-as-one-file>>, paper/96-reproductions.md */
/* The names a kept run's folder holds, in the order an archive lists them. */
static size_t kept_names(const char *dir, char names[][64], size_t most)
{
    char path[4500];
    size_t n = 0;
    snprintf(names[n++], 64, "README.md");
    snprintf(names[n++], 64, "manifest.csv");
    for (size_t i = 0; i < N_DATA_FILES && n < most; i++) {
        snprintf(path, sizeof path, "%s/%s.gz", dir, DATA_FILES[i].name);
        int packed = access(path, F_OK) == 0;
        snprintf(path, sizeof path, "%s/%s", dir, DATA_FILES[i].name);
        if (!packed && (DATA_FILES[i].flags & ADDED_FILE) && access(path, F_OK) != 0)
            continue;                          /* a run made before the file existed */
        snprintf(names[n++], 64, packed ? "%s.gz" : "%s", DATA_FILES[i].name);
    }
    return n;
}

int reproduction_pack(const char *root, const char *id, const char *file, char *err,
                      size_t err_size)
{
    char dir[4400], names[64][64];
    const char *list[64];
    snprintf(dir, sizeof dir, "%s/%s", root, id);
    size_t n = kept_names(dir, names, 64);
    for (size_t i = 0; i < n; i++)
        list[i] = names[i];
    return bundle_write(file, id, dir, list, n, err, err_size);
}

/* <<receive-a-kept-run>>, paper/96-reproductions.md */
/* A name a kept run's folder may hold: README.md, manifest.csv, a file of
 * a run, plain or compressed. */
static int kept_name_ok(const char *name)
{
    char base[256];
    size_t n = strlen(name);
    snprintf(base, sizeof base, "%.*s", (int)(n > 3 && strcmp(name + n - 3, ".gz") == 0
                                                  ? n - 3 : n), name);
    return strcmp(name, "README.md") == 0 || strcmp(name, "manifest.csv") == 0 ||
           data_file_named(base) != NULL;
}

/* err, with every mention of the folder `part` read as `as`. */
static void name_the_member(char *err, size_t err_size, const char *part, const char *as)
{
    char out[2048];
    size_t used = 0, n = strlen(part);
    for (const char *p = err; *p != '\0' && used + 1 < sizeof out;) {
        if (strncmp(p, part, n) == 0) {
            used += (size_t)snprintf(out + used, sizeof out - used, "%s", as);
            p += n;
        } else {
            out[used++] = *p++;
        }
    }
    out[used < sizeof out ? used : sizeof out - 1] = '\0';
    snprintf(err, err_size, "%s", out);
}

int reproduction_receive(const char *file, const char *root, char *made, size_t made_size,
                         char *err, size_t err_size)
{
    const struct bundle_rules rules = {reproduction_name_ok, kept_name_ok, MAX_RUN_FILE_BYTES,
                                       N_DATA_FILES + 2};
    char part[4400], as[4400];
    if (begin_folder(root, "receiving", "archive", part, sizeof part, err, err_size) != 0)
        return -1;
    if (bundle_read(file, part, &rules, made, made_size, err, err_size) != 0) {
        remove_made(part);
        return -1;
    }
    struct stat st;
    snprintf(as, sizeof as, "%s/%s", root, made);
    if (lstat(as, &st) == 0) {
        remove_made(part);
        return set_error(err, err_size, "%s holds the kept run %s, and %s exists already (a "
                         "kept run is never overwritten)", file, made, as);
    }
    snprintf(as, sizeof as, "%s: %s", file, made);
    if (finish_folder(part, root, made, err, err_size) != 0) {
        name_the_member(err, err_size, part, as);
        return -1;
    }
    return 0;
}

/* <<list-the-reproductions>>, paper/96-reproductions.md */
struct reproduction {
    char id[MAX_ID_BYTES + 1], label[16];  /* label: R1, R2, ...; Q1, ... if reduced */
    int ok;                            /* it was read (and summarized) without an error */
    int same_as;                       /* -1, or the earlier folder that holds this run */
    int summarized;                    /* s holds its summary */
    char identity[3][65];              /* the digests of its measured files (below) */
    struct store s;
    char machine[512], simd[256], kernel[256], date[64], conditions[256], reduced[256];
    char type[96], hypervisor[96];     /* "AMD 26/2": vendor, family/model; "bhyve", "none" */
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An entry of root that cannot be a kept run: why, or NULL. */
static const char *refused_entry(const char *name, const struct stat *st)
{
    if (S_ISLNK(st->st_mode))
        return "is a symbolic link, not a folder of its own (a link to another kept run, "
               "or to data/, would count one run twice)";
    if (!reproduction_name_ok(name))
        return "is not a name for a kept run (1 to 80 letters, digits, '.', '-' and '_', "
               "from a letter or a digit)";
    return NULL;
}

/* The folders of root that are kept runs, sorted by name, into *names; how
 * many. An entry refused is named on stderr and counted in s->errors. */
static size_t folders(const char *root, char ***names, struct store *s)
{
    DIR *dir = opendir(root);
    size_t n = 0, cap = 0;
    *names = NULL;
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL;) {
        char path[4400], shown[512];
        struct stat st;
        size_t len = strlen(e->d_name);
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (e->d_name[0] == '.' || (len > 8 && strcmp(e->d_name + len - 8, ".partial") == 0) ||
            lstat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
            continue;                  /* being made, left by an older make, or not a folder */
        const char *why = refused_entry(e->d_name, &st);
        if (why != NULL) {
            fprintf(stderr, "ipctax-summary: reproduction %s %s\n",
                    text_clean(shown, sizeof shown, path, strlen(path)), why);
            s->errors++;
            continue;
        }
        if (n == cap) {
            char **more = realloc(*names, (cap = cap ? 2 * cap : 16) * sizeof *more);
            if (more == NULL) {
                s->errors++;
                break;
            }
            *names = more;
        }
        if (((*names)[n] = strdup(e->d_name)) != NULL)
            n++;
        else
            s->errors++;
    }
    if (dir != NULL)
        closedir(dir);
    if (n > 0)
        qsort(*names, n, sizeof **names, by_name);
    return n;
}

/* <<the-same-run-twice>>, paper/96-reproductions.md */
static const char *const MEASURED[] = {"architectures.csv", "calls.csv", "echo.csv"};

/* The digests r's manifest lists for the measured files ("" where it cannot say). */
static void read_identity(const char *root, struct reproduction *r)
{
    char dir[4400], err[1024];
    struct csv_table m;
    snprintf(dir, sizeof dir, "%s/%s", root, r->id);
    if (manifest_load(dir, RUN_KEPT, &m, err, sizeof err) != 0)
        return;                        /* its load will say why */
    int name = csv_table_column(&m, "file"), sha = csv_table_column(&m, "sha256");
    for (size_t k = 0; k < 3; k++)
        for (size_t row = 0; row < m.n_rows; row++)
            if (strcmp(csv_table_cell(&m, row, name), MEASURED[k]) == 0)
                snprintf(r->identity[k], sizeof r->identity[k], "%s",
                         csv_table_cell(&m, row, sha));
    csv_table_free(&m);
}

/* Marks every folder that holds the same run as an earlier one. */
static void find_same_runs(const char *root, struct reproduction *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        read_identity(root, &r[i]);
        r[i].same_as = -1;
        for (size_t j = 0; j < i && r[i].same_as < 0; j++)
            for (size_t k = 0; k < 3 && r[i].same_as < 0; k++)
                if (r[i].identity[k][0] != '\0' &&
                    strcmp(r[i].identity[k], r[j].identity[k]) == 0)
                    r[i].same_as = r[j].same_as >= 0 ? r[j].same_as : (int)j;
    }
}

/* <<read-a-readme-line>>, paper/96-reproductions.md */
/* The value of a README's "- key: value" line, cleaned, into value ("" if none). */
static void readme_line(const char *dir, const char *key, char *value, size_t size)
{
    char path[4500];
    static _Thread_local char text[MAX_NOTE_BYTES + 1];
    size_t k = strlen(key), n = 0;
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
    }
    text[n] = '\0';
    value[0] = '\0';
    for (char *line = text; line < text + n;) {
        char *end = memchr(line, '\n', (size_t)(text + n - line));
        size_t len = end != NULL ? (size_t)(end - line) : (size_t)(text + n - line);
        if (len >= k + 3 && strncmp(line, "- ", 2) == 0 && strncmp(line + 2, key, k) == 0 &&
            line[2 + k] == ':') {
            const char *v = line + 3 + k;
            v += v < line + len && *v == ' ';
            text_clean(value, size, v, len - (size_t)(v - line));
        }
        line += len + 1;
    }
}

/* <<a-summary-kept-between-builds>>, paper/96-reproductions.md */
static const char *const REGISTRY_FILES[] = {"claims.csv", "claims-registered.csv",
                                             "deviations.csv", "registration.csv"};

/* "NAME SHA-256" of path, one line, at the end of key (size bytes); -1 if unreadable. */
static int key_line(char *key, size_t size, const char *name, const char *path)
{
    char sha[65], err[512];
    uint64_t bytes;
    if (file_digest(path, UINT64_MAX, &bytes, sha, err, sizeof err) != 0)
        return -1;
    size_t used = strlen(key);
    snprintf(key + used, size - used, "%s %s\n", name, sha);
    return 0;
}

/* What the summary of the kept run in dir is made from, into key; -1 if
 * any of it cannot be read (the summary is then made, and not kept). */
static int summary_key(const char *dir, const char *registry, char *key, size_t size)
{
    char path[4500];
    key[0] = '\0';
    int bad = key_line(key, size, "program", "/proc/self/exe");
    for (size_t i = 0; i < sizeof REGISTRY_FILES / sizeof REGISTRY_FILES[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", registry, REGISTRY_FILES[i]);
        bad |= key_line(key, size, REGISTRY_FILES[i], path);
    }
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    bad |= key_line(key, size, "manifest.csv", path);
    return bad ? -1 : 0;
}

/* Whether out holds a summary made from key, read back into s. */
static int kept_summary(const char *out, const char *key, struct store *s)
{
    char path[4500], kept[2048], err[512];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/summary.key", out);
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        n = fread(kept, 1, sizeof kept - 1, f);
        fclose(f);
    }
    kept[n] = '\0';
    if (n == 0 || strcmp(kept, key) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/values.csv", out);
    int read = store_read(s, path, err, sizeof err) == 0 && s->errors == 0;
    snprintf(path, sizeof path, "%s/numbers.csv", out);
    if (read && store_read_numbers(s, path, err, sizeof err) == 0)
        return 1;
    const char *out_dir = s->out_dir, *registry = s->registry;
    store_free(s);                     /* half read: made again */
    store_init(s, out_dir);
    s->registry = registry;
    return 0;
}

/* Keeps the summary s made from key: its values (their text, and their
 * numbers to the last digit), then the key, so that a key is never beside
 * values it did not make. */
static void keep_summary(struct store *s, const char *key)
{
    char path[4500];
    snprintf(path, sizeof path, "%s/summary.key", s->out_dir);
    remove(path);
    if (key[0] == '\0' || s->errors > 0 || store_write(s) != 0 || store_write_numbers(s) != 0)
        return;
    FILE *f = fopen(path, "wb");
    if (f != NULL && (fputs(key, f) < 0) | (fclose(f) != 0))
        remove(path);
}

/* <<summarize-one-reproduction>>, paper/96-reproductions.md */
const char KEPT_FAMILIES[] = "arch claim machine model";

static void describe_the_machine(const struct run_data *d, struct reproduction *r)
{
    char raw[1024];
    snprintf(raw, sizeof raw, "%s, family %s model %s, %s cores",
             kv_or(&d->machine, "cpu", "?"), kv_or(&d->machine, "cpu_family", "?"),
             kv_or(&d->machine, "cpu_model", "?"), kv_or(&d->machine, "cores", "?"));
    text_clean(r->machine, sizeof r->machine, raw, strlen(raw));
    const char *simd = kv_or(&d->machine, "simd_enabled", "?");
    const char *kernel = kv_or(&d->machine, "kernel", "?");
    const char *date = kv_or(&d->machine, "date", "?");
    text_clean(r->simd, sizeof r->simd, simd, strlen(simd));
    text_clean(r->kernel, sizeof r->kernel, kernel, strlen(kernel));
    text_clean(r->date, sizeof r->date, date, strnlen(date, 10));
    reproduction_reduced_because(d, raw, sizeof raw);
    text_clean(r->reduced, sizeof r->reduced, raw, strlen(raw));
    const char *vendor = kv_or(&d->machine, "cpu_vendor", "?");
    snprintf(raw, sizeof raw, "%s %s/%s",
             strstr(vendor, "AMD") != NULL ? "AMD" : strstr(vendor, "Intel") != NULL ? "Intel"
                                                                                   : vendor,
             kv_or(&d->machine, "cpu_family", "?"), kv_or(&d->machine, "cpu_model", "?"));
    text_clean(r->type, sizeof r->type, raw, strlen(raw));
    /* the hypervisor's name as the CPU reports it, its first word ("bhyve bhyve") */
    const char *name = strcmp(kv_or(&d->machine, "hypervisor", "no"), "yes") == 0
                           ? kv_or(&d->machine, "hypervisor_name", "?")
                           : "none";
    text_clean(r->hypervisor, sizeof r->hypervisor, name, strcspn(name, " "));
}

static int summarize_one(const char *kept_summaries, const char *registry, const char *root,
                         struct reproduction *r)
{
    char dir[4400], out[4400], err[1024], shown[1024];
    struct run_data d;
    snprintf(dir, sizeof dir, "%s/%s", root, r->id);
    if (run_data_load_folder(&d, dir, RUN_KEPT, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: reproduction %s: %s\n", r->id,
                text_clean(shown, sizeof shown, err, strlen(err)));
        return -1;
    }
    if (r->same_as >= 0) {
        run_data_free(&d);
        return 0;
    }
    mkdir(kept_summaries, 0777);
    snprintf(out, sizeof out, "%s/%s", kept_summaries, r->id);
    mkdir(out, 0777);
    store_init(&r->s, strdup(out));
    r->s.registry = registry;
    r->summarized = 1;
    char key[2048];
    if (summary_key(dir, registry, key, sizeof key) != 0)
        key[0] = '\0';
    if (key[0] == '\0' || !kept_summary(out, key, &r->s)) {
        summarize_families(&d, &r->s, KEPT_FAMILIES);
        keep_summary(&r->s, key);
    }
    describe_the_machine(&d, r);
    readme_line(dir, "conditions", r->conditions, sizeof r->conditions);
    run_data_free(&d);
    if (r->s.errors > 0)
        fprintf(stderr, "ipctax-summary: reproduction %s: its summary failed (see above)\n",
                r->id);
    return r->s.errors > 0 ? -1 : 0;
}

/* <<the-commonest-verdict>>, paper/96-reproductions.md */
static const char *verdict_of(const struct store *s, const char *claim)
{
    char key[KEY_SIZE];
    const struct value *v = store_get(s, keyf(key, "claim.%s.verdict", claim));
    return v != NULL ? v->text : "n/a";
}

/* Whether the run judged the claim: an older run without its estimate
 * says "not measured", which no agreement counts. */
static int judged(const struct store *s, const char *claim)
{
    const char *v = verdict_of(s, claim);
    return strcmp(v, "not measured") != 0 && strcmp(v, "n/a") != 0;
}

/* The commonest verdict's count among those of the n reproductions r (full
 * runs) that judged the claim, and how many did (*judging). */
static int agreeing(struct reproduction *r, size_t n, const char *claim, const char **most,
                    int *judging)
{
    int best = 0;
    *judging = 0;
    for (size_t i = 0; i < n; i++) {
        int same = 0;
        if (!judged(&r[i].s, claim))
            continue;
        ++*judging;
        for (size_t j = 0; j < n; j++)
            same += judged(&r[j].s, claim) &&
                    strcmp(verdict_of(&r[i].s, claim), verdict_of(&r[j].s, claim)) == 0;
        if (same > best)
            best = same, *most = verdict_of(&r[i].s, claim);
    }
    return best;
}

/* <<describe-a-difference>>, paper/96-reproductions.md */
/* Appends "claim (most in agree of judging)" to list; returns 0, or -1
 * (list unchanged) when the item does not fit whole. */
static int describe_difference(char *list, const char *claim, const char *most, int agree,
                               int judging)
{
    size_t used = strlen(list);
    if (snprintf(list + used, TEXT_SIZE - used, "%s%s (%s in %d of %d)", used ? "; " : "",
                 claim, most, agree, judging) < (int)(TEXT_SIZE - used))
        return 0;
    list[used] = '\0';
    return -1;
}

/* <<the-claims-across-reproductions>>, paper/96-reproductions.md */
static void claims_table(struct store *s, struct reproduction *r, size_t n_full, size_t n,
                         int this_run)
{
    const char **header = calloc(n + 3, sizeof *header);
    char key[KEY_SIZE], cell[64], everywhere[TEXT_SIZE] = "", differ[TEXT_SIZE] = "",
         otherwise[TEXT_SIZE] = "";
    struct csv_out t;
    /* <<open-the-reproductions-table>>, paper/96-reproductions.md */
    if (header == NULL) {
        s->errors++;
        return;
    }
    int at = this_run ? 2 : 1;                 /* the first kept run's column */
    header[0] = "Claim";
    header[1] = "This run";
    for (size_t i = 0; i < n; i++)
        header[at + i + (i >= n_full)] = r[i].label;
    header[at + n_full] = "Agree";
    int opened = table_open(s, "reproductions", &t, header, (int)n + 1 + at) == 0;
    free(header);
    if (!opened)
        return;
    int unanimous = 0, left_out = 0;
    size_t n_claims = 0;
    char (*claims)[KEY_SIZE] = calloc(s->n ? s->n : 1, sizeof *claims);
    /* <<collect-the-judged-claims>>, paper/96-reproductions.md */
    for (size_t c = 0; claims != NULL && c < s->n; c++) {
        const char *k = s->values[c].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) == 0 && len > 14 && strcmp(k + len - 8, ".verdict") == 0)
            snprintf(claims[n_claims++], KEY_SIZE, "%.*s", (int)(len - 14), k + 6);
    }
    for (size_t c = 0; c < n_claims; c++) {
        const char *claim = claims[c];
        const char *most = "n/a";
        int judging = 0;
        int agree = agreeing(r, n_full, claim, &most, &judging);
        /* <<write-a-claims-verdicts-across-runs>>, paper/96-reproductions.md */
        csv_out_text(&t, claim);
        if (this_run)
            csv_out_text(&t, verdict_of(s, claim));
        for (size_t i = 0; i < n_full; i++)
            csv_out_text(&t, verdict_of(&r[i].s, claim));
        snprintf(cell, sizeof cell, "%d of %d", agree, judging);
        csv_out_text(&t, cell);
        for (size_t i = n_full; i < n; i++)
            csv_out_text(&t, verdict_of(&r[i].s, claim));
        csv_out_end_row(&t);
        /* <<sort-a-claim-into-the-prose-lists>>, paper/96-reproductions.md */
        int all = judging == (int)n_full && agree == judging;   /* every run, one verdict */
        unanimous += all;
        put_text(s, keyf(key, "across.%s.unanimous", claim), all ? "yes" : "no");
        put_text(s, keyf(key, "across.%s.commonest", claim), most);
        if (agree < judging)           /* runs that did not judge it do not differ */
            left_out += describe_difference(differ, claim, most, agree, judging) != 0;
        else if (strcmp(most, "holds") == 0)
            snprintf(everywhere + strlen(everywhere), TEXT_SIZE - strlen(everywhere), "%s%s",
                     everywhere[0] != '\0' ? ", " : "", claim);
        else if (judging > 0) {        /* one verdict wherever judged, not "holds" */
            size_t used = strlen(otherwise);
            if (snprintf(otherwise + used, TEXT_SIZE - used, "%s%s (%s in %d)", used ? ", " : "",
                         claim, most, judging) >= (int)(TEXT_SIZE - used))
                otherwise[used] = '\0';    /* a list too long for the text keeps whole items */
        }
    }
    free(claims);
    /* <<store-the-agreement-for-the-prose>>, paper/96-reproductions.md */
    table_close(s, &t);
    put_count(s, "across.unanimous", unanimous);
    put_text(s, "across.held_everywhere", everywhere[0] != '\0' ? everywhere : "none");
    put_text(s, "across.differ", differ[0] != '\0' ? differ : "none");
    put_count(s, "across.differ_left_out", left_out);
    put_text(s, "across.agreed_otherwise", otherwise[0] != '\0' ? otherwise : "none");
}

/* <<the-estimates-across-reproductions>>, paper/96-reproductions.md */
static void estimates_row(struct csv_out *t, const struct store *s, const char *claim,
                          const char *label, const char *machine)
{
    char key[KEY_SIZE];
    const struct value *e = store_get(s, keyf(key, "claim.%s.estimate", claim));
    csv_out_text(t, claim);
    csv_out_text(t, label);
    csv_out_text(t, machine);
    csv_out_text(t, e != NULL && judged(s, claim) ? e->text : "not measured");
    csv_out_text(t, verdict_of(s, claim));
    csv_out_end_row(t);
}

static void estimates_table(struct store *s, const struct reproduction *r, size_t n,
                            const struct reproduction *self)
{
    static const char *const header[] = {"Claim", "Run", "Machine",
                                         "Estimate [95% interval]", "Verdict"};
    struct csv_out t;
    if (table_open(s, "reproduction_estimates", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t c = 0; c < s->n; c++) {
        const char *k = s->values[c].key;
        size_t len = strlen(k);
        if (strncmp(k, "claim.", 6) != 0 || len <= 14 || strcmp(k + len - 8, ".verdict") != 0)
            continue;
        char claim[KEY_SIZE];
        snprintf(claim, sizeof claim, "%.*s", (int)(len - 14), k + 6);
        if (self != NULL)
            estimates_row(&t, s, claim, self->label, self->machine);
        for (size_t i = 0; i < n; i++)
            estimates_row(&t, &r[i].s, claim, r[i].label, r[i].machine);
    }
    table_close(s, &t);
}

/* <<claims-pooled-across-runs>>, paper/96-reproductions.md */
/* Whether v lies on the side of the threshold that the claim says. */
static int on_the_claimed_side(const struct claim_spec *c, double v)
{
    return c->test == BELOW   ? v < c->low
         : c->test == ABOVE ? v > c->low
                              : v >= c->low && v <= c->high;
}

enum { MAX_TYPES = 8 };                /* machine types with a column; more share the last */

/* The machine types of the first n of r, in the order they first appear;
 * each run's type's index into *at. */
static size_t machine_types(const struct reproduction *r, size_t n, const char **types,
                            size_t *at)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t t = 0;
        while (t < k && strcmp(types[t], r[i].type) != 0)
            t++;
        if (t == k && k < MAX_TYPES)
            types[k++] = r[i].type;
        at[i] = t < k ? t : k - 1;
    }
    return k;
}

/* One claim's row: its runs' estimates pooled, and by type; its verdict
 * across runs, or -1 when no run gives its estimate. */
static int pooled_row(struct store *s, struct csv_out *t, const struct claim_spec *c,
                      const struct reproduction *r, size_t n, const size_t *type_of,
                      size_t n_types, int *split)
{
    char key[KEY_SIZE], buf[200], num[FIXED_SIZE];
    struct doubles all = {0}, by[MAX_TYPES] = {{0}};
    for (size_t i = 0; i < n; i++) {
        struct estimate e = store_estimate(&r[i].s, c->estimate);
        if (e.n > 0 && isfinite(e.value)) {
            doubles_push(&all, e.value);
            doubles_push(&by[type_of[i]], e.value);
        }
    }
    struct estimate p = doubles_estimate(&all);
    enum verdict v = judge_interval(p, c->test, c->low, c->high);
    const struct value *threshold = store_get(s, keyf(key, "claim.%s.threshold", c->id));
    csv_out_text(t, c->id);
    csv_out_text(t, threshold != NULL ? threshold->text : "");
    cell_number(t, (double)all.n, 0);
    csv_out_text(t, all.n > 0 ? format_estimate(buf, p, c->decimals) : "not measured");
    csv_out_text(t, all.n > 0 ? verdict_name(v) : "not measured");
    int sides[2] = {0, 0};
    for (size_t k = 0; k < n_types; k++) {
        if (by[k].n == 0) {
            csv_out_text(t, "not measured");
            continue;
        }
        double m = doubles_estimate(&by[k]).value;
        sides[on_the_claimed_side(c, m)]++;
        snprintf(buf, sizeof buf, "%s (%zu)", format_fixed(num, m, c->decimals), by[k].n);
        csv_out_text(t, buf);
    }
    csv_out_end_row(t);
    *split = sides[0] > 0 && sides[1] > 0;
    int result = all.n > 0 ? (int)v : -1;
    if (all.n > 0) {
        put_estimate(s, keyf(key, "across.%s.pooled", c->id), p, c->decimals, "runs");
        put_text(s, keyf(key, "across.%s.pooled_verdict", c->id), verdict_name(v));
    }
    for (size_t k = 0; k < MAX_TYPES; k++)
        doubles_free(&by[k]);
    doubles_free(&all);
    return result;
}

static void pooled_table(struct store *s, const struct reproduction *r, size_t n_full)
{
    struct claim_spec *specs = NULL;
    size_t n_specs = 0, *type_of = calloc(n_full ? n_full : 1, sizeof *type_of);
    const char *types[MAX_TYPES], *header[5 + MAX_TYPES] = {
        "Claim", "Threshold", "Runs", "Across runs [95% interval]", "Verdict"};
    char err[512], split_list[TEXT_SIZE] = "";
    struct csv_out t;
    if (type_of == NULL || claims_load(s->registry, &specs, &n_specs, err, sizeof err) != 0) {
        s->errors++;
        free(type_of);
        return;
    }
    size_t n_types = machine_types(r, n_full, types, type_of);
    for (size_t k = 0; k < n_types; k++)
        header[5 + k] = types[k];
    if (table_open(s, "claims_pooled", &t, header, (int)(5 + n_types)) == 0) {
        int count[3] = {0, 0, 0};
        for (size_t c = 0; c < n_specs; c++) {
            int split = 0;
            int v = pooled_row(s, &t, &specs[c], r, n_full, type_of, n_types, &split);
            if (v >= 0)
                count[v]++;
            if (split)
                snprintf(split_list + strlen(split_list), TEXT_SIZE - strlen(split_list), "%s%s",
                         split_list[0] != '\0' ? ", " : "", specs[c].id);
        }
        table_close(s, &t);
        put_count(s, "across.pooled_holds", count[HOLDS]);
        put_count(s, "across.pooled_fails", count[FAILS]);
        put_count(s, "across.pooled_undecided", count[UNDECIDED]);
        put_count(s, "across.types", (double)n_types);
        put_text(s, "across.types_split", split_list[0] != '\0' ? split_list : "none");
    }
    free(specs);
    free(type_of);
}

/* <<the-model-across-runs>>, paper/96-reproductions.md */
/* Whether kept run r measured every primitive the model reads. */
static int every_primitive_in(const struct reproduction *r)
{
    const struct value *v = store_get(&r->s, "model.every_primitive");
    return v != NULL && strcmp(v->text, "yes") == 0;
}

/* Row arch's model ratio in each kept full run that priced it, into v;
 * into w as well, those of the runs that measured every primitive. */
static void model_ratios(const struct reproduction *r, size_t n_full, const char *arch,
                         struct doubles *v, struct doubles *w)
{
    char key[KEY_SIZE];
    for (size_t i = 0; i < n_full; i++) {
        double x = store_number(&r[i].s, keyf(key, "model.%s.ratio", arch));
        if (isfinite(x))
            doubles_push(v, x);
        if (isfinite(x) && every_primitive_in(&r[i]))
            doubles_push(w, x);
    }
}

/* How many of v's ratios lie within the band. */
static size_t within_band(const struct doubles *v, double band)
{
    size_t inside = 0;
    for (size_t i = 0; i < v->n; i++)
        inside += v->v[i] >= 1.0 / band && v->v[i] <= band;
    return inside;
}

static void model_row(struct csv_out *t, const char *arch, double here, const struct doubles *v,
                      size_t inside, const struct doubles *w, size_t w_inside)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < v->n; i++)
        lo = fmin(lo, v->v[i]), hi = fmax(hi, v->v[i]);
    csv_out_text(t, arch);
    if (isfinite(here))
        cell_number(t, here, 2);
    else
        csv_out_text(t, "not priced");
    cell_number(t, (double)v->n, 0);
    if (v->n > 0) {
        cell_number(t, doubles_estimate(v).value, 2);
        cell_number(t, lo, 2);
        cell_number(t, hi, 2);
        cell_number(t, (double)inside, 0);
    } else {
        for (int c = 0; c < 4; c++)
            csv_out_text(t, "");
    }
    cell_number(t, (double)w->n, 0);
    if (w->n > 0)
        cell_number(t, (double)w_inside, 0);
    else
        csv_out_text(t, "");
    csv_out_end_row(t);
}

static void model_table(struct store *s, const struct reproduction *r, size_t n_full)
{
    static const char *const header[] = {"Architecture", "This run",    "Kept runs",
                                         "Median",       "Lowest",      "Highest",
                                         "Within the band", "With every primitive",
                                         "Of them within"};
    double band = store_number(s, "model.band");
    size_t runs = 0, rows = 0, every = 0, complete = 0, complete_rows = 0, complete_every = 0;
    char key[KEY_SIZE];
    struct csv_out t;
    if (table_open(s, "model_across", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    for (size_t a = 0; a < N_ARCH_ROWS; a++) {
        const char *arch = ARCH_ROWS[a].name;
        double here = store_number(s, keyf(key, "model.%s.ratio", arch));
        struct doubles w = {0}, v = {0};
        model_ratios(r, n_full, arch, &v, &w);
        size_t w_inside = within_band(&w, band);
        complete = w.n > complete ? w.n : complete;
        complete_rows += w.n > 0;
        complete_every += w.n > 0 && w_inside == w.n;
        size_t inside = within_band(&v, band);
        if (v.n > 0 || isfinite(here))
            model_row(&t, arch, here, &v, inside, &w, w_inside);
        if (v.n > 0) {
            put_number(s, keyf(key, "model.across.%s.median_ratio", arch),
                       doubles_estimate(&v).value, 2);
            runs = v.n > runs ? v.n : runs;
            rows++;
            every += inside == v.n;
        }
        doubles_free(&v);
        doubles_free(&w);
    }
    table_close(s, &t);
    put_count(s, "model.across.complete_runs", (double)complete);
    put_count(s, "model.across.complete_rows", (double)complete_rows);
    put_count(s, "model.across.complete_within_every", (double)complete_every);
    put_count(s, "model.across.runs", (double)runs);
    put_count(s, "model.across.rows", (double)rows);
    put_count(s, "model.across.within_every", (double)every);
}

/* <<the-machines-table>>, paper/96-reproductions.md */
static void machine_row(struct csv_out *t, const struct reproduction *r)
{
    char run[300];
    snprintf(run, sizeof run, "%s%s", r->reduced[0] != '\0' ? "reduced: " : "full", r->reduced);
    const char *cells[] = {r->label, r->id, r->machine, r->simd, r->kernel, run, r->conditions};
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++)
        csv_out_text(t, cells[c]);
    csv_out_end_row(t);
}

/* this_run: the run being woven, first, when it is not kept; or NULL. */
static void machines_table(struct store *s, const struct reproduction *r, size_t n,
                           const struct reproduction *this_run)
{
    static const char *const header[] = {"", "Reproduction (its folder)", "Processor",
                                         "Vectors enabled", "Kernel", "Run", "Conditions"};
    struct csv_out t;
    if (table_open(s, "machines", &t, header, CSV_COLUMNS(header)) != 0)
        return;
    if (this_run != NULL)
        machine_row(&t, this_run);
    for (size_t i = 0; i < n; i++)
        machine_row(&t, &r[i]);
    table_close(s, &t);
}

/* <<summaries-side-by-side>>, paper/96-reproductions.md */
struct summary_jobs {
    const struct run_data *d;          /* job 0: the run itself, into s */
    struct store *s;
    const char *kept_summaries, *registry; /* s's, read before any job starts */
    const char *root;                  /* job i > 0: reproduction r[i - 1] */
    struct reproduction *r;
    size_t n_jobs;
    atomic_size_t next;
};

static void *summary_worker(void *arg)
{
    struct summary_jobs *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n_jobs;) {
        if (i == 0) {
            if (j->d != NULL)
                summarize_all(j->d, j->s);
        } else
            j->r[i - 1].ok =
                summarize_one(j->kept_summaries, j->registry, j->root, &j->r[i - 1]) == 0;
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

/* <<summarize-reproductions>>, paper/96-reproductions.md */
/* How many different machines (processor, family, model and cores),
 * hypervisors and days the first n of r span: what "across machines" may
 * claim. */
static void put_span(struct store *s, const struct reproduction *r, size_t n)
{
    size_t machines = 0, hypervisors = 0, days = 0;
    for (size_t i = 0; i < n; i++) {
        int new_machine = 1, new_hypervisor = 1, new_day = 1;
        for (size_t j = 0; j < i; j++) {
            new_machine &= strcmp(r[i].machine, r[j].machine) != 0;
            new_hypervisor &= strcmp(r[i].hypervisor, r[j].hypervisor) != 0;
            new_day &= strcmp(r[i].date, r[j].date) != 0;
        }
        machines += (size_t)new_machine;
        hypervisors += (size_t)new_hypervisor;
        days += (size_t)new_day;
    }
    put_count(s, "across.machines", (double)machines);
    put_count(s, "across.hypervisors", (double)hypervisors);
    put_count(s, "across.days", (double)days);
}

/* Moves the full runs to the front of r's first n (order kept within each
 * kind), labels them, and returns how many are full. */
static size_t label(struct reproduction *r, size_t n)
{
    size_t n_full = 0, n_reduced = 0;
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((r[i].reduced[0] == '\0') == (pass == 0)) {
                char *into = r[i].label;
                if (pass == 0)
                    snprintf(into, sizeof r[i].label, "R%zu", ++n_full);
                else
                    snprintf(into, sizeof r[i].label, "Q%zu", ++n_reduced);
            }
    struct reproduction *sorted = malloc(n * sizeof *sorted);
    if (sorted != NULL) {
        size_t k = 0;
        for (size_t pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n; i++)
                if ((r[i].reduced[0] == '\0') == (pass == 0))
                    sorted[k++] = r[i];
        memcpy(r, sorted, n * sizeof *sorted);
        free(sorted);
    }
    return n_full;
}

/* Which of the kept runs r the run summarized into s is (the same
 * machine's date and commit: the published run, kept as a reproduction),
 * or -1. */
static long kept_as(const struct store *s, const struct reproduction *r, size_t n)
{
    static const char *const SAME[] = {"machine.date", "machine.commit"};
    for (size_t i = 0; i < n; i++) {
        int same = 1;
        for (size_t k = 0; k < 2; k++) {
            const struct value *a = store_get(s, SAME[k]), *b = store_get(&r[i].s, SAME[k]);
            same &= a != NULL && b != NULL && strcmp(a->text, b->text) == 0;
        }
        if (same)
            return (long)i;
    }
    return -1;
}

/* "B is the same run as A" for each folder that repeats another, or "none". */
static void name_same_runs(struct store *s, struct reproduction *r, size_t n)
{
    char list[TEXT_SIZE] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++)
        if (r[i].ok && r[i].same_as >= 0)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s is the same run as %s",
                                     used ? "; " : "", r[i].id, r[r[i].same_as].id);
    put_text(s, "across.same_runs", used > 0 ? list : "none");
}

void summarize_with_reproductions(const struct run_data *d, struct store *s,
                                  const char *root)
{
    char **names = NULL;
    size_t n = root != NULL ? folders(root, &names, s) : 0, kept = 0, reduced = 0;
    struct reproduction *r = calloc(n ? n : 1, sizeof *r);
    /* <<summarize-the-kept-runs-side-by-side>>, paper/96-reproductions.md */
    for (size_t i = 0; r != NULL && i < n; i++)
        snprintf(r[i].id, sizeof r[i].id, "%s", names[i]);
    if (r != NULL)
        find_same_runs(root, r, n);
    char kept_summaries[4200];
    if (s->kept_summaries != NULL)
        snprintf(kept_summaries, sizeof kept_summaries, "%s", s->kept_summaries);
    else
        snprintf(kept_summaries, sizeof kept_summaries, "%s/reproductions", s->out_dir);
    struct summary_jobs j = {d, s, kept_summaries, s->registry, root, r, r != NULL ? n + 1 : 1, 0};
    run_side_by_side(&j);
    /* <<keep-the-runs-that-count>>, paper/96-reproductions.md */
    if (r != NULL)
        name_same_runs(s, r, n);
    for (size_t i = 0; r != NULL && i < n; i++) {
        int counted = r[i].ok && r[i].same_as < 0;
        s->errors += !r[i].ok;
        if (!counted && r[i].summarized) {
            free((char *)r[i].s.out_dir);
            store_free(&r[i].s);
        }
        if (counted) {
            reduced += r[i].reduced[0] != '\0';
            r[kept++] = r[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (root != NULL && r != NULL) {
        size_t n_full = label(r, kept);
        struct reproduction self;
        long at = d != NULL ? kept_as(s, r, kept) : -1;
        int show = d != NULL && at < 0;        /* no run: a plan */
        /* <<describe-this-run-beside-the-kept>>, paper/96-reproductions.md */
        if (show) {
            memset(&self, 0, sizeof self);
            describe_the_machine(d, &self);
            snprintf(self.label, sizeof self.label, "This run");
            snprintf(self.id, sizeof self.id, "data/, not kept");
        }
        /* <<write-the-tables-across-runs>>, paper/96-reproductions.md */
        put_count(s, "across.count", (double)n_full);
        put_count(s, "across.reduced", (double)reduced);
        put_span(s, r, n_full);
        put_text(s, "across.this_run", show ? "shown" : "kept");
        put_text(s, "across.this_label", at >= 0 ? r[at].label : "none");
        claims_table(s, r, n_full, kept, show); /* with none kept, the tables are headers */
        estimates_table(s, r, kept, show ? &self : NULL);
        pooled_table(s, r, n_full);
        model_table(s, r, n_full);
        machines_table(s, r, kept, show ? &self : NULL);
        const struct store **full = calloc(n_full ? n_full : 1, sizeof *full);
        for (size_t i = 0; full != NULL && i < n_full; i++)
            full[i] = &r[i].s;
        if (full != NULL)
            plan_units(d, s, full, n_full);
        free((void *)full);
    } else if (root != NULL) {
        s->errors++;
    }
    for (size_t i = 0; r != NULL && i < kept; i++) {
        free((char *)r[i].s.out_dir);
        store_free(&r[i].s);
    }
    free(r);
}
