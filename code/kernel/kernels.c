/*
 * kernels.c - the table of kernels.
 *
 * Tangled from paper/35-tuned-kernel.md.
 */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel_tuned.h"
#include "kernel/kernels.h"
#include "util/error.h"

/* <<the-kernels-as-sweeps>>, paper/35-tuned-kernel.md */
static int sweep_tuned_one_thread(struct sweep_workspace *ws, const double *close,
                                  size_t n_bars, const struct combo_params *params,
                                  size_t n_combos, struct combo_result *results)
{
    return sweep_tuned_in(ws, close, n_bars, params, n_combos, results, 1);
}

static int sweep_tuned_every_core(struct sweep_workspace *ws, const double *close,
                                  size_t n_bars, const struct combo_params *params,
                                  size_t n_combos, struct combo_result *results)
{
    return sweep_tuned_in(ws, close, n_bars, params, n_combos, results, 0);
}

/* <<the-table-of-kernels>>, paper/35-tuned-kernel.md */
const struct kernel_entry KERNELS[] = {
    {"naive", sweep_naive_in, 1, 1, "the kernel of the specification, as written"},
    {"tuned", sweep_tuned_one_thread, 1, 1, "the tuned kernel on one thread"},
    {"tuned_all_cores", sweep_tuned_every_core, 0, 0, "the tuned kernel on every core"},
    {"numba", NULL, 1, 0, "the kernel in numba, in the Python worker"},
};
const size_t N_KERNELS = sizeof KERNELS / sizeof KERNELS[0];

/* <<look-a-kernel-up>>, paper/35-tuned-kernel.md */
const struct kernel_entry *kernel_named(const char *name)
{
    for (size_t i = 0; i < N_KERNELS; i++)
        if (strcmp(KERNELS[i].name, name) == 0)
            return &KERNELS[i];
    return NULL;
}

const struct kernel_entry *kernel_for_engine(const char *name, char *err, size_t err_size)
{
    const struct kernel_entry *k = kernel_named(name);
    char names[128] = "";
    if (k != NULL && k->engine)
        return k;
    if (strncmp(name, "tuned-", 6) == 0) {     /* a path of the tuned kernel, forced */
        char why[256];
        if (tuned_path_force(name + 6, why, sizeof why) != 0)
            return set_error(err, err_size, "--kernel: %s", why), NULL;
        return kernel_named("tuned");
    }
    for (size_t i = 0; i < N_KERNELS; i++)
        if (KERNELS[i].engine)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ",
                     KERNELS[i].name);
    return set_error(err, err_size, "--kernel: '%s' is not a kernel (%stuned-PATH)", name,
                     names), NULL;
}
