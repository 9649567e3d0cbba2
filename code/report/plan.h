/*
 * plan.h - the units each row needs for the claims resting on it, from the
 * kept runs' intervals.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_PLAN_H
#define IPCTAX_PLAN_H

#include <stddef.h>

#include "report/model.h"
#include "report/store.h"

enum { PLAN_MOST_UNITS = 24 };         /* no row is planned past it */
enum { FAR_FACTOR = 4 };               /* "by a factor of several": the minimum over this */

/* Plans the units of every row from the kept runs' stores (n of them),
 * within the rounds' budget at the prices the kept runs paid for a unit,
 * and puts the plan into s: the tables plan and plan_rows, plan.units
 * ("row=N,..." for ipctax-bench --units), the claims left out and the
 * counts. d is the run being summarized (its units made go beside the
 * plan), or NULL when the plan is asked for before a run. */
void plan_units(const struct run_data *d, struct store *s, const struct store *const *kept,
                size_t n);

#endif
