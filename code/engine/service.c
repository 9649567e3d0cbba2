/*
 * service.c - reads request frames, answers them, one connection at a time.
 *
 * Tangled from paper/55-engine.md.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/service.h"
#include "kernel/kernel_stream.h"
#include "util/error.h"
#include "util/timing.h"
#include "wire/frame.h"
#include "wire/json_codec.h"
#include "wire/netio.h"

/* <<connection-lifetime>>, paper/55-engine.md */
void connection_init(struct connection *c, const struct engine_config *cfg)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    sweep_workspace_init(&c->workspace, &cfg->layout);
    /* <<init-connection-extra-state>>, paper/80-stateful.md */
    sweep_workspace_init(&c->loaded, &cfg->layout);
}

void connection_free(struct connection *c)
{
    struct buffer *all[] = {&c->body, &c->params, &c->results, &c->out};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        buffer_free(all[i]);
    sweep_workspace_free(&c->workspace);
    /* <<free-connection-extra-state>>, paper/80-stateful.md */
    sweep_workspace_free(&c->loaded);
    if (c->streaming)
        stream_free(&c->stream);
    /* <<free-connection-extra-state>>, paper/83-json.md */
    free(c->json_reply);
    memset(c, 0, sizeof *c);
}

/* <<handle-sweep>>, paper/55-engine.md */
/* <<timing-marks>>, paper/55-engine.md */
/* The process's CPU time and its minor page faults so far. */
static void usage_now(uint64_t *cpu_ns, uint64_t *faults)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *cpu_ns = ((uint64_t)u.ru_utime.tv_sec + (uint64_t)u.ru_stime.tv_sec) * 1000000000u +
              ((uint64_t)u.ru_utime.tv_usec + (uint64_t)u.ru_stime.tv_usec) * 1000u;
    *faults = (uint64_t)u.ru_minflt;
}

/* The end of a phase, for a request that asked to be timed. */
static void mark(const struct connection *c, uint64_t *at)
{
    if (c->timed)
        *at = clock_ns();
}

/* <<work-limit>>, paper/55-engine.md */
/* One bar's steps for one combination: its seven moving averages. */
static uint64_t combo_steps(const struct combo_params *p)
{
    return (uint64_t)(p->h_half + p->h_len + p->h_sqrt + p->t_third + p->t_half + 2 * p->t_len);
}

uint64_t sweep_work(const struct combo_params *params, size_t n_combos, uint64_t n_bars)
{
    uint64_t total = 0;
    for (size_t k = 0; k < n_combos; k++) {
        uint64_t w = combo_steps(&params[k]) * n_bars;
        total = w > UINT64_MAX - total ? UINT64_MAX : total + w;
    }
    return total;
}

static int check_work(const struct connection *c, uint64_t work, const char *what,
                      char *err, size_t err_size)
{
    if (work <= c->cfg->max_work)
        return 0;
    return set_error(err, err_size, "%s of %llu window-bar steps is more than the engine's "
                     "--max-work of %llu", what, (unsigned long long)work,
                     (unsigned long long)c->cfg->max_work);
}

/* <<watch-a-long-sweep>>, paper/55-engine.md */
/* Work from which a sweep is watched: 2^27 window-bar steps, about a tenth
 * of a second of the naive kernel. */
#define SWEEP_WATCH_STEPS (1ull << 27)
enum { PEER_CHECK_MS = 100 };          /* how often the watch asks about the client */

/* A thread that asks the link every PEER_CHECK_MS whether the client is
 * still there while the kernel runs, and raises the work's stop flag (a
 * sweep's workspace's, a stream's) when it is not. */
struct client_watch {
    const struct byte_link *link;
    atomic_int *stop;
    pthread_mutex_t lock;
    pthread_cond_t wake;                /* signalled when the kernel has returned */
    int done;
    pthread_t thread;
};

