/*
 * launch.c - an engine started, and its ready line read with a deadline.
 *
 * Tangled from paper/57-client.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/timing.h"
#include "wire/launch.h"

/* <<read-the-ready-line>>, paper/57-client.md */
/* Reads one line from fd within timeout_ms into line; 0, or -1. */
static int read_line(int fd, char *line, size_t size, int timeout_ms)
{
    size_t n = 0;
    uint64_t deadline = clock_ns() + (uint64_t)timeout_ms * 1000000u;
    line[0] = '\0';
    while (n + 1 < size) {
        int left = (int)((deadline - clock_ns()) / 1000000u);
        struct pollfd p = {fd, POLLIN, 0};
        if (clock_ns() >= deadline || poll(&p, 1, left > 0 ? left : 1) <= 0)
            return -1;
        if (read(fd, &line[n], 1) != 1)
            return -1;
        if (line[n] == '\n')
            break;
        line[++n] = '\0';
    }
    line[n] = '\0';
    return 0;
}

/* <<launch-an-engine>>, paper/57-client.md */
extern char **environ;

static pid_t spawn_with_stdout(const struct engine_launch *l, int out_fd, char *err,
                               size_t err_size)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    pid_t pid;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    if (l->own_group) {
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attributes, 0);
    }
    posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    int rc = posix_spawn(&pid, l->argv[0], &actions, &attributes, l->argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0)
        return set_error(err, err_size, "cannot start %s: %s", l->argv[0], strerror(rc));
    if (l->started != NULL)
        l->started(pid);
    return pid;
}

pid_t engine_launch(const struct engine_launch *l, char *address, size_t address_size,
                    char *err, size_t err_size)
{
    char line[512];
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return set_error(err, err_size, "pipe: %s", strerror(errno));
    pid_t pid = spawn_with_stdout(l, out[1], err, err_size);
    close(out[1]);
    int said = pid > 0 && read_line(out[0], line, sizeof line, l->timeout_ms) == 0;
    close(out[0]);
    if (pid <= 0)
        return -1;
    if (said && strncmp(line, "listening ", 10) == 0) {
        snprintf(address, address_size, "%s", line + 10);
        return pid;
    }
    kill(l->own_group ? -pid : pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (l->reaped != NULL)
        l->reaped(pid);
    return set_error(err, err_size, "%s did not say it was listening within %d ms%s%s%s",
                     l->argv[0], l->timeout_ms, said ? " (it said \"" : "", said ? line : "",
                     said ? "\")" : "");
}
