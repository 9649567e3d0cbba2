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
#include "wire/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

static summarizer *const SUMMARIZERS[] = {
    summarize_run, summarize_sweep, summarize_architectures, summarize_calls, summarize_echo,
    summarize_serialization, summarize_spawn, summarize_layout, summarize_roofline,
    summarize_counts, summarize_robustness, summarize_derived, summarize_claims,
};

static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-summary DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR]\n"
                "Writes OUT_DIR/values.csv, OUT_DIR/tables/*.csv, the figures' files and\n"
                "OUT_DIR/claims.txt from the run in DATA_DIR. With PUBLISHED_OUT_DIR (the\n"
                "OUT_DIR of a summary of the published run) it also compares the two runs\n"
                "(OUT_DIR/tables/compare.csv and OUT_DIR/compare.txt).\n"
                "\n"
                "  -h, --help   this text\n"
                "  --version    the commit this program was built from\n"
                "\n"
                "Exit status: 0 when every value was written; 1 when DATA_DIR cannot be\n"
                "read or a value could not be computed or written; 2 for a refused\n"
                "command line.\n");
}

int main(int argc, char **argv)
{
    char err[512];
    struct run_data d;
    struct store s;
    int answered;
    if (options_of_operands(argc, argv, "ipctax-summary", IPCTAX_COMMIT, usage, &answered))
        return answered;
    if (argc != 3 && argc != 4)
        return usage_error("ipctax-summary", "expected DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR], "
                           "got %d argument%s", argc - 1, argc == 2 ? "" : "s");
    if (run_data_load(&d, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        return 1;
    }
    mkdir(argv[2], 0777);
    store_init(&s, argv[2]);
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
