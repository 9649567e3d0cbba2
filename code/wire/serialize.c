/*
 * serialize.c - raw, JSON and text encodings of a series of doubles.
 *
 * Tangled from paper/70-serialization.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "wire/serialize.h"

/* <<raw-series-codec>>, paper/70-serialization.md */
size_t raw_series_size(size_t n)
{
    return (size_t)request_body_size((uint32_t)n, 0);
}

void raw_series_encode(uint8_t *body, const double *x, size_t n)
{
    request_encode(body, OP_ECHO, x, (uint32_t)n, NULL, 0);
}

int raw_series_decode(const uint8_t *body, size_t len, double *x, size_t n)
{
    struct request_view req;
    char err[160];
    if (request_decode(body, len, &req, err, sizeof err) != 0 || req.n_bars != n)
        return -1;
    le_get_f64s(x, req.close, n);
    return 0;
}

/* <<json-series-codec>>, paper/70-serialization.md */
json_t *json_series_array(const double *x, size_t n)
{
    json_t *array = json_array();
    for (size_t i = 0; array != NULL && i < n; i++) {
        if (json_array_append_new(array, json_real(x[i])) != 0) {
            json_decref(array);
            return NULL;
        }
    }
    return array;
}

char *json_series_encode(const double *x, size_t n, size_t *len)
{
    json_t *array = json_series_array(x, n);
    if (array == NULL)
        return NULL;
    char *text = json_dumps(array, JSON_PRINT_FLAGS);
    json_decref(array);
    if (text != NULL)
        *len = strlen(text);
    return text;
}
int json_series_values(const json_t *array, double *x, size_t n)
{
    int ok = json_is_array(array) && json_array_size(array) == n;
    for (size_t i = 0; ok && i < n; i++) {
        json_t *value = json_array_get(array, i);
        ok = json_is_real(value);
        if (ok)
            x[i] = json_real_value(value);
    }
    return ok ? 0 : -1;
}

int json_series_decode(const char *text, size_t len, double *x, size_t n)
{
    json_error_t error;
    json_t *array = json_loadb(text, len, JSON_DECODE_INT_AS_REAL, &error);
    int status = array != NULL ? json_series_values(array, x, n) : -1;
    json_decref(array);            /* NULL when parsing failed, which is fine */
    return status;
}

/* <<text-series-codec>>, paper/70-serialization.md */
enum { TEXT_MAX_DOUBLE = 24 };     /* strlen("-2.2250738585072014e-308") */

size_t text_series_capacity(size_t n)
{
    return n * (TEXT_MAX_DOUBLE + 1) + 1;
}

size_t text_series_encode(char *buf, const double *x, size_t n)
{
    char *p = buf;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ',';
        p += snprintf(p, TEXT_MAX_DOUBLE + 1, "%.17g", x[i]);
    }
    *p = '\0';
    return (size_t)(p - buf);
}
int text_series_decode(const char *text, double *x, size_t n)
{
    const char *p = text;
    for (size_t i = 0; i < n; i++) {
        char *end;
        if (i > 0 && *p++ != ',')
            return -1;
        x[i] = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
    }
    return *p == '\0' ? 0 : -1;
}
