/*
 * kernel_tuned.h - the tuned kernel: sweep_naive's results, bit for bit, faster.
 *
 * Tangled from paper/35-tuned-kernel.md.
 */
#ifndef IPCTAX_KERNEL_TUNED_H
#define IPCTAX_KERNEL_TUNED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* sweep_naive_in's results on n_threads threads (0: one per core), on the path in
 * use. Grows ws to hold the series' columns, which may move ws->series; keeps a
 * helper workspace per extra thread. 0, -1 when out of memory, or SWEEP_STOPPED
 * when ws's stop flag was raised (the results are then incomplete). */
int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads);
/* The same in a workspace of its own. */
int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads);

/* What CPUID and XCR0 say: the instructions, and whether the system saves their state. */
struct cpu_simd {
    bool avx, avx2, avx512f;
    bool os_saves_ymm, os_saves_zmm;
};
const struct cpu_simd *cpu_simd_here(void);        /* this machine, probed once */

/* The paths 0..count-1, widest first: "avx512", "avx2", "sse2" on x86. */
int tuned_path_count(void);
const char *tuned_path_name(int path);
int tuned_path_bytes(int path);                    /* its vector width */
const char *tuned_path_lacks(int path, const struct cpu_simd *cpu);   /* NULL: cpu runs it */
int tuned_path_best(const struct cpu_simd *cpu);   /* the widest cpu runs */
/* The path a name asks for on cpu (NULL or "": the best), or -1 and a one-line err. */
int tuned_path_choose(const char *name, const struct cpu_simd *cpu, char *err,
                      size_t err_size);

#define TUNED_PATH_VARIABLE "IPCTAX_TUNED_PATH"
/* Later sweeps run tuned_path_choose(name, here); 0, or -1 with its message. */
int tuned_path_force(const char *name, char *err, size_t err_size);
/* tuned_path_force(getenv(TUNED_PATH_VARIABLE)), the message naming the variable. */
int tuned_path_force_from_environment(char *err, size_t err_size);
int tuned_path_in_use(void);                       /* forced, or the best here */

/* The parts of a sweep (@sec:tuned-bounds): the averages; the mixes, with the halos
 * they refill; finding the rows where the lines may cross; stepping through them. */
enum tuned_part { TUNED_AVERAGES, TUNED_MIXES, TUNED_CROSSINGS, TUNED_STEPS, TUNED_PARTS };
const char *tuned_part_name(int part);             /* "averages", ... */
/* sweep_tuned_in on one thread, adding each part's seconds to part_seconds[part]. */
int sweep_tuned_parts(struct sweep_workspace *ws, const double *close, size_t n_bars,
                      const struct combo_params *params, size_t n_combos,
                      struct combo_result *results, double part_seconds[TUNED_PARTS]);

/* For the tests, on one path (-1 also when this machine cannot run it). */
int sweep_tuned_path(const double *close, size_t n_bars, const struct combo_params *params,
                     size_t n_combos, struct combo_result *results, int n_threads, int path);
int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *p,
                       double *hma, double *hma3, int path);

#endif
