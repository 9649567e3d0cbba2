/*
 * sum_host.c - the host's share of each CPU, pass by pass: how much of
 * its time the host took, in gaps how long, and how the CPUs' speeds
 * differed otherwise.
 *
 * Tangled from paper/69-host.md.
 */
#include <math.h>
#include <stddef.h>

#include "report/summarize.h"

/* <<summarize-host>>, paper/69-host.md */
static const double HOST_SHARED_PCT = 5.0;

static double taken_pct(const struct host_row *r)
{
    return r->spin_ns > 0 ? 100.0 * r->gap_ns / r->spin_ns : NAN;
}

void summarize_host(const struct run_data *d, struct store *s)
{
    struct doubles passes = {0};
    double longest_us = 0.0, gap_ns = 0.0, gaps = 0.0, fastest = 0.0, slowest = INFINITY;
    long shared = 0;
    put_text(s, "host.measured", d->n_host > 0 ? "yes" : "no");
    if (d->n_host == 0)
        return;
    /* <<host-each-pass-and-cpu>>, paper/69-host.md */
    for (size_t i = 0; i < d->n_host; i++) {
        const struct host_row *r = &d->host[i];
        double pct = taken_pct(r);
        shared += pct >= HOST_SHARED_PCT;
        longest_us = fmax(longest_us, r->longest_ns * 1e-3);
        gap_ns += r->gap_ns, gaps += r->gaps;
        double free_us = (r->spin_ns - r->gap_ns) * 1e-3;
        if (free_us > 0) {
            fastest = fmax(fastest, r->reads / free_us);
            slowest = fmin(slowest, r->reads / free_us);
        }
        int new_pass = i == 0 || d->host[i - 1].pass != r->pass;
        if (new_pass)
            doubles_push(&passes, pct);
        else if (pct > passes.v[passes.n - 1])
            passes.v[passes.n - 1] = pct;
    }
    put_count(s, "host.passes", (double)passes.n);
    put_estimate(s, "host.taken_pct", doubles_estimate(&passes), 1, "passes");
    put_count(s, "host.shared", (double)shared);
    put_number(s, "host.longest_us", longest_us, 0);
    put_number(s, "host.gap_us", gaps > 0 ? gap_ns / gaps * 1e-3 : 0.0, 0);
    put_number(s, "host.rate_spread_pct", slowest > 0 ? 100.0 * (fastest / slowest - 1.0) : 0.0,
               1);
    put_number(s, "host.spin_ms", d->host[0].spin_ns * 1e-6, 0);
    put_number(s, "host.shared_pct", HOST_SHARED_PCT, 0);
    doubles_free(&passes);
}