static void *watch_the_client(void *arg)
{
    struct client_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += PEER_CHECK_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
        if (!w->done && w->link->peer_gone(w->link->ctx)) {
            atomic_store_explicit(w->stop, 1, memory_order_relaxed);
            break;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* <<start-and-end-a-watch>>, paper/55-engine.md */
static int watch_start(struct client_watch *w, const struct byte_link *link, atomic_int *stop)
{
    pthread_condattr_t attr;
    w->link = link;
    w->stop = stop;
    w->done = 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&w->thread, NULL, watch_the_client, w) == 0)
        return 0;
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    return -1;
}

static void watch_end(struct client_watch *w)
{
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
}

/* <<run-the-kernel-watched>>, paper/55-engine.md */
/* Starts a watch over `stop` when `work` is long enough and the link can
 * tell whether the client has gone; whether it did. */
static int watch_if_long(struct connection *c, uint64_t work, atomic_int *stop,
                         struct client_watch *w)
{
    return work >= SWEEP_WATCH_STEPS && c->link != NULL && c->link->peer_gone != NULL &&
           watch_start(w, c->link, stop) == 0;
}

/* Runs the kernel, watched when its `work` is long enough and the link can
 * tell whether the client has gone; 0, or -1 with a message. */
static int run_the_kernel(struct connection *c, struct sweep_workspace *ws, const double *close,
                          uint32_t n_bars, const struct combo_params *params,
                          uint32_t n_combos, uint64_t work, struct combo_result *results,
                          char *err, size_t err_size)
{
    struct client_watch watch;
    int watched = watch_if_long(c, work, &ws->stop, &watch);
    int status = c->cfg->sweep(ws, close, n_bars, params, n_combos, results);
    if (watched)
        watch_end(&watch);
    sweep_workspace_resume(ws);
    if (status == SWEEP_STOPPED)
        return set_error(err, err_size, "the sweep was abandoned: the client has gone, or "
                         "the engine is stopping");
    if (status != 0)
        return set_error(err, err_size, "engine out of memory for the sweep workspace");
    return 0;
}

/* <<decode-the-parameter-sets>>, paper/55-engine.md */
/* The request's parameter sets, decoded into the connection's buffer. */
static struct combo_params *decode_params(struct connection *c, const struct request_view *req,
                                          char *err, size_t err_size)
{
    struct combo_params *params = buffer_reserve(&c->params,
                                                 (size_t)req->n_combos * sizeof *params);
    if (params == NULL) {
        set_error(err, err_size, "engine out of memory for %u combos", req->n_combos);
        return NULL;
    }
    request_params(req, params);
    return params;
}

/* <<check-the-windows-and-run-the-kernel>>, paper/55-engine.md */
/* Checks the windows against the series (`limit` names its length for the
 * message) and the work against --max-work, then runs the kernel; the
 * results are in c->results. */
static int checked_sweep(struct connection *c, struct sweep_workspace *ws, const double *close,
                         uint32_t n_bars, const char *limit, const struct combo_params *params,
                         uint32_t n_combos, char *err, size_t err_size)
{
    if (request_check_windows(params, n_combos, n_bars, limit, err, err_size) != 0)
        return -1;
    uint64_t work = sweep_work(params, n_combos, n_bars);     /* windows checked: no overflow */
    if (check_work(c, work, "a sweep", err, err_size) != 0)
        return -1;
    struct combo_result *results = buffer_reserve(&c->results, (size_t)n_combos * sizeof *results);
    if (results == NULL)
        return set_error(err, err_size, "engine out of memory for %u combos", n_combos);
    mark(c, &c->decoded_ns);
    if (run_the_kernel(c, ws, close, n_bars, params, n_combos, work, results, err,
                       err_size) != 0)
        return -1;
    mark(c, &c->computed_ns);
    return 0;
}

