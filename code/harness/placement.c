/*
 * placement.c - pinning threads and processes, and reading where they ran.
 *
 * Tangled from paper/42-pairs.md.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness/placement.h"

/* <<the-cpus-the-harness-started-with>>, paper/42-pairs.md */
static cpu_set_t started_with;
static int started_known;

void placement_init(void)
{
    started_known = sched_getaffinity(0, sizeof started_with, &started_with) == 0;
}

static void cpu_set_for(int cpu, cpu_set_t *set)
{
    if (cpu != CPU_ANY) {
        CPU_ZERO(set);
        CPU_SET(cpu, set);
        return;
    }
    if (!started_known)
        placement_init();
    *set = started_with;
}

int placement_cpus(int *cpus, int room)
{
    cpu_set_t set;
    int found = 0;
    cpu_set_for(CPU_ANY, &set);
    for (int c = 0; c < CPU_SETSIZE && found < room; c++)
        if (CPU_ISSET(c, &set))
            cpus[found++] = c;
    return found;
}

int placement_duet_cpus(int cpus[2])
{
    return placement_cpus(cpus, 2) == 2 ? 0 : -1;
}

/* <<pin-a-thread-or-a-process>>, paper/42-pairs.md */
int pin_this_thread(int cpu)
{
    cpu_set_t set;
    cpu_set_for(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

int pin_process(pid_t pid, int cpu)
{
    char path[64];
    cpu_set_t set;
    cpu_set_for(cpu, &set);
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL)
        return -1;
    int status = 0, pinned = 0;
    for (struct dirent *e; (e = readdir(tasks)) != NULL;) {
        pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
        if (tid <= 0)
            continue;                          /* "." and ".." */
        if (sched_setaffinity(tid, sizeof set, &set) == 0)
            pinned++;
        else if (errno != ESRCH)
            status = -1;
    }
    closedir(tasks);
    return pinned > 0 ? status : -1;
}

int current_cpu(void)
{
    return sched_getcpu();
}

long thread_minor_faults(void)
{
    struct rusage usage;
    return getrusage(RUSAGE_THREAD, &usage) == 0 ? usage.ru_minflt : -1;
}

/* <<read-a-stat-line>>, paper/42-pairs.md */
enum { STAT_MINOR_FAULTS = 10, STAT_UTIME = 14, STAT_STIME = 15, STAT_PROCESSOR = 39 };

struct stat_fields {
    long minor_faults, cpu_ticks;
    int cpu;
};

static int read_stat(const char *path, struct stat_fields *out)
{
    char text[2048], *save;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *after_name = strrchr(text, ')');
    if (after_name == NULL)
        return -1;
    int field = 3;                             /* the first after the name */
    out->cpu_ticks = 0;
    for (char *t = strtok_r(after_name + 1, " ", &save); t != NULL;
         t = strtok_r(NULL, " ", &save), field++) {
        if (field == STAT_MINOR_FAULTS)
            out->minor_faults = strtol(t, NULL, 10);
        if (field == STAT_UTIME || field == STAT_STIME)
            out->cpu_ticks += strtol(t, NULL, 10);
        if (field == STAT_PROCESSOR) {
            out->cpu = (int)strtol(t, NULL, 10);
            return 0;
        }
    }
    return -1;
}

/* <<the-busiest-threads-cpu>>, paper/42-pairs.md */
int proc_place(pid_t pid, struct proc_place *out)
{
    char path[96];
    struct stat_fields whole, thread;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_stat(path, &whole) != 0)
        return -1;
    out->minor_faults = whole.minor_faults;
    out->cpu = whole.cpu;
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    long busiest = -1, newest = 0;
    for (struct dirent *e; tasks != NULL && (e = readdir(tasks)) != NULL;) {
        long tid = strtol(e->d_name, NULL, 10);
        snprintf(path, sizeof path, "/proc/%d/task/%ld/stat", (int)pid, tid);
        if (tid <= 0 || tid == pid || read_stat(path, &thread) != 0)
            continue;
        if (thread.cpu_ticks > busiest || (thread.cpu_ticks == busiest && tid > newest)) {
            busiest = thread.cpu_ticks;
            newest = tid;
            out->cpu = thread.cpu;
        }
    }
    if (tasks != NULL)
        closedir(tasks);
    return 0;
}

/* <<write-a-cpu-set>>, paper/42-pairs.md */
void allowed_cpus_text(pid_t pid, char text[CPUS_TEXT_SIZE])
{
    cpu_set_t set;
    size_t used = 0;
    snprintf(text, CPUS_TEXT_SIZE, "unknown");
    if (sched_getaffinity(pid, sizeof set, &set) != 0)
        return;
    text[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set) || (c > 0 && CPU_ISSET(c - 1, &set)))
            continue;                          /* not the first CPU of a range */
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        int w = last > c ? snprintf(text + used, CPUS_TEXT_SIZE - used, "%s%d-%d",
                                    used ? "," : "", c, last)
                         : snprintf(text + used, CPUS_TEXT_SIZE - used, "%s%d",
                                    used ? "," : "", c);
        if (w < 0 || (size_t)w >= CPUS_TEXT_SIZE - used)
            break;
        used += (size_t)w;
    }
}
