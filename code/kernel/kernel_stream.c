/*
 * kernel_stream.c - the per-bar kernel: same sums, same rule, one bar a call.
 *
 * Tangled from paper/80-stateful.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel_stream.h"

/* <<ring-buffer>>, paper/80-stateful.md */
static int ring_init(struct ring *r, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->values = malloc(2 * cap * sizeof *r->values);
    r->cap = cap;
    return r->values != NULL ? 0 : -1;
}

static void ring_push(struct ring *r, double v)
{
    r->values[r->next] = v;
    r->values[r->next + r->cap] = v;
    r->next = (r->next + 1) % r->cap;
    r->count++;
}

/* The average of the last n values, or NaN while fewer than n have arrived
 * (the batch kernel's warm-up: its out[t] is NaN for t < n-1). */
static double ring_wma(const struct ring *r, int64_t n)
{
    if (r->count < (size_t)n)
        return NAN;
    size_t start = (r->next + r->cap - (size_t)n) % r->cap;
    return wma_window(r->values + start, n);
}

/* <<stream-open-and-free>>, paper/80-stateful.md */
static int64_t longest_close_window(const struct combo_params *p)
{
    int64_t w[] = {p->h_half, p->h_len, p->t_third, p->t_half, p->t_len};
    int64_t longest = 1;
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        longest = w[i] > longest ? w[i] : longest;
    return longest;
}

uint64_t stream_memory(const struct combo_params *params, size_t n_combos)
{
    int64_t longest = 1;
    uint64_t bytes = (uint64_t)(n_combos ? n_combos : 1) * sizeof(struct stream_combo);
    for (size_t k = 0; k < n_combos; k++) {
        int64_t w = longest_close_window(&params[k]);
        longest = w > longest ? w : longest;
        bytes += 2 * sizeof(double) * (uint64_t)(params[k].h_sqrt + params[k].t_len);
    }
    return bytes + 2 * sizeof(double) * (uint64_t)longest;
}

int stream_open(struct sweep_stream *s, const struct combo_params *params, size_t n_combos)
{
    memset(s, 0, sizeof *s);
    int64_t longest = 1;
    for (size_t k = 0; k < n_combos; k++) {
        int64_t w = longest_close_window(&params[k]);
        longest = w > longest ? w : longest;
    }
    s->combos = calloc(n_combos ? n_combos : 1, sizeof *s->combos);
    if (s->combos == NULL || ring_init(&s->close, (size_t)longest) != 0) {
        stream_free(s);
        return -1;
    }
    s->n_combos = n_combos;
    for (size_t k = 0; k < n_combos; k++) {
        struct stream_combo *c = &s->combos[k];
        c->p = params[k];
        c->hma_prev = c->hma3_prev = NAN;
        if (ring_init(&c->mix_h, (size_t)params[k].h_sqrt) != 0 ||
            ring_init(&c->mix_3, (size_t)params[k].t_len) != 0) {
            stream_free(s);
            return -1;
        }
    }
    return 0;
}

void stream_free(struct sweep_stream *s)
{
    for (size_t k = 0; s->combos != NULL && k < s->n_combos; k++) {
        free(s->combos[k].mix_h.values);
        free(s->combos[k].mix_3.values);
    }
    free(s->combos);
    free(s->close.values);
    memset(s, 0, sizeof *s);
}

/* <<stream-warm-up>>, paper/80-stateful.md */
size_t stream_warmup_bars(const struct combo_params *params, size_t n_combos)
{
    size_t bars = 0;
    for (size_t k = 0; k < n_combos; k++) {
        const struct combo_params *p = &params[k];
        int64_t hma = (p->h_half > p->h_len ? p->h_half : p->h_len) + p->h_sqrt - 1;
        int64_t mix3 = p->t_third > p->t_half ? p->t_third : p->t_half;
        int64_t hma3 = (mix3 > p->t_len ? mix3 : p->t_len) + p->t_len - 1;
        int64_t defined = hma > hma3 ? hma : hma3;
        /* the rule steps on the pair that ends one bar after both are defined */
        if ((size_t)defined + 1 > bars)
            bars = (size_t)defined + 1;
    }
    return bars;
}

/* <<stream-one-bar>>, paper/80-stateful.md */
int stream_bar(struct sweep_stream *s, double close, int8_t *positions)
{
    int first_bar = s->close.count == 0;
    ring_push(&s->close, close);
    s->last_close = close;
    for (size_t k = 0; k < s->n_combos; k++) {
        struct stream_combo *c = &s->combos[k];
        if (k % STREAM_STOP_CHECK_COMBOS == 0 && sweep_stop_asked(&s->stop))
            return SWEEP_STOPPED;
        const struct combo_params *p = &c->p;
        double fast = ring_wma(&s->close, p->h_half), slow = ring_wma(&s->close, p->h_len);
        ring_push(&c->mix_h, 2.0 * fast - slow);
        double third = ring_wma(&s->close, p->t_third), half = ring_wma(&s->close, p->t_half);
        double full = ring_wma(&s->close, p->t_len);
        ring_push(&c->mix_3, (3.0 * third - half) - full);
        double hma = ring_wma(&c->mix_h, p->h_sqrt), hma3 = ring_wma(&c->mix_3, p->t_len);
        if (!first_bar)
            position_step(&c->position, c->hma_prev, c->hma3_prev, hma, hma3, close);
        c->hma_prev = hma;
        c->hma3_prev = hma3;
        positions[k] = (int8_t)c->position.side;
    }
    return 0;
}

/* <<stream-close>>, paper/80-stateful.md */
void stream_close(struct sweep_stream *s, struct combo_result *results)
{
    for (size_t k = 0; k < s->n_combos; k++) {
        if (s->close.count > 0)
            position_finish(&s->combos[k].position, s->last_close);
        results[k] = s->combos[k].position.result;
    }
}
