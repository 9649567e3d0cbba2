/*
 * env.c - the harness's paths, its scratch folder and its children.
 *
 * Tangled from paper/40-harness.md.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/env.h"

int fail(char err[ERR_SIZE], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ERR_SIZE, fmt, ap);
    va_end(ap);
    return -1;
}

enum { MAX_CHILDREN = 256 };
static volatile pid_t children[MAX_CHILDREN];
static char scratch_dir[PATH_MAX];

void env_track_child(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == 0) {
            children[i] = pid;
            return;
        }
}

void env_untrack_child(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            children[i] = 0;
}

void env_stop_child(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(-pid, SIGTERM);
    waitpid(pid, NULL, 0);
    env_untrack_child(pid);
}

/* Async-signal-safe: kill, waitpid and rmdir only. */
static void stop_children(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0)
            kill(-children[i], SIGTERM);           /* the child's whole group */
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0) {
            waitpid(children[i], NULL, 0);
            children[i] = 0;
        }
    if (scratch_dir[0] != '\0')
        rmdir(scratch_dir);
}

extern char **environ;

pid_t env_spawn(char *const argv[], int in_fd, int out_fd, char err[ERR_SIZE])
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    pid_t pid;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);             /* a group of its own */
    if (in_fd >= 0)
        posix_spawn_file_actions_adddup2(&actions, in_fd, STDIN_FILENO);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) {
        fail(err, "cannot start %s: %s", argv[0], strerror(rc));
        return -1;
    }
    env_track_child(pid);
    return pid;
}

static void on_termination(int sig)
{
    stop_children();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    static const int signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_termination;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaddset(&sa.sa_mask, signals[i]);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);     /* a dead child's pipe is an error, not a death */
}

int env_open(struct harness_env *env, const char *engine_override, const char *python_override,
             char err[ERR_SIZE])
{
    char self[PATH_MAX], dir[PATH_MAX];
    memset(env, 0, sizeof *env);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return fail(err, "cannot find the harness's own path: %s", strerror(errno));
    self[n] = '\0';
    snprintf(dir, sizeof dir, "%s", dirname(self));              /* .../build */
    snprintf(env->engine, sizeof env->engine, "%.4000s/ipctax-engine", dir);
    snprintf(env->root, sizeof env->root, "%s", dirname(dir));   /* the checkout */
    snprintf(env->worker, sizeof env->worker, "%.*s/code/python/worker.py",
             (int)(sizeof env->worker - 32), env->root);
    snprintf(env->python, sizeof env->python, "/usr/bin/python3");
    if (engine_override != NULL)
        snprintf(env->engine, sizeof env->engine, "%s", engine_override);
    if (python_override != NULL)
        snprintf(env->python, sizeof env->python, "%s", python_override);
    if (access(env->engine, X_OK) != 0)
        return fail(err, "no engine at %s (build it with make, or say --engine PATH)",
                    env->engine);
    const char *tmp = getenv("TMPDIR");
    snprintf(env->work_dir, sizeof env->work_dir, "%s/ipctax-XXXXXX",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    if (mkdtemp(env->work_dir) == NULL)
        return fail(err, "cannot create a scratch folder in %s: %s",
                    tmp != NULL ? tmp : "/tmp", strerror(errno));
    snprintf(scratch_dir, sizeof scratch_dir, "%s", env->work_dir);
    install_handlers();
    return 0;
}

void env_close(struct harness_env *env)
{
    stop_children();
    scratch_dir[0] = '\0';
    env->work_dir[0] = '\0';
}

void env_scratch_path(const struct harness_env *env, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", env->work_dir, name);
}
