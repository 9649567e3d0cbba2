/*
 * manifest.c - a run's files and their SHA-256, and installing a run whole.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/manifest.h"
#include "report/model.h"
#include "schema/data_out.h"
#include "util/csvout.h"
#include "util/error.h"

static int is_of_the_run(const struct data_file *file)
{
    return file != NULL && !(file->flags & NOT_OF_THE_RUN);
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

static int check_listed_files(const struct csv_table *m, const char *path, char *err,
                              size_t err_size)
{
    int name_col = csv_table_column(m, "file");
    for (size_t r = 0; r < m->n_rows; r++)
        if (!is_of_the_run(data_file_named(csv_table_cell(m, r, name_col))))
            return set_error(err, err_size, "%s line %zu: %s is not a file of a run", path,
                             csv_table_line(m, r), csv_table_cell(m, r, name_col));
    return 0;
}

int manifest_verify(const char *dir, const struct loaded_file *files, size_t n_files,
                    char *err, size_t err_size)
{
    char path[4096];
    struct csv_table m;
    snprintf(path, sizeof path, "%s/manifest.csv", dir);
    if (access(path, F_OK) != 0)
        return set_error(err, err_size, "%s has no manifest.csv: not a run that `make "
                         "measure` completed (see data/README.md)", dir);
    if (csv_table_load(path, &m, err, err_size) != 0)
        return -1;
    int name_col = csv_table_column(&m, "file"), sha_col = csv_table_column(&m, "sha256");
    int status = name_col < 0 || sha_col < 0
                     ? set_error(err, err_size, "%s has no column file or sha256", path)
                     : check_listed_files(&m, path, err, err_size);
    for (size_t i = 0; status == 0 && i < n_files; i++) {
        const struct loaded_file *f = &files[i];
        if (!is_of_the_run(f->file))
            continue;
        int r = listed_at(&m, name_col, f->file->name, path, err, err_size);
        if (f->absent && r >= 0)
            status = set_error(err, err_size, "%s lists %s, which is not there", path,
                               f->file->name);
        else if (f->absent)
            continue;                          /* an added file the run was made before */
        else if (r == -1)
            status = set_error(err, err_size, "%s does not list %s: the folder is not one "
                               "run", path, f->file->name);
        else if (r < -1)
            status = -1;
        else if (strcmp(csv_table_cell(&m, (size_t)r, sha_col), f->table.sha256) != 0)
            status = set_error(err, err_size, "%s: its SHA-256 is %.16s..., %s line %zu says "
                               "%.16s...: a file of another run, or changed since",
                               f->path, f->table.sha256, path, csv_table_line(&m, (size_t)r),
                               csv_table_cell(&m, (size_t)r, sha_col));
    }
    csv_table_free(&m);
    return status;
}

static int is_allowed_in_a_run(const char *name)
{
    return strcmp(name, "README.md") == 0 || strcmp(name, "manifest.csv") == 0 ||
           data_file_named(name) != NULL;
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

int manifest_write(const char *dir, char *err, size_t err_size)
{
    char path[4096];
    struct data_out out;
    if (refuse_strangers(dir, err, err_size) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_FILE.name);
    if (data_out_open(&out, dir, MANIFEST_FILE.name, err, err_size) != 0)
        return -1;
    for (size_t i = 0; i < N_DATA_FILES; i++) {
        struct csv_table t;
        char file[4096];
        if (!is_of_the_run(&DATA_FILES[i]))
            continue;
        snprintf(file, sizeof file, "%s/%s", dir, DATA_FILES[i].name);
        if ((DATA_FILES[i].flags & ADDED_FILE) && access(file, F_OK) != 0)
            continue;                          /* an added file this run did not make */
        if (csv_table_load(file, &t, err, err_size) != 0) {
            data_out_abandon(&out);
            return -1;
        }
        data_text(&out, MANIFEST_file, DATA_FILES[i].name);
        data_text(&out, MANIFEST_sha256, t.sha256);
        data_end_row(&out);
        csv_table_free(&t);
    }
    if (data_out_close(&out) != 0)
        return set_error(err, err_size, "%s: cannot write it: %s", path, strerror(errno));
    return 0;
}

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
    if (carry_over(stage, data, err, err_size) != 0 || manifest_write(stage, err, err_size) != 0 ||
        run_data_load(&d, stage, err, err_size) != 0)
        return -1;
    run_data_free(&d);
    return exchange(stage, data, err, err_size);
}
