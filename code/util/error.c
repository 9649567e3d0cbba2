/*
 * error.c - error messages: formatted, bounded, printable.
 *
 * Tangled from paper/50-protocol.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util/error.h"

int set_error_v(char *err, size_t err_size, const char *fmt, va_list ap)
{
    int saved = errno;
    if (err_size > 0) {
        vsnprintf(err, err_size, fmt, ap);
        for (unsigned char *p = (unsigned char *)err; *p != '\0'; p++)
            if (*p < 0x20 || *p > 0x7e)
                *p = '?';
    }
    errno = saved;
    return -1;
}

int set_error(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}
