/*
 * fuzz_options.c - a libFuzzer target for the engine's command line
 * (code/engine/cli.c, paper/55-engine.md).
 *
 * One input is an argument list: its bytes split at NUL bytes into at most
 * 16 arguments (after the program's name). The parser must not crash, print
 * or exit, whatever it is given, and what it accepts must be an engine that
 * can run:
 *
 *   - a refusal comes with a message of printable ASCII that names what was
 *     wrong (it is printed as it is);
 *   - an accepted command line names exactly one transport with what it
 *     needs (a path, a port in 0..65535, a segment name), and every limit
 *     within its range (the frame at least a request header, the clients
 *     within the descriptor limit, the timeouts within a day, the work at
 *     least one step);
 *   - the same arguments parse the same way twice (the parser keeps no
 *     state between calls; getopt's is reset).
 *
 * Built by `make fuzz`; replayed by tests/test_fuzz_options_regressions.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cli.h"
#include "wire/frame.h"

enum { MAX_ARGS = 16, MAX_ARG_BYTES = 256 };

static const char *options_input_name = "";

static void options_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void options_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_options: %s%sproperty violated: ", options_input_name,
            *options_input_name ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* Splits data at NUL bytes into argv[1..]; returns argc. */
static int split_arguments(const uint8_t *data, size_t size, char store[][MAX_ARG_BYTES],
                           char *argv[])
{
    int argc = 1;
    size_t len = 0;
    argv[0] = "ipctax-engine";
    for (size_t i = 0; i <= size && argc <= MAX_ARGS; i++) {
        if (i == size || data[i] == '\0') {
            if (i == size && len == 0 && argc > 1)
                break;                         /* a trailing NUL ends the list */
            store[argc - 1][len] = '\0';
            argv[argc] = store[argc - 1];
            argc++;
            len = 0;
        } else if (len + 1 < MAX_ARG_BYTES) {
            store[argc - 1][len++] = (char)data[i];
        }
    }
    argv[argc] = NULL;
    return argc;
}

static void check_accepted(const struct engine_options *o)
{
    long port;
    char *end;
    switch (o->listen_on) {
    case LISTEN_UNIX:
        if (o->unix_path == NULL)
            options_fail("--unix accepted without a path");
        break;
    case LISTEN_TCP:
        port = strtol(o->tcp_port, &end, 10);
        if (*o->tcp_port == '\0' || *end != '\0' || port < 0 || port > 65535 ||
            o->tcp_host[0] == '\0')
            options_fail("--tcp accepted as host '%s', port '%s'", o->tcp_host, o->tcp_port);
        break;
    case LISTEN_SHM:
        if (o->shm_name == NULL)
            options_fail("--shm accepted without a name");
        break;
    case LISTEN_STDIN:
        break;
    default:
        options_fail("accepted with no transport (%d)", (int)o->listen_on);
    }
    const struct engine_config *c = &o->cfg;
    if (c->max_frame < REQUEST_HEADER_BYTES || c->max_frame > FRAME_LENGTH_MASK ||
        c->max_work < 1 || c->max_work > (uint64_t)MAX_MAX_WORK || c->sweep == NULL ||
        c->idle_timeout_ms < 1 || c->idle_timeout_ms > MAX_TIMEOUT_MS ||
        c->frame_timeout_ms < 1 || c->frame_timeout_ms > MAX_TIMEOUT_MS ||
        o->max_clients < 1 || o->max_clients > max_clients_allowed())
        options_fail("a limit out of its range: frame %u, work %llu, idle %d, frame %d ms, "
                     "clients %d", c->max_frame, (unsigned long long)c->max_work,
                     c->idle_timeout_ms, c->frame_timeout_ms, o->max_clients);
}

static void check_refusal(const char *err)
{
    size_t n = strlen(err);
    if (n == 0)
        options_fail("a refusal without a message");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] > 0x7e)
            options_fail("a refusal's message holds byte 0x%02x", (unsigned char)err[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char store[2][MAX_ARGS][MAX_ARG_BYTES];
    char *argv[2][MAX_ARGS + 2];
    struct engine_options o[2];
    char err[2][512];
    int result[2];
    for (int pass = 0; pass < 2; pass++) {
        int argc = split_arguments(data, size, store[pass], argv[pass]);
        engine_default_options(&o[pass]);
        err[pass][0] = '\0';
        result[pass] = engine_parse_options(argc, argv[pass], &o[pass], err[pass],
                                            sizeof err[pass]);
    }
    if (result[0] != result[1] || strcmp(err[0], err[1]) != 0)
        options_fail("the same arguments parsed as %d (\"%s\") and %d (\"%s\")", result[0],
                     err[0], result[1], err[1]);
    switch (result[0]) {
    case CLI_RUN:
        check_accepted(&o[0]);
        if (o[0].listen_on != o[1].listen_on || memcmp(&o[0].cfg, &o[1].cfg, sizeof o[0].cfg))
            options_fail("the same arguments gave two configurations");
        break;
    case CLI_BAD:
        check_refusal(err[0]);
        break;
    case CLI_HELP:
    case CLI_VERSION:
        break;
    default:
        options_fail("engine_parse_options returned %d", result[0]);
    }
    return 0;
}
