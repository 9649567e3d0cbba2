/*
 * launch.h - starting an engine and waiting for its "listening" line: the
 * harness's sessions and the engine's tests both start engines this way.
 *
 * Tangled from paper/57-client.md.
 */
#ifndef IPCTAX_LAUNCH_H
#define IPCTAX_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct engine_launch {
    char *const *argv;             /* the engine's command line; argv[0] its path */
    int own_group;                 /* in a process group of its own */
    int timeout_ms;                /* for its ready line */
    void (*started)(pid_t pid);    /* told as soon as it runs, or NULL */
    void (*reaped)(pid_t pid);     /* told when a failed launch has reaped it, or NULL */
};

/* Starts the engine, its standard output on a pipe, and reads its first
 * line, which must be "listening ADDRESS": the pid, with ADDRESS in address;
 * or -1 with a message in err, the engine (if it ran) killed and reaped. */
pid_t engine_launch(const struct engine_launch *l, char *address, size_t address_size,
                    char *err, size_t err_size);

#endif
