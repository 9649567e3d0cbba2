/*
 * bundle.c - a folder of plain files as one tar (ustar) archive, and back.
 *
 * Tangled from paper/96-reproductions.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/bundle.h"
#include "util/error.h"

/* <<a-ustar-header>>, paper/96-reproductions.md */
enum { BLOCK = 512, NAME_FIELD = 100 };
/* The longest member eleven octal digits can state: 8 GiB less a byte. */
#define MAX_MEMBER_BYTES 077777777777ull

/* The header's checksum: its bytes summed, the checksum's own 8 as spaces. */
static unsigned header_sum(const unsigned char *h)
{
    unsigned sum = 0;
    for (size_t i = 0; i < BLOCK; i++)
        sum += i >= 148 && i < 156 ? ' ' : h[i];
    return sum;
}

static void make_header(unsigned char h[BLOCK], const char *name, uint64_t bytes)
{
    memset(h, 0, BLOCK);
    snprintf((char *)h, NAME_FIELD, "%s", name);
    memcpy(h + 100, "0000644", 8);                             /* mode */
    memcpy(h + 108, "0000000", 8);                             /* owner */
    memcpy(h + 116, "0000000", 8);                             /* group */
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)bytes & MAX_MEMBER_BYTES);
    memcpy(h + 136, "00000000000", 12);                        /* time */
    h[156] = '0';                                              /* a plain file */
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    snprintf((char *)h + 148, 8, "%06o", header_sum(h));
    h[155] = ' ';
}

/* <<write-a-bundle>>, paper/96-reproductions.md */
static int append_file(FILE *out, const char *member, const char *path, char *err,
                       size_t err_size)
{
    unsigned char h[BLOCK], buf[65536];
    FILE *in = fopen(path, "rb");
    long length;
    if (in == NULL || fseek(in, 0, SEEK_END) != 0 || (length = ftell(in)) < 0 ||
        fseek(in, 0, SEEK_SET) != 0) {
        if (in != NULL)
            fclose(in);
        return set_error(err, err_size, "cannot read %s: %s", path, strerror(errno));
    }
    if ((uint64_t)length > MAX_MEMBER_BYTES) {
        fclose(in);
        return set_error(err, err_size, "%s: too long for the archive's length field", path);
    }
    make_header(h, member, (uint64_t)length);
    int status = fwrite(h, 1, BLOCK, out) == BLOCK ? 0 : -1;
    size_t n, total = 0;
    while (status == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        total += n;
        status = total <= (size_t)length && fwrite(buf, 1, n, out) == n ? 0 : -1;
    }
    if (status == 0 && (ferror(in) || total != (size_t)length))
        status = -1;
    fclose(in);
    memset(buf, 0, BLOCK);
    size_t pad = (BLOCK - total % BLOCK) % BLOCK;
    if (status == 0 && fwrite(buf, 1, pad, out) != pad)
        status = -1;
    return status == 0 ? 0 : set_error(err, err_size, "cannot add %s to the archive", path);
}

int bundle_write(const char *path, const char *folder, const char *dir,
                 const char *const *names, size_t n_names, char *err, size_t err_size)
{
    char member[600], file[4400];
    unsigned char end[2 * BLOCK] = {0};
    FILE *out = fopen(path, "wb");
    if (out == NULL)
        return set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    int status = 0;
    for (size_t i = 0; status == 0 && i < n_names; i++) {
        if (strlen(folder) + 1 + strlen(names[i]) >= NAME_FIELD)
            status = set_error(err, err_size, "%s/%s: a name too long for the archive", folder,
                               names[i]);
        snprintf(member, sizeof member, "%.256s/%.256s", folder, names[i]);
        snprintf(file, sizeof file, "%s/%s", dir, names[i]);
        if (status == 0)
            status = append_file(out, member, file, err, err_size);
    }
    if (status == 0 && fwrite(end, 1, sizeof end, out) != sizeof end)
        status = set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    if (fclose(out) != 0 && status == 0)
        status = set_error(err, err_size, "cannot write %s: %s", path, strerror(errno));
    if (status != 0)
        unlink(path);
    return status;
}

/* <<read-a-bundle>>, paper/96-reproductions.md */
/* The header's octal field of `len` bytes at `at`: spaces, octal digits,
 * then a NUL or a space (or the field's end). 0, or -1. */
