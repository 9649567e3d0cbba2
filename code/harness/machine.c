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
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "harness/machine.h"
#include "kernel/kernel_tuned.h"

#ifndef IPCTAX_CFLAGS
#define IPCTAX_CFLAGS "unknown"
#endif
#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<machine-rows>>, paper/40-harness.md */
static void row(struct data_out *out, const char *key, const char *value)
{
    data_key_text(out, key, value);
}

static void row_int(struct data_out *out, const char *key, int64_t value)
{
    data_key_int(out, key, value);
}

/* <<read-the-system>>, paper/40-harness.md */
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

/* <<the-vector-extensions-it-lists>>, paper/40-harness.md */
static const char *const SIMD_FLAGS[] = {"sse2", "sse4_2", "avx", "avx2", "fma",
                                         "avx512f", "avx512dq", "avx512bw", "avx512vl"};

/* The flags of SIMD_FLAGS that /proc/cpuinfo lists, separated by spaces. */
static void simd_flags(char *value, size_t size)
{
    char flags[8192];
    size_t used = 0;
    cpuinfo_field("flags", flags, sizeof flags);
    value[0] = '\0';
    for (size_t i = 0; i < sizeof SIMD_FLAGS / sizeof SIMD_FLAGS[0]; i++) {
        char word[32];
        snprintf(word, sizeof word, " %s ", SIMD_FLAGS[i]);
        char padded[8200];
        snprintf(padded, sizeof padded, " %s ", flags);
        if (strstr(padded, word) != NULL && used + strlen(SIMD_FLAGS[i]) + 2 < size)
            used += (size_t)snprintf(value + used, size - used, "%s%s", used ? " " : "",
                                     SIMD_FLAGS[i]);
    }
}

/* <<what-cpuid-says>>, paper/40-harness.md */
#if defined(__x86_64__) || defined(__i386__)
/* The register states the OS saves (XCR0): SSE, AVX, and the three of AVX-512. */
static void simd_enabled(char *value, size_t size)
{
    unsigned a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) {
        snprintf(value, size, "sse");
        return;
    }
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    snprintf(value, size, "%s%s%s", lo & 0x2 ? "sse" : "", (lo & 0x6) == 0x6 ? " avx" : "",
             (lo & 0xe6) == 0xe6 ? " avx512" : "");
}

static void cache_rows(struct data_out *out)
{
    unsigned a, b, c, d, l1d = 0, l2 = 0, l3 = 0;
    if (__get_cpuid(0x80000006, &a, &b, &c, &d) && (c >> 16) != 0) {   /* AMD */
        __get_cpuid(0x80000005, &a, &b, &c, &d);
        l1d = c >> 24;
        __get_cpuid(0x80000006, &a, &b, &c, &d);
        l2 = c >> 16;
        l3 = (d >> 18) * 512;
    }
    for (unsigned i = 0; l1d == 0 && __get_cpuid_count(4, i, &a, &b, &c, &d) && (a & 31); i++) {
        unsigned kib = (((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (c + 1)) >> 10;
        unsigned level = (a >> 5) & 7, type = a & 31;                 /* Intel: 1 data, 3 unified */
        if (level == 1 && type == 1) l1d = kib;
        if (level == 2) l2 = kib;
        if (level == 3) l3 = kib;
    }
    row_int(out, "cache_l1d_kib", l1d);
    row_int(out, "cache_l2_kib", l2);
    row_int(out, "cache_l3_kib", l3);
}

static void hypervisor_name(char *value, size_t size)
{
    unsigned a, b, c, d;
    char name[13] = {0};
    __cpuid(0x40000000, a, b, c, d);
    memcpy(name, &b, 4), memcpy(name + 4, &c, 4), memcpy(name + 8, &d, 4);
    for (int i = 11; i >= 0 && (name[i] == ' ' || name[i] == '\0'); i--)
        name[i] = '\0';
    snprintf(value, size, "%s", name[0] != '\0' ? name : NOT_VISIBLE);
}
#else
static void simd_enabled(char *value, size_t size) { snprintf(value, size, NOT_VISIBLE); }
static void cache_rows(struct data_out *out) { (void)out; }
static void hypervisor_name(char *value, size_t size) { snprintf(value, size, NOT_VISIBLE); }
#endif

/* <<the-processors-rows>>, paper/40-harness.md */
static void processor_rows(struct data_out *out)
{
    static const char *const fields[][2] = {
        {"vendor_id", "cpu_vendor"}, {"cpu family", "cpu_family"}, {"model\t", "cpu_model"},
        {"stepping", "cpu_stepping"}, {"microcode", "cpu_microcode"}};
    char value[512];
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        cpuinfo_field(fields[i][0], value, sizeof value);
        row(out, fields[i][1], value);
    }
    simd_flags(value, sizeof value);
    row(out, "simd", value);
    simd_enabled(value, sizeof value);
    row(out, "simd_enabled", value);
    row(out, "tuned_path", tuned_path_name(tuned_path_in_use()));
    row_int(out, "tuned_vector_bytes", tuned_path_bytes(tuned_path_in_use()));
    cache_rows(out);
}

/* <<package-versions>>, paper/40-harness.md */
static const char *const PACKAGES[] = {
    "libcsv-dev", "libjansson-dev", "nettle-dev", "pandoc", "gnuplot-nox",
    "texlive-base", "python3", "python3-numpy", "python3-numba", "valgrind",
};

static void package_rows(struct data_out *out)
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

/* <<machine-write-rows>>, paper/40-harness.md */
void machine_write_rows(struct data_out *out)
{
    char value[512];
    struct utsname u;
    cpuinfo_field("model name", value, sizeof value);
    row(out, "cpu", value);
    row_int(out, "cores", sysconf(_SC_NPROCESSORS_ONLN));
    row_int(out, "memory_bytes", memory_bytes());
    processor_rows(out);
    cpuinfo_field("flags", value, sizeof value);
    int virtual = strstr(value, " hypervisor") != NULL;
    row(out, "hypervisor", virtual ? "yes" : "no");
    if (virtual)
        hypervisor_name(value, sizeof value);
    row(out, "hypervisor_name", virtual ? value : "none");
    cpuinfo_field("cpu MHz", value, sizeof value);
    row(out, "cpu_mhz", value);
    first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", value, sizeof value);
    row(out, "governor", value);
    first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", value,
               sizeof value);
    row(out, "clock_source", value);
    first_line("/proc/sys/net/ipv4/tcp_congestion_control", value, sizeof value);
    row(out, "tcp_congestion", value);
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
