/*
 * architectures.h - the architectures as rows of one table: what each runs,
 * and its name in data/.
 *
 * Tangled from paper/41-architectures.md.
 */
#ifndef IPCTAX_ARCHITECTURES_H
#define IPCTAX_ARCHITECTURES_H

#include <stddef.h>

/* <<session-transports>>, paper/57-client.md */
enum transport {
    TRANSPORT_NONE,            /* no boundary: the in-process architectures */
    TRANSPORT_UNIX,            /* a persistent engine on a Unix socket */
    TRANSPORT_TCP,             /* ... on TCP loopback, TCP_NODELAY */
    TRANSPORT_SHM_FUTEX,       /* ... over shared memory, both sides sleep in futex */
    TRANSPORT_SHM_SPIN,        /* ... over shared memory, both sides spin */
    TRANSPORT_PIPE,            /* an engine on two pipes for one raw ping-pong */
    TRANSPORT_SPAWN,           /* a fresh engine per call, over stdin and stdout */
};

/* The transport's name in data/ (echo.csv's transport): "unix", "shm_futex", ... */
const char *transport_name(enum transport t);

/* <<architecture-row>>, paper/41-architectures.md */
enum arch_client { CLIENT_NONE, CLIENT_C, CLIENT_PYTHON };
enum arch_encoding { ENCODING_BINARY, ENCODING_JSON };
enum arch_grain { GRAIN_SWEEP, GRAIN_COMBO, GRAIN_LOADED, GRAIN_BAR };
/* How a row's run is paired with the baseline's (@sec:pairs). */
enum arch_pairing { PAIRING_NONE, PAIRING_DUET, PAIRING_SEQUENTIAL };

/* The part of the job one run does: every bar_divisor-th of the bars from the
 * start, and every combo_step-th combination. {1, 1} is the whole job. */
struct job_part {
    int bar_divisor, combo_step;
};

struct arch_row {
    const char *name;          /* as in data/ and the paper */
    enum arch_client client;
    enum transport transport;
    const char *kernel;        /* a name of the kernel registry (@sec:kernel-registry) */
    enum arch_encoding encoding;
    enum arch_grain grain;
    enum arch_pairing pairing; /* PAIRING_NONE: the baseline itself */
    int headline;              /* a claim rests on it: at least HEADLINE_UNITS units */
    struct job_part part;
    const char *description;
};

extern const struct arch_row ARCH_ROWS[];
extern const size_t N_ARCH_ROWS;

/* A headline row's units when the plan does not say: the summary's plan
 * (@sec:plan) and the rounds' default agree on it. */
enum { HEADLINE_UNITS = 12 };

/* The rounds' minimum and their budget when the bench is not told
 * otherwise: the rounds' default limits are made of them, and the plan
 * fits its units into them. The budget, with the other stages, keeps make
 * paper within fifteen minutes on the machine of the published run. */
enum { MIN_ROUNDS = 6 };
#define ROUNDS_BUDGET_S 580.0

/* The most units of one row a round runs: a plan past this many a round
 * takes more rounds than the minimum, which the plan prices. */
enum { MOST_UNITS_A_ROUND = 4 };

/* A bar-grain row records every PER_BAR_SAMPLE-th call (and its first and
 * last) in calls.csv: the report needs to know it too. */
enum { PER_BAR_SAMPLE = 1000 };

/* The row's index, or -1. */
int arch_row_named(const char *name);
/* The baseline's name: the table's first row, which every other is compared with. */
const char *arch_baseline(void);
/* Whether name is the baseline's. */
int arch_is_baseline(const char *name);
/* The pairing's name in data/ (runs.csv's pairing): "none", "duet" or "sequential". */
const char *pairing_name(enum arch_pairing p);
/* Whether text (a pairing as data/ has it) names pairing p. */
int pairing_is(const char *text, enum arch_pairing p);
/* The A/A control of pairing p: the row that runs exactly what the
 * baseline runs, paired so; its name, or NULL if the table has none. */
const char *arch_control(enum arch_pairing p);
/* The row that runs exactly what name runs, paired as p; or NULL. */
const char *arch_twin(const char *name, enum arch_pairing p);
/* The bias check: the first row in duets, other than an A/A control, that
 * has a twin in sequential pairs; its name (the duet's side), or NULL. */
const char *arch_bias_check(void);
/* The first row that runs kernel for client over transport, so encoded,
 * calling at grain: a row found by what it runs. Its name, or "" where the
 * table has none: a name no run has, which a summarizer finds no runs of. */
const char *arch_like(enum arch_client client, enum transport transport, const char *kernel,
                      enum arch_encoding encoding, enum arch_grain grain);

/* A comparison the paper draws between two rows, besides every row's
 * ratio to the baseline: the value's key, the row, and the row whose time
 * it is set over, or NULL for the baseline's time over the row's (a
 * speed-up), with the digits it is printed to. */
struct arch_comparison {
    const char *key, *row, *over;
    int decimals;
};

extern const struct arch_comparison ARCH_COMPARISONS[];
extern const size_t N_ARCH_COMPARISONS;
/* The comparison whose value is key, or NULL. */
const struct arch_comparison *arch_comparison(const char *key);

/* <<the-slots-of-a-unit-interface>>, paper/41-architectures.md */
/* Who runs in one slot of a unit: the compared row, the baseline, or both
 * at once (each the other's partner, the row's run numbered first). */
enum slot_sides { SLOT_ROW = 1, SLOT_BASELINE = 2, SLOT_BOTH = SLOT_ROW | SLOT_BASELINE };
enum { MAX_UNIT_SLOTS = 3 };

/* A unit's slots, run one after another from slot 1 (runs.csv's slot). */
struct unit_layout {
    int slots;
    enum slot_sides sides[MAX_UNIT_SLOTS];     /* slot s's at sides[s - 1] */
};

/* The layout of a unit paired p; for PAIRING_NONE, one without slots. */
const struct unit_layout *unit_layout(enum arch_pairing p);
/* Whether slot `slot` of a unit paired p holds a run of the baseline
 * (baseline != 0) or of the compared row. */
int slot_holds(enum arch_pairing p, long slot, int baseline);
/* A unit's ratio, the row's time over the baseline's: row_s holds the
 * times of the row's runs and base_s those of the baseline's, each in
 * the order of their slots. */
double paired_ratio(enum arch_pairing p, const double *row_s, const double *base_s);

#endif