/* <<reply-with-the-results>>, paper/55-engine.md */
/* The reply to a sweep: c->results[0..n_combos) as the protocol's two arrays. */
static int reply_with_results(struct connection *c, uint32_t n_combos, char *err,
                              size_t err_size)
{
    size_t size = (size_t)sweep_reply_size(n_combos);
    uint8_t *out = buffer_reserve(&c->out, size);
    if (out == NULL)
        return set_error(err, err_size, "engine out of memory for the reply");
    sweep_reply_encode(out, c->results.data, n_combos);
    c->reply[0] = out;
    c->reply_len[0] = size;
    c->n_reply = 1;
    mark(c, &c->encoded_ns);
    return 0;
}

/* <<decode-the-series-and-sweep>>, paper/55-engine.md */
static int sweep_and_reply(struct connection *c, struct sweep_workspace *ws, const double *close,
                           uint32_t n_bars, const char *limit, const struct request_view *req,
                           char *err, size_t err_size)
{
    const struct combo_params *params = decode_params(c, req, err, err_size);
    if (params == NULL ||
        checked_sweep(c, ws, close, n_bars, limit, params, req->n_combos, err, err_size) != 0)
        return -1;
    return reply_with_results(c, req->n_combos, err, err_size);
}

static int handle_sweep(struct connection *c, const struct request_view *req,
                        char *err, size_t err_size)
{
    if (sweep_workspace_reserve(&c->workspace, req->n_bars) != 0)
        return set_error(err, err_size, "engine out of memory for %u bars", req->n_bars);
    le_get_f64s(c->workspace.series, req->close, req->n_bars);
    if (request_check_closes(c->workspace.series, req->n_bars, err, err_size) != 0)
        return -1;
    return sweep_and_reply(c, &c->workspace, c->workspace.series, req->n_bars, "n_bars", req,
                           err, err_size);
}

/* <<handle-echo>>, paper/55-engine.md */
static int handle_echo(struct connection *c, const struct request_view *req,
                       char *err, size_t err_size)
{
    (void)err;
    (void)err_size;
    mark(c, &c->decoded_ns);               /* nothing to compute, nothing to encode */
    c->reply[0] = req->close;
    c->reply_len[0] = (size_t)req->n_bars * 8;
    c->n_reply = 1;
    return 0;
}

/* <<handle-stateful-opcodes>>, paper/80-stateful.md */
static int empty_reply(struct connection *c)
{
    c->n_reply = 0;
    return 0;
}

static int handle_load(struct connection *c, const struct request_view *req,
                       char *err, size_t err_size)
{
    if (sweep_workspace_reserve(&c->loaded, req->n_bars) != 0)
        return set_error(err, err_size, "engine out of memory loading %u bars", req->n_bars);
    le_get_f64s(c->loaded.series, req->close, req->n_bars);
    c->loaded_bars = 0;                    /* a refused series replaces the last one too */
    if (request_check_closes(c->loaded.series, req->n_bars, err, err_size) != 0)
        return -1;
    c->loaded_bars = req->n_bars;
    mark(c, &c->decoded_ns);               /* nothing to compute, nothing to encode */
    return empty_reply(c);
}

