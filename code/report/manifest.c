/*
 * manifest.c - a run's files and their SHA-256, and installing a run whole.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/manifest.h"
#include "report/model.h"
#include "schema/data_out.h"
#include "util/csvout.h"
#include "util/error.h"

/* <<a-file-listed-once>>, paper/90-appendix-report.md */
static int is_of_the_run(const struct data_file *file)
{
    return file != NULL && !(file->flags & NOT_OF_THE_RUN);
}

/* What a manifest may list: a file of a run; a kept run's, also README.md
 * and the files data/ carries over from run to run. */
static int may_be_listed(const char *name, enum run_folder kind)
{
    if (kind == RUN_KEPT && strcmp(name, "README.md") == 0)
        return 1;
    const struct data_file *file = data_file_named(name);
    return kind == RUN_KEPT ? file != NULL : is_of_the_run(file);
}

/* The manifest's row for name; -1 if it has none, -2 (with err) if it has two. */
static int listed_at(const struct csv_table *m, int name_col, const char *name,
                     const char *path, char *err, size_t err_size)
{
    int at = -1;
    for (size_t r = 0; r < m->n_rows; r++) {
        if (strcmp(csv_table_cell(m, r, name_col), name) != 0)
            continue;
        if (at >= 0) {
            set_error(err, err_size, "%s line %zu: %s is listed twice", path,
                      csv_table_line(m, r), name);
            return -2;
        }
        at = (int)r;
    }
    return at;
}

static int check_listed_files(const struct csv_table *m, enum run_folder kind, const char *path,
                              char *err, size_t err_size)
{
    int name_col = csv_table_column(m, "file");
    for (size_t r = 0; r < m->n_rows; r++) {
        const char *name = csv_table_cell(m, r, name_col);
        if (!may_be_listed(name, kind))
            return set_error(err, err_size, "%s line %zu: %s is not a file of a %s", path,
                             csv_table_line(m, r), name, kind == RUN_KEPT ? "kept run" : "run");
        if (listed_at(m, name_col, name, path, err, err_size) < -1)
            return -1;
    }
    for (size_t i = 0; kind == RUN_KEPT && i <= N_DATA_FILES; i++) {
        const char *name = i < N_DATA_FILES ? DATA_FILES[i].name : "README.md";
        int added = i < N_DATA_FILES && (DATA_FILES[i].flags & ADDED_FILE);
        if (listed_at(m, name_col, name, path, err, err_size) == -1 && !added)
            return set_error(err, err_size, "%s does not list %s: a kept run lists every file "
                             "it holds", path, name);
    }
    return 0;
}

/* <<verify-a-manifest>>, paper/90-appendix-report.md */
int manifest_load(const char *dir, enum run_folder kind, struct csv_table *m, char *err,
                  size_t err_size)
{
    char path[4096], sha[65];
    uint64_t bytes;
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    memset(m, 0, sizeof *m);
    if (access(path, F_OK) != 0)
        return set_error(err, err_size, "%s has no manifest.csv: not a run that `make "
                         "measure` completed (see data/README.md)", dir);
    if (file_digest(path, MAX_NOTE_BYTES, &bytes, sha, err, err_size) != 0 ||
        csv_table_load(path, m, err, err_size) != 0)
        return -1;
    int status = 0;
    if (csv_table_column(m, "file") < 0 || csv_table_column(m, "sha256") < 0)
        status = set_error(err, err_size, "%s has no column file or sha256", path);
    else if (kind == RUN_KEPT && csv_table_column(m, "bytes") < 0)
        status = set_error(err, err_size, "%s has no column bytes: a run kept before files "
                           "were listed with their lengths (keep it again with "
                           "ipctax-summary --reproduction)", path);
    else
        status = check_listed_files(m, kind, path, err, err_size);
    if (status != 0)
        csv_table_free(m);
    return status;
}
/* The length row r lists, into *bytes; 0, or -1 when it is not a whole number. */
static int listed_bytes(const struct csv_table *m, size_t r, int col, uint64_t *bytes,
                        char *err, size_t err_size)
{
    const char *text = csv_table_cell(m, r, col);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0)
        return set_error(err, err_size, "manifest.csv line %zu: bytes '%s' is not a length",
                         csv_table_line(m, r), text);
    *bytes = v;
    return 0;
}

