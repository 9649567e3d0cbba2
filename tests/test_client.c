/*
 * test_client.c - reading frames the way the client and the engine do:
 * read_some (code/wire/netio.c), which takes what has arrived, and the
 * client's round trip (code/wire/client.c), which reads a reply's length
 * word and what of its body came with it in one call. The other end of a
 * socket pair plays the engine, byte for byte, so that every way a reply
 * can arrive is made on purpose: whole, cut after its length word or in
 * the middle of it, as an error frame, with bytes it should not have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "util/error.h"
#include "util/timing.h"
#include "wire/client.h"
#include "wire/frame.h"
#include "wire/netio.h"

static uint64_t soon(void)
{
    return clock_ns() + 5000000000u;
}

static void pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void put(int fd, const void *bytes, size_t n)
{
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
}

/* ---- read_some ------------------------------------------------------------ */

static void read_some_takes_what_has_arrived_and_no_more_than_asked(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    put(sv[1], "abcdefghij", 10);
    char head[4], rest[3];
    struct iovec iov[2] = {{head, sizeof head}, {rest, sizeof rest}};
    assert_int_equal(read_some(sv[0], iov, 2, 1, soon()), 7);   /* the iovecs hold 7 */
    assert_memory_equal(head, "abcd", 4);
    assert_memory_equal(rest, "efg", 3);
    char more[16];
    struct iovec one = {more, sizeof more};
    assert_int_equal(read_some(sv[0], &one, 1, 2, soon()), 3);  /* what is left: 3 */
    assert_memory_equal(more, "hij", 3);
    close(sv[0]);
    close(sv[1]);
}

static void read_some_waits_for_its_least(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        put(sv[1], "ab", 2);
        usleep(50000);
        put(sv[1], "cd", 2);
        _exit(0);
    }
    char buf[8];
    struct iovec iov = {buf, sizeof buf};
    ssize_t got = read_some(sv[0], &iov, 1, 4, soon());
    assert_int_equal(waitpid(child, NULL, 0), child);
    assert_int_equal(got, 4);
    assert_memory_equal(buf, "abcd", 4);
    close(sv[0]);
    close(sv[1]);
}

static void read_some_tells_a_clean_end_from_a_cut_one(void **state)
{
    (void)state;
    int sv[2];
    char buf[8];
    struct iovec iov = {buf, sizeof buf};
    pair(sv);
    close(sv[1]);
    assert_int_equal(read_some(sv[0], &iov, 1, 4, soon()), 0);  /* nothing, then the end */
    close(sv[0]);
    pair(sv);
    put(sv[1], "ab", 2);
    close(sv[1]);
    iov = (struct iovec){buf, sizeof buf};
    errno = 0;
    assert_int_equal(read_some(sv[0], &iov, 1, 4, soon()), -1); /* two of four, then the end */
    assert_int_equal(errno, ECONNRESET);
    close(sv[0]);
}

/* ---- The client's round trip ----------------------------------------------- */

/* A client on sv[0] with a request of n bytes ready; sv[1] is the engine. */
static void client_on(struct client *c, int sv[2], size_t n)
{
    pair(sv);
    client_init(c);
    client_set_fds(c, sv[0], sv[0]);
    uint8_t *body = client_request_buffer(c, n);
    assert_non_null(body);
    memset(body, 7, n);
}

/* The engine's side: reads the request frame of n body bytes. */
static void engine_reads(int fd, size_t n)
{
    uint8_t *frame = malloc(FRAME_HEADER_BYTES + n);
    assert_int_equal(read_exact(fd, frame, FRAME_HEADER_BYTES + n, soon()), 0);
    assert_int_equal(le_get_u32(frame), n);
    free(frame);
}

/* A reply of n bytes (byte i is i % 251), as the engine would send it:
 * cut at `cut` bytes of the frame, the rest after a pause. */
static void engine_replies(int fd, size_t n, size_t cut)
{
    uint8_t *frame = malloc(FRAME_HEADER_BYTES + n);
    le_put_u32(frame, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        frame[FRAME_HEADER_BYTES + i] = (uint8_t)(i % 251);
    put(fd, frame, cut);
    usleep(20000);
    put(fd, frame + cut, FRAME_HEADER_BYTES + n - cut);
    free(frame);
}

static void assert_reply(const struct client *c, size_t n)
{
    assert_int_equal(c->reply_len, n);
    for (size_t i = 0; i < n; i++)
        if (((const uint8_t *)c->reply.data)[i] != (uint8_t)(i % 251))
            fail_msg("reply byte %zu is %u", i, ((const uint8_t *)c->reply.data)[i]);
}

static void a_reply_is_read_whole_however_it_is_cut(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 100, 200000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        const size_t cuts[] = {1, 2, FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + n / 2,
                               FRAME_HEADER_BYTES + n};
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            if (cuts[k] == 0 || cuts[k] > FRAME_HEADER_BYTES + n)
                continue;
            struct client c;
            int sv[2];
            char err[ERR_SIZE];
            client_on(&c, sv, 16);
            pid_t child = fork();
            assert_true(child >= 0);
            if (child == 0) {
                engine_reads(sv[1], 16);
                engine_replies(sv[1], n, cuts[k]);
                _exit(0);
            }
            if (client_round_trip(&c, 16, soon(), NULL, err, sizeof err) != 0)
                fail_msg("a %zu-byte reply cut at %zu: %s", n, cuts[k], err);
            assert_reply(&c, n);
            assert_int_equal(waitpid(child, NULL, 0), child);
            client_free(&c);
            close(sv[0]);
            close(sv[1]);
        }
    }
}

static void an_error_frame_read_with_its_word_gives_its_message(void **state)
{
    (void)state;
    static const char message[] = "frame of 9 bytes exceeds the engine's maximum of 8";
    struct client c;
    int sv[2];
    char err[ERR_SIZE];
    client_on(&c, sv, 16);
    uint8_t frame[FRAME_HEADER_BYTES + sizeof message];
    uint32_t n = error_frame_header(frame, sizeof message - 1);
    memcpy(frame + FRAME_HEADER_BYTES, message, n);
    put(sv[1], frame, FRAME_HEADER_BYTES + n);   /* whole, before the client reads */
    assert_int_equal(client_round_trip(&c, 16, soon(), NULL, err, sizeof err), -2);
    assert_non_null(strstr(err, message));
    client_free(&c);
    close(sv[0]);
    close(sv[1]);
}

static void bytes_beyond_a_reply_are_an_engines_mistake(void **state)
{
    (void)state;
    struct client c;
    int sv[2];
    char err[ERR_SIZE];
    client_on(&c, sv, 16);
    uint8_t frame[FRAME_HEADER_BYTES + 8 + 3] = {0};
    le_put_u32(frame, 8);
    put(sv[1], frame, sizeof frame);             /* an 8-byte reply and three bytes more */
    assert_int_equal(client_round_trip(&c, 16, soon(), NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "beyond its 8-byte reply"));
    client_free(&c);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_some_takes_what_has_arrived_and_no_more_than_asked),
        cmocka_unit_test(read_some_waits_for_its_least),
        cmocka_unit_test(read_some_tells_a_clean_end_from_a_cut_one),
        cmocka_unit_test(a_reply_is_read_whole_however_it_is_cut),
        cmocka_unit_test(an_error_frame_read_with_its_word_gives_its_message),
        cmocka_unit_test(bytes_beyond_a_reply_are_an_engines_mistake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
