/*
 * env.c - the harness's paths, its scratch folder and its children.
 *
 * Tangled from paper/40-harness.md.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/env.h"
#include "util/error.h"

/* <<track-children>>, paper/40-harness.md */
enum { MAX_CHILDREN = 256 };
static volatile pid_t children[MAX_CHILDREN];
static char scratch_dir[PATH_MAX], scratch_parent[PATH_MAX];

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
    if (scratch_parent[0] != '\0')
        rmdir(scratch_parent);                     /* fails while another run uses it */
}

/* <<start-a-child>>, paper/40-harness.md */
extern char **environ;

pid_t env_spawn(char *const argv[], int in_fd, int out_fd, char *err, size_t err_size)
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
        set_error(err, err_size, "cannot start %s: %s", argv[0], strerror(rc));
        return -1;
    }
    env_track_child(pid);
    return pid;
}

/* <<stop-children-on-a-signal>>, paper/40-harness.md */
static char note[ENV_NOTE_BYTES];
static volatile size_t note_length;

void env_note_for_a_signal(const char *line)
{
    note_length = 0;
    snprintf(note, sizeof note, "%s\n", line);
    note_length = strlen(note);
}

static void on_termination(int sig)
{
    if (note_length > 0 && write(STDERR_FILENO, note, note_length) < 0)
        note_length = 0;                   /* nothing more to do about it */
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

/* <<a-folder-of-this-users-alone>>, paper/40-harness.md */
/* $TMPDIR/ipctax-UID into path: 0 when it is (now) a folder of this user's
 * alone, -1 otherwise. */
static int make_scratch_parent(const char *tmp, char *path, size_t size)
{
    struct stat st;
    snprintf(path, size, "%s/ipctax-%u", tmp, (unsigned)geteuid());
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 077) == 0 ? 0 : -1;
}

/* <<remove-the-folders-of-dead-runs>>, paper/40-harness.md */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *at)
{
    (void)st;
    (void)at;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;                                  /* remove what can be removed */
}

/* Removes the folders of runs whose process is gone (killed outright). */
static void remove_stale_scratch(const char *parent)
{
    DIR *d = opendir(parent);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char path[PATH_MAX + 256], rest;
        int pid;
        if (sscanf(e->d_name, "run-%d-%c", &pid, &rest) != 2 || pid <= 0 || kill(pid, 0) == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (d != NULL)
        closedir(d);
}

/* <<make-the-runs-folder>>, paper/40-harness.md */
/* Makes the run's scratch folder in env->work_dir; 0, or -1 with err set. */
static int make_scratch_folder(struct harness_env *env, char *err, size_t err_size)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp != NULL && *tmp != '\0' ? tmp : "/tmp";
    for (int attempt = 0; attempt < 2; attempt++) {
        if (make_scratch_parent(tmp, scratch_parent, sizeof scratch_parent) == 0) {
            remove_stale_scratch(scratch_parent);
            snprintf(env->work_dir, sizeof env->work_dir, "%.4000s/run-%d-XXXXXX",
                     scratch_parent, (int)getpid());
        } else {
            scratch_parent[0] = '\0';
            snprintf(env->work_dir, sizeof env->work_dir, "%s/ipctax-XXXXXX", tmp);
        }
        if (mkdtemp(env->work_dir) != NULL) {
            snprintf(scratch_dir, sizeof scratch_dir, "%s", env->work_dir);
            return 0;
        }
    }
    scratch_parent[0] = '\0';
    return set_error(err, err_size, "cannot create a scratch folder in %s: %s", tmp,
                     strerror(errno));
}

/* <<find-the-programs>>, paper/40-harness.md */
int env_open(struct harness_env *env, const char *engine_override, const char *python_override,
             char *err, size_t err_size)
{
    char self[PATH_MAX], dir[PATH_MAX];
    memset(env, 0, sizeof *env);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return set_error(err, err_size, "cannot find the harness's own path: %s", strerror(errno));
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
        return set_error(err, err_size,
                         "no engine at %s (build it with make, or say --engine PATH)",
                         env->engine);
    if (make_scratch_folder(env, err, err_size) != 0)
        return -1;
    install_handlers();
    return 0;
}

void env_close(struct harness_env *env)
{
    stop_children();
    scratch_dir[0] = scratch_parent[0] = '\0';
    env->work_dir[0] = '\0';
}

void env_scratch_path(const struct harness_env *env, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", env->work_dir, name);
}
