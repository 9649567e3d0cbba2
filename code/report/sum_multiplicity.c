/*
 * sum_multiplicity.c - the headline table's ratio intervals read together:
 * how many exclude 1 at 95% each, and at a family-wise level.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <math.h>
#include <stdlib.h>

#include "report/summarize.h"
#include "report/units.h"
#include "schema/architectures.h"

static int excludes_one(struct estimate e)
{
    return e.n > 1 && (e.low > 1.0 || e.high < 1.0);
}

/* One row of the table: the row's 95% interval and its family-wise one,
 * which says whether it reaches its level. Returns 1 where the family-wise
 * interval reaches the level and excludes 1, 0 where it reaches it and
 * does not, -1 where the row has too few units to reach it. */
static int multiplicity_row(struct csv_out *t, const char *arch, const double *ratios, size_t n,
                            double alpha)
{
    char buf[200];
    struct estimate each = estimate_median(ratios, n), family = estimate_median_at(ratios, n, alpha);
    int reached = family.coverage >= 1.0 - alpha;
    csv_out_text(t, arch);
    csv_out_text(t, format_estimate(buf, each, 3));
    csv_out_text(t, format_estimate(buf, family, 3));
    csv_out_text(t, excludes_one(each) ? "yes" : "no");
    csv_out_text(t, !reached ? "too few units" : excludes_one(family) ? "yes" : "no");
    csv_out_end_row(t);
    return !reached ? -1 : excludes_one(family);
}

void summarize_multiplicity(const struct run_data *d, struct store *s)
{
    static const char *const header[] = {"Architecture", "Ratio [95% interval]",
                                         "Family-wise interval", "Excludes 1 at 95%",
                                         "Excludes 1 family-wise"};
    double *ratios[N_ARCH_ROWS];
    size_t n[N_ARCH_ROWS], m = 0;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        ratios[i] = NULL, n[i] = 0;
        if (!arch_is_baseline(ARCH_ROWS[i].name))
            arch_unit_ratios(d, ARCH_ROWS[i].name, &ratios[i], &n[i]);
        m += n[i] > 1;
    }
    struct csv_out t;
    if (m == 0 || table_open(s, "multiplicity", &t, header, CSV_COLUMNS(header)) != 0) {
        for (size_t i = 0; i < N_ARCH_ROWS; i++)
            free(ratios[i]);
        return;
    }
    double alpha = 0.05 / (double)m;
    int exclude = 0, reachable = 0, exclude_family = 0;
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        if (n[i] > 1) {
            exclude += excludes_one(estimate_median(ratios[i], n[i]));
            int family = multiplicity_row(&t, ARCH_ROWS[i].name, ratios[i], n[i], alpha);
            reachable += family >= 0;
            exclude_family += family > 0;
        }
        free(ratios[i]);
    }
    table_close(s, &t);
    put_count(s, "multiplicity.intervals", (double)m);
    put_number(s, "multiplicity.by_chance", 0.05 * (double)m, 1);
    put_count(s, "multiplicity.exclude_one", exclude);
    put_number(s, "multiplicity.level_pct", 100.0 * (1.0 - alpha), 2);
    put_count(s, "multiplicity.reachable", reachable);
    put_count(s, "multiplicity.exclude_one_familywise", exclude_family);
}
