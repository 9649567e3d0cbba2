/*
 * cli.c - parsing and checking the engine's options.
 *
 * Tangled from paper/55-engine.md.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "engine/cli.h"
#include "kernel/kernel.h"
#include "kernel/kernel_tuned.h"
#include "util/error.h"
#include "util/options.h"
#include "wire/frame.h"

/* <<engine-usage>>, paper/55-engine.md */
void engine_usage(FILE *to)
{
    fprintf(to,
        "usage: ipctax-engine (--unix PATH | --tcp [HOST:]PORT | --stdin | --shm NAME) [options]\n"
        "Serves the ipctax wire protocol: little-endian, one length-prefixed frame\n"
        "each way; opcode 0 sweep, 1 echo, 2-6 stateful (load, sweep loaded,\n"
        "open stream, bar, close stream), each timed by the engine when its top\n"
        "bit (0x80) is set. See paper/50-protocol.md and paper/80-stateful.md.\n"
        "\n"
        "  --unix PATH          listen on a Unix domain socket (created mode 0600)\n"
        "  --tcp [HOST:]PORT    listen on TCP, TCP_NODELAY; HOST defaults to 127.0.0.1;\n"
        "                       PORT 0 lets the kernel choose (see 'listening' below)\n"
        "  --stdin              serve one request from stdin to stdout, then exit\n"
        /* <<engine-shm-usage>>, paper/84-shm.md */
        "  --shm NAME           serve one client at a time over POSIX shared memory\n"
        "                       (/dev/shm/NAME, mode 0600; see paper/84-shm.md)\n"
        "  --shm-wait MODE      how --shm waits for its client: futex (default; sleep)\n"
        "                       or spin (poll; holds a core busy while it waits)\n"
        "  --kernel NAME        naive (default), tuned (bit-identical, one thread, the\n"
        "                       path IPCTAX_TUNED_PATH names or the widest), or\n"
        "                       tuned-PATH for one of the paths listed below\n"
        "  --max-frame BYTES    largest request body accepted (default %u)\n"
        "  --max-work STEPS     most window-bar steps one request may ask for, counted\n"
        "                       before any work starts (default %llu)\n"
        "  --max-clients N      concurrent connections (default %d; at most what the\n"
        "                       descriptor limit allows)\n"
        "  --idle-timeout MS    longest wait between frames (default %d)\n"
        "  --frame-timeout MS   longest time to receive or send one frame (default %d)\n"
        "  --raw                serve a raw ping-pong instead (transport floor; see\n"
        "                       the echo chapter): u32 size once, then size bytes\n"
        "                       echoed back per round trip, no framing\n"
        "  --layout S,A,G       where the kernel's series and work arrays sit in their\n"
        "                       pages (bytes; default 0,576,576; see the paper)\n"
        "  --die-with-parent    stop (as on SIGTERM) when the process that started\n"
        "                       the engine dies\n"
        "  -h, --help           this text\n"
        "  --version            the commit the engine was built from\n"
        "\n"
        "When ready, the engine prints one line on stdout: 'listening unix:PATH',\n"
        "'listening tcp:HOST:PORT' (the port it got) or 'listening shm:/NAME'\n"
        "(nothing with --stdin). A request the engine cannot serve gets an error\n"
        "frame, [u32 0x80000000 | len][len bytes of UTF-8], and the connection is\n"
        "closed. SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 stop the\n"
        "engine and remove its socket file or shared-memory segment.\n"
        "\n"
        "Exit status: 0 when stopped by one of those signals (or, with\n"
        "--die-with-parent, when the parent is gone), and with --stdin when the\n"
        "request was answered; 1 when the engine cannot listen or serve, and with\n"
        "--stdin when it sent an error frame; 2 for a refused command line.\n",
        DEFAULT_MAX_FRAME, (unsigned long long)DEFAULT_MAX_WORK, DEFAULT_MAX_CLIENTS,
        DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_FRAME_TIMEOUT_MS);
    /* <<list-the-tuned-paths-in-the-usage>>, paper/55-engine.md */
    fprintf(to, "\nThe tuned kernel's paths, widest first:\n");
    for (int p = 0; p < tuned_path_count(); p++) {
        const char *lack = tuned_path_lacks(p, cpu_simd_here());
        fprintf(to, "  tuned-%-10s %2d-byte vectors; %s\n", tuned_path_name(p),
                tuned_path_bytes(p), lack != NULL ? lack : "this machine runs it");
    }
}