static int handle_sweep_loaded(struct connection *c, const struct request_view *req,
                               char *err, size_t err_size)
{
    if (c->loaded_bars == 0)
        return set_error(err, err_size, "sweep on a loaded series, but no series is loaded "
                         "(send opcode 2 first)");
    return sweep_and_reply(c, &c->loaded, c->loaded.series, c->loaded_bars, "the loaded n_bars",
                           req, err, err_size);
}
static int handle_open_stream(struct connection *c, const struct request_view *req,
                              char *err, size_t err_size)
{
    if (c->streaming)
        stream_free(&c->stream);
    c->streaming = 0;
    const struct combo_params *params = decode_params(c, req, err, err_size);
    if (params == NULL ||
        request_check_windows(params, req->n_combos, MAX_STREAM_WINDOW, "the stream limit",
                              err, err_size) != 0)
        return -1;
    uint64_t need = stream_memory(params, req->n_combos);
    if (need > c->cfg->max_frame)
        return set_error(err, err_size, "a stream of %u combos would hold %llu bytes, more "
                         "than the engine's maximum frame of %u", req->n_combos,
                         (unsigned long long)need, c->cfg->max_frame);
    if (check_work(c, sweep_work(params, req->n_combos, 1), "each bar of this stream", err,
                   err_size) != 0)
        return -1;
    mark(c, &c->decoded_ns);
    if (stream_open(&c->stream, params, req->n_combos) != 0)
        return set_error(err, err_size, "engine out of memory opening a stream");
    c->streaming = 1;
    c->stream_work = sweep_work(params, req->n_combos, 1);
    mark(c, &c->computed_ns);
    return empty_reply(c);
}

static int need_stream(const struct connection *c, const struct request_view *req,
                       char *err, size_t err_size)
{
    if (c->streaming)
        return 0;
    return set_error(err, err_size, "opcode %u needs an open stream (send opcode 4 first)",
                     req->opcode);
}
static int handle_bar(struct connection *c, const struct request_view *req,
                      char *err, size_t err_size)
{
    double close;
    if (need_stream(c, req, err, err_size) != 0)
        return -1;
    int8_t *positions = buffer_reserve(&c->out, c->stream.n_combos);
    if (positions == NULL)
        return set_error(err, err_size, "engine out of memory for the positions");
    le_get_f64s(&close, req->close, 1);
    if (request_check_closes(&close, 1, err, err_size) != 0)
        return -1;
    mark(c, &c->decoded_ns);
    struct client_watch watch;
    int watched = watch_if_long(c, c->stream_work, &c->stream.stop, &watch);
    int status = stream_bar(&c->stream, close, positions);   /* the positions are the reply */
    if (watched)
        watch_end(&watch);
    if (status == SWEEP_STOPPED) {
        stream_free(&c->stream);
        c->streaming = 0;
        return set_error(err, err_size, "the bar was abandoned: the client has gone, or the "
                         "engine is stopping");
    }
    mark(c, &c->computed_ns);
    c->reply[0] = positions;
    c->reply_len[0] = c->stream.n_combos;
    c->n_reply = 1;
    return 0;
}

static int handle_close_stream(struct connection *c, const struct request_view *req,
                               char *err, size_t err_size)
{
    if (need_stream(c, req, err, err_size) != 0)
        return -1;
    uint32_t n = (uint32_t)c->stream.n_combos;
    struct combo_result *results = buffer_reserve(&c->results, (size_t)n * sizeof *results);
    if (results == NULL)
        return set_error(err, err_size, "engine out of memory for the results");
    mark(c, &c->decoded_ns);
    stream_close(&c->stream, results);
    stream_free(&c->stream);
    c->streaming = 0;
    mark(c, &c->computed_ns);
    return reply_with_results(c, n, err, err_size);
}

/* <<handle-json-request>>, paper/83-json.md */
/* The JSON reply to c->results[0..n_combos), kept on the connection until sent. */
static int reply_with_json(struct connection *c, size_t n_combos, char *err, size_t err_size)
{
    const struct combo_result *results = c->results.data;
    for (size_t k = 0; k < n_combos; k++)
        if (!isfinite(results[k].pnl))
            return set_error(err, err_size, "combo %zu's PnL is %g, which JSON cannot "
                             "represent (the binary protocol can)", k, results[k].pnl);
    size_t text_len;
    free(c->json_reply);
    c->json_reply = json_reply_encode(results, n_combos, &text_len);
    if (c->json_reply == NULL)
        return set_error(err, err_size, "engine out of memory for the JSON reply");
    c->reply[0] = c->json_reply;
    c->reply_len[0] = text_len;
    c->n_reply = 1;
    mark(c, &c->encoded_ns);
    return 0;
}

