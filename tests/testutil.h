/*
 * testutil.h - helpers shared by the cmocka tests.
 */
#ifndef IPCTAX_TESTUTIL_H
#define IPCTAX_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/* Exact equality of two doubles, bit for bit, with both printed on failure. */
#define assert_same_double(actual, expected)                                          \
    do {                                                                              \
        double a_ = (actual), e_ = (expected);                                        \
        if (memcmp(&a_, &e_, sizeof a_) != 0)                                         \
            fail_msg("%s = %.17g, expected %.17g (bits differ)", #actual, a_, e_);    \
    } while (0)

#endif
