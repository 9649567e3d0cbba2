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
#include "wire/options.h"

int main(int argc, char **argv)
{
    long bars = DEFAULT_BARS, combos = DEFAULT_COMBOS;
    if (argc > 3 || (argc > 1 && parse_long_in_range(argv[1], 1, 100000000, &bars) != 0) ||
        (argc > 2 && parse_long_in_range(argv[2], 1, 100000, &combos) != 0)) {
        fprintf(stderr, "usage: ipctax-kernel [BARS (1..100000000) [COMBOS (1..100000)]]\n");
        return 2;
    }
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
