/*
 * test_fuzz_options_regressions.c - replays the command-line fuzzer's seeds
 * (tests/fuzz/seeds.c) through tests/fuzz/fuzz_options.c, as ordinary C
 * without libFuzzer. The command line's fuzzer has found no defect, so
 * tests/fuzz/regressions/options/ keeps no input; the replay fails if one
 * appears there without REPLAY_MIN_REGRESSIONS saying so.
 */
#include "testutil.h"

#define FUZZ_SEEDS_NO_MAIN
#include "fuzz/fuzz_options.c"
#include "fuzz/seeds.c"

#define REPLAY_TARGET "options"
#define REPLAY_INPUT_NAME options_input_name
#define REPLAY_SEEDS fuzz_options_seeds
#define REPLAY_MIN_SEEDS 10
#define REPLAY_MIN_REGRESSIONS 0
#include "fuzz/replay.h"
