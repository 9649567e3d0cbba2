/*
 * env.h - where the harness finds its programs, where its scratch files go,
 * and the children it must stop however it ends.
 *
 * Tangled from paper/40-harness.md.
 */
#ifndef IPCTAX_ENV_H
#define IPCTAX_ENV_H

#include <limits.h>
#include <sys/types.h>

struct harness_env {
    char root[PATH_MAX];       /* the checkout the harness was built in */
    char engine[PATH_MAX];     /* ipctax-engine */
    char python[PATH_MAX];     /* the Python interpreter with numpy and numba */
    char worker[PATH_MAX];     /* code/python/worker.py */
    char work_dir[PATH_MAX];   /* private scratch folder, removed at the end */
};

/* Fills env from the harness's own path; an override may be NULL. Creates
 * the scratch folder. Returns 0, or -1 with err set. */
int env_open(struct harness_env *env, const char *engine_override, const char *python_override,
             char *err, size_t err_size);
/* Stops every registered child and removes the scratch folder. */
void env_close(struct harness_env *env);

/* A path in the scratch folder for `name`. */
void env_scratch_path(const struct harness_env *env, const char *name, char *path, size_t size);

/* Starts argv[0] with stdin from in_fd and stdout to out_fd (-1: inherited)
 * and registers it; returns its pid, or -1 with err set. */
pid_t env_spawn(char *const argv[], int in_fd, int out_fd, char *err, size_t err_size);

/* Children the harness must stop if it ends early. */
void env_track_child(pid_t pid);
void env_untrack_child(pid_t pid);
/* SIGTERM to a child's process group, then its end; it is no longer tracked. */
void env_stop_child(pid_t pid);

/* The line a termination signal prints before the harness ends (copied;
 * at most ENV_NOTE_BYTES): what the interrupted run leaves and where. */
enum { ENV_NOTE_BYTES = 1024 };
void env_note_for_a_signal(const char *line);

#endif
