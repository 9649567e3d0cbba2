/*
 * error.h - the one way every layer reports a failure.
 *
 * Tangled from paper/50-protocol.md.
 */
#ifndef IPCTAX_ERROR_H
#define IPCTAX_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* A message buffer on a caller's stack: one line, with room for a path. */
enum { ERR_SIZE = 512 };

/* Formats a message into err[0..err_size) (nothing when err_size is 0),
 * reduced to printable ASCII, and returns -1; errno is left unchanged. */
int set_error(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with the arguments as a va_list. */
int set_error_v(char *err, size_t err_size, const char *fmt, va_list ap);

#endif
