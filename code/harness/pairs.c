/*
 * pairs.c - one run of a row, alone or in a duet.
 *
 * Tangled from paper/42-pairs.md.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "harness/pairs.h"
#include "wire/timing.h"

double couple_ratio(double x1, double b1, double x2, double b2)
{
    return exp((log(x1 / b1) + log(x2 / b2)) / 2.0);
}

double turn_ratio(double b1, double x, double b2)
{
    return x / sqrt(b1 * b2);
}

static void run_side(struct side *s, pthread_barrier_t *together)
{
    int pinned = pin_this_thread(s->cpu) == 0 && arch_pin(s->state, s->cpu) == 0;
    allowed_cpus_text(0, s->allowed);
    if (together != NULL)
        pthread_barrier_wait(together);
    s->failed = !pinned;
    if (!pinned) {
        fail(s->err, "cannot pin the run to CPU %d", s->cpu);
        return;
    }
    s->start_ns = clock_ns();
    s->failed = arch_run(s->state, s->job, s->results, &s->m, s->sink, s->err) != 0;
}

void side_run_alone(struct side *s)
{
    run_side(s, NULL);
}

struct duet_side {
    struct side *side;
    pthread_barrier_t *together;
};

static void *side_thread(void *arg)
{
    struct duet_side *d = arg;
    run_side(d->side, d->together);
    return NULL;
}

int side_run_duet(struct side *a, struct side *b, char err[ERR_SIZE])
{
    pthread_barrier_t together;
    pthread_t thread;
    if (pthread_barrier_init(&together, NULL, 2) != 0)
        return fail(err, "cannot make the duet's barrier");
    struct duet_side first = {a, &together};
    if (pthread_create(&thread, NULL, side_thread, &first) != 0) {
        pthread_barrier_destroy(&together);
        return fail(err, "cannot start the duet's second thread");
    }
    run_side(b, &together);
    pthread_join(thread, NULL);
    pthread_barrier_destroy(&together);
    pin_this_thread(CPU_ANY);
    return 0;
}
