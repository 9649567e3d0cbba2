/*
 * architectures.c - the architecture table, the slots of a unit, and the
 * transports' names.
 *
 * Tangled from paper/41-architectures.md and paper/57-client.md.
 */
#include <math.h>
#include <string.h>

#include "schema/architectures.h"
#include "util/stats.h"

/* <<the-architecture-table>>, paper/41-architectures.md */
#define C CLIENT_C
#define PY CLIENT_PYTHON
#define IN CLIENT_NONE
#define DUET PAIRING_DUET
#define TURN PAIRING_SEQUENTIAL
#define WHOLE {1, 1}
#define FIFTH {5, 1}          /* the first fifth of the bars */
#define QUARTER {1, 4}        /* every fourth combination */
const struct arch_row ARCH_ROWS[] = {
    /* <<the-rows-without-a-boundary>>, paper/41-architectures.md */
    {"in_process", IN, TRANSPORT_NONE, "naive", ENCODING_BINARY, GRAIN_SWEEP,
     PAIRING_NONE, 1, WHOLE, "the kernel called directly, no boundary"},
    {"in_process_control_1", IN, TRANSPORT_NONE, "naive", ENCODING_BINARY, GRAIN_SWEEP,
     DUET, 1, WHOLE, "in_process again, in duets: the A/A control of the duet"},
    {"in_process_control_2", IN, TRANSPORT_NONE, "naive", ENCODING_BINARY, GRAIN_SWEEP,
     TURN, 1, WHOLE, "in_process again, in turn between two baseline runs: the A/A control "
     "of sequential pairs (and, against another unit's baseline, of the earlier rounds)"},
    {"in_process_tuned_1core", IN, TRANSPORT_NONE, "tuned", ENCODING_BINARY,
     GRAIN_SWEEP, DUET, 0, FIFTH, "the tuned kernel on one thread, no boundary"},
    {"in_process_tuned_1core_sequential", IN, TRANSPORT_NONE, "tuned",
     ENCODING_BINARY, GRAIN_SWEEP, TURN, 0, FIFTH,
     "in_process_tuned_1core again, in sequential pairs: does the duet bias a ratio?"},
    {"in_process_tuned", IN, TRANSPORT_NONE, "tuned_all_cores", ENCODING_BINARY,
     GRAIN_SWEEP, TURN, 0, FIFTH, "the tuned kernel on every core, no boundary"},
    /* <<the-rows-of-the-c-client>>, paper/41-architectures.md */
    {"batch_unix", C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_SWEEP, DUET, 1,
     WHOLE, "persistent engine on a Unix socket, one round trip per sweep"},
    {"batch_tcp", C, TRANSPORT_TCP, "naive", ENCODING_BINARY, GRAIN_SWEEP, DUET, 0, FIFTH,
     "persistent engine on TCP loopback (TCP_NODELAY), one round trip per sweep"},
    {"batch_shm", C, TRANSPORT_SHM_FUTEX, "naive", ENCODING_BINARY, GRAIN_SWEEP, DUET, 0,
     FIFTH, "persistent engine over shared memory (futex wait), one round trip per sweep"},
    {"batch_unix_tuned", C, TRANSPORT_UNIX, "tuned", ENCODING_BINARY,
     GRAIN_SWEEP, DUET, 0, FIFTH, "batch_unix with the tuned kernel (one thread) behind it"},
    {"chatty_unix", C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_COMBO, DUET, 1,
     QUARTER, "one round trip per combination, the series re-sent each time"},
    {"stateful_unix", C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_LOADED, DUET, 0,
     QUARTER, "the series loaded once per connection, one 48-byte call per combination"},
    {"per_bar_unix", C, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_BAR, DUET, 1,
     FIFTH, "one round trip per bar: one close out, every position back"},
    {"spawn_stdin", C, TRANSPORT_SPAWN, "naive", ENCODING_BINARY, GRAIN_SWEEP, DUET, 1,
     WHOLE, "a fresh engine per sweep, request on stdin, reply on stdout"},
    {"spawn_per_combo", C, TRANSPORT_SPAWN, "naive", ENCODING_BINARY, GRAIN_COMBO, DUET, 1,
     QUARTER, "a fresh engine per combination"},
    {"json_unix", C, TRANSPORT_UNIX, "naive", ENCODING_JSON, GRAIN_SWEEP, DUET, 0, FIFTH,
     "JSON request and reply, one round trip per sweep"},
    {"json_chatty_unix", C, TRANSPORT_UNIX, "naive", ENCODING_JSON, GRAIN_COMBO, DUET, 1,
     {1, 8}, "JSON, one round trip per combination with the series"},
    /* <<the-rows-of-the-python-worker>>, paper/41-architectures.md */
    {"numba_in_process", PY, TRANSPORT_NONE, "numba", ENCODING_BINARY, GRAIN_SWEEP, DUET, 1,
     FIFTH, "the original's baseline: the kernel in numba, called from Python"},
    {"python_batch_unix", PY, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_SWEEP, DUET,
     1, WHOLE, "the original's configuration: Python calls the engine once per sweep"},
    {"python_batch_unix_copying", PY, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_SWEEP,
     DUET, 0, WHOLE, "python_batch_unix the original's way: the series copied (tobytes, "
     "b\"\".join) and a new reply buffer, per call"},
    {"python_batch_unix_tuned", PY, TRANSPORT_UNIX, "tuned", ENCODING_BINARY,
     GRAIN_SWEEP, DUET, 1, FIFTH,
     "Python calls the engine once per sweep, the tuned kernel behind it"},
    {"python_chatty_unix", PY, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_COMBO, DUET,
     0, QUARTER, "Python calls the engine once per combination, re-sending the series"},
    {"python_stateful_unix", PY, TRANSPORT_UNIX, "naive", ENCODING_BINARY, GRAIN_LOADED,
     DUET, 1, QUARTER, "Python loads the series once, then one call per combination"},
    {"python_spawn_stdin", PY, TRANSPORT_SPAWN, "naive", ENCODING_BINARY, GRAIN_SWEEP,
     DUET, 1, WHOLE, "Python spawns the engine per sweep, as the original's rust_spawn_stdin"},
};
#undef C
#undef PY
#undef IN
#undef DUET
#undef TURN
#undef WHOLE
#undef FIFTH
#undef QUARTER
const size_t N_ARCH_ROWS = sizeof ARCH_ROWS / sizeof ARCH_ROWS[0];

