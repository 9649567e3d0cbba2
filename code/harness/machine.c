/*
 * machine.c - what the machine and the build were.
 *
 * Tangled from paper/40-harness.md.
 */
#include <gnu/libc-version.h>
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

static void read_cpuinfo(struct machine_info *m)
{
    char line[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    snprintf(m->hypervisor, sizeof m->hypervisor, "no");
    if (f == NULL)
        return;
    int have_model = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        char *value = colon + 1 + strspn(colon + 1, " \t");
        value[strcspn(value, "\n")] = '\0';
        if (!have_model && strncmp(line, "model name", 10) == 0) {
            snprintf(m->cpu, sizeof m->cpu, "%s", value);
            have_model = 1;
        } else if (strncmp(line, "flags", 5) == 0 && strstr(value, " hypervisor") != NULL) {
            snprintf(m->hypervisor, sizeof m->hypervisor, "yes");
        }
    }
    fclose(f);
}

void machine_describe(struct machine_info *m)
{
    struct utsname u;
    memset(m, 0, sizeof *m);
    read_cpuinfo(m);
    m->cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
#ifdef __clang__
    snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#else
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#endif
    snprintf(m->cflags, sizeof m->cflags, "%s", IPCTAX_CFLAGS);
    snprintf(m->libc, sizeof m->libc, "glibc %s", gnu_get_libc_version());
    time_t now = time(NULL);
    m->date_epoch = (long long)now;
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(m->commit, sizeof m->commit, "%s", IPCTAX_COMMIT);
}

void machine_write_rows(struct csv_out *out, const struct machine_info *m)
{
    const struct { const char *key, *value; } rows[] = {
        {"cpu", m->cpu}, {"kernel", m->kernel}, {"hypervisor", m->hypervisor},
        {"compiler", m->compiler}, {"cflags", m->cflags}, {"libc", m->libc},
        {"date", m->date}, {"commit", m->commit},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        csv_out_text(out, rows[i].key);
        csv_out_text(out, rows[i].value);
        csv_out_end_row(out);
    }
    csv_out_text(out, "cores");
    csv_out_int(out, m->cores);
    csv_out_end_row(out);
    csv_out_text(out, "date_epoch");
    csv_out_int(out, m->date_epoch);
    csv_out_end_row(out);
}
