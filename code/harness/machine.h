/*
 * machine.h - a description of the machine and build a run happened on.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_MACHINE_H
#define IPCTAX_MACHINE_H

#include "harness/csvout.h"

struct machine_info {
    char cpu[256];
    long cores;
    char kernel[256];
    char hypervisor[8];     /* "yes" or "no", from the CPU's hypervisor flag */
    char compiler[128];
    char cflags[512];
    char libc[64];
    char date[32];          /* UTC, ISO 8601 */
    long long date_epoch;
    char commit[64];
};

void machine_describe(struct machine_info *m);
/* Adds one "key,value" row per field to an open CSV file. */
void machine_write_rows(struct csv_out *out, const struct machine_info *m);

#endif