int arch_row_named(const char *name)
{
    for (size_t i = 0; i < N_ARCH_ROWS; i++)
        if (strcmp(ARCH_ROWS[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *arch_baseline(void)
{
    return ARCH_ROWS[0].name;
}

int arch_is_baseline(const char *name)
{
    return strcmp(name, arch_baseline()) == 0;
}

const char *pairing_name(enum arch_pairing p)
{
    static const char *const names[] = {"none", "duet", "sequential"};
    return (size_t)p < sizeof names / sizeof names[0] ? names[p] : "unknown";
}

int pairing_is(const char *text, enum arch_pairing p)
{
    return strcmp(text, pairing_name(p)) == 0;
}

/* Whether a and b run the same thing: everything but the name, the
 * pairing, the headline mark and the words. */
static int runs_alike(const struct arch_row *a, const struct arch_row *b)
{
    return a->client == b->client && a->transport == b->transport &&
           strcmp(a->kernel, b->kernel) == 0 && a->encoding == b->encoding &&
           a->grain == b->grain && a->part.bar_divisor == b->part.bar_divisor &&
           a->part.combo_step == b->part.combo_step;
}

const char *arch_twin(const char *name, enum arch_pairing p)
{
    int at = arch_row_named(name);
    for (size_t i = 0; at >= 0 && i < N_ARCH_ROWS; i++)
        if ((int)i != at && ARCH_ROWS[i].pairing == p && runs_alike(&ARCH_ROWS[i], &ARCH_ROWS[at]))
            return ARCH_ROWS[i].name;
    return NULL;
}

const char *arch_control(enum arch_pairing p)
{
    return arch_twin(arch_baseline(), p);
}

const char *arch_bias_check(void)
{
    for (size_t i = 1; i < N_ARCH_ROWS; i++)   /* the controls run the baseline: not them */
        if (ARCH_ROWS[i].pairing == PAIRING_DUET && !runs_alike(&ARCH_ROWS[i], &ARCH_ROWS[0]) &&
            arch_twin(ARCH_ROWS[i].name, PAIRING_SEQUENTIAL) != NULL)
            return ARCH_ROWS[i].name;
    return NULL;
}

const char *arch_like(enum arch_client client, enum transport transport, const char *kernel,
                      enum arch_encoding encoding, enum arch_grain grain)
{
    for (size_t i = 0; i < N_ARCH_ROWS; i++) {
        const struct arch_row *r = &ARCH_ROWS[i];
        if (r->client == client && r->transport == transport && strcmp(r->kernel, kernel) == 0 &&
            r->encoding == encoding && r->grain == grain)
            return r->name;
    }
    return "";
}

/* <<the-comparisons>>, paper/41-architectures.md */
const struct arch_comparison ARCH_COMPARISONS[] = {
    {"speedup.tuned_1core", "in_process_tuned_1core", NULL, 1},
    {"speedup.tuned_all", "in_process_tuned", NULL, 1},
    {"speedup.cores", "in_process_tuned_1core", "in_process_tuned", 2},
    {"speedup.tuned_1core_over_numba", "numba_in_process", "in_process_tuned_1core", 1},
    {"pair.python_batch_over_numba", "python_batch_unix", "numba_in_process", 3},
    {"pair.python_tuned_over_numba", "python_batch_unix_tuned", "numba_in_process", 3},
    {"pair.python_batch_over_batch", "python_batch_unix", "batch_unix", 3},
    {"pair.batch_tuned_over_tuned", "batch_unix_tuned", "in_process_tuned_1core", 3},
    {"pair.spawn_over_batch", "spawn_stdin", "batch_unix", 3},
    {"pair.chatty_over_batch", "chatty_unix", "batch_unix", 3},
};
const size_t N_ARCH_COMPARISONS = sizeof ARCH_COMPARISONS / sizeof ARCH_COMPARISONS[0];

const struct arch_comparison *arch_comparison(const char *key)
{
    for (size_t i = 0; i < N_ARCH_COMPARISONS; i++)
        if (strcmp(ARCH_COMPARISONS[i].key, key) == 0)
            return &ARCH_COMPARISONS[i];
    return NULL;
}

/* <<the-slots-of-a-unit>>, paper/41-architectures.md */
static const struct unit_layout UNIT_LAYOUTS[] = {
    [PAIRING_NONE] = {0, {0}},                 /* the baseline has no units of its own */
    [PAIRING_DUET] = {2, {SLOT_BOTH, SLOT_BOTH}},        /* a duet, then its mirror */
    [PAIRING_SEQUENTIAL] = {3, {SLOT_BASELINE, SLOT_ROW, SLOT_BASELINE}},
};

const struct unit_layout *unit_layout(enum arch_pairing p)
{
    size_t n = sizeof UNIT_LAYOUTS / sizeof UNIT_LAYOUTS[0];
    return &UNIT_LAYOUTS[(size_t)p < n ? p : PAIRING_NONE];
}

int slot_holds(enum arch_pairing p, long slot, int baseline)
{
    const struct unit_layout *l = unit_layout(p);
    return slot >= 1 && slot <= l->slots &&
           (l->sides[slot - 1] & (baseline ? SLOT_BASELINE : SLOT_ROW)) != 0;
}

double paired_ratio(enum arch_pairing p, const double *row_s, const double *base_s)
{
    if (p == PAIRING_DUET)
        return couple_ratio(row_s[0], base_s[0], row_s[1], base_s[1]);
    if (p == PAIRING_SEQUENTIAL)
        return turn_ratio(base_s[0], row_s[0], base_s[1]);
    return NAN;
}

/* <<transport-names>>, paper/57-client.md */
const char *transport_name(enum transport t)
{
    static const char *const names[] = {"none", "unix", "tcp", "shm_futex", "shm_spin",
                                        "pipe", "spawn"};
    return (size_t)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}