static int handle_json(struct connection *c, const uint8_t *body, size_t len,
                       char *err, size_t err_size)
{
    struct json_request req;
    if (json_request_decode((const char *)body, len, &req, err, err_size) != 0)
        return -1;
    c->timed = req.timed;
    c->reply_is_json = 1;
    int status = request_check_closes(req.close, req.n_bars, err, err_size);
    if (status == 0)
        status = checked_sweep(c, &c->workspace, req.close, (uint32_t)req.n_bars, "n_bars",
                               req.params, (uint32_t)req.n_combos, err, err_size);
    if (status == 0)
        status = reply_with_json(c, req.n_combos, err, err_size);
    json_request_free(&req);
    return status;
}

/* A body that starts as JSON text does (white space, a byte-order mark,
 * an object or an array) is JSON; no binary opcode is any of these bytes. */
static int is_json_body(const uint8_t *body, size_t len)
{
    return len > 0 && (body[0] == ' ' || body[0] == '\t' || body[0] == '\n' ||
                       body[0] == '\r' || body[0] == 0xef || body[0] == '{' || body[0] == '[');
}

/* <<opcode-table>>, paper/55-engine.md */
/* How many bars, or combinations, an opcode's request may carry. */
enum count_rule { COUNT_NONE, COUNT_ONE, COUNT_SOME, COUNT_ANY };

struct opcode_entry {
    const char *name;                  /* for messages */
    enum count_rule bars, combos;      /* the shape of its request */
    int (*handle)(struct connection *c, const struct request_view *req,
                  char *err, size_t err_size);
};

static const struct opcode_entry OPCODES[OPCODE_COUNT] = {
    [OP_SWEEP] = {"sweep", COUNT_SOME, COUNT_ANY, handle_sweep},
    [OP_ECHO] = {"echo", COUNT_ANY, COUNT_ANY, handle_echo},
    /* <<stateful-opcode-entries>>, paper/80-stateful.md */
    [OP_LOAD] = {"load", COUNT_SOME, COUNT_NONE, handle_load},
    [OP_SWEEP_LOADED] = {"sweep loaded", COUNT_NONE, COUNT_ANY, handle_sweep_loaded},
    [OP_OPEN_STREAM] = {"open stream", COUNT_NONE, COUNT_SOME, handle_open_stream},
    [OP_BAR] = {"bar", COUNT_ONE, COUNT_NONE, handle_bar},
    [OP_CLOSE_STREAM] = {"close stream", COUNT_NONE, COUNT_NONE, handle_close_stream},
};

static int count_fits(enum count_rule rule, uint32_t n)
{
    return rule == COUNT_NONE ? n == 0 : rule == COUNT_ONE ? n == 1
         : rule == COUNT_SOME ? n >= 1 : 1;
}

/* "n_bars >= 1", "n_combos = 0", ...: what a rule asks of a count. */
static const char *count_words(enum count_rule rule)
{
    return rule == COUNT_NONE ? "= 0" : rule == COUNT_ONE ? "= 1" : ">= 1";
}

static int check_shape(const struct opcode_entry *op, const struct request_view *req,
                       char *err, size_t err_size)
{
    if (count_fits(op->bars, req->n_bars) && count_fits(op->combos, req->n_combos))
        return 0;
    char need[64] = "";
    if (op->bars != COUNT_ANY)
        snprintf(need, sizeof need, "n_bars %s", count_words(op->bars));
    if (op->combos != COUNT_ANY)
        snprintf(need + strlen(need), sizeof need - strlen(need), "%sn_combos %s",
                 need[0] ? " and " : "", count_words(op->combos));
    return set_error(err, err_size, "opcode %u (%s) needs %s (got n_bars = %u, n_combos = %u)",
                     req->opcode, op->name, need, req->n_bars, req->n_combos);
}

