/*
 * manifest.h - a run's files and their SHA-256, and installing a run whole.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_MANIFEST_H
#define IPCTAX_MANIFEST_H

#include <stddef.h>

#include "report/model.h"

/* dir/manifest.csv lists exactly the files of the run among `files`, with
 * the SHA-256 they were read with; 0, or -1 naming the file in err. */
int manifest_verify(const char *dir, const struct loaded_file *files, size_t n_files,
                    char *err, size_t err_size);
/* Writes dir/manifest.csv for the files of the run in dir; refuses a folder
 * holding a file that is not one of a run's. 0, or -1 with err. */
int manifest_write(const char *dir, char *err, size_t err_size);
/* Makes the run in stage the data folder: carries over data's files that are
 * not of the run, writes stage's manifest, checks the whole folder as the
 * summary would, and only then exchanges stage and data in one rename.
 * Afterwards stage holds the previous data. 0, or -1 with err (data untouched). */
int run_install(const char *stage, const char *data, char *err, size_t err_size);
/* Copies the file from to the path to, byte for byte; 0, or -1 with err. */
int copy_file(const char *from, const char *to, char *err, size_t err_size);

#endif
