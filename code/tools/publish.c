/*
 * publish.c - ipctax-publish FROM TO KINDS [FROM TO KINDS]...: the files of
 * those kinds in each staging folder FROM moved into TO, all of them or,
 * if any cannot be, none.
 *
 * Tangled from paper/98-appendix-publish.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<publish-usage>>, paper/98-appendix-publish.md */
static void usage(FILE *to)
{
    fputs("usage: ipctax-publish FROM TO KINDS [FROM TO KINDS]...\n"
          "Moves the files of FROM whose names end in one of KINDS (comma-separated:\n"
          "html,pdf,csv) into TO, for every triple, all of them or none: each is copied\n"
          "beside its place first, and only when every copy is whole are they renamed\n"
          "into place. Files of those kinds in TO that FROM lacks are then removed.\n"
          "\n"
          "  -h, --help   this text\n"
          "  --version    the commit this program was built from\n"
          "\n"
          "Exit status: 0 when everything was published; 1 when nothing was (TO as it\n"
          "was); 2 for a refused command line.\n",
          to);
}

/* <<the-files-to-publish>>, paper/98-appendix-publish.md */
enum { MAX_FILES = 512 };

struct staged {
    char from[4096], to[4096];         /* the staged file, and its place */
    char copy[4200];                   /* its copy beside its place, until renamed */
};

/* Whether name ends in ".KIND" for one of the comma-separated kinds. */
static int of_kind(const char *name, const char *kinds)
{
    size_t n = strlen(name);
    for (const char *k = kinds; *k != '\0';) {
        size_t len = strcspn(k, ",");
        if (n > len + 1 && name[n - len - 1] == '.' && strncmp(name + n - len, k, len) == 0)
            return 1;
        k += len + (k[len] == ',');
    }
    return 0;
}

/* Adds the files of `from` of these kinds to files[*n], placed in `to`. */
static int list_staged(struct staged *files, size_t *n, const char *from, const char *to,
                       const char *kinds, char *err, size_t err_size)
{
    DIR *d = opendir(from);
    if (d == NULL)
        return set_error(err, err_size, "%s: %s", from, strerror(errno));
    int status = 0;
    for (struct dirent *e; status == 0 && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !of_kind(e->d_name, kinds))
            continue;
        if (*n == MAX_FILES) {
            status = set_error(err, err_size, "more than %d files to publish", MAX_FILES);
            break;
        }
        struct staged *f = &files[(*n)++];
        snprintf(f->from, sizeof f->from, "%s/%s", from, e->d_name);
        snprintf(f->to, sizeof f->to, "%s/%s", to, e->d_name);
        snprintf(f->copy, sizeof f->copy, "%s/.%s.publishing", to, e->d_name);
    }
    closedir(d);
    return status;
}

/* <<copy-a-file-durably>>, paper/98-appendix-publish.md */
static int copy_durably(const char *from, const char *copy, char *err, size_t err_size)
{
    char buf[65536];
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return set_error(err, err_size, "cannot read %s: %s", from, strerror(errno));
    unlink(copy);                      /* one a killed publication left */
    int out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ssize_t n = 0;
    int status = out < 0 ? -1 : 0;
    while (status == 0 && (n = read(in, buf, sizeof buf)) > 0)
        for (ssize_t done = 0; status == 0 && done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno != EINTR)
                status = -1;
            done += w > 0 ? w : 0;
        }
    if (n < 0 || (out >= 0 && fsync(out) != 0))
        status = -1;
    int why = errno;
    if (out >= 0 && close(out) != 0 && status == 0)
        status = -1, why = errno;
    close(in);
    return status == 0 ? 0 : set_error(err, err_size, "cannot copy %s to %s: %s", from, copy,
                                       strerror(why));
}

/* <<publish-every-file-or-none>>, paper/98-appendix-publish.md */
static void remove_copies(const struct staged *files, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        unlink(files[i].copy);
}

/* 0; -1 when a copy failed (nothing published); -2 when a rename did. */
static int publish(const struct staged *files, size_t n, char *err, size_t err_size)
{
    for (size_t i = 0; i < n; i++)
        if (copy_durably(files[i].from, files[i].copy, err, err_size) != 0) {
            remove_copies(files, 0, i + 1);
            return -1;
        }
    for (size_t i = 0; i < n; i++)
        if (rename(files[i].copy, files[i].to) != 0) {
            set_error(err, err_size, "cannot rename %s to %s: %s; the files before it were "
                      "published, not it nor those after it", files[i].copy, files[i].to,
                      strerror(errno));
            remove_copies(files, i, n);
            return -2;
        }
    return 0;
}

/* <<remove-what-the-weave-no-longer-makes>>, paper/98-appendix-publish.md */
/* Removes the files of these kinds in `to` that `from` does not have. */
static void remove_stale(const char *from, const char *to, const char *kinds)
{
    DIR *d = opendir(to);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char staged[4400], published[4400];
        if (e->d_name[0] == '.' || !of_kind(e->d_name, kinds))
            continue;
        snprintf(staged, sizeof staged, "%s/%s", from, e->d_name);
        snprintf(published, sizeof published, "%s/%s", to, e->d_name);
        if (access(staged, F_OK) != 0)
            unlink(published);
    }
    if (d != NULL)
        closedir(d);
}

/* <<publish-the-weave>>, paper/98-appendix-publish.md */
int main(int argc, char **argv)
{
    static struct staged files[MAX_FILES];
    char err[ERR_SIZE];
    size_t n = 0;
    int status;
    if (options_of_operands(argc, argv, "ipctax-publish", IPCTAX_COMMIT, usage, &status))
        return status;
    if (argc < 4 || (argc - 1) % 3 != 0)
        return usage_error("ipctax-publish", "expected FROM TO KINDS triples, got %d operands",
                           argc - 1);
    sigset_t hold, before;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    sigprocmask(SIG_BLOCK, &hold, &before);
    status = 0;
    for (int i = 1; status == 0 && i < argc; i += 3) {
        if (mkdir(argv[i + 1], 0777) != 0 && errno != EEXIST)
            status = set_error(err, sizeof err, "cannot make %s: %s", argv[i + 1],
                               strerror(errno));
        else
            status = list_staged(files, &n, argv[i], argv[i + 1], argv[i + 2], err, sizeof err);
    }
    if (status == 0)
        status = publish(files, n, err, sizeof err);
    for (int i = 1; status == 0 && i < argc; i += 3)
        remove_stale(argv[i], argv[i + 1], argv[i + 2]);
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (status != 0) {
        fprintf(stderr, "ipctax-publish: %s%s\n", err,
                status == -1 ? "; nothing was published" : "");
        return 1;
    }
    return 0;
}
