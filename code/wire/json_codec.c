/*
 * json_codec.c - JSON requests and replies through jansson.
 *
 * Tangled from paper/83-json.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "wire/json_codec.h"
#include "wire/serialize.h"

/* <<json-encode-request>>, paper/83-json.md */
static json_t *params_array(const struct combo_params *params, size_t n_combos)
{
    json_t *all = json_array();
    for (size_t k = 0; all != NULL && k < n_combos; k++) {
        const struct combo_params *p = &params[k];
        json_t *six = json_pack("[IIIIII]", (json_int_t)p->h_half, (json_int_t)p->h_len,
                                (json_int_t)p->h_sqrt, (json_int_t)p->t_third,
                                (json_int_t)p->t_half, (json_int_t)p->t_len);
        if (json_array_append_new(all, six) != 0) {
            json_decref(all);
            return NULL;
        }
    }
    return all;
}

static char *print_and_free(json_t *value, size_t *len)
{
    char *text = value != NULL ? json_dumps(value, JSON_PRINT_FLAGS) : NULL;
    json_decref(value);
    if (text != NULL)
        *len = strlen(text);
    return text;
}

char *json_request_encode_timed(const double *close, size_t n_bars,
                                const struct combo_params *params, size_t n_combos, int timed,
                                size_t *len)
{
    json_t *close_array = json_series_array(close, n_bars);
    json_t *param_arrays = params_array(params, n_combos);
    if (close_array == NULL || param_arrays == NULL) {
        json_decref(close_array);
        json_decref(param_arrays);
        return NULL;
    }
    json_t *request = json_pack("{s:s,s:o,s:o}", "op", "sweep", "close", close_array, "params",
                                param_arrays);
    if (request != NULL && timed && json_object_set_new(request, "timing", json_true()) != 0) {
        json_decref(request);
        return NULL;
    }
    return print_and_free(request, len);
}

char *json_request_encode(const double *close, size_t n_bars,
                          const struct combo_params *params, size_t n_combos, size_t *len)
{
    return json_request_encode_timed(close, n_bars, params, n_combos, 0, len);
}

/* <<decode-windows-from-json>>, paper/83-json.md */
/* A JSON number that is a whole number an int64_t holds; its range as a
 * window is checked by the engine, as for a binary request. */
static int whole_number(const json_t *v, int64_t *out)
{
    double d = json_number_value(v);
    if (!json_is_number(v) || d != floor(d) || !(fabs(d) < 9223372036854775808.0))
        return -1;
    *out = (int64_t)d;
    return 0;
}

static int decode_params(const json_t *arrays, struct json_request *req, char *err,
                         size_t err_size)
{
    req->n_combos = json_array_size(arrays);
    req->params = malloc((req->n_combos ? req->n_combos : 1) * sizeof *req->params);
    if (req->params == NULL)
        return set_error(err, err_size, "engine out of memory for %zu combos", req->n_combos);
    for (size_t k = 0; k < req->n_combos; k++) {
        const json_t *six = json_array_get(arrays, k);
        int64_t w[PARAMS_PER_COMBO];
        if (!json_is_array(six) || json_array_size(six) != PARAMS_PER_COMBO)
            return set_error(err, err_size, "params[%zu] is not an array of 6 windows", k);
        for (size_t i = 0; i < PARAMS_PER_COMBO; i++)
            if (whole_number(json_array_get(six, i), &w[i]) != 0)
                return set_error(err, err_size, "params[%zu][%zu] is not a whole number", k, i);
        req->params[k] = (struct combo_params){w[0], w[1], w[2], w[3], w[4], w[5]};
    }
    return 0;
}

