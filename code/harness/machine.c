/*
 * machine.c - what the machine and the build were.
 *
 * Tangled from paper/40-harness.md.
 */
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "harness/machine.h"

#ifndef IPCTAX_CFLAGS
#define IPCTAX_CFLAGS "unknown"
#endif
#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

static void row(struct csv_out *out, const char *key, const char *value)
{
    csv_out_text(out, key);
    csv_out_text(out, value);
    csv_out_end_row(out);
}

static void row_int(struct csv_out *out, const char *key, int64_t value)
{
    csv_out_text(out, key);
    csv_out_int(out, value);
    csv_out_end_row(out);
}

/* The value after "key<spaces>:" on the first line of /proc/cpuinfo that has it. */
static void cpuinfo_field(const char *key, char *value, size_t size)
{
    char line[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(value, size, NOT_VISIBLE);
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL || strncmp(line, key, strlen(key)) != 0)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(value, size, "%s", v);
        break;
    }
    if (f != NULL)
        fclose(f);
}

/* The first line of a file, or NOT_VISIBLE. */
static void first_line(const char *path, char *value, size_t size)
{
    FILE *f = fopen(path, "r");
    snprintf(value, size, NOT_VISIBLE);
    if (f != NULL && fgets(value, (int)size, f) != NULL)
        value[strcspn(value, "\n")] = '\0';
    else
        snprintf(value, size, NOT_VISIBLE);
    if (f != NULL)
        fclose(f);
}

static int64_t memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (int64_t)pages * page : -1;
}

static const char *const PACKAGES[] = {
    "libcsv-dev", "libjansson-dev", "nettle-dev", "pandoc", "gnuplot-nox",
    "texlive-base", "python3", "python3-numpy", "python3-numba", "valgrind",
};

static void package_rows(struct csv_out *out)
{
    char command[1024] = "dpkg-query -W -f='${Package} ${Version}\\n'", line[512];
    for (size_t i = 0; i < sizeof PACKAGES / sizeof PACKAGES[0]; i++)
        snprintf(command + strlen(command), sizeof command - strlen(command), " %s",
                 PACKAGES[i]);
    snprintf(command + strlen(command), sizeof command - strlen(command), " 2>/dev/null");
    for (size_t i = 0; i < sizeof PACKAGES / sizeof PACKAGES[0]; i++) {
        char key[128], version[256];
        snprintf(key, sizeof key, "version.%s", PACKAGES[i]);
        snprintf(version, sizeof version, NOT_VISIBLE);
        FILE *p = popen(command, "r");
        while (p != NULL && fgets(line, sizeof line, p) != NULL) {
            char name[128], v[256];
            if (sscanf(line, "%127s %255s", name, v) == 2 && strcmp(name, PACKAGES[i]) == 0)
                snprintf(version, sizeof version, "%s", v);
        }
        if (p != NULL)
            pclose(p);
        row(out, key, version);
    }
}

void machine_write_rows(struct csv_out *out)
{
    char value[512];
    struct utsname u;
    cpuinfo_field("model name", value, sizeof value);
    row(out, "cpu", value);
    row_int(out, "cores", sysconf(_SC_NPROCESSORS_ONLN));
    row_int(out, "memory_bytes", memory_bytes());
    cpuinfo_field("flags", value, sizeof value);
    row(out, "hypervisor", strstr(value, " hypervisor") != NULL ? "yes" : "no");
    cpuinfo_field("cpu MHz", value, sizeof value);
    row(out, "cpu_mhz", value);
    first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", value, sizeof value);
    row(out, "governor", value);
    first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", value,
               sizeof value);
    row(out, "clock_source", value);
    if (uname(&u) == 0)
        snprintf(value, sizeof value, "%s %s %s", u.sysname, u.release, u.machine);
    row(out, "kernel", uname(&u) == 0 ? value : NOT_VISIBLE);
#ifdef __clang__
    row(out, "compiler", "clang " __clang_version__);
#else
    row(out, "compiler", "gcc " __VERSION__);
#endif
    row(out, "cflags", IPCTAX_CFLAGS);
    snprintf(value, sizeof value, "glibc %s", gnu_get_libc_version());
    row(out, "libc", value);
    time_t now = time(NULL);
    strftime(value, sizeof value, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    row(out, "date", value);
    row_int(out, "date_epoch", (int64_t)now);
    row(out, "commit", IPCTAX_COMMIT);
    package_rows(out);
}
