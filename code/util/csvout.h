/*
 * csvout.h - the one writer of tidy CSV files, on top of libcsv.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_CSVOUT_H
#define IPCTAX_CSVOUT_H

#include <stdint.h>
#include <stdio.h>

struct csv_out {
    FILE *file;
    char path[4096];
    char temp_path[4096 + 8];
    int unnamed;               /* opened O_TMPFILE: temp_path does not exist yet */
    int fields_in_row;
    int failed;
};

/* Opens path's temporary and writes the header, unless n_columns is 0 (the
 * caller writes it); 0, or -1 with errno. */
int csv_out_open(struct csv_out *out, const char *path, const char *const *header,
                 int n_columns);
/* The columns of a header written as an array: no caller counts them. */
#define CSV_COLUMNS(header) ((int)(sizeof(header) / sizeof((header)[0])))
void csv_out_text(struct csv_out *out, const char *text);
void csv_out_int(struct csv_out *out, int64_t value);
void csv_out_double(struct csv_out *out, double value);         /* %.17g, round-trips */
void csv_out_fixed(struct csv_out *out, double value, int decimals);
void csv_out_empty(struct csv_out *out);                         /* not applicable */
void csv_out_end_row(struct csv_out *out);
/* Renames the file into place; returns 0, or -1 (and removes it) if anything failed. */
int csv_out_close(struct csv_out *out);
/* Removes the temporary: the previous file of that name, if any, stays. */
void csv_out_abandon(struct csv_out *out);

#endif
