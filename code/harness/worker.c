/*
 * worker.c - the harness's side of the Python worker.
 *
 * Tangled from paper/41-architectures.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/worker.h"
#include "util/error.h"
#include "wire/frame.h"

/* <<worker-lines>>, paper/41-architectures.md */
/* Reads one answer line; it must say "ok": true. NULL with err set otherwise. */
static json_t *read_answer(struct worker *w, char *err, size_t err_size)
{
    if (getline(&w->line, &w->line_cap, w->from) < 0)
        return set_error(err, err_size, "the Python worker ended without an answer"), NULL;
    json_error_t jerr;
    json_t *answer = json_loads(w->line, 0, &jerr);
    if (answer == NULL)
        return set_error(err, err_size, "the Python worker's answer is not JSON: %s",
                         jerr.text), NULL;
    if (!json_is_true(json_object_get(answer, "ok"))) {
        const char *why = json_string_value(json_object_get(answer, "error"));
        set_error(err, err_size, "Python worker: %s",
                  why != NULL ? why : "failed without a reason");
        json_decref(answer);
        return NULL;
    }
    return answer;
}

json_t *worker_command(struct worker *w, json_t *command, char *err, size_t err_size)
{
    char *text = command != NULL ? json_dumps(command, JSON_COMPACT) : NULL;
    json_decref(command);
    if (text == NULL)
        return set_error(err, err_size, "out of memory for a worker command"), NULL;
    int sent = fputs(text, w->to) >= 0 && fputc('\n', w->to) != EOF && fflush(w->to) == 0;
    free(text);
    if (!sent)
        return set_error(err, err_size, "the Python worker is gone: %s", strerror(errno)), NULL;
    return read_answer(w, err, err_size);
}

/* Sends a command and keeps nothing of its answer but success. */
static int command_ok(struct worker *w, json_t *command, char *err, size_t err_size)
{
    json_t *answer = worker_command(w, command, err, err_size);
    json_decref(answer);
    return answer != NULL ? 0 : -1;
}

/* <<send-the-job-once>>, paper/41-architectures.md */
static int send_job(struct worker *w, const struct sweep_job *job, char *err, size_t err_size)
{
    uint64_t size = request_body_size((uint32_t)job->n_bars, (uint32_t)job->n_combos);
    uint8_t *body = malloc((size_t)size);
    if (body == NULL)
        return set_error(err, err_size, "out of memory for the worker's job");
    request_encode(body, OP_SWEEP, job->close, (uint32_t)job->n_bars, job->params,
                   (uint32_t)job->n_combos);
    fprintf(w->to, "{\"cmd\":\"job\",\"n_bars\":%zu,\"n_combos\":%zu,\"bytes\":%llu}\n",
            job->n_bars, job->n_combos, (unsigned long long)size);
    int sent = fwrite(body, 1, (size_t)size, w->to) == size && fflush(w->to) == 0;
    free(body);
    if (!sent)
        return set_error(err, err_size, "the Python worker did not take its job: %s",
                         strerror(errno));
    json_t *answer = read_answer(w, err, err_size);
    json_decref(answer);
    return answer != NULL ? 0 : -1;
}

/* <<start-the-worker>>, paper/41-architectures.md */
int worker_start(struct worker *w, const struct harness_env *env, const struct sweep_job *job,
                 char *err, size_t err_size)
{
    int to[2], from[2];
    memset(w, 0, sizeof *w);
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
        return set_error(err, err_size, "pipe: %s", strerror(errno));
    char *argv[] = {(char *)env->python, "-B", (char *)env->worker, NULL};
    w->pid = env_spawn(argv, to[0], from[1], err, err_size);
    close(to[0]);
    close(from[1]);
    w->to = fdopen(to[1], "w");
    w->from = fdopen(from[0], "r");
    if (w->pid < 0 || w->to == NULL || w->from == NULL) {
        worker_stop(w);
        return w->pid < 0 ? -1 : set_error(err, err_size, "cannot talk to the Python worker");
    }
    if (send_job(w, job, err, err_size) != 0) {
        worker_stop(w);
        return -1;
    }
    return 0;
}

/* <<stop-the-worker>>, paper/41-architectures.md */
void worker_stop(struct worker *w)
{
    if (w->to != NULL) {
        fputs("{\"cmd\":\"quit\"}\n", w->to);
        fclose(w->to);                     /* end of input also makes it quit */
    }
    if (w->from != NULL)
        fclose(w->from);
    if (w->pid > 0) {
        waitpid(w->pid, NULL, 0);
        env_untrack_child(w->pid);
    }
    free(w->line);
    memset(w, 0, sizeof *w);
}

/* <<prepare-a-row-in-the-worker>>, paper/41-architectures.md */
int worker_prepare(struct worker *w, const char *row, const struct worker_part *part,
                   const char *key, const char *value, char *err, size_t err_size)
{
    json_t *command = json_pack("{s:s,s:s,s:I,s:I}", "cmd", "prepare", "row", row, "bars",
                                (json_int_t)part->bars, "step", (json_int_t)part->combo_step);
    if (key != NULL)
        json_object_set_new(command, key, json_string(value));
    return command_ok(w, command, err, err_size);
}