static int octal_field(const unsigned char *h, size_t at, size_t len, uint64_t *value)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < len && h[at + i] == ' ')
        i++;
    size_t first = i;
    for (; i < len && h[at + i] >= '0' && h[at + i] <= '7' && v < ((uint64_t)1 << 60); i++)
        v = v * 8 + (uint64_t)(h[at + i] - '0');
    if (i == first || (i < len && h[at + i] != '\0' && h[at + i] != ' '))
        return -1;
    *value = v;
    return 0;
}

static int is_zero_block(const unsigned char *h)
{
    for (size_t i = 0; i < BLOCK; i++)
        if (h[i] != 0)
            return 0;
    return 1;
}

/* The member's name, into folder and name, as the rules allow; the reason
 * it is refused, or NULL. */
static const char *member_refused(const unsigned char *h, const struct bundle_rules *rules,
                                  char *folder, size_t folder_size, char *name, size_t size,
                                  uint64_t *bytes)
{
    char full[NAME_FIELD + 1];
    uint64_t sum = 0;
    if (memchr(h, '\0', NAME_FIELD) == NULL || h[345] != '\0')
        return "its name is longer than the archive's field";
    snprintf(full, sizeof full, "%.*s", NAME_FIELD, (const char *)h);
    if (octal_field(h, 148, 8, &sum) != 0 || sum != header_sum(h))
        return "its header's checksum is wrong: the archive is damaged";
    if (memcmp(h + 257, "ustar", 5) != 0)
        return "not a ustar header";
    if (h[156] != '0' && h[156] != '\0')
        return "not a plain file (a folder, a link or a device): a kept run holds files only";
    if (octal_field(h, 124, 12, bytes) != 0)
        return "its length is not a number";
    if (*bytes > rules->most_bytes)
        return "longer than a file of a run may be";
    char *slash = strchr(full, '/');
    if (slash == NULL || strchr(slash + 1, '/') != NULL)
        return "not a file in the archive's one folder";
    *slash = '\0';
    if (!rules->folder_ok(full) || !rules->name_ok(slash + 1))
        return "not a name a kept run's file may have";
    if (folder[0] != '\0' && strcmp(folder, full) != 0)
        return "in another folder than the archive's first member";
    snprintf(folder, folder_size, "%s", full);
    snprintf(name, size, "%s", slash + 1);
    return NULL;
}

/* Copies bytes bytes of in, then its padding, into the new file dir/name. */
static int extract(FILE *in, const char *dir, const char *name, uint64_t bytes, char *why,
                   size_t why_size)
{
    char path[4400];
    unsigned char buf[BLOCK];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return set_error(why, why_size, errno == EEXIST ? "given twice" : "%s",
                         strerror(errno));
    int status = 0;
    for (uint64_t left = bytes; status == 0 && left > 0;) {
        size_t n = left < BLOCK ? (size_t)left : BLOCK;
        if (fread(buf, 1, BLOCK, in) != BLOCK)
            status = set_error(why, why_size, "cut short: the archive ends inside it");
        else if (write(fd, buf, n) != (ssize_t)n)
            status = set_error(why, why_size, "cannot write it: %s", strerror(errno));
        left -= n;
    }
    if (close(fd) != 0 && status == 0)
        status = set_error(why, why_size, "cannot write it: %s", strerror(errno));
    return status;
}

int bundle_read(const char *path, const char *dir, const struct bundle_rules *rules,
                char *folder, size_t folder_size, char *err, size_t err_size)
{
    unsigned char h[BLOCK];
    char name[NAME_FIELD + 1], why[256];
    uint64_t bytes = 0;
    size_t members = 0;
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return set_error(err, err_size, "%s: %s", path, strerror(errno));
    folder[0] = '\0';
    int status = 1;                    /* 1: reading; 0: ended well; -1: refused */
    while (status == 1) {
        const char *refused = NULL;
        if (fread(h, 1, BLOCK, in) != BLOCK)
            status = set_error(err, err_size, "%s: cut short after %zu members, before the "
                               "archive's end", path, members);
        else if (is_zero_block(h))
            status = members > 0 ? 0 : set_error(err, err_size, "%s: an empty archive", path);
        else if (++members > rules->most_members)
            status = set_error(err, err_size, "%s: more members than a kept run has files "
                               "(%zu)", path, rules->most_members);
        else if ((refused = member_refused(h, rules, folder, folder_size, name, sizeof name,
                                           &bytes)) != NULL)
            status = set_error(err, err_size, "%s: member %zu (%.100s): %s", path, members,
                               (const char *)h, refused);
        else if (extract(in, dir, name, bytes, why, sizeof why) != 0)
            status = set_error(err, err_size, "%s: member %s/%s: %s", path, folder, name, why);
    }
    fclose(in);
    return status;
}
