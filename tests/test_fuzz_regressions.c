/*
 * test_fuzz_regressions.c - replays the request fuzzer's seeds and every
 * input kept in tests/fuzz/regressions/request/ through the target
 * (tests/fuzz/fuzz_request.c), compiled here as ordinary C without
 * libFuzzer. Each regression input once broke a property of the target (see
 * tests/fuzz/regressions/README.md); each must now pass.
 *
 * `make check-sanitize` runs this same test built with AddressSanitizer and
 * UndefinedBehaviorSanitizer, so the replay is also a sanitized run of every
 * kept input on machines without clang.
 */
#include "testutil.h"

#define FUZZ_SEEDS_NO_MAIN
#include "fuzz/fuzz_request.c"
#include "fuzz/seeds.c"

#define REPLAY_TARGET "request"
#define REPLAY_INPUT_NAME fuzz_input_name
#define REPLAY_SEEDS fuzz_seeds
#define REPLAY_MIN_SEEDS 20
#define REPLAY_MIN_REGRESSIONS 5
#include "fuzz/replay.h"
