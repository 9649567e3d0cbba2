/*
 * test_fuzz_options_regressions.c - replays the command-line fuzzer's seeds
 * (tests/fuzz/seeds.c) and every input kept in
 * tests/fuzz/regressions/options/ through tests/fuzz/fuzz_options.c, as
 * ordinary C without libFuzzer.
 */
#include "testutil.h"

#define FUZZ_SEEDS_NO_MAIN
#include "fuzz/fuzz_options.c"
#include "fuzz/seeds.c"

#define REPLAY_TARGET "options"
#define REPLAY_INPUT_NAME options_input_name
#define REPLAY_SEEDS fuzz_options_seeds
#define REPLAY_MIN_SEEDS 10
#include "fuzz/replay.h"
