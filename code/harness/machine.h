/*
 * machine.h - a description of the machine and build a run happened on.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_MACHINE_H
#define IPCTAX_MACHINE_H

#include "schema/data_out.h"

/* What a system does not show is written as this. */
#define NOT_VISIBLE "not visible"

/* Writes one "key,value" row per fact about the machine and the build. */
void machine_write_rows(struct data_out *out);

#endif
