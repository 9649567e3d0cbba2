/*
 * record.c - ipctax-record FILE: "key,value" lines on stdin into FILE,
 * through the one CSV writer, atomically.
 *
 * Tangled from paper/40-harness.md.
 */
#include <stdio.h>
#include <string.h>

#include "schema/data_out.h"
#include "util/error.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<record-usage>>, paper/40-harness.md */
static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-record FILE < key,value lines\n"
                "Writes the key,value lines of its standard input (a first line\n"
                "'key,value' is dropped) to FILE as CSV, under a temporary name that\n"
                "is renamed to FILE once every line was good; a key is lower-case\n"
                "letters, digits, '_', '.' and '-'.\n"
                "\n"
                "  -h, --help   this text\n"
                "  --version    the commit this program was built from\n"
                "\n"
                "Exit status: 0 when FILE was written; 1 when a line is not key,value,\n"
                "there is none, or FILE cannot be written (FILE is then left as it was);\n"
                "2 for a refused command line.\n");
}

/* <<what-a-key-is>>, paper/40-harness.md */
/* A key is lower-case letters, digits, '_', '.' and '-'. */
static int is_key(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strchr("abcdefghijklmnopqrstuvwxyz0123456789_.-", s[i]) == NULL)
            return 0;
    return 1;
}

/* <<open-a-record-file>>, paper/40-harness.md */
/* Opens FILE, which must be a key-value file of the schema, by its folder and name. */
static int open_record(struct data_out *out, const char *file)
{
    char dir[4096], err[ERR_SIZE];
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash != NULL ? (int)(slash - file) : 1,
             slash != NULL ? file : ".");
    const struct data_file *f = data_file_named(slash != NULL ? slash + 1 : file);
    if (f == NULL || !(f->flags & KEY_VALUE)) {
        fprintf(stderr, "ipctax-record: %s is not a key-value file of data/\n", file);
        return -1;
    }
    if (data_out_open(out, dir, f->name, err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-record: %s\n", err);
        return -1;
    }
    return 0;
}

/* <<record-every-line-or-none>>, paper/40-harness.md */
int main(int argc, char **argv)
{
    char line[4096];
    struct data_out out;
    long rows = 0, lineno = 0;
    int status;
    if (options_of_operands(argc, argv, "ipctax-record", IPCTAX_COMMIT, usage, &status))
        return status;
    if (argc != 2)
        return usage_error("ipctax-record", "expected one FILE, got %d", argc - 1);
    if (open_record(&out, argv[1]) != 0)
        return 1;
    while (fgets(line, sizeof line, stdin) != NULL) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *comma = strchr(line, ',');
        if (lineno == 1 && strcmp(line, "key,value") == 0)
            continue;                          /* a header is allowed, and dropped */
        if (comma == NULL || !is_key(line, (size_t)(comma - line))) {
            fprintf(stderr, "ipctax-record: %s: line %ld is not key,value: '%s'\n", argv[1],
                    lineno, line);
            data_out_abandon(&out);
            return 1;
        }
        *comma = '\0';
        data_key_text(&out, line, comma + 1);
        rows++;
    }
    if (rows == 0) {
        fprintf(stderr, "ipctax-record: %s: no rows\n", argv[1]);
        data_out_abandon(&out);
        return 1;
    }
    return data_out_close(&out) == 0 ? 0 : 1;
}
