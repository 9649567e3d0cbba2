/*
 * worker.h - the persistent Python worker, driven one JSON line at a time.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_WORKER_H
#define IPCTAX_WORKER_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "harness/arch.h"

struct worker {
    pid_t pid;
    FILE *to, *from;
    char *line;
    size_t line_cap;
};

/* Starts the worker and sends it the job; 0, or -1 with err set. */
int worker_start(struct worker *w, const struct harness_env *env, const struct sweep_job *job,
                 char *err, size_t err_size);
/* Sends a command (it takes the reference) and returns the answer, which
 * had "ok": true; NULL with err set otherwise. json_decref the answer. */
json_t *worker_command(struct worker *w, json_t *command, char *err, size_t err_size);
/* The part of the job a row runs: the first `bars` bars, and every
 * `combo_step`-th parameter set from the first. */
struct worker_part {
    size_t bars, combo_step;
};
/* Sets a row up on its part of the job; key/value (may be NULL) say where
 * its engine is. */
int worker_prepare(struct worker *w, const char *row, const struct worker_part *part,
                   const char *key, const char *value, char *err, size_t err_size);
/* A call's record as the worker reports it, by calls.csv's column names;
 * a field it lacks stays unknown. */
struct call_record worker_call_record(const json_t *c);
/* Runs a row once: its results, its measures and its calls. */
int worker_run(struct worker *w, const char *row, size_t n_combos, struct combo_result *results,
               struct run_measure *m, struct call_sink *sink, char *err, size_t err_size);
/* Asks the worker to quit, and waits for it. */
void worker_stop(struct worker *w);

#endif
