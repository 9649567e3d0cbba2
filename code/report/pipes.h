/*
 * pipes.h - the floating-point pipes of the processors this paper has run
 * on, for a multiplication and an addition that are not fused.
 *
 * Tangled from paper/77-roofline.md.
 */
#ifndef IPCTAX_PIPES_H
#define IPCTAX_PIPES_H

#include <stddef.h>

/* What starts each cycle at one vector width. */
struct pipes_width {
    int bits;                  /* 64 (scalar), 128, 256 or 512; 0 ends the list */
    double multiply, add;      /* pipes that start a multiplication; an addition */
    double either;             /* pipes in all that start one or the other */
};

struct processor_pipes {
    const char *vendor;        /* CPUID's vendor, as /proc/cpuinfo's vendor_id */
    long family, model;        /* /proc/cpuinfo's cpu family and model */
    const char *name;          /* the core and the parts that have it */
    struct pipes_width widths[5];
    const char *source;        /* where the pipes are documented */
};

extern const struct processor_pipes PROCESSOR_PIPES[];
extern const size_t N_PROCESSOR_PIPES;

/* The entry of that processor, or NULL when the table has none. */
const struct processor_pipes *processor_pipes(const char *vendor, long family, long model);
/* Operations a cycle at `bits`: a multiplication and an addition per lane of
 * each pair started; 0 when the entry does not give that width. */
double pipes_flops_per_cycle(const struct processor_pipes *p, int bits);

#endif
