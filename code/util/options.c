/*
 * options.c - the command-line convention of every ipctax program.
 *
 * Tangled from paper/40-harness.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/options.h"

/* <<whole-numbers-only>>, paper/40-harness.md */
/* Digits, after at most one leading '-': what a whole number may be written as. */
static int looks_whole(const char *text)
{
    const char *p = text[0] == '-' ? text + 1 : text;
    if (*p == '\0')
        return 0;
    for (; *p != '\0'; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

int parse_long_in_range(const char *text, long min, long max, long *value)
{
    char *end;
    if (!looks_whole(text))
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *value = v;
    return 0;
}

/* <<an-option-of-whole-numbers>>, paper/40-harness.md */
int option_long(const char *name, const char *text, long min, long max, long *value,
                char *err, size_t err_size)
{
    long any;
    if (parse_long_in_range(text, min, max, value) == 0)
        return 0;
    if (parse_long_in_range(text, LONG_MIN, LONG_MAX, &any) == 0)
        return set_error(err, err_size, "%s: %s is outside %ld..%ld", name, text, min, max);
    return set_error(err, err_size, "%s: '%s' is not a whole number in %ld..%ld", name, text,
                     min, max);
}

int option_longs(const char *name, const char *text, int count, long min, long max,
                 long *values, char *err, size_t err_size)
{
    char piece[32];
    const char *p = text;
    for (int i = 0; i < count; i++) {
        size_t n = strcspn(p, ",");
        int last = i == count - 1;
        if (n >= sizeof piece || (last ? p[n] != '\0' : p[n] != ','))
            break;
        memcpy(piece, p, n);
        piece[n] = '\0';
        if (parse_long_in_range(piece, min, max, &values[i]) != 0)
            break;
        if (last)
            return 0;
        p += n + 1;
    }
    return set_error(err, err_size, "%s: '%s' is not %d whole numbers in %ld..%ld, separated "
                     "by commas", name, text, count, min, max);
}

/* <<real-numbers-only>>, paper/40-harness.md */
/* Decimal digits, at most one point, and an exponent: no space, no '+'
 * before the number, no inf, nan or hexadecimal. */
static int looks_decimal(const char *text)
{
    const char *p = text[0] == '-' ? text + 1 : text;
    int digits = 0, point = 0;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !point); p++) {
        digits += *p != '.';
        point |= *p == '.';
    }
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '-' || p[1] == '+' ? 2 : 1;
        if (*p == '\0')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

int option_double(const char *name, const char *text, double min, double max,
                  double *value, char *err, size_t err_size)
{
    char *end;
    errno = 0;
    double v = looks_decimal(text) ? strtod(text, &end) : 0.0;
    if (looks_decimal(text) && errno == 0 && *end == '\0' && v >= min && v <= max) {
        *value = v;
        return 0;
    }
    return set_error(err, err_size, "%s: '%s' is not a number in %g..%g", name, text, min, max);
}

/* <<refusals-and-versions>>, paper/40-harness.md */
static void getopt_error(int opt, char **argv, char *err, size_t err_size)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    char shown[64];
    if (strncmp(arg, "--", 2) == 0 || optopt == 0)
        snprintf(shown, sizeof shown, "%s", arg);
    else
        snprintf(shown, sizeof shown, "-%c", optopt);
    if (opt == ':')
        set_error(err, err_size, "%s needs a value", shown);
    else
        set_error(err, err_size, "unknown option '%s'", shown);
}
int option_next(int argc, char **argv, const char *shorts, const struct option *options,
                char *err, size_t err_size)
{
    int index = -1;
    opterr = 0;
    int opt = getopt_long(argc, argv, shorts, options, &index);
    if (opt == '?' || opt == ':') {
        getopt_error(opt, argv, err, err_size);
        return '?';
    }
    if (opt == -1 || index < 0)
        return opt;
    const struct option *o = &options[index];
    int apart = o->has_arg == required_argument && optarg == argv[optind - 1];
    const char *given = argv[optind - 1 - apart];
    size_t n = strlen(o->name), written = strcspn(given, "=");
    if (written == n + 2 && strncmp(given + 2, o->name, n) == 0)
        return opt;
    set_error(err, err_size, "unknown option '%.*s' (a long option is written whole: --%s?)",
              (int)(written < 60 ? written : 60), given, o->name);
    return '?';
}

int usage_error(const char *program, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    set_error_v(message, sizeof message, fmt, ap);         /* printable: argv may not be */
    va_end(ap);
    fprintf(stderr, "%s: %s (see --help)\n", program, message);
    return EXIT_USAGE;
}

#ifndef IPCTAX_RELEASE
#define IPCTAX_RELEASE "unreleased"
#endif

int print_version(const char *program, const char *commit)
{
    printf("%s %s (commit %s)\n", program, IPCTAX_RELEASE, commit);
    return 0;
}
int options_of_operands(int argc, char **argv, const char *program, const char *commit,
                        void (*usage)(FILE *to), int *status)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            *status = 0;
            return 1;
        }
        if (strcmp(argv[i], "--version") == 0) {
            *status = print_version(program, commit);
            return 1;
        }
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            *status = usage_error(program, "unknown option '%s'", argv[i]);
            return 1;
        }
    return 0;
}