/* <<a-python-call-as-a-call-record>>, paper/41-architectures.md */
static uint64_t field_ns(const json_t *object, const char *key, int *known)
{
    const json_t *v = json_object_get(object, key);
    if (!json_is_integer(v))
        return 0;
    *known = 1;
    return (uint64_t)json_integer_value(v);
}

/* The worker names a call's fields as calls.csv names its columns: each is
 * read by its column's name, and a field that is absent stays unknown. */
struct call_record worker_call_record(const json_t *c)
{
    struct call_record t = {0};
    int present[RECORD_N] = {0};
#define READ_FIELD(row, name, ...) t.name = field_ns(c, #name, &present[RECORD_##name]);
    CALL_RECORD_COLUMNS(READ_FIELD, unused)
#undef READ_FIELD
    t.has_engine = present[RECORD_engine_ns];
    t.has_process = present[RECORD_process_ns];
    t.has_usage = present[RECORD_process_cpu_ns];
    t.has_client_faults = present[RECORD_client_minor_faults];
    return t;
}

/* A witness is a call's record with its kind, place and start (@sec:witnesses). */
static int put_python_witness(struct call_sink *sink, const json_t *x)
{
    const char *kind = json_string_value(json_object_get(x, "kind"));
    int known = 0;
    if (sink->n_witnesses == MAX_WITNESSES || kind == NULL)
        return -1;
    struct witness *w = &sink->witnesses[sink->n_witnesses];
    for (int k = 0; k < N_WITNESS_KINDS; k++)
        if (strcmp(kind, witness_kind_name((enum witness_kind)k)) == 0)
            w->kind = (enum witness_kind)k, known = 1;
    w->seq = (int)field_ns(x, "seq", &known);
    w->floats = (size_t)field_ns(x, "floats", &known);
    w->at_ns = field_ns(x, "at_ns", &known);
    w->t = worker_call_record(x);
    sink->n_witnesses += known && w->seq > 0;
    return known && w->seq > 0 ? 0 : -1;
}

/* <<read-the-pythons-results>>, paper/41-architectures.md */
static int read_results(const json_t *answer, size_t n_combos, struct combo_result *results,
                        char *err, size_t err_size)
{
    const json_t *pnl = json_object_get(answer, "pnl"), *trades = json_object_get(answer, "trades");
    if (json_array_size(pnl) != n_combos || json_array_size(trades) != n_combos)
        return set_error(err, err_size, "the Python worker returned the wrong number of results");
    for (size_t k = 0; k < n_combos; k++) {
        const char *hex = json_string_value(json_array_get(pnl, k));
        char *end;
        if (hex == NULL || !json_is_integer(json_array_get(trades, k)))
            return set_error(err, err_size, "the Python worker's result %zu is malformed", k);
        results[k].pnl = strtod(hex, &end);
        results[k].trades = json_integer_value(json_array_get(trades, k));
        if (*end != '\0')
            return set_error(err, err_size,
                             "the Python worker's PnL '%s' is not a hexadecimal double", hex);
    }
    return 0;
}

/* <<worker-run-a-row>>, paper/41-architectures.md */
int worker_run(struct worker *w, const char *row, size_t n_combos, struct combo_result *results,
               struct run_measure *m, struct call_sink *sink, char *err, size_t err_size)
{
    json_t *answer = worker_command(w, json_pack("{s:s,s:s,s:b}", "cmd", "run", "row", row,
                                                 "timing", 1), err, err_size);
    if (answer == NULL)
        return -1;
    int status = read_results(answer, n_combos, results, err, err_size);
    int placed = 0;
    m->seconds = json_number_value(json_object_get(answer, "seconds"));
    m->client_cpu_s = json_number_value(json_object_get(answer, "client_cpu_s"));
    m->cpu_start = (int)field_ns(answer, "cpu_start", &placed);
    m->cpu_end = (int)field_ns(answer, "cpu_end", &placed);
    m->client_minor_faults = (long)field_ns(answer, "client_minor_faults", &placed);
    if (!placed)
        m->cpu_start = m->cpu_end = -1, m->client_minor_faults = -1;
    const json_t *calls = json_object_get(answer, "calls"), *seen;
    for (size_t i = 0; status == 0 && i < json_array_size(calls); i++) {
        struct call_record t = worker_call_record(json_array_get(calls, i));
        call_sink_put(sink, i, &t);
    }
    size_t i;
    json_array_foreach(json_object_get(answer, "witnesses"), i, seen)
        if (status == 0 && sink->keep && put_python_witness(sink, seen) != 0)
            status = set_error(err, err_size, "the Python worker's witness %zu is malformed", i);
    json_decref(answer);
    return status;
}
