/*
 * bundle.h - a folder of plain files as one tar (ustar) archive, and back.
 *
 * Tangled from paper/96-reproductions.md.
 */
#ifndef IPCTAX_BUNDLE_H
#define IPCTAX_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

/* Writes the files `names` of dir into the archive at path, each as
 * folder/NAME, and the archive's end. 0, or -1 with err (no file left). */
int bundle_write(const char *path, const char *folder, const char *dir,
                 const char *const *names, size_t n_names, char *err, size_t err_size);

/* What a reader accepts: a member's folder and name, how long, how many. */
struct bundle_rules {
    int (*folder_ok)(const char *folder);
    int (*name_ok)(const char *name);
    uint64_t most_bytes;               /* of one member */
    size_t most_members;
};

/* Reads the archive at path into the existing, empty folder dir: every
 * member a plain file folder/NAME, one folder for all, as the rules allow,
 * each name once. The folder's name goes into folder. 0, or -1 with err
 * naming the archive and the member (dir may then hold some of them). */
int bundle_read(const char *path, const char *dir, const struct bundle_rules *rules,
                char *folder, size_t folder_size, char *err, size_t err_size);

#endif
