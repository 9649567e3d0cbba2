/*
 * summarize.h - one summarizer per kind of data the harness writes.
 *
 * Tangled from paper/91-appendix-data-to-prose.md and the chapters that
 * add a measurement.
 */
#ifndef IPCTAX_SUMMARIZE_H
#define IPCTAX_SUMMARIZE_H

#include "report/values.h"

void summarize_run(struct summary *s);
void summarize_original(struct summary *s);
void summarize_sweep(struct summary *s);
void summarize_architectures(struct summary *s);
void summarize_echo(struct summary *s);
void summarize_serialization(struct summary *s);
void summarize_crossings(struct summary *s);
void summarize_shm(struct summary *s);
void summarize_derived(struct summary *s);
void summarize_robustness(struct summary *s);
void summarize_claims(struct summary *s);
void summarize_comparison(struct summary *s);

#endif
