/*
 * claims.h - the verdict of an interval against a threshold.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#ifndef IPCTAX_CLAIMS_H
#define IPCTAX_CLAIMS_H

#include <stddef.h>

#include "report/store.h"
#include "util/stats.h"

enum claim_test { BELOW, ABOVE, WITHIN };
enum verdict { HOLDS, FAILS, UNDECIDED };

/* The verdict of e against the threshold (low, and high for WITHIN). */
enum verdict judge_interval(struct estimate e, enum claim_test test, double low, double high);
const char *verdict_name(enum verdict v);

/* What a registered claim tests: the key of its estimate, its threshold,
 * the decimals it is printed with, and the rows whose units decide the
 * estimate, separated by spaces (none for an estimate that a measurement's
 * own repetitions decide). */
struct claim_spec {
    char id[64], estimate[KEY_SIZE], rows[256];
    enum claim_test test;
    double low, high;
    int decimals;
};

/* The claims of the registry in dir (dir/claims.csv), into *out (the
 * caller frees it) and *n; 0, or -1 with the file and line in err. */
int claims_load(const char *dir, struct claim_spec **out, size_t *n, char *err, size_t err_size);
/* Whether word is one of the words of list, separated by spaces (a claim's
 * rows, a deviation's claims and chunks). */
int has_word(const char *list, const char *word);

#endif
