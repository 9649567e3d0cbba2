/*
 * checks.h - the files of a run against each other.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_CHECKS_H
#define IPCTAX_CHECKS_H

#include "report/model.h"

/* Every file's key is unique and every rule holds; 0, or -1 with the first
 * problem, and its file, line and column, in err. */
int run_checks(const struct run_data *d, const struct loaded_file *files, size_t n_files,
               char *err, size_t err_size);

#endif
