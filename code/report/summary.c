/*
 * summary.c - ipctax-summary: reduces data/ to the values the paper quotes.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/compare.h"
#include "report/summarize.h"

static summarizer *const SUMMARIZERS[] = {
    summarize_run, summarize_sweep, summarize_architectures, summarize_calls, summarize_echo,
    summarize_cold, summarize_serialization, summarize_spawn, summarize_layout,
    summarize_roofline, summarize_counts, summarize_robustness, summarize_derived,
    summarize_design, summarize_claims,
};

static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-summary [--registry DIR] DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR]\n"
                "Writes OUT_DIR/values.csv, OUT_DIR/tables/*.csv, the figures' files and\n"
                "OUT_DIR/claims.txt from the run in DATA_DIR, judging the claims registered\n"
                "in DIR (default paper: claims.csv, claims-registered.csv, deviations.csv,\n"
                "registration.csv). With PUBLISHED_OUT_DIR (the OUT_DIR of a summary of the\n"
                "published run) it also compares the two runs (OUT_DIR/tables/compare.csv and\n"
                "OUT_DIR/compare.txt).\n");
}

int main(int argc, char **argv)
{
    char err[512];
    struct run_data d;
    struct store s;
    const char *registry = "paper";
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--registry") == 0) {
        registry = argv[2];
        argc -= 2, argv += 2;
    }
    if (argc != 3 && argc != 4) {
        usage(stderr);
        return 2;
    }
    if (run_data_load(&d, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        return 1;
    }
    mkdir(argv[2], 0777);
    store_init(&s, argv[2]);
    s.registry = registry;
    for (size_t i = 0; i < sizeof SUMMARIZERS / sizeof SUMMARIZERS[0]; i++)
        SUMMARIZERS[i](&d, &s);
    if (argc == 4)
        compare_with_published(&s, argv[3]);
    if (store_write(&s) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s/values.csv\n", argv[2]);
        s.errors++;
    }
    int status = s.errors ? 1 : 0;
    store_free(&s);
    run_data_free(&d);
    return status;
}
