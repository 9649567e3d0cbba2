/*
 * csvout.c - tidy CSV through libcsv, written atomically.
 *
 * Tangled from paper/40-harness.md.
 */
#include <csv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/csvout.h"

int csv_out_open(struct csv_out *out, const char *path, const char *const *header,
                 int n_columns)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->temp_path, sizeof out->temp_path, "%s.tmp", path);
    out->file = fopen(out->temp_path, "w");
    if (out->file == NULL)
        return -1;
    for (int i = 0; i < n_columns; i++)
        csv_out_text(out, header[i]);
    csv_out_end_row(out);
    return 0;
}

int csv_out_close(struct csv_out *out)
{
    if (out->file == NULL)
        return -1;
    int failed = out->failed | ferror(out->file);
    failed |= fclose(out->file) != 0;
    out->file = NULL;
    if (failed) {
        remove(out->temp_path);
        return -1;
    }
    return rename(out->temp_path, out->path) == 0 ? 0 : -1;
}

void csv_out_abandon(struct csv_out *out)
{
    if (out->file != NULL)
        fclose(out->file);
    out->file = NULL;
    remove(out->temp_path);
}

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
