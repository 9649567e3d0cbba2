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

/*
 * Runs every combination over the series, exactly as sweep_naive_in, on
 * n_threads threads (1 = the calling thread only, 0 = one per online core),
 * on the path in use (tuned_path_in_use), in the given workspace: it loads
 * the series there, grows the workspace to hold the series in columns
 * (which may move ws->series), and keeps one helper workspace per extra
 * thread. Returns 0, or -1 when out of memory.
 */
int sweep_tuned_in(struct sweep_workspace *ws, const double *close, size_t n_bars,
                   const struct combo_params *params, size_t n_combos,
                   struct combo_result *results, int n_threads);

/* The same with a workspace of its own, allocated and freed per call. */
int sweep_tuned(const double *close, size_t n_bars, const struct combo_params *params,
                size_t n_combos, struct combo_result *results, int n_threads);

/* What CPUID and XCR0 say about the vector units and their registers. */
struct cpu_simd {
    bool avx, avx2, avx512f;   /* the processor has the instructions */
    bool os_saves_ymm;         /* the operating system saves the SSE and AVX state */
    bool os_saves_zmm;         /* ... and the AVX-512 opmask and ZMM state */
};

/* This machine, probed now; cpu_simd_here probes once per process. */
struct cpu_simd cpu_simd_probe(void);
const struct cpu_simd *cpu_simd_here(void);

/*
 * The paths, 0 .. tuned_path_count()-1, widest first: "avx512", "avx2",
 * "sse2" on x86 ("vector128" elsewhere). tuned_path_lacks says in words what
 * a machine lacks to run a path, or NULL when it runs it.
 */
int tuned_path_count(void);
const char *tuned_path_name(int path);
int tuned_path_bytes(int path);
int tuned_path_find(const char *name);             /* -1 for no such path */
const char *tuned_path_lacks(int path, const struct cpu_simd *cpu);
int tuned_path_best(const struct cpu_simd *cpu);   /* the widest path cpu runs */

/*
 * The path a name asks for on cpu (NULL or "": the best cpu runs), or -1
 * with a one-line message in err when it is no path or cpu cannot run it.
 */
int tuned_path_choose(const char *name, const struct cpu_simd *cpu, char *err,
                      size_t err_size);

/* The variable that forces a path in every program that reads it at start. */
#define TUNED_PATH_VARIABLE "IPCTAX_TUNED_PATH"

/*
 * Makes every later sweep run the named path (NULL or "": the best this
 * machine runs): tuned_path_choose on this machine. Returns 0, or -1 with
 * its message, and then nothing changes.
 */
int tuned_path_force(const char *name, char *err, size_t err_size);

/* tuned_path_force(getenv(TUNED_PATH_VARIABLE)), the message naming the variable. */
int tuned_path_force_from_environment(char *err, size_t err_size);

/* The path sweeps run: the forced one, or the best this machine runs. */
int tuned_path_in_use(void);

/* The widest vectors this machine gives the tuned kernel, in bytes: 64, 32 or 16. */
int tuned_vector_bytes(void);

/* sweep_tuned on the given path; -1 also when this machine cannot run it. For the tests. */
int sweep_tuned_path(const double *close, size_t n_bars, const struct combo_params *params,
                     size_t n_combos, struct combo_result *results, int n_threads, int path);

/* The pieces, exposed for the tests like kernel_wma and kernel_lines; 0 or -1 as above. */
int kernel_tuned_wma(const double *x, size_t n_bars, int64_t n, double *out, int path);
int kernel_tuned_lines(const double *close, size_t n_bars, const struct combo_params *p,
                       double *hma, double *hma3, int path);

#endif
