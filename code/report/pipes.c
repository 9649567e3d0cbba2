/*
 * pipes.c - the table of processors' floating-point pipes.
 *
 * Tangled from paper/77-roofline.md.
 */
#include <string.h>

#include "report/pipes.h"

#define SAME_AT_EVERY_WIDTH(m, a, e) {{64, m, a, e}, {128, m, a, e}, {256, m, a, e}, {512, m, a, e}}

const struct processor_pipes PROCESSOR_PIPES[] = {
    {"AuthenticAMD", 26, 2, "Zen 5 (EPYC 9005)", SAME_AT_EVERY_WIDTH(2, 2, 4),
     "GCC's scheduling model of Zen 5, gcc/config/i386/zn4zn5.md (a multiplication on FP0 "
     "or FP1, an addition on FP2 or FP3, one a cycle each, at 512 bits as at 128); "
     "A. J. Yee, Zen5's AVX512 Teardown, numberworld.org, 2024 (four 512-bit pipes)"},
    {"GenuineIntel", 6, 167, "Cypress Cove (Rocket Lake, Xeon E-2300)",
     {{64, 2, 2, 2}, {128, 2, 2, 2}, {256, 2, 2, 2}, {512, 1, 1, 1}},
     "Intel 64 and IA-32 Architectures Optimization Reference Manual, the Ice Lake client "
     "core that Cypress Cove ports (ports 0 and 1 multiply or add, fused into one at 512 "
     "bits); Intel at Hot Chips 32, 2020 (a second 512-bit unit only in the server core)"},
};
const size_t N_PROCESSOR_PIPES = sizeof PROCESSOR_PIPES / sizeof PROCESSOR_PIPES[0];

const struct processor_pipes *processor_pipes(const char *vendor, long family, long model)
{
    for (size_t i = 0; vendor != NULL && i < N_PROCESSOR_PIPES; i++) {
        const struct processor_pipes *p = &PROCESSOR_PIPES[i];
        if (strcmp(p->vendor, vendor) == 0 && p->family == family && p->model == model)
            return p;
    }
    return NULL;
}

double pipes_flops_per_cycle(const struct processor_pipes *p, int bits)
{
    for (size_t i = 0; p != NULL && p->widths[i].bits != 0; i++) {
        const struct pipes_width *w = &p->widths[i];
        if (w->bits != bits)
            continue;
        double pairs = w->multiply < w->add ? w->multiply : w->add;
        pairs = w->either / 2 < pairs ? w->either / 2 : pairs;
        return 2.0 * pairs * (bits / 64);
    }
    return 0.0;
}
