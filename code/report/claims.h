/*
 * claims.h - the verdict of an interval against a threshold.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_CLAIMS_H
#define IPCTAX_CLAIMS_H

#include "util/stats.h"

enum claim_test { BELOW, ABOVE, WITHIN };
enum verdict { HOLDS, FAILS, UNDECIDED };

/* The verdict of e against the threshold (low, and high for WITHIN). */
enum verdict judge_interval(struct estimate e, enum claim_test test, double low, double high);
const char *verdict_name(enum verdict v);

#endif
