/*
 * options.c - numbers given on a command line.
 *
 * Tangled from paper/40-harness.md.
 */
#include <errno.h>
#include <stdlib.h>

#include "wire/options.h"

int parse_long_in_range(const char *text, long min, long max, long *value)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
        return -1;
    *value = v;
    return 0;
}
