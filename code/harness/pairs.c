/*
 * pairs.c - one run of a row, alone or in a duet.
 *
 * Tangled from paper/42-pairs.md.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "harness/pairs.h"
#include "util/error.h"
#include "util/timing.h"

/* <<run-one-side>>, paper/42-pairs.md */
/* Both sides of a duet start from here. */
struct starting_line {
    atomic_int arrived;
};

static void wait_at(struct starting_line *line, int pinned)
{
    atomic_fetch_add(&line->arrived, 1);
    for (unsigned spins = 0; atomic_load(&line->arrived) < 2; spins++)
        if (!pinned || spins % 4096 == 4095)
            sched_yield();
}

static void run_side(struct side *s, struct starting_line *line)
{
    int pinned = pin_this_thread(s->cpu) == 0 && arch_pin(s->state, s->cpu) == 0;
    allowed_cpus_text(0, s->allowed);
    if (line != NULL)
        wait_at(line, pinned && s->cpu != CPU_ANY);
    s->failed = !pinned;
    if (!pinned) {
        set_error(s->err, sizeof s->err, "cannot pin the run to CPU %d", s->cpu);
        return;
    }
    s->start_ns = clock_ns();
    s->failed = arch_run(s->state, s->job, s->results, &s->m, s->sink, s->err, sizeof s->err) != 0;
}

void side_run_alone(struct side *s)
{
    run_side(s, NULL);
}

/* <<run-a-duet>>, paper/42-pairs.md */
struct duet_side {
    struct side *side;
    struct starting_line *line;
};

static void *side_thread(void *arg)
{
    struct duet_side *d = arg;
    run_side(d->side, d->line);
    return NULL;
}

int side_run_duet(struct side *a, struct side *b, char *err, size_t err_size)
{
    struct starting_line line;
    pthread_t thread;
    atomic_init(&line.arrived, 0);
    struct duet_side first = {a, &line};
    if (pthread_create(&thread, NULL, side_thread, &first) != 0)
        return set_error(err, err_size, "cannot start the duet's second thread");
    run_side(b, &line);
    pthread_join(thread, NULL);
    pin_this_thread(CPU_ANY);
    return 0;
}