/* <<json-decode-request>>, paper/83-json.md */
int json_request_decode(const char *text, size_t len, struct json_request *req,
                        char *err, size_t err_size)
{
    json_error_t error;
    const char *op;
    json_t *close = NULL, *params = NULL;
    int timing = 0;
    memset(req, 0, sizeof *req);
    /* <<parse-the-json-text>>, paper/83-json.md */
    if (len > MAX_JSON_BODY)
        return set_error(err, err_size, "JSON body of %zu bytes exceeds the endpoint's "
                         "maximum of %u", len, MAX_JSON_BODY);
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;                     /* a byte-order mark, which jansson does not take */
        len -= 3;
    }
    json_t *doc = json_loadb(text, len, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES,
                             &error);
    if (doc == NULL)
        return set_error(err, err_size, "invalid JSON at line %d, column %d: %s", error.line,
                         error.column, error.text);
    int status = 0;
    /* <<check-the-requests-shape>>, paper/83-json.md */
    if (!json_is_object(doc))
        status = set_error(err, err_size, "a JSON request must be an object (this is %s)",
                           json_is_array(doc) ? "an array" : "not one");
    else if (json_unpack_ex(doc, &error, JSON_STRICT, "{s:s,s:o,s:o,s?b}", "op", &op,
                            "close", &close, "params", &params, "timing", &timing) != 0)
        status = set_error(err, err_size, "request object: %s", error.text);
    else if (strcmp(op, "sweep") != 0)
        status = set_error(err, err_size, "unknown op \"%s\" (the JSON endpoint serves "
                           "\"sweep\")", op);
    else if (!json_is_array(close) || json_array_size(close) == 0 ||
             json_array_size(close) > UINT32_MAX)
        status = set_error(err, err_size, "close must be a non-empty array of numbers");
    else if (!json_is_array(params))
        status = set_error(err, err_size, "params must be an array of arrays");
    /* <<read-the-requests-values>>, paper/83-json.md */
    if (status == 0) {
        req->timed = timing;
        req->n_bars = json_array_size(close);
        req->close = malloc(req->n_bars * sizeof *req->close);
        if (req->close == NULL || json_series_values(close, req->close, req->n_bars) != 0)
            status = set_error(err, err_size, "close must be an array of numbers only");
        else
            status = decode_params(params, req, err, err_size);
    }
    json_decref(doc);
    if (status != 0)
        json_request_free(req);
    return status;
}

void json_request_free(struct json_request *req)
{
    free(req->close);
    free(req->params);
    memset(req, 0, sizeof *req);
}

/* <<json-reply>>, paper/83-json.md */
char *json_reply_encode(const struct combo_result *results, size_t n_combos, size_t *len)
{
    json_t *pnl = json_array(), *trades = json_array();
    for (size_t k = 0; pnl != NULL && trades != NULL && k < n_combos; k++) {
        if (json_array_append_new(pnl, json_real(results[k].pnl)) != 0 ||
            json_array_append_new(trades, json_integer((json_int_t)results[k].trades)) != 0) {
            json_decref(pnl);
            json_decref(trades);
            return NULL;
        }
    }
    if (pnl == NULL || trades == NULL) {
        json_decref(pnl);
        json_decref(trades);
        return NULL;
    }
    return print_and_free(json_pack("{s:o,s:o}", "pnl", pnl, "trades", trades), len);
}

int json_reply_decode(const char *text, size_t len, struct combo_result *results,
                      size_t n_combos, char *err, size_t err_size)
{
    json_error_t error;
    json_t *pnl, *trades, *timing = NULL;
    json_t *doc = json_loadb(text, len, 0, &error);
    int status = 0;
    if (doc == NULL)
        status = set_error(err, err_size, "invalid JSON reply: %s", error.text);
    else if (json_unpack_ex(doc, &error, JSON_STRICT, "{s:o,s:o,s?o}", "pnl", &pnl,
                            "trades", &trades, "timing", &timing) != 0)
        status = set_error(err, err_size, "reply object: %s", error.text);
    else if (json_array_size(pnl) != n_combos || json_array_size(trades) != n_combos)
        status = set_error(err, err_size, "reply has %zu and %zu results for %zu combos",
                           json_array_size(pnl), json_array_size(trades), n_combos);
    for (size_t k = 0; status == 0 && k < n_combos; k++) {
        json_t *p = json_array_get(pnl, k), *t = json_array_get(trades, k);
        if (!json_is_real(p) || !json_is_integer(t)) {
            status = set_error(err, err_size, "reply result %zu is not a real and an integer",
                               k);
        } else {
            results[k].pnl = json_real_value(p);
            results[k].trades = (int64_t)json_integer_value(t);
        }
    }
    json_decref(doc);
    return status;
}

int json_reply_timing(const char *text, size_t len, struct call_timing *t,
                      char *err, size_t err_size)
{
    json_error_t error;
    json_int_t v[TIMING_TRAILER_FIELDS];
    json_t *doc = json_loadb(text, len, 0, &error);
    int status = 0;
    if (doc == NULL)
        status = set_error(err, err_size, "invalid JSON reply: %s", error.text);
    else if (json_unpack_ex(doc, &error, 0, "{s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I!}}", "timing",
                            "engine_ns", &v[0], "decode_ns", &v[1], "compute_ns", &v[2],
                            "encode_ns", &v[3], "cpu_ns", &v[4], "received_ns", &v[5],
                            "faults", &v[6]) != 0)
        status = set_error(err, err_size, "reply timing: %s", error.text);
    for (int i = 0; status == 0 && i < TIMING_TRAILER_FIELDS; i++)
        if (v[i] < 0)
            status = set_error(err, err_size, "reply timing: a negative value");
    if (status == 0)
        *t = (struct call_timing){(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2],
                                  (uint64_t)v[3], (uint64_t)v[4], (uint64_t)v[5],
                                  (uint64_t)v[6]};
    json_decref(doc);
    return status;
}
