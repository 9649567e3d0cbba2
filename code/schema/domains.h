/*
 * domains.h - the ranges the columns of data/ are checked against.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_DOMAINS_H
#define IPCTAX_DOMAINS_H

/* <<column-bounds>>, paper/90-appendix-report.md */
#define MAX_BARS 1e8           /* ipctax-bench --bars at most */
#define MAX_COMBOS 1e5         /* --combos at most */
#define MAX_ROUNDS 1e4         /* --max-rounds at most */
#define MAX_SECONDS 1e6        /* 11.6 days; --budget is at most one */
#define MAX_COUNT 1e15         /* instructions, operations, bytes, repetitions: about 2^50 */
#define MAX_PNL 1e12           /* percentage points; a sweep's is in the thousands */
#define MAX_EPOCH 4102444800.0 /* 2100-01-01 */
/* The passes a summary reads of each file, and the --scale that keeps
 * every measurement's passes within them (echo 10, mechanisms 12 and
 * layout 3 a scale): a run past them is refused, never cut short. */
#define MAX_ECHO_PASSES 256
#define MAX_MECH_PASSES 1024
#define MAX_LAYOUT_PASSES 64
#define MAX_SCALE 20

#define RANGE(low, high) low, high         /* a number from low to high, inclusive */
#define TEXT_OF(least, most) least, most   /* a text of least to most bytes */
#define NAME_OF(most) 1, most  /* a text of one character or more */
#define SECONDS 0, MAX_SECONDS
#define TIMED_S 1e-9, MAX_SECONDS   /* a timed interval: more than zero, as it is divided by */
#define NANOS 0, MAX_SECONDS * 1e9
#define COUNT 0, MAX_COUNT     /* 0, 1, ...: a count, a size, an index */
#define ORDINAL 1, MAX_COUNT   /* 1, 2, ...: a pass, a repetition, a place in an order */
#define ROUND 1, MAX_ROUNDS
#define COMBO 0, MAX_COMBOS - 1
#define WINDOW 1, MAX_BARS
#define PNL -MAX_PNL, MAX_PNL
#define CPU 0, 4095            /* a CPU's number (CPU_SETSIZE is 1024 in glibc; room to spare) */

#endif