/* <<handle-request>>, paper/55-engine.md */
int handle_request(struct connection *c, const uint8_t *body, size_t len,
                   char *err, size_t err_size)
{
    struct request_view req;
    c->n_reply = 0;
    c->timed = c->reply_is_json = 0;
    c->decoded_ns = c->computed_ns = c->encoded_ns = 0;
    /* <<route-json-requests>>, paper/83-json.md */
    if (is_json_body(body, len))
        return handle_json(c, body, len, err, err_size);
    if (request_decode(body, len, &req, err, err_size) != 0)
        return -1;
    c->timed = req.timed;
    const struct opcode_entry *op = &OPCODES[req.opcode];     /* decoded: in range */
    if (op->handle == NULL)
        return set_error(err, err_size, "opcode %u is defined but not served", req.opcode);
    if (check_shape(op, &req, err, err_size) != 0)
        return -1;
    return op->handle(c, &req, err, err_size);
}

/* <<send-reply-or-error>>, paper/55-engine.md */
/* Adds the engine's timing of the call as the reply's last piece. */
static void append_timing(struct connection *c)
{
    uint64_t now = clock_ns(), cpu, faults;
    usage_now(&cpu, &faults);
    uint64_t decoded = c->decoded_ns ? c->decoded_ns : c->started_ns;
    uint64_t computed = c->computed_ns ? c->computed_ns : decoded;
    uint64_t encoded = c->encoded_ns ? c->encoded_ns : computed;
    struct call_timing t = {now - c->started_ns, decoded - c->started_ns, computed - decoded,
                            encoded - computed, cpu - c->cpu_started_ns, c->started_ns,
                            faults - c->faults_started};
    if (c->reply_is_json && c->n_reply > 0) {
        c->reply_len[c->n_reply - 1]--;            /* the closing brace, put back below */
        int n = snprintf(c->timing_text, sizeof c->timing_text, ",\"timing\":{"
                         "\"engine_ns\":%llu,\"decode_ns\":%llu,\"compute_ns\":%llu,"
                         "\"encode_ns\":%llu,\"cpu_ns\":%llu,\"received_ns\":%llu,"
                         "\"faults\":%llu}}",
                         (unsigned long long)t.engine_ns, (unsigned long long)t.decode_ns,
                         (unsigned long long)t.compute_ns, (unsigned long long)t.encode_ns,
                         (unsigned long long)t.cpu_ns, (unsigned long long)t.received_ns,
                         (unsigned long long)t.faults);
        c->reply[c->n_reply] = c->timing_text;
        c->reply_len[c->n_reply++] = (size_t)n;
    } else {
        timing_trailer_encode(c->trailer, &t);
        c->reply[c->n_reply] = c->trailer;
        c->reply_len[c->n_reply++] = TIMING_TRAILER_BYTES;
    }
}

static uint64_t deadline_in(int ms)
{
    return ms > 0 ? clock_ns() + (uint64_t)ms * 1000000u : NO_DEADLINE;
}

static int send_reply(struct connection *c, const struct byte_link *link)
{
    uint8_t header[FRAME_HEADER_BYTES];
    struct iovec iov[4] = {{header, sizeof header}};
    size_t total = 0;
    if (c->timed)
        append_timing(c);
    for (int i = 0; i < c->n_reply; i++) {
        iov[1 + i].iov_base = (void *)c->reply[i];
        iov[1 + i].iov_len = c->reply_len[i];
        total += c->reply_len[i];
    }
    le_put_u32(header, (uint32_t)total);
    return link->write_all(link->ctx, iov, 1 + c->n_reply,
                           deadline_in(c->cfg->frame_timeout_ms));
}

/* Best effort: a peer that has gone cannot be told, and the write says so at once. */
static void send_error(struct connection *c, const struct byte_link *link, const char *message)
{
    uint8_t header[FRAME_HEADER_BYTES];
    uint32_t n = error_frame_header(header, strlen(message));
    struct iovec iov[2] = {{header, sizeof header}, {(void *)message, n}};
    link->write_all(link->ctx, iov, 2, deadline_in(c->cfg->frame_timeout_ms));
}

