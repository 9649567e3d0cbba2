/*
 * csvout.c - tidy CSV through libcsv, written atomically.
 *
 * Tangled from paper/40-harness.md.
 */
#include <csv.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/csvout.h"

/* <<open-a-file-without-a-name>>, paper/40-harness.md */
/* A file with no name in the folder of `path`, or NULL where the file
 * system cannot make one. */
static FILE *open_unnamed_beside(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';                             /* "/x": the root */
    else
        *slash = '\0';
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    return f;
}

/* <<open-a-file-and-write-its-header>>, paper/40-harness.md */
int csv_out_open(struct csv_out *out, const char *path, const char *const *header,
                 int n_columns)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->temp_path, sizeof out->temp_path, "%s.tmp", path);
    out->file = open_unnamed_beside(path);
    out->unnamed = out->file != NULL;
    if (out->file == NULL)
        out->file = fopen(out->temp_path, "w");
    if (out->file == NULL)
        return -1;
    for (int i = 0; i < n_columns; i++)
        csv_out_text(out, header[i]);
    if (n_columns > 0)
        csv_out_end_row(out);
    return 0;
}

/* <<name-a-complete-file-and-rename-it>>, paper/40-harness.md */
/* Gives an unnamed file its temporary name; 0, or -1. */
static int name_the_file(struct csv_out *out)
{
    char self[64];
    if (!out->unnamed)
        return 0;
    snprintf(self, sizeof self, "/proc/self/fd/%d", fileno(out->file));
    unlink(out->temp_path);                        /* a killed older writer's */
    return linkat(AT_FDCWD, self, AT_FDCWD, out->temp_path, AT_SYMLINK_FOLLOW);
}

int csv_out_close(struct csv_out *out)
{
    if (out->file == NULL)
        return -1;
    int failed = out->failed | (fflush(out->file) != 0) | ferror(out->file);
    failed |= !failed && name_the_file(out) != 0;
    int named = !out->unnamed || !failed;
    failed |= fclose(out->file) != 0;
    out->file = NULL;
    if (failed) {
        if (named)
            remove(out->temp_path);
        return -1;
    }
    return rename(out->temp_path, out->path) == 0 ? 0 : -1;
}

/* <<abandon-a-file>>, paper/40-harness.md */
void csv_out_abandon(struct csv_out *out)
{
    if (out->file == NULL)
        return;
    fclose(out->file);                             /* an unnamed file vanishes with it */
    out->file = NULL;
    if (!out->unnamed)
        remove(out->temp_path);
}

/* <<csv-out-fields>>, paper/40-harness.md */
static void begin_field(struct csv_out *out)
{
    if (out->fields_in_row++ > 0)
        fputc(',', out->file);
}

void csv_out_text(struct csv_out *out, const char *text)
{
    begin_field(out);
    if (strpbrk(text, ",\"\r\n") != NULL) {
        if (csv_fwrite(out->file, text, strlen(text)) != 0)
            out->failed = 1;
    } else {
        fputs(text, out->file);
    }
}

void csv_out_int(struct csv_out *out, int64_t value)
{
    begin_field(out);
    fprintf(out->file, "%" PRId64, value);
}

void csv_out_double(struct csv_out *out, double value)
{
    begin_field(out);
    if (isfinite(value))
        fprintf(out->file, "%.17g", value);
}

void csv_out_fixed(struct csv_out *out, double value, int decimals)
{
    begin_field(out);
    if (isfinite(value))
        fprintf(out->file, "%.*f", decimals, value);
}

void csv_out_empty(struct csv_out *out)
{
    begin_field(out);
}

void csv_out_end_row(struct csv_out *out)
{
    fputc('\n', out->file);
    out->fields_in_row = 0;
}
