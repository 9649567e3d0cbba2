/*
 * test_fuzz_shm_regressions.c - replays the shared-memory fuzzer's seeds
 * (tests/fuzz/seeds.c) and every input kept in tests/fuzz/regressions/shm/
 * through tests/fuzz/fuzz_shm.c, as ordinary C without libFuzzer: a client's
 * session, and each kind of damage a second process can do to a segment.
 */
#include "testutil.h"

#define FUZZ_SEEDS_NO_MAIN
#include "fuzz/fuzz_shm.c"
#include "fuzz/seeds.c"

#define REPLAY_TARGET "shm"
#define REPLAY_INPUT_NAME shm_input_name
#define REPLAY_SEEDS fuzz_shm_seeds
#define REPLAY_MIN_SEEDS 10
#define REPLAY_MIN_REGRESSIONS 1
#include "fuzz/replay.h"