/* <<engine-kernel-table>>, paper/55-engine.md */
static int choose_kernel(const char *name, struct engine_options *o, char *err, size_t err_size)
{
    const struct kernel_entry *k = kernel_for_engine(name, err, err_size);
    if (k == NULL)
        return -1;
    o->cfg.sweep = k->sweep;
    return 0;
}

/* <<engine-option-values>>, paper/55-engine.md */
static int parse_host_port(const char *text, struct engine_options *o, char *err,
                           size_t err_size)
{
    const char *colon = strrchr(text, ':');
    const char *port = colon ? colon + 1 : text;
    size_t host_len = colon ? (size_t)(colon - text) : 0;
    long v;
    if (option_long("--tcp port", port, 0, 65535, &v, err, err_size) != 0)
        return -1;
    if (host_len >= 2 && text[0] == '[' && text[host_len - 1] == ']') {
        text++;                                /* [::1] */
        host_len -= 2;
    }
    if (host_len >= sizeof o->tcp_host)
        return set_error(err, err_size, "--tcp: a host name of %zu bytes is too long",
                         host_len);
    snprintf(o->tcp_host, sizeof o->tcp_host, "%.*s", (int)host_len, text);
    if (host_len == 0)
        snprintf(o->tcp_host, sizeof o->tcp_host, "127.0.0.1");
    snprintf(o->tcp_port, sizeof o->tcp_port, "%ld", v);
    return 0;
}

/* Each client holds one descriptor; the engine keeps ENGINE_SPARE_FDS for
 * its own (standard streams, listener, stop pipe, the reserve of the
 * accept loop, and what the C library opens). */
long max_clients_allowed(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return 1000000;
    long n = (long)lim.rlim_cur - ENGINE_SPARE_FDS;
    return n > 1 ? n : 1;
}

static int set_listener(struct engine_options *o, enum listen_on t, char *err,
                         size_t err_size)
{
    if (o->listen_on != LISTEN_NONE)
        return set_error(err, err_size, "give one transport: --unix, --tcp, --stdin or --shm");
    o->listen_on = t;
    return 0;
}

/* <<the-engines-defaults>>, paper/55-engine.md */
void engine_default_options(struct engine_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_clients = DEFAULT_MAX_CLIENTS;
    o->cfg = (struct engine_config){DEFAULT_MAX_FRAME, DEFAULT_MAX_WORK, sweep_naive_in,
                                    SWEEP_LAYOUT_DEFAULT, DEFAULT_IDLE_TIMEOUT_MS,
                                    DEFAULT_FRAME_TIMEOUT_MS};
}