/* <<serve-connection>>, paper/55-engine.md */
/* Whether a body can ask to be timed: a binary opcode with the top bit, or
 * JSON text (whose "timing" member only parsing finds). */
static int may_ask_for_timing(const uint8_t *body, size_t len)
{
    return len > 0 && ((body[0] & OP_TIMED) || is_json_body(body, len));
}

/* Describes why a frame could not be read whole, for the error frame. */
static void describe_read_failure(char *err, size_t size, const char *part, int timeout_ms)
{
    if (errno == ETIMEDOUT)
        set_error(err, size, "the frame's %s did not arrive within %d ms", part, timeout_ms);
    else if (errno == ECONNRESET)
        set_error(err, size, "the connection ended in the middle of the frame's %s", part);
    else
        set_error(err, size, "reading the frame's %s: %s", part, strerror(errno));
}

enum { BODY_AHEAD = 64 * 1024 };

/* Moves the next frame's bytes that came with the last one to the front:
 * the header's into header, the body's to the start of the body buffer.
 * Returns how many there were. */
static size_t take_ahead(struct connection *c, uint8_t *header)
{
    uint8_t *from = (uint8_t *)c->body.data + c->ahead_at;
    size_t n = c->ahead, in_header = n < FRAME_HEADER_BYTES ? n : FRAME_HEADER_BYTES;
    memcpy(header, from, in_header);
    memmove(c->body.data, from + in_header, n - in_header);
    c->ahead = c->ahead_at = 0;
    return n;
}

/* Reads at least `least` more bytes of the frame (have read so far) into
 * the header and the body buffer, as many as have arrived. */
static ssize_t read_frame_bytes(struct connection *c, const struct byte_link *link,
                                uint8_t *header, size_t have, size_t least, uint64_t deadline)
{
    size_t in_header = have < FRAME_HEADER_BYTES ? have : FRAME_HEADER_BYTES;
    size_t in_body = have - in_header;
    struct iovec iov[2] = {{header + in_header, FRAME_HEADER_BYTES - in_header},
                           {(uint8_t *)c->body.data + in_body, c->body.cap - in_body}};
    return in_header < FRAME_HEADER_BYTES ? link->read_some(link->ctx, iov, 2, least, deadline)
                                          : link->read_some(link->ctx, iov + 1, 1, least, deadline);
}

