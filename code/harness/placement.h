/*
 * placement.h - which CPUs a run may use, and which it used.
 *
 * Tangled from paper/42-pairs.md.
 */
#ifndef IPCTAX_PLACEMENT_H
#define IPCTAX_PLACEMENT_H

#include <sys/types.h>

enum {
    CPU_ANY = -1,              /* not pinned: every CPU the harness started with */
    CPUS_TEXT_SIZE = 64,
};

/* Remembers the CPUs the process may use now, the set CPU_ANY restores;
 * call it before pinning anything. */
void placement_init(void);
/* The CPUs the harness may use, in order, into cpus (room at most); how many. */
int placement_cpus(int *cpus, int room);
/* The two CPUs a duet puts its sides on: the first two the harness may use.
 * 0, or -1 when it may use fewer than two. */
int placement_duet_cpus(int cpus[2]);

/* Pins the calling thread, or every thread of process pid, to cpu. 0 or -1. */
int pin_this_thread(int cpu);
int pin_process(pid_t pid, int cpu);

/* The CPU the calling thread is running on. */
int current_cpu(void);
/* The calling thread's minor page faults so far, or -1. */
long thread_minor_faults(void);

/* What /proc/PID/stat says of a process's main thread. */
struct proc_place {
    int cpu;                   /* the CPU its busiest thread last ran on */
    long minor_faults;         /* pages all its threads have touched for the first time */
};
/* 0, or -1 when the process is gone. */
int proc_place(pid_t pid, struct proc_place *out);

/* The CPUs thread or process pid (0: the calling thread) may use, as "1" or "0-1". */
void allowed_cpus_text(pid_t pid, char text[CPUS_TEXT_SIZE]);

#endif