/* <<take-one-engine-option>>, paper/55-engine.md */
/* One option and its value; 0, or -1 with a message. */
static int take_option(int opt, const char *arg, struct engine_options *o, char *err,
                       size_t err_size)
{
    long v;
    switch (opt) {
    /* <<take-the-transport-and-kernel>>, paper/55-engine.md */
    case 'u':
        o->unix_path = arg;
        return set_listener(o, LISTEN_UNIX, err, err_size);
    case 't':
        if (set_listener(o, LISTEN_TCP, err, err_size) != 0)
            return -1;
        return parse_host_port(arg, o, err, err_size);
    case 's': return set_listener(o, LISTEN_STDIN, err, err_size);
    case 'k': return choose_kernel(arg, o, err, err_size);
    /* <<take-the-engines-limits>>, paper/55-engine.md */
    case 'f':
        if (option_long("--max-frame", arg, REQUEST_HEADER_BYTES, FRAME_LENGTH_MASK, &v, err,
                          err_size) != 0)
            return -1;
        o->cfg.max_frame = (uint32_t)v;
        return 0;
    case 'c':
        if (option_long("--max-clients", arg, 1, max_clients_allowed(), &v, err,
                          err_size) != 0)
            return -1;
        o->max_clients = (int)v;
        return 0;
    case 'w':
        if (option_long("--max-work", arg, 1, MAX_MAX_WORK, &v, err, err_size) != 0)
            return -1;
        o->cfg.max_work = (uint64_t)v;
        return 0;
    /* <<take-the-engines-timeouts>>, paper/55-engine.md */
    case 'i':
        if (option_long("--idle-timeout", arg, 1, MAX_TIMEOUT_MS, &v, err, err_size) != 0)
            return -1;
        o->cfg.idle_timeout_ms = (int)v;
        return 0;
    case 'F':
        if (option_long("--frame-timeout", arg, 1, MAX_TIMEOUT_MS, &v, err, err_size) != 0)
            return -1;
        o->cfg.frame_timeout_ms = (int)v;
        return 0;
    case 'r': o->raw = 1; return 0;
    case 'd': o->die_with_parent = 1; return 0;
    case 'L': return option_layout("--layout", arg, &o->cfg.layout, err, err_size);
    /* <<engine-shm-option-cases>>, paper/84-shm.md */
    case 'S':
        o->shm_name = arg;
        return set_listener(o, LISTEN_SHM, err, err_size);
    case 'W':
        if (shm_wait_parse(arg, &o->shm_wait) != 0)
            return set_error(err, err_size, "--shm-wait: '%s' is not futex or spin", arg);
        return 0;
    }
    return set_error(err, err_size, "option -%c is not handled", opt);
}

/* <<engine-parse-options>>, paper/55-engine.md */
int engine_parse_options(int argc, char **argv, struct engine_options *o,
                         char *err, size_t err_size)
{
    static const struct option options[] = {
        {"unix", required_argument, 0, 'u'}, {"tcp", required_argument, 0, 't'},
        {"stdin", no_argument, 0, 's'}, {"kernel", required_argument, 0, 'k'},
        {"max-frame", required_argument, 0, 'f'}, {"max-clients", required_argument, 0, 'c'},
        {"max-work", required_argument, 0, 'w'},
        {"idle-timeout", required_argument, 0, 'i'}, {"frame-timeout", required_argument, 0, 'F'},
        /* <<engine-shm-long-options>>, paper/84-shm.md */
        {"shm", required_argument, 0, 'S'}, {"shm-wait", required_argument, 0, 'W'},
        {"raw", no_argument, 0, 'r'}, {"die-with-parent", no_argument, 0, 'd'},
        {"layout", required_argument, 0, 'L'},
        {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}, {0, 0, 0, 0},
    };
    int opt, wants = CLI_RUN;
    optind = 0;                        /* a fresh scan, however often we are called */
    if (tuned_path_force_from_environment(err, err_size) != 0)   /* options override it */
        return CLI_BAD;
    while ((opt = option_next(argc, argv, ":h", options, err, err_size)) != -1) {
        if (opt == 'h' || opt == 'V')
            wants = wants != CLI_RUN ? wants : opt == 'h' ? CLI_HELP : CLI_VERSION;
        else if (opt == '?')
            return CLI_BAD;
        else if (take_option(opt, optarg, o, err, err_size) != 0)
            return CLI_BAD;
    }
    if (wants != CLI_RUN)
        return wants;
    if (optind < argc)
        return set_error(err, err_size, "unexpected argument '%s'", argv[optind]);
    if (o->listen_on == LISTEN_NONE)
        return set_error(err, err_size, "say --unix PATH, --tcp PORT, --stdin or --shm NAME");
    return CLI_RUN;
}