int manifest_check_file(const struct csv_table *m, const char *name, const char *path,
                        uint64_t most, char *err, size_t err_size)
{
    int name_col = csv_table_column(m, "file"), sha_col = csv_table_column(m, "sha256");
    int bytes_col = csv_table_column(m, "bytes");
    int r = listed_at(m, name_col, name, "manifest.csv", err, err_size);
    uint64_t listed = most, got;
    char sha[65];
    if (r < -1 || (r >= 0 && bytes_col >= 0 &&
                   listed_bytes(m, (size_t)r, bytes_col, &listed, err, err_size) != 0))
        return -1;
    if (listed > most)
        return set_error(err, err_size, "%s: manifest.csv line %zu lists %llu bytes, more than "
                         "the %llu a file of a run may have", path, csv_table_line(m, (size_t)r),
                         (unsigned long long)listed, (unsigned long long)most);
    int digested = file_digest(path, listed, &got, sha, err, err_size);
    if (digested == -2 && r >= 0 && bytes_col >= 0)
        return set_error(err, err_size, "%s: longer than the %llu bytes manifest.csv line %zu "
                         "lists: of another run, or changed since", path,
                         (unsigned long long)listed, csv_table_line(m, (size_t)r));
    if (digested != 0)
        return -1;
    if (r < 0)
        return 0;                      /* not listed: held to the cap alone */
    const char *want = csv_table_cell(m, (size_t)r, sha_col);
    if (bytes_col >= 0 && got != listed)
        return set_error(err, err_size, "%s: %llu bytes, but manifest.csv line %zu lists %llu: "
                         "cut short, or of another run", path, (unsigned long long)got,
                         csv_table_line(m, (size_t)r), (unsigned long long)listed);
    if (strcmp(sha, want) != 0)
        return set_error(err, err_size, "%s: its SHA-256 is %.16s..., manifest.csv line %zu "
                         "says %.16s...: a file of another run, or changed since", path, sha,
                         csv_table_line(m, (size_t)r), want);
    return 0;
}
int manifest_verify(const struct csv_table *m, const char *dir, const struct loaded_file *files,
                    size_t n_files, char *err, size_t err_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    int name_col = csv_table_column(m, "file"), sha_col = csv_table_column(m, "sha256");
    for (size_t i = 0; i < n_files; i++) {
        const struct loaded_file *f = &files[i];
        int r = listed_at(m, name_col, f->file->name, path, err, err_size);
        if (f->absent && r >= 0)
            return set_error(err, err_size, "%s lists %s, which is not there", path,
                             f->file->name);
        if (f->absent || (r == -1 && !is_of_the_run(f->file)))
            continue;                          /* an added file the run was made before */
        if (r == -1)
            return set_error(err, err_size, "%s does not list %s: the folder is not one run",
                             path, f->file->name);
        if (r < -1)
            return -1;
        if (strcmp(csv_table_cell(m, (size_t)r, sha_col), f->table.sha256) != 0)
            return set_error(err, err_size, "%s: its SHA-256 is %.16s..., %s line %zu says "
                             "%.16s...: a file of another run, or changed since", f->path,
                             f->table.sha256, path, csv_table_line(m, (size_t)r),
                             csv_table_cell(m, (size_t)r, sha_col));
    }
    return 0;
}

