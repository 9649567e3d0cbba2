/*
 * summary.c - ipctax-summary: reduces data/ to the values the paper quotes.
 *
 * Tangled from paper/91-appendix-data-to-prose.md and the chapters that
 * add a measurement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/summarize.h"

static void (*const SUMMARIZERS[])(struct summary *) = {
    summarize_run,
    summarize_original,
    summarize_sweep,
    summarize_architectures,
    summarize_echo,
    summarize_serialization,
    summarize_crossings,
    summarize_shm,
    summarize_derived,
    summarize_robustness,
    summarize_claims,
    summarize_comparison,
};

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: ipctax-summary DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR]\n"
                        "Writes OUT_DIR/values.csv, OUT_DIR/tables/*.csv and the\n"
                        "derived files the figures plot. With PUBLISHED_OUT_DIR (the\n"
                        "OUT_DIR of a summary of the published run) it also compares\n"
                        "this run with the published one.\n");
        return 2;
    }
    struct summary s = {.data_dir = argv[1], .out_dir = argv[2],
                        .published_dir = argc == 4 ? argv[3] : NULL};
    char path[4096];
    snprintf(path, sizeof path, "%s/tables", s.out_dir);
    mkdir(s.out_dir, 0777);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/values.csv", s.out_dir);
    if (csv_out_open(&s.values, path) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s\n", path);
        return 1;
    }
    static const char *const header[] = {"key", "value"};
    csv_out_header(&s.values, header, 2);
    for (size_t i = 0; i < sizeof SUMMARIZERS / sizeof SUMMARIZERS[0]; i++)
        SUMMARIZERS[i](&s);
    if (csv_out_close(&s.values) != 0)
        s.errors++;
    free(s.numbers);
    return s.errors ? 1 : 0;
}