static int serve_frames(struct connection *c, const struct byte_link *link, int max_requests)
{
    char err[512];
    const struct engine_config *cfg = c->cfg;
    for (int served = 0; max_requests == 0 || served < max_requests; served++) {
        uint8_t header[FRAME_HEADER_BYTES];
        size_t have = 0;                       /* bytes of this frame read, header first */
        /* <<start-from-what-came-ahead>>, paper/55-engine.md */
        if (c->ahead > 0)
            have = take_ahead(c, header);
        if (buffer_reserve(&c->body, BODY_AHEAD) == NULL) {
            send_error(c, link, "engine out of memory for the request body");
            return -1;
        }
        /* <<wait-for-a-frames-first-byte>>, paper/55-engine.md */
        ssize_t got = have > 0 ? 0
                               : read_frame_bytes(c, link, header, 0, 1,
                                                  deadline_in(cfg->idle_timeout_ms));
        if (got == 0 && have == 0)
            return 0;                                  /* the client is done */
        if (got < 0 && errno == EINTR)
            return -1;              /* the engine is stopping; between frames nothing is owed */
        if (got < 0) {
            if (errno == ETIMEDOUT)
                set_error(err, sizeof err, "no request within the idle timeout of %d ms",
                          cfg->idle_timeout_ms);
            else
                set_error(err, sizeof err, "reading a request: %s", strerror(errno));
            send_error(c, link, err);
            return -1;
        }
        uint64_t frame_deadline = deadline_in(cfg->frame_timeout_ms);
        /* <<read-the-rest-of-the-frame-in-time>>, paper/55-engine.md */
        have += (size_t)got;
        got = have >= sizeof header ? 0 : read_frame_bytes(c, link, header, have, sizeof header - have,
                                                            frame_deadline);
        if (got <= 0 && have < sizeof header) {
            if (got == 0)
                errno = ECONNRESET;                    /* ended after the first byte */
            describe_read_failure(err, sizeof err, "header", cfg->frame_timeout_ms);
            send_error(c, link, err);
            return -1;
        }
        have += (size_t)got;
        uint32_t len = le_get_u32(header);
        if (len > cfg->max_frame) {
            set_error(err, sizeof err, "frame of %u bytes exceeds the engine's maximum of %u",
                      len, cfg->max_frame);
            send_error(c, link, err);
            return -1;
        }
        uint8_t *body = buffer_reserve(&c->body, len);
        if (body == NULL) {
            send_error(c, link, "engine out of memory for the request body");
            return -1;
        }
        size_t in_body = have - sizeof header;
        if (in_body > len) {
            c->ahead = in_body - len;                  /* the next frame's first bytes */
            c->ahead_at = len;
        }
        int r = in_body >= len ? 0 : link->read_exact(link->ctx, body + in_body, len - in_body,
                                                       frame_deadline);
        if (r != 0) {
            if (r == 1)
                errno = ECONNRESET;
            describe_read_failure(err, sizeof err, "body", cfg->frame_timeout_ms);
            send_error(c, link, err);
            return -1;
        }
        /* <<answer-the-frame>>, paper/55-engine.md */
        if (may_ask_for_timing(body, len)) {
            c->started_ns = clock_ns();
            usage_now(&c->cpu_started_ns, &c->faults_started);
        }
        if (handle_request(c, body, len, err, sizeof err) != 0) {
            send_error(c, link, err);
            return -1;
        }
        if (send_reply(c, link) != 0)
            return -1;                                 /* the client went away */
    }
    return 0;
}

/* <<serve-a-link>>, paper/55-engine.md */
/* While it serves, the connection knows its link, so that a long sweep can
 * ask whether its client is still there. */
int serve_link(struct connection *c, const struct byte_link *link, int max_requests)
{
    c->link = link;
    int status = serve_frames(c, link, max_requests);
    c->link = NULL;
    return status;
}

int serve_connection(struct connection *c, int in_fd, int out_fd, int max_requests)
{
    struct fd_pair fds = {in_fd, out_fd};
    struct byte_link link = fd_link(&fds);
    return serve_link(c, &link, max_requests);
}

/* <<serve-raw>>, paper/55-engine.md */
void serve_raw_link(const struct byte_link *link, const struct engine_config *cfg)
{
    uint8_t size_word[4];
    struct buffer buf = {NULL, 0};
    if (link->read_exact(link->ctx, size_word, 4, deadline_in(cfg->idle_timeout_ms)) != 0)
        return;
    uint32_t size = le_get_u32(size_word);
    if (size > cfg->max_frame || buffer_reserve(&buf, size) == NULL)
        return;
    while (link->read_exact(link->ctx, buf.data, size, deadline_in(cfg->idle_timeout_ms)) == 0) {
        struct iovec iov = {buf.data, size};
        if (link->write_all(link->ctx, &iov, 1, deadline_in(cfg->frame_timeout_ms)) != 0)
            break;
    }
    buffer_free(&buf);
}

void serve_raw(int in_fd, int out_fd, const struct engine_config *cfg)
{
    struct fd_pair fds = {in_fd, out_fd};
    struct byte_link link = fd_link(&fds);
    serve_raw_link(&link, cfg);
}