/* <<write-a-manifest>>, paper/90-appendix-report.md */
int stored_path(const char *dir, const char *name, char *path, size_t size, char *err,
                size_t err_size)
{
    char plain[4096], packed[4100];
    snprintf(plain, sizeof plain, "%s/%s", dir, name);
    snprintf(packed, sizeof packed, "%s.gz", plain);
    int has_packed = access(packed, F_OK) == 0;
    if (has_packed && access(plain, F_OK) == 0)
        return set_error(err, err_size, "%s and %s.gz are both there: one file stored twice",
                         plain, name);
    snprintf(path, size, "%s", has_packed ? packed : plain);
    return 0;
}
/* The name of a stored file without its ".gz", into base; whether it had one. */
static int unpacked_name(const char *name, char *base, size_t size)
{
    size_t n = strlen(name);
    int packed = n > 3 && strcmp(name + n - 3, ".gz") == 0;
    snprintf(base, size, "%.*s", (int)(packed ? n - 3 : n), name);
    return packed;
}

static int check_entry(const struct csv_table *m, const char *dir, const char *name, char *err,
                       size_t err_size)
{
    char path[4400], base[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) != 0)
        return set_error(err, err_size, "%s: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return set_error(err, err_size, "%s is a symbolic link: a kept run holds files of its "
                         "own", path);
    if (!S_ISREG(st.st_mode))
        return set_error(err, err_size, "%s is not a file: a kept run holds files only", path);
    if (strcmp(name, "manifest.csv") == 0)
        return 0;
    int packed = unpacked_name(name, base, sizeof base);
    int r = listed_at(m, csv_table_column(m, "file"), base, "manifest.csv", err, err_size);
    if (r == -1 || (packed && strcmp(base, "README.md") == 0))
        return set_error(err, err_size, "%s is not a file its manifest lists (data/README.md "
                         "names the files of a run)", path);
    return r < 0 ? -1 : 0;
}

int manifest_covers_the_folder(const struct csv_table *m, const char *dir, char *err,
                               size_t err_size)
{
    char readme[4400];
    DIR *d = opendir(dir);
    int status = 0;
    if (d == NULL)
        return set_error(err, err_size, "%s: %s", dir, strerror(errno));
    for (struct dirent *e; status == 0 && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            status = check_entry(m, dir, e->d_name, err, err_size);
    closedir(d);
    snprintf(readme, sizeof readme, "%s/README.md", dir);
    return status != 0 ? -1 : manifest_check_file(m, "README.md", readme, MAX_NOTE_BYTES, err,
                                                  err_size);
}
static int is_allowed_in_a_run(const char *name)
{
    char base[256];
    unpacked_name(name, base, sizeof base);
    return strcmp(name, "README.md") == 0 || strcmp(name, "manifest.csv") == 0 ||
           data_file_named(base) != NULL;
}

static int refuse_strangers(const char *dir, char *err, size_t err_size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int status = 0;
    if (d == NULL)
        return set_error(err, err_size, "%s: %s", dir, strerror(errno));
    while (status == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            !is_allowed_in_a_run(e->d_name))
            status = set_error(err, err_size, "%s/%s is not a file of a run (data/README.md "
                                "lists them)", dir, e->d_name);
    closedir(d);
    return status;
}

/* One row of the manifest: the file `name` of dir, its digest and length. */
/* Whether dir holds name, plainly or compressed: an added file a run made
 * before it existed does not, and is not listed. */
static int is_stored(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK) == 0)
        return 1;
    snprintf(path, sizeof path, "%s/%s.gz", dir, name);
    return access(path, F_OK) == 0;
}

static int list_file(struct data_out *out, const char *dir, const char *name, uint64_t most,
                     char *err, size_t err_size)
{
    char path[4200], sha[65];
    uint64_t bytes;
    if (stored_path(dir, name, path, sizeof path, err, err_size) != 0 ||
        file_digest(path, most, &bytes, sha, err, err_size) != 0)
        return -1;
    data_text(out, MANIFEST_file, name);
    data_text(out, MANIFEST_sha256, sha);
    data_int(out, MANIFEST_bytes, (int64_t)bytes);
    data_end_row(out);
    return 0;
}

