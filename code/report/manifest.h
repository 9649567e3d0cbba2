/*
 * manifest.h - a run's files and their SHA-256, and installing a run whole.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_MANIFEST_H
#define IPCTAX_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "report/csvread.h"
#include "report/model.h"

/* The most bytes a file of a run may hold (a compressed file's content):
 * 64 MiB, twenty times the longest file of a full run (echo.csv, 3 MB),
 * room for a run of --scale 10 or of hundreds of rounds. Parsed, a file
 * takes some ten times its length in memory, and the summary reads one run
 * per CPU at a time: a longer file is refused before it is parsed. */
#define MAX_RUN_FILE_BYTES ((uint64_t)64 << 20)
/* A manifest, and a kept run's README.md: a list of files, a page of text. */
#define MAX_NOTE_BYTES ((uint64_t)64 << 10)

/* Reads dir/manifest.csv into m and checks what it lists: files of a run,
 * each once; a kept run's lists every file of a run and README.md, with
 * their lengths. 0, or -1 with err (m then holds nothing). */
int manifest_load(const char *dir, enum run_folder kind, struct csv_table *m, char *err,
                  size_t err_size);
/* Reads the file `name`, stored at path, to its end before anything parses
 * it: no longer than `most` bytes, and as long as and with the SHA-256 that
 * m lists for it, if m lists it. 0, or -1 naming the file in err. */
int manifest_check_file(const struct csv_table *m, const char *name, const char *path,
                        uint64_t most, char *err, size_t err_size);
/* Every file of the run among `files` is listed in m, and every listed one
 * was parsed with the SHA-256 m gives (it did not change after its check).
 * 0, or -1 naming the file in err. */
int manifest_verify(const struct csv_table *m, const char *dir, const struct loaded_file *files,
                    size_t n_files, char *err, size_t err_size);
/* A kept run's folder holds its manifest and the files m lists, each a
 * plain file of its own (no link, no folder), and nothing else; its
 * README.md is the one m lists. 0, or -1 naming the entry in err. */
int manifest_covers_the_folder(const struct csv_table *m, const char *dir, char *err,
                               size_t err_size);
/* Where the file `name` of dir is stored, into path: dir/name, or
 * compressed, dir/name.gz. 0, or -1 when it is stored both ways. */
int stored_path(const char *dir, const char *name, char *path, size_t size, char *err,
                size_t err_size);
/* Writes dir/manifest.csv for the files of the run in dir (of a kept run:
 * every file it holds, README.md too); refuses a folder holding a file that
 * is not one of a run's. 0, or -1 with err. */
int manifest_write(const char *dir, enum run_folder kind, char *err, size_t err_size);
/* Makes the run in stage the data folder: carries over data's files that are
 * not of the run, writes stage's manifest, checks the whole folder as the
 * summary would, and only then exchanges stage and data in one rename.
 * Afterwards stage holds the previous data. 0, or -1 with err (data untouched). */
int run_install(const char *stage, const char *data, char *err, size_t err_size);
/* Copies the file from to the path to, byte for byte; 0, or -1 with err. */
int copy_file(const char *from, const char *to, char *err, size_t err_size);

#endif
