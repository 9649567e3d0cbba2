/*
 * kernel.c - ipctax-kernel: one naive sweep of the spec's series, printed.
 *
 * Tangled from paper/78-counts.md.
 *
 * Usage: ipctax-kernel [BARS [COMBOS]]
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel/grid.h"
#include "kernel/kernel.h"
#include "kernel/series.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<the-kernel-tools-usage>>, paper/78-counts.md */
static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-kernel [BARS [COMBOS]]\n"
                "Runs the naive kernel once over the first BARS bars of the study's\n"
                "series (1..100000000, default %d) and COMBOS combinations of its grid\n"
                "(1..100000, default %d), and prints combo,pnl,trades for each.\n"
                "\n"
                "  -h, --help   this text\n"
                "  --version    the commit this program was built from\n"
                "\n"
                "Exit status: 0 when the sweep ran; 1 when out of memory; 2 for a\n"
                "refused command line.\n", DEFAULT_BARS, DEFAULT_COMBOS);
}

/* <<sweep-once-and-print>>, paper/78-counts.md */
int main(int argc, char **argv)
{
    long bars = DEFAULT_BARS, combos = DEFAULT_COMBOS;
    char err[256];
    int status;
    if (options_of_operands(argc, argv, "ipctax-kernel", IPCTAX_COMMIT, usage, &status))
        return status;
    if (argc > 3)
        return usage_error("ipctax-kernel", "unexpected argument '%s'", argv[3]);
    if ((argc > 1 && option_long("BARS", argv[1], 1, 100000000, &bars, err, sizeof err) != 0) ||
        (argc > 2 && option_long("COMBOS", argv[2], 1, 100000, &combos, err, sizeof err) != 0))
        return usage_error("ipctax-kernel", "%s", err);
    double *close = malloc((size_t)bars * sizeof *close);
    struct combo_params *params = malloc((size_t)combos * sizeof *params);
    struct combo_result *results = malloc((size_t)combos * sizeof *results);
    struct sweep_workspace ws;
    sweep_workspace_init(&ws, NULL);
    if (close == NULL || params == NULL || results == NULL) {
        fprintf(stderr, "ipctax-kernel: out of memory\n");
        return 1;
    }
    gbm_series(close, (size_t)bars, DEFAULT_SEED);
    grid_fill(params, (size_t)combos);
    /* The series is loaded first, as the engine decodes it into its workspace
     * before it calls the kernel: the kernel then does the same work here. */
    if (sweep_workspace_load(&ws, close, (size_t)bars) != 0 ||
        sweep_naive_in(&ws, ws.series, (size_t)bars, params, (size_t)combos, results) != 0) {
        fprintf(stderr, "ipctax-kernel: out of memory for the workspace\n");
        return 1;
    }
    printf("combo,pnl,trades\n");
    for (long k = 0; k < combos; k++)
        printf("%ld,%.17g,%lld\n", k, results[k].pnl, (long long)results[k].trades);
    sweep_workspace_free(&ws);
    free(close);
    free(params);
    free(results);
    return 0;
}