int manifest_write(const char *dir, enum run_folder kind, char *err, size_t err_size)
{
    char path[4096];
    struct data_out out;
    if (refuse_strangers(dir, err, err_size) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_FILE.name);
    if (data_out_open(&out, dir, MANIFEST_FILE.name, err, err_size) != 0)
        return -1;
    int status = 0;
    for (size_t i = 0; status == 0 && i < N_DATA_FILES; i++)
        if ((kind == RUN_KEPT || is_of_the_run(&DATA_FILES[i])) &&
            !((DATA_FILES[i].flags & ADDED_FILE) && !is_stored(dir, DATA_FILES[i].name)))
            status = list_file(&out, dir, DATA_FILES[i].name, MAX_RUN_FILE_BYTES, err, err_size);
    if (status == 0 && kind == RUN_KEPT)
        status = list_file(&out, dir, "README.md", MAX_NOTE_BYTES, err, err_size);
    if (status != 0) {
        data_out_abandon(&out);
        return -1;
    }
    if (data_out_close(&out) != 0)
        return set_error(err, err_size, "%s: cannot write it: %s", path, strerror(errno));
    return 0;
}

/* <<carry-over-what-is-not-the-runs>>, paper/90-appendix-report.md */
int copy_file(const char *from, const char *to, char *err, size_t err_size)
{
    char buf[65536];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = in != NULL ? fopen(to, "wb") : NULL;
    int status = in == NULL || out == NULL ? -1 : 0;
    while (status == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        status = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in != NULL && ferror(in))
        status = -1;
    if (out != NULL && fclose(out) != 0)
        status = -1;
    if (in != NULL)
        fclose(in);
    return status == 0 ? 0 : set_error(err, err_size, "cannot copy %s to %s: %s", from, to,
                                       strerror(errno));
}

/* The files kept across runs, and README.md, from data into stage unless it has them. */
static int carry_over(const char *stage, const char *data, char *err, size_t err_size)
{
    for (size_t i = 0; i <= N_DATA_FILES; i++) {
        const char *name = i < N_DATA_FILES ? DATA_FILES[i].name : "README.md";
        char from[4096], to[4096];
        if (i < N_DATA_FILES && is_of_the_run(&DATA_FILES[i]))
            continue;
        snprintf(from, sizeof from, "%s/%s", data, name);
        snprintf(to, sizeof to, "%s/%s", stage, name);
        if (access(to, F_OK) != 0 && access(from, F_OK) == 0 &&
            copy_file(from, to, err, err_size) != 0)
            return -1;
    }
    return 0;
}

/* <<exchange-the-folders>>, paper/90-appendix-report.md */
static int exchange(const char *stage, const char *data, char *err, size_t err_size)
{
    char aside[4096 + 16];
    if (renameat2(AT_FDCWD, stage, AT_FDCWD, data, RENAME_EXCHANGE) == 0)
        return 0;
    int why = errno;
    if (why == ENOENT && access(data, F_OK) != 0)      /* the first run: no data folder yet */
        return rename(stage, data) == 0 ? 0
                                        : set_error(err, err_size, "cannot rename %s to %s: %s",
                                                    stage, data, strerror(errno));
    if (why != EINVAL && why != ENOSYS)
        return set_error(err, err_size, "cannot exchange %s and %s: %s", stage, data,
                         strerror(why));
    snprintf(aside, sizeof aside, "%s.previous", stage);
    if (rename(data, aside) != 0 || rename(stage, data) != 0 || rename(aside, stage) != 0)
        return set_error(err, err_size, "cannot move %s into %s's place (the previous one is "
                          "in %s if it is not there): %s", stage, data, aside, strerror(errno));
    return 0;
}

int run_install(const char *stage, const char *data, char *err, size_t err_size)
{
    struct run_data d;
    if (carry_over(stage, data, err, err_size) != 0 ||
        manifest_write(stage, RUN_DATA, err, err_size) != 0 ||
        run_data_load(&d, stage, err, err_size) != 0)
        return -1;
    run_data_free(&d);
    return exchange(stage, data, err, err_size);
}
