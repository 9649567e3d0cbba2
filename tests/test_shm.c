/*
 * test_shm.c - the shared-memory channel of paper/84-shm.md (code/shm_ring.c)
 * on its own, and build/ipctax-engine serving over it.
 *
 * The channel: frames larger than the ring wrap around it many times, in
 * both waiting modes; a hundred thousand small frames arrive intact and in
 * order; two processes move megabytes each way through a small ring under
 * a checksum; a peer killed with SIGKILL is noticed by a spinning and by a
 * sleeping side; a live segment is never taken over, a stale one is, and a
 * foreign object is left alone.
 *
 * The engine: echoes come back bit for bit (1.2 MB through a 256 KiB ring
 * too), sweeps equal the in-process kernel bit for bit (gate_compare), a
 * bad frame gets an error frame and ends the session, the next client is
 * served, the raw ping-pong echoes, a second engine cannot take a live
 * segment, and SIGTERM removes the segment.
 *
 * No timing is asserted: every wait is bounded only so that a failure
 * fails instead of hanging.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "testengine.h"
#include "wire/shm_ring.h"

/* ---- Names and data ------------------------------------------------------- */

/* "/ipctax-test-PID-tag": unique to this test program. */
static const char *channel_name(char buf[64], const char *tag)
{
    snprintf(buf, 64, "/ipctax-test-%d-%s", (int)getpid(), tag);
    return buf;
}

/* A reproducible byte stream: xorshift64, one byte at a time. */
struct stream {
    uint64_t x;
};

static uint8_t stream_next(struct stream *s)
{
    s->x ^= s->x << 13;
    s->x ^= s->x >> 7;
    s->x ^= s->x << 17;
    return (uint8_t)(s->x >> 32);
}

static void stream_fill(struct stream *s, uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = stream_next(s);
}

/* FNV-1a, 64 bits, continued over successive pieces. */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}
#define FNV_START 0xcbf29ce484222325ULL

/* Values whose bits must survive the echo: NaN payloads and -0.0 included. */
static double *bit_patterns(size_t n, uint64_t seed)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    struct stream s = {seed * 0x9e3779b97f4a7c15ULL + 1};
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = 0;
        for (int b = 0; b < 8; b++)
            bits = bits << 8 | stream_next(&s);
        if (i % 5 == 1)
            bits = 0x7ff8000000000000ULL | (bits & 0xfffff);
        else if (i % 5 == 2)
            bits = 0x8000000000000000ULL;
        memcpy(&v[i], &bits, 8);
    }
    return v;
}

static void create_or_fail(struct shm_channel *ch, const char *name, size_t ring,
                           enum shm_wait mode)
{
    char err[256];
    if (shm_channel_create(ch, name, ring, mode, err, sizeof err) != 0)
        fail_msg("cannot create %s: %s", name, err);
}

static void attach_or_fail(struct shm_channel *ch, const char *name, enum shm_wait mode)
{
    char err[256];
    if (shm_channel_attach(ch, name, mode, 5000, err, sizeof err) != 0)
        fail_msg("cannot attach to %s: %s", name, err);
}

/* ---- An engine side in a thread: echoes every frame back ---------------- */

struct echo_server {
    struct shm_channel ch;
    int frames;                    /* frames echoed */
    int ended_cleanly;             /* the client left between frames */
};

static void *echo_frames(void *arg)
{
    struct echo_server *srv = arg;
    uint8_t *buf = NULL;
    if (shm_channel_accept(&srv->ch, NO_DEADLINE) != 0)
        return NULL;
    for (;;) {
        uint8_t header[4];
        int r = shm_read_exact(&srv->ch, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS));
        if (r != 0) {
            srv->ended_cleanly = r == 1;
            break;
        }
        uint32_t len = le_get_u32(header);
        uint8_t *bigger = realloc(buf, len ? len : 1);
        if (bigger == NULL)
            break;
        buf = bigger;
        if (shm_read_exact(&srv->ch, buf, len, deadline_after_ms(TEST_IO_TIMEOUT_MS)) != 0)
            break;
        struct iovec iov[2] = {{header, 4}, {buf, len}};
        if (shm_write_all(&srv->ch, iov, 2, deadline_after_ms(TEST_IO_TIMEOUT_MS)) != 0)
            break;
        srv->frames++;
    }
    free(buf);
    shm_channel_release(&srv->ch);
    return NULL;
}

/* Sends frames of each size through a ring of ring_bytes and checks the echoes. */
static void echo_sizes_through(enum shm_wait mode, size_t ring_bytes, const size_t *sizes,
                               int n_sizes, int rounds)
{
    char name[64];
    struct echo_server srv;
    struct shm_channel c;
    pthread_t thread;
    memset(&srv, 0, sizeof srv);
    channel_name(name, mode == SHM_WAIT_SPIN ? "wrap-spin" : "wrap-futex");
    create_or_fail(&srv.ch, name, ring_bytes, mode);
    assert_int_equal(pthread_create(&thread, NULL, echo_frames, &srv), 0);
    attach_or_fail(&c, name, mode);
    struct stream s = {42};
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < n_sizes; i++) {
            size_t n = sizes[i];
            uint8_t *out = malloc(n + 1), *back = malloc(n + 1), header[4];
            stream_fill(&s, out, n);
            le_put_u32(header, (uint32_t)n);
            struct iovec iov[2] = {{header, 4}, {out, n}};
            assert_int_equal(shm_write_all(&c, iov, 2, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            assert_int_equal(shm_read_exact(&c, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            assert_int_equal(le_get_u32(header), n);
            assert_int_equal(shm_read_exact(&c, back, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            if (memcmp(out, back, n) != 0)
                fail_msg("a frame of %zu bytes through a %zu-byte ring came back different",
                         n, ring_bytes);
            free(out);
            free(back);
        }
    }
    shm_channel_detach(&c);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(srv.frames, n_sizes * rounds);
    assert_true(srv.ended_cleanly);
    shm_channel_destroy(&srv.ch);
}

/* ---- The channel ------------------------------------------------------------ */

/* Sizes around the ring's and the publishing step's boundaries, and far beyond. */
static const size_t WRAP_SIZES[] = {0, 1, 12, 15, 16, 17, 59, 60, 61, 63, 64, 65, 255, 256,
                                    257, 1000, 1023, 1024, 1025, 4093, 4096, 10007, 100000};

static void frames_larger_than_the_ring_wrap_around_futex(void **state)
{
    (void)state;
    static const size_t study[] = {1200000};              /* the study's series, 1.2 MB */
    echo_sizes_through(SHM_WAIT_FUTEX, 256, WRAP_SIZES,
                       sizeof WRAP_SIZES / sizeof WRAP_SIZES[0], 2);
    echo_sizes_through(SHM_WAIT_FUTEX, 4096, study, 1, 2);
}

static void frames_larger_than_the_ring_wrap_around_spin(void **state)
{
    (void)state;
    echo_sizes_through(SHM_WAIT_SPIN, 64, WRAP_SIZES,
                       sizeof WRAP_SIZES / sizeof WRAP_SIZES[0], 2);
}

/* A producer thread writes many small frames; the main thread checks each. */
enum { SMALL_FRAMES = 100000 };

struct small_producer {
    const char *name;
    int status;
};

static void *write_small_frames(void *arg)
{
    struct small_producer *p = arg;
    struct shm_channel c;
    char err[256];
    if (shm_channel_attach(&c, p->name, SHM_WAIT_FUTEX, 5000, err, sizeof err) != 0) {
        p->status = -1;
        return NULL;
    }
    struct stream s = {7};
    for (int i = 0; i < SMALL_FRAMES && p->status == 0; i++) {
        uint8_t frame[4 + 64];
        size_t n = 1 + (size_t)(i % 64);
        le_put_u32(frame, (uint32_t)n);
        stream_fill(&s, frame + 4, n);
        struct iovec iov = {frame, 4 + n};
        if (shm_write_all(&c, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)) != 0)
            p->status = -1;
    }
    shm_channel_detach(&c);
    return NULL;
}

static void many_small_frames_arrive_in_order(void **state)
{
    (void)state;
    char name[64];
    struct shm_channel engine;
    pthread_t thread;
    struct small_producer p = {channel_name(name, "small"), 0};
    create_or_fail(&engine, name, 4096, SHM_WAIT_FUTEX);
    assert_int_equal(pthread_create(&thread, NULL, write_small_frames, &p), 0);
    assert_int_equal(shm_channel_accept(&engine, NO_DEADLINE), 0);
    struct stream s = {7};
    for (int i = 0; i < SMALL_FRAMES; i++) {
        uint8_t header[4], body[64], expected[64];
        size_t n = 1 + (size_t)(i % 64);
        int r = shm_read_exact(&engine, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS));
        if (r != 0)
            fail_msg("frame %d: no header (%d: %s)", i, r, strerror(errno));
        assert_int_equal(le_get_u32(header), n);
        assert_int_equal(shm_read_exact(&engine, body, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        stream_fill(&s, expected, n);
        if (memcmp(body, expected, n) != 0)
            fail_msg("small frame %d of %zu bytes differs", i, n);
    }
    uint8_t extra;
    assert_int_equal(shm_read_exact(&engine, &extra, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 1);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(p.status, 0);
    shm_channel_release(&engine);
    shm_channel_destroy(&engine);
}

/* Two processes: the child (client) sends `total` bytes in pieces of varying
 * size, then receives as many and checks them; the parent (engine) does the
 * opposite. Both sides compare checksums of the streams. */
static void child_client(const char *name, enum shm_wait mode, size_t total)
{
    struct shm_channel c;
    char err[256];
    uint8_t buf[5000];
    if (shm_channel_attach(&c, name, mode, 5000, err, sizeof err) != 0)
        _exit(10);
    struct stream out = {1001}, in = {2002}, sizes = {3003};
    for (size_t sent = 0; sent < total;) {
        size_t n = 1 + stream_next(&sizes) * 19u % sizeof buf;
        if (n > total - sent)
            n = total - sent;
        stream_fill(&out, buf, n);
        struct iovec iov = {buf, n};
        if (shm_write_all(&c, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)) != 0)
            _exit(11);
        sent += n;
    }
    uint64_t want = FNV_START, got = FNV_START;
    for (size_t received = 0; received < total;) {
        size_t n = total - received < sizeof buf ? total - received : sizeof buf;
        uint8_t expected[sizeof buf];
        if (shm_read_exact(&c, buf, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)) != 0)
            _exit(12);
        stream_fill(&in, expected, n);
        got = fnv1a(got, buf, n);
        want = fnv1a(want, expected, n);
        received += n;
    }
    shm_channel_detach(&c);
    _exit(got == want ? 0 : 13);
}

static void two_processes_move_megabytes(enum shm_wait mode, size_t total)
{
    char name[64];
    struct shm_channel engine;
    channel_name(name, mode == SHM_WAIT_SPIN ? "procs-spin" : "procs-futex");
    create_or_fail(&engine, name, 4096, mode);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_client(name, mode, total);
    assert_int_equal(shm_channel_accept(&engine, NO_DEADLINE), 0);
    struct stream in = {1001}, out = {2002};
    uint64_t want = FNV_START, got = FNV_START;
    uint8_t buf[3001], expected[3001];
    for (size_t received = 0; received < total;) {
        size_t n = total - received < sizeof buf ? total - received : sizeof buf;
        int r = shm_read_exact(&engine, buf, n, deadline_after_ms(TEST_IO_TIMEOUT_MS));
        if (r != 0)
            fail_msg("after %zu of %zu bytes: read gave %d (%s)", received, total, r,
                     strerror(errno));
        stream_fill(&in, expected, n);
        got = fnv1a(got, buf, n);
        want = fnv1a(want, expected, n);
        received += n;
    }
    if (got != want)
        fail_msg("the checksum of %zu bytes from the child differs", total);
    for (size_t sent = 0; sent < total;) {
        size_t n = total - sent < sizeof buf ? total - sent : sizeof buf;
        stream_fill(&out, buf, n);
        struct iovec iov = {buf, n};
        assert_int_equal(shm_write_all(&engine, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        sent += n;
    }
    int status;
    if (wait_for_exit(pid, 10000, &status) != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("the child client did not finish");
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the child client failed (status %d)", status);
    shm_channel_release(&engine);
    shm_channel_destroy(&engine);
}

static void two_processes_checksum_spin(void **state)
{
    (void)state;
    two_processes_move_megabytes(SHM_WAIT_SPIN, 4u << 20);
}

static void two_processes_checksum_futex(void **state)
{
    (void)state;
    two_processes_move_megabytes(SHM_WAIT_FUTEX, 2u << 20);
}

/* A client killed with SIGKILL while the engine waits for its next frame. */
static void engine_notices_a_killed_client(enum shm_wait mode)
{
    char name[64];
    struct shm_channel engine;
    channel_name(name, mode == SHM_WAIT_SPIN ? "dead-client-spin" : "dead-client-futex");
    create_or_fail(&engine, name, 4096, mode);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct shm_channel c;
        char err[256];
        if (shm_channel_attach(&c, name, mode, 5000, err, sizeof err) != 0)
            _exit(1);
        for (;;)
            pause();
    }
    assert_int_equal(shm_channel_accept(&engine, NO_DEADLINE), 0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    uint8_t header[4];
    int r = shm_read_exact(&engine, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS));
    if (r != 1)
        fail_msg("the engine side should see the client gone (1), got %d (%s)", r,
                 strerror(errno));
    shm_channel_release(&engine);          /* a dead client: no waiting */
    shm_channel_destroy(&engine);
}

static void a_killed_client_is_noticed_spin(void **state)
{
    (void)state;
    engine_notices_a_killed_client(SHM_WAIT_SPIN);
}

static void a_killed_client_is_noticed_futex(void **state)
{
    (void)state;
    engine_notices_a_killed_client(SHM_WAIT_FUTEX);
}

/* An engine killed with SIGKILL while the client waits for a reply; its
 * segment stays behind, stale, and a new engine takes the name over. */
static void a_killed_engine_is_noticed_and_replaced(void **state)
{
    (void)state;
    char name[64];
    channel_name(name, "dead-engine");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct shm_channel ch;
        char err[256];
        if (shm_channel_create(&ch, name, 4096, SHM_WAIT_SPIN, err, sizeof err) != 0)
            _exit(1);
        shm_channel_accept(&ch, NO_DEADLINE);
        for (;;)
            pause();
    }
    struct shm_channel c;
    attach_or_fail(&c, name, SHM_WAIT_SPIN);
    uint8_t frame[8] = {4, 0, 0, 0, 1, 2, 3, 4};
    struct iovec iov = {frame, sizeof frame};
    assert_int_equal(shm_write_all(&c, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    int r = shm_read_exact(&c, frame, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS));
    if (r != 1)
        fail_msg("the client should see the engine gone (1), got %d (%s)", r, strerror(errno));
    shm_channel_detach(&c);

    struct shm_channel engine;
    create_or_fail(&engine, name, 4096, SHM_WAIT_FUTEX);     /* takes the stale name over */
    shm_channel_destroy(&engine);
}

static void a_live_segment_or_a_foreign_object_is_never_taken(void **state)
{
    (void)state;
    char name[64], err[256];
    struct shm_channel first, second;
    channel_name(name, "live");
    create_or_fail(&first, name, 4096, SHM_WAIT_FUTEX);
    assert_int_equal(shm_channel_create(&second, name, 4096, SHM_WAIT_FUTEX, err, sizeof err), -1);
    if (strstr(err, "already serving") == NULL)
        fail_msg("unexpected message: %s", err);
    shm_channel_destroy(&first);

    channel_name(name, "foreign");
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    char junk[8192];
    memset(junk, 'x', sizeof junk);
    assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    assert_int_equal(shm_channel_create(&second, name, 4096, SHM_WAIT_FUTEX, err, sizeof err), -1);
    if (strstr(err, "not an ipctax segment") == NULL)
        fail_msg("unexpected message: %s", err);
    assert_int_equal(shm_unlink(name), 0);                /* still there: nobody touched it */

    assert_int_equal(shm_channel_create(&second, name, 100, SHM_WAIT_FUTEX, err, sizeof err), -1);
    assert_int_equal(shm_channel_create(&second, "a/b", 4096, SHM_WAIT_FUTEX, err, sizeof err), -1);
}

/*
 * shm_channel_create in a child, so that a create that blocks fails the test
 * instead of hanging it: 0 created, 1 refused (its message in err), -1 still
 * running after 3 s (killed).
 */
static int create_elsewhere(const char *name, char err[256])
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct shm_channel ch;
        char message[256] = "";
        close(pipefd[0]);
        int r = shm_channel_create(&ch, name, 4096, SHM_WAIT_FUTEX, message, sizeof message);
        if (r == 0)
            shm_channel_destroy(&ch);
        if (write(pipefd[1], message, strlen(message) + 1) < 0)
            _exit(3);
        _exit(r == 0 ? 0 : 1);
    }
    track_child(pid);
    close(pipefd[1]);
    int status;
    int done = wait_for_exit(pid, 3000, &status) == 0;
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    untrack_child(pid);
    err[0] = '\0';
    struct pollfd p = {pipefd[0], POLLIN, 0};
    if (done && poll(&p, 1, 0) > 0) {
        ssize_t n = read(pipefd[0], err, 255);
        err[n > 0 ? n : 0] = '\0';
    }
    close(pipefd[0]);
    if (!done)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void assert_refused_and_left(const char *name, const char *path, mode_t kind)
{
    char err[256];
    int r = create_elsewhere(name, err);
    if (r < 0)
        fail_msg("creating %s blocked on what was there (still waiting after 3 s)", name);
    if (r != 1 || strstr(err, "not touching it") == NULL)
        fail_msg("creating %s over a squatter: status %d, \"%s\"; expected a refusal that "
                 "says it leaves it alone", name, r, err);
    struct stat st;
    if (lstat(path, &st) != 0 || (st.st_mode & S_IFMT) != kind)
        fail_msg("%s was removed or replaced", path);
}

/*
 * Another user may put anything under the engine's segment name in
 * /dev/shm. A FIFO there once blocked the engine in its probe's open() until
 * a signal; a symbolic link, or a FIFO once the open was interrupted, was
 * then unlinked as "stale", and so was another user's segment when the
 * engine ran as root. The probe now opens without following links and
 * without blocking, and only a regular file of the engine's own user is
 * ever taken over.
 */
static void a_squatter_is_neither_waited_for_nor_removed(void **state)
{
    (void)state;
    char name[64], path[128], target[64], target_path[128];
    channel_name(name, "fifo");
    snprintf(path, sizeof path, "/dev/shm%s", name);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_refused_and_left(name, path, S_IFIFO);
    assert_int_equal(unlink(path), 0);

    channel_name(name, "link");
    channel_name(target, "link-target");
    snprintf(path, sizeof path, "/dev/shm%s", name);
    snprintf(target_path, sizeof target_path, "/dev/shm%s", target);
    int fd = open(target_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(symlink(target_path, path), 0);
    assert_refused_and_left(name, path, S_IFLNK);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(access(target_path, F_OK), 0);       /* and nothing behind it */
    assert_int_equal(unlink(target_path), 0);

    if (geteuid() != 0) {      /* only root can give a file to another user */
        print_message("not checked: another user's segment is left alone (this test is not "
                      "run as root, which alone can make one)\n");
        return;
    }
    channel_name(name, "others");
    snprintf(path, sizeof path, "/dev/shm%s", name);
    pid_t pid = fork();                                   /* a stale segment: its engine died */
    assert_true(pid >= 0);
    if (pid == 0) {
        struct shm_channel ch;
        char err[256];
        _exit(shm_channel_create(&ch, name, 4096, SHM_WAIT_FUTEX, err, sizeof err) != 0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(chown(path, 65534, 65534), 0);        /* nobody's */
    assert_refused_and_left(name, path, S_IFREG);
    assert_int_equal(chown(path, 0, 0), 0);                /* ours again: stale, taken over */
    char err[256];
    assert_int_equal(create_elsewhere(name, err), 0);
    assert_int_equal(access(path, F_OK), -1);
}

static void a_second_client_is_told_the_channel_is_busy(void **state)
{
    (void)state;
    char name[64], err[256];
    struct shm_channel engine, one, two;
    channel_name(name, "busy");
    create_or_fail(&engine, name, 4096, SHM_WAIT_FUTEX);
    attach_or_fail(&one, name, SHM_WAIT_FUTEX);
    assert_int_equal(shm_channel_attach(&two, name, SHM_WAIT_FUTEX, 20, err, sizeof err), -1);
    assert_int_equal(errno, EBUSY);
    assert_int_equal(shm_channel_accept(&engine, NO_DEADLINE), 0);
    shm_channel_detach(&one);
    shm_channel_release(&engine);
    attach_or_fail(&two, name, SHM_WAIT_FUTEX);           /* free again after the release */
    shm_channel_detach(&two);
    shm_channel_destroy(&engine);
}

/* ---- The engine over shared memory ------------------------------------------ */

/* The engine is tracked while it runs, so that a failed test (whose own
 * cleanup never runs) does not leave it behind. */
static void start_or_fail(struct shm_engine *s, char *const args[], const char *tag,
                          enum shm_wait mode)
{
    char err[CLIENT_ERROR_SIZE] = "";
    if (shm_engine_start(s, engine_binary(), args, tag, mode, err) != 0)
        fail_msg("cannot start the engine over shared memory: %s", err);
    track_child(s->process.pid);
}

static void stop_engine(struct shm_engine *s)
{
    untrack_child(s->process.pid);
    shm_engine_stop(s);
}

static void assert_segment_gone(const char *name)
{
    int fd = shm_open(name, O_RDONLY, 0);
    if (fd >= 0) {
        close(fd);
        fail_msg("the segment %s is still there", name);
    }
}

static void echo_and_sweep_over(struct shm_engine *s)
{
    static const size_t sizes[] = {1, 2, 1000, 32769, 150000};
    char err[CLIENT_ERROR_SIZE] = "";
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double *v = bit_patterns(sizes[i], i + 1), *back = malloc(sizes[i] * sizeof *back);
        if (tclient_echo(&s->client, v, sizes[i], back, err) != 0)
            fail_msg("echo of %zu doubles: %s", sizes[i], err);
        if (memcmp(v, back, sizes[i] * 8) != 0)
            fail_msg("the echo of %zu doubles came back different", sizes[i]);
        free(v);
        free(back);
    }
    struct combo_result results[REF_COMBOS];
    for (int round = 0; round < 2; round++) {
        memset(results, 0, sizeof results);
        if (tclient_sweep(&s->client, &ref.job, 0, REF_COMBOS, results, err) != 0)
            fail_msg("sweep over shared memory: %s", err);
        assert_reference_results(results);
    }
}

static void engine_echoes_and_sweeps_futex(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--kernel", "naive", NULL};
    start_or_fail(&s, args, "engine-futex", SHM_WAIT_FUTEX);
    echo_and_sweep_over(&s);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

static void engine_echoes_and_sweeps_spin(void **state)
{
    (void)state;
    struct shm_engine s;
    start_or_fail(&s, NULL, "engine-spin", SHM_WAIT_SPIN);
    echo_and_sweep_over(&s);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/* Sends a raw frame and expects an error frame containing needle, then the end. */
static void assert_error_then_end(struct shm_channel *c, uint32_t word, const void *body,
                                  size_t len, const char *needle)
{
    uint8_t header[4];
    le_put_u32(header, word);
    struct iovec iov[2] = {{header, 4}, {(void *)body, len}};
    assert_int_equal(shm_write_all(c, iov, len ? 2 : 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    assert_int_equal(shm_read_exact(c, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    uint32_t back = le_get_u32(header);
    if (!(back & ERROR_FRAME_FLAG))
        fail_msg("expected an error frame containing \"%s\", got a reply", needle);
    size_t n = back & FRAME_LENGTH_MASK;
    char *message = calloc(1, n + 1);
    assert_int_equal(shm_read_exact(c, message, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    if (n == 0 || !is_utf8_text((uint8_t *)message, n) || strstr(message, needle) == NULL)
        fail_msg("error message \"%s\" does not contain \"%s\"", message, needle);
    free(message);
    uint8_t byte;
    int r = shm_read_exact(c, &byte, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS));
    if (r != 1)
        fail_msg("after the error frame the session should end; read gave %d", r);
}

static void bad_frames_get_error_frames_and_the_next_client_is_served(void **state)
{
    (void)state;
    struct shm_engine s;
    char err[CLIENT_ERROR_SIZE];
    start_or_fail(&s, NULL, "engine-bad", SHM_WAIT_FUTEX);
    size_t len;
    uint8_t *body = reference_request(OP_SWEEP, REF_BARS, REF_COMBOS, &len);
    body[0] = 99;                                           /* no such opcode */
    assert_error_then_end(&s.channel, (uint32_t)len, body, len, "unknown opcode");
    shm_channel_detach(&s.channel);

    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);
    assert_error_then_end(&s.channel, 0x7ffffff0u, NULL, 0, "exceeds");
    shm_channel_detach(&s.channel);

    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);
    body[0] = OP_SWEEP;
    body[1] ^= 1;                                           /* n_bars no longer matches */
    assert_error_then_end(&s.channel, (uint32_t)len, body, len, "require");
    shm_channel_detach(&s.channel);
    free(body);

    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);     /* the engine serves on */
    struct combo_result results[REF_COMBOS];
    if (tclient_sweep(&s.client, &ref.job, 0, REF_COMBOS, results, err) != 0)
        fail_msg("sweep after the bad frames: %s", err);
    assert_reference_results(results);

    /* SIGTERM with a client attached: exit 0, segment removed. */
    int status;
    assert_int_equal(kill(s.process.pid, SIGTERM), 0);
    if (wait_for_exit(s.process.pid, 3000, &status) != 0) {
        kill(s.process.pid, SIGKILL);
        waitpid(s.process.pid, NULL, 0);
        untrack_child(s.process.pid);
        fail_msg("the engine did not exit within 3 s of SIGTERM");
    }
    untrack_child(s.process.pid);
    s.process.pid = 0;
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_segment_gone(s.name);
    uint8_t byte;
    assert_int_equal(shm_read_exact(&s.channel, &byte, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 1);
    stop_engine(&s);
}

/* Reads an error frame containing needle, then expects the session's end. */
static void assert_error_frame_then_end(struct shm_channel *c, const char *needle)
{
    uint8_t header[4];
    assert_int_equal(shm_read_exact(c, header, 4, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    uint32_t word = le_get_u32(header);
    assert_true(word & ERROR_FRAME_FLAG);
    size_t n = word & FRAME_LENGTH_MASK;
    char *message = calloc(1, n + 1);
    assert_int_equal(shm_read_exact(c, message, n, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    if (strstr(message, needle) == NULL)
        fail_msg("error message \"%s\" does not contain \"%s\"", message, needle);
    free(message);
    uint8_t byte;
    assert_int_equal(shm_read_exact(c, &byte, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 1);
}

static void idle_and_stalled_clients_get_error_frames(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--idle-timeout", "200", "--frame-timeout", "200", NULL};
    start_or_fail(&s, args, "engine-slow", SHM_WAIT_FUTEX);
    assert_error_frame_then_end(&s.channel, "no request within the idle timeout");
    shm_channel_detach(&s.channel);

    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);
    uint8_t first = 9;                                      /* one byte of a header, then nothing */
    struct iovec iov = {&first, 1};
    assert_int_equal(shm_write_all(&s.channel, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
    assert_error_frame_then_end(&s.channel, "header did not arrive within 200 ms");
    shm_channel_detach(&s.channel);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

static void raw_ping_pong_echoes(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--raw", NULL};
    start_or_fail(&s, args, "engine-raw", SHM_WAIT_SPIN);
    for (uint32_t size = 8; size <= 80000; size *= 10) {
        uint8_t word[4], *out = malloc(size), *back = malloc(size);
        struct stream st = {size};
        if (s.channel.seg == NULL)
            attach_or_fail(&s.channel, s.name, SHM_WAIT_SPIN);
        le_put_u32(word, size);
        struct iovec iov = {word, 4};
        assert_int_equal(shm_write_all(&s.channel, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
        for (int i = 0; i < 3; i++) {
            stream_fill(&st, out, size);
            struct iovec data = {out, size};
            assert_int_equal(shm_write_all(&s.channel, &data, 1,
                                           deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            assert_int_equal(shm_read_exact(&s.channel, back, size,
                                            deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
            assert_memory_equal(out, back, size);
        }
        shm_channel_detach(&s.channel);                     /* one size per session */
        free(out);
        free(back);
    }
    stop_engine(&s);
    assert_segment_gone(s.name);
}

static void a_second_engine_cannot_take_a_live_segment(void **state)
{
    (void)state;
    struct shm_engine s;
    struct run_result r;
    start_or_fail(&s, NULL, "engine-twice", SHM_WAIT_FUTEX);
    char *argv[] = {(char *)engine_binary(), "--shm", s.name, NULL};
    assert_int_equal(run_program(argv, NULL, NULL, 0, 5000, &r), 0);
    int code = exit_code(&r);
    if (code != 1 || strstr(r.err, "already serving") == NULL)
        fail_msg("a second engine on %s: exit %d, stderr \"%s\"", s.name, code, r.err);
    run_result_free(&r);
    char err[CLIENT_ERROR_SIZE];
    double one = 1.5, back = 0;
    if (tclient_echo(&s.client, &one, 1, &back, err) != 0)          /* the first still serves */
        fail_msg("echo after the refused takeover: %s", err);
    assert_same_double(back, one);
    stop_engine(&s);
}

/* Truncates the segment `name` to `bytes`, as any process that may open it can. */
static void truncate_segment(const char *name, off_t bytes)
{
    int fd = shm_open(name, O_RDWR, 0);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, bytes), 0);
    close(fd);
}

static void assert_engine_running(const struct shm_engine *s)
{
    int status;
    pid_t r = waitpid(s->process.pid, &status, WNOHANG);
    if (r == s->process.pid)
        fail_msg("the engine died (%s %d)", WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* An echo over a fresh attachment; the caller's channel is left attached. */
static void assert_echo_after_attaching(struct shm_engine *s)
{
    char err[CLIENT_ERROR_SIZE] = "";
    double one = 2.25, back = 0;
    attach_or_fail(&s->channel, s->name, SHM_WAIT_FUTEX);
    if (tclient_echo(&s->client, &one, 1, &back, err) != 0)
        fail_msg("echo after attaching again: %s", err);
    assert_same_double(back, one);
}

/*
 * Whoever can open the segment can shrink it, and a mapping whose file has
 * shrunk raises SIGBUS where it is touched. It once killed the engine (exit
 * 135), idle or serving, and left the segment behind. The fault is now
 * contained, in the engine and in this test's client alike: the damaged
 * session ends, and the engine serves on from a new segment.
 */
static void a_truncated_segment_does_not_kill_the_engine(void **state)
{
    (void)state;
    struct shm_engine s;
    char err[CLIENT_ERROR_SIZE] = "";
    start_or_fail(&s, NULL, "engine-truncated", SHM_WAIT_FUTEX);
    shm_channel_detach(&s.channel);                     /* idle */
    sleep_ms(50);
    truncate_segment(s.name, 0);
    sleep_ms(200);
    assert_engine_running(&s);
    assert_echo_after_attaching(&s);

    truncate_segment(s.name, 4096);                     /* serving, header still mapped */
    double one = 1.5, back = 0;
    if (tclient_echo(&s.client, &one, 1, &back, err) == 0)
        fail_msg("an echo through a truncated segment came back");
    sleep_ms(100);
    assert_engine_running(&s);
    shm_channel_detach(&s.channel);
    assert_echo_after_attaching(&s);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/* The segment `name` mapped by the test, as a second process sees it. */
static struct shm_segment *map_header(const char *name)
{
    int fd = shm_open(name, O_RDWR, 0);
    assert_true(fd >= 0);
    struct shm_segment *seg = mmap(NULL, sizeof *seg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    assert_true(seg != MAP_FAILED);
    return seg;
}

/* A second client attaches within 5 s and is served; then it leaves. */
static void assert_another_client_is_served(const char *name)
{
    struct shm_channel other;
    struct test_client c;
    char err[CLIENT_ERROR_SIZE] = "";
    double one = 3.5, back = 0;
    if (shm_channel_attach(&other, name, SHM_WAIT_FUTEX, 5000, err, sizeof err) != 0)
        fail_msg("no other client could attach to %s within 5 s: %s", name, err);
    tclient_init(&c, -1, -1);
    c.shm = &other;
    if (tclient_echo(&c, &one, 1, &back, err) != 0)
        fail_msg("echo for the other client: %s", err);
    assert_same_double(back, one);
    tclient_close(&c);
    shm_channel_detach(&other);
}

/* A client that attaches and then stops itself (SIGSTOP) does not keep the
 * channel: another client is served, after the engine has evicted it. */
static void assert_a_stopped_client_is_evicted(const char *name)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct shm_channel ch;
        char err[256];
        if (shm_channel_attach(&ch, name, SHM_WAIT_FUTEX, 5000, err, sizeof err) != 0)
            _exit(1);
        raise(SIGSTOP);
        _exit(0);
    }
    track_child(child);
    int status;
    assert_int_equal(waitpid(child, &status, WUNTRACED), child);
    assert_true(WIFSTOPPED(status));
    assert_another_client_is_served(name);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    untrack_child(child);
}

/*
 * A client that is attached but silent (or stopped with SIGSTOP) cannot
 * keep the channel after its session is over: the engine ends the session
 * at the idle timeout, waits a bounded time for the client to leave, and
 * then serves the next client from a new segment. It once waited for the
 * client without a deadline, and everyone else was kept out for good.
 */
static void a_silent_or_stopped_client_cannot_keep_the_channel(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--idle-timeout", "200", NULL};
    start_or_fail(&s, args, "engine-silent", SHM_WAIT_FUTEX);
    /* s.channel is attached, and says nothing. */
    assert_another_client_is_served(s.name);
    char err[CLIENT_ERROR_SIZE] = "";
    double one = 1.0, back;
    if (tclient_echo(&s.client, &one, 1, &back, err) == 0)
        fail_msg("the silent client's session should be over");
    shm_channel_detach(&s.channel);

    assert_a_stopped_client_is_evicted(s.name);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/*
 * Tampering with the header can delay a client, not freeze the channel. A
 * client word of 1 (pid 1 exists, and kill(1, 0) fails with EPERM, which
 * was taken for "alive") once locked the channel for good; a zeroed engine
 * pid once made every client believe the engine had stopped while it ran.
 */
static void tampered_words_cannot_freeze_the_channel(void **state)
{
    (void)state;
    struct shm_engine s;
    char err[CLIENT_ERROR_SIZE] = "";
    static char *const args[] = {"--idle-timeout", "200", NULL};
    start_or_fail(&s, args, "engine-tampered", SHM_WAIT_FUTEX);
    struct shm_segment *seg = map_header(s.name);

    double one = 4.0, back = 0;                      /* the engine's pid zeroed mid-session */
    atomic_store(&seg->engine_pid, 0);
    if (tclient_echo(&s.client, &one, 1, &back, err) != 0)
        fail_msg("after the engine pid was zeroed, an echo failed: %s", err);
    assert_same_double(back, one);
    shm_channel_detach(&s.channel);
    atomic_store(&seg->engine_pid, 0);               /* and while nobody is attached */
    assert_another_client_is_served(s.name);

    sleep_ms(50);                                    /* the client word claimed by pid 1 */
    munmap(seg, sizeof *seg);
    seg = map_header(s.name);
    int32_t free_word = SHM_FREE;
    assert_true(atomic_compare_exchange_strong(&seg->client, &free_word, 1));
    atomic_fetch_add(&seg->attach_seq, 1);
    assert_another_client_is_served(s.name);
    munmap(seg, sizeof *seg);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/*
 * The client word is anyone's to write who can open the segment. The
 * engine's own pid there (it is alive, and it maps the segment) was once
 * taken for a client: the engine waited for that client's request until the
 * idle timeout, then for it to leave, two minutes in all by default, while
 * every real client was told "busy".
 */
static void the_engines_own_pid_is_not_a_client(void **state)
{
    (void)state;
    struct shm_engine s;
    start_or_fail(&s, NULL, "engine-self", SHM_WAIT_FUTEX);
    shm_channel_detach(&s.channel);
    sleep_ms(50);
    struct shm_segment *seg = map_header(s.name);
    int32_t free_word = SHM_FREE;
    assert_true(atomic_compare_exchange_strong(&seg->client, &free_word, s.process.pid));
    atomic_fetch_add(&seg->attach_seq, 1);
    assert_another_client_is_served(s.name);
    munmap(seg, sizeof *seg);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/* Starts an engine over shared memory with its standard error in `log`. */
static void start_logging(struct shm_engine *s, char *const args[], const char *tag,
                          const char *log)
{
    int saved = dup(STDERR_FILENO), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDERR_FILENO);
    close(fd);
    char err[CLIENT_ERROR_SIZE] = "";
    int r = shm_engine_start(s, engine_binary(), args, tag, SHM_WAIT_FUTEX, err);
    dup2(saved, STDERR_FILENO);
    close(saved);
    if (r != 0)
        fail_msg("cannot start the engine over shared memory: %s", err);
    track_child(s->process.pid);
}

/* The log's text so far (the caller frees it). */
static char *read_log(const char *log)
{
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char *text = calloc(1, 65536);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/*
 * When the engine gives a segment up and serves from a new one, its log
 * says why. Every replacement was once logged as "damaged (its size changed
 * under it)", also when a client had only failed to leave after its
 * session ended.
 */
static void the_log_says_why_a_segment_was_replaced(void **state)
{
    (void)state;
    struct shm_engine s;
    char log[128];
    snprintf(log, sizeof log, "/tmp/ipctax-test-%d-shm.log", (int)getpid());
    static char *const args[] = {"--idle-timeout", "200", NULL};
    start_logging(&s, args, "engine-log", log);
    shm_channel_detach(&s.channel);
    assert_a_stopped_client_is_evicted(s.name);
    char *text = read_log(log);
    if (strstr(text, "did not leave") == NULL || strstr(text, "size changed") != NULL)
        fail_msg("a client that did not leave was logged as: %s", text);
    free(text);

    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);
    truncate_segment(s.name, 4096);                  /* now really damaged */
    double one = 1.5, back = 0;
    char err[CLIENT_ERROR_SIZE] = "";
    if (tclient_echo(&s.client, &one, 1, &back, err) == 0)
        fail_msg("an echo through a truncated segment came back");
    shm_channel_detach(&s.channel);
    assert_echo_after_attaching(&s);
    text = read_log(log);
    if (strstr(text, "size changed") == NULL)
        fail_msg("a truncated segment was logged as: %s", text);
    free(text);
    stop_engine(&s);
    unlink(log);
}

/* A load of `bars` bars, then a loaded sweep of one combination of windows
 * `window` sent without waiting for its reply: hours of work for the
 * naive kernel unless it is abandoned. */
static void start_a_long_sweep(struct test_client *c, uint32_t bars, int64_t window)
{
    char err[CLIENT_ERROR_SIZE] = "";
    double *series = malloc(bars * sizeof *series);
    gbm_series(series, bars, 5);
    if (tclient_request(c, OP_LOAD, series, bars, NULL, 0, err) != 0)
        fail_msg("load of %u bars: %s", bars, err);
    free(series);
    uint8_t frame[FRAME_HEADER_BYTES + REQUEST_HEADER_BYTES + PARAM_BYTES];
    struct combo_params heavy = {window, window, window, window, window, window};
    le_put_u32(frame, REQUEST_HEADER_BYTES + PARAM_BYTES);
    request_encode(frame + FRAME_HEADER_BYTES, OP_SWEEP_LOADED, NULL, 0, &heavy, 1);
    struct iovec iov = {frame, sizeof frame};
    assert_int_equal(shm_write_all(c->shm, &iov, 1, deadline_after_ms(TEST_IO_TIMEOUT_MS)), 0);
}

/* Signal `sig` stops the engine within 3 s with exit status 0, and its
 * segment is gone; `when` says when it was sent, for the message. */
static void assert_stops_cleanly(struct shm_engine *s, int sig, const char *when)
{
    int status;
    assert_int_equal(kill(s->process.pid, sig), 0);
    if (wait_for_exit(s->process.pid, 3000, &status) != 0) {
        kill(s->process.pid, SIGKILL);
        waitpid(s->process.pid, NULL, 0);
        untrack_child(s->process.pid);
        fail_msg("the engine did not exit within 3 s of signal %d %s", sig, when);
    }
    untrack_child(s->process.pid);
    s->process.pid = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("signal %d %s: the engine ended with %s %d, expected exit status 0", sig, when,
                 WIFSIGNALED(status) ? "signal" : "status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    assert_segment_gone(s->name);
}

/*
 * Over shared memory the engine serves in its main thread, and a long sweep
 * once kept it from its stop pipe: SIGTERM waited for the sweep to end (36 s
 * for one heavy combination). It is now honoured within a second.
 */
static void sigterm_during_a_long_sweep_stops_the_engine(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--max-work", "1000000000000", NULL};
    start_or_fail(&s, args, "engine-long", SHM_WAIT_FUTEX);
    start_a_long_sweep(&s.client, 200000, 100000);
    sleep_ms(300);
    assert_stops_cleanly(&s, SIGTERM, "in the middle of a sweep");
    shm_engine_stop(&s);
}

/*
 * A client that dies in the middle of a long sweep over shared memory is
 * noticed from inside the sweep, and the next client is served.
 */
static void a_sweep_is_abandoned_when_its_client_dies(void **state)
{
    (void)state;
    struct shm_engine s;
    static char *const args[] = {"--max-work", "1000000000000", NULL};
    start_or_fail(&s, args, "engine-dies", SHM_WAIT_FUTEX);
    shm_channel_detach(&s.channel);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        struct shm_channel ch;
        struct test_client c;
        char err[256];
        if (shm_channel_attach(&ch, s.name, SHM_WAIT_FUTEX, 5000, err, sizeof err) != 0)
            _exit(1);
        tclient_init(&c, -1, -1);
        c.shm = &ch;
        start_a_long_sweep(&c, 200000, 100000);
        for (;;)
            pause();
    }
    track_child(child);
    sleep_ms(1000);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    untrack_child(child);
    assert_another_client_is_served(s.name);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/* The timing opt-in over shared memory: a plain session gets the protocol's
 * replies byte for byte, a timed one the same bytes and a consistent
 * trailer, on every opcode (test_engine.c does the same over sockets). */
static void timing_is_opt_in_over_shared_memory(void **state)
{
    (void)state;
    struct shm_engine s;
    struct reply plain[SESSION_REQUESTS], timed[SESSION_REQUESTS];
    start_or_fail(&s, NULL, "engine-timed", SHM_WAIT_FUTEX);
    struct byte_link link = shm_link(&s.channel);
    run_session(&link, 0, plain);
    shm_channel_detach(&s.channel);
    attach_or_fail(&s.channel, s.name, SHM_WAIT_FUTEX);
    run_session(&link, 1, timed);
    assert_plain_replies(plain);
    assert_timed_matches_plain(plain, timed, "shm");
    free_replies(plain);
    free_replies(timed);
    stop_engine(&s);
    assert_segment_gone(s.name);
}

/* The engine says on stdout which segment it serves, once the segment is
 * ready: a client attaches at once, without retrying. */
static void the_engine_announces_its_segment(void **state)
{
    (void)state;
    char name[64], line[256], expected[128], err[256];
    pid_t pid;
    channel_name(name, "announce");
    char *argv[] = {(char *)engine_binary(), "--shm", name, NULL};
    if (spawn_reading_first_line(argv, &pid, line, sizeof line) != 0)
        fail_msg("no line from an engine over shared memory (got \"%s\")", line);
    snprintf(expected, sizeof expected, "listening shm:%s", name);
    assert_string_equal(line, expected);
    struct shm_channel c;
    if (shm_channel_attach(&c, name, SHM_WAIT_FUTEX, 0, err, sizeof err) != 0)
        fail_msg("the engine announced %s, but it could not be attached at once: %s", name, err);
    shm_channel_detach(&c);
    end_spawned(pid);
    assert_segment_gone(name);
}

/* Over shared memory too, every usual termination signal stops the
 * engine cleanly: exit status 0, the segment removed. */
static void every_termination_signal_removes_the_segment(void **state)
{
    (void)state;
    static const int signals[] = {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGINT};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct shm_engine s;
        start_or_fail(&s, NULL, "engine-signals", SHM_WAIT_FUTEX);
        assert_stops_cleanly(&s, signals[i], "while idle");
        stop_engine(&s);
    }
}

static void engine_help_mentions_shm(void **state)
{
    (void)state;
    struct run_result r;
    char *argv[] = {(char *)engine_binary(), "--help", NULL};
    assert_int_equal(run_program(argv, NULL, NULL, 0, 5000, &r), 0);
    assert_int_equal(exit_code(&r), 0);
    assert_non_null(strstr(r.out, "--shm NAME"));
    assert_non_null(strstr(r.out, "--shm-wait"));
    run_result_free(&r);
    char *bad[] = {(char *)engine_binary(), "--shm", "x", "--shm-wait", "doze", NULL};
    assert_int_equal(run_program(bad, NULL, NULL, 0, 5000, &r), 0);
    assert_int_equal(exit_code(&r), 2);
    run_result_free(&r);
}

/* ---- Set-up ----------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    reference_job_init();
    return build_programs();
}

static int group_teardown(void **state)
{
    (void)state;
    static const char *const tags[] = {"wrap-spin", "wrap-futex", "small", "procs-spin",
        "procs-futex", "dead-client-spin", "dead-client-futex", "dead-engine", "live",
        "foreign", "busy", "announce", "fifo", "link", "link-target", "others"};
    static const char *const engine_tags[] = {"engine-futex", "engine-spin", "engine-bad",
        "engine-raw", "engine-twice", "engine-slow", "engine-signals", "engine-truncated", "engine-silent", "engine-tampered", "engine-timed", "engine-self", "engine-log", "engine-long",
        "engine-dies"};
    char name[64];
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
        shm_unlink(channel_name(name, tags[i]));               /* after a failure only */
    for (size_t i = 0; i < sizeof engine_tags / sizeof engine_tags[0]; i++) {
        snprintf(name, sizeof name, "/ipctax-%d-%s", (int)getpid(), engine_tags[i]);
        shm_unlink(name);                                      /* named as shm_engine_start names */
    }
    return 0;
}

#define WATCHED(test) cmocka_unit_test_setup_teardown(test, test_arm_watchdog, test_disarm_watchdog)

int main(void)
{
    const struct CMUnitTest tests[] = {
        WATCHED(frames_larger_than_the_ring_wrap_around_futex),
        WATCHED(frames_larger_than_the_ring_wrap_around_spin),
        WATCHED(many_small_frames_arrive_in_order),
        WATCHED(two_processes_checksum_spin),
        WATCHED(two_processes_checksum_futex),
        WATCHED(a_killed_client_is_noticed_spin),
        WATCHED(a_killed_client_is_noticed_futex),
        WATCHED(a_killed_engine_is_noticed_and_replaced),
        WATCHED(a_live_segment_or_a_foreign_object_is_never_taken),
        WATCHED(a_squatter_is_neither_waited_for_nor_removed),
        WATCHED(a_second_client_is_told_the_channel_is_busy),
        WATCHED(engine_help_mentions_shm),
        WATCHED(engine_echoes_and_sweeps_futex),
        WATCHED(engine_echoes_and_sweeps_spin),
        WATCHED(bad_frames_get_error_frames_and_the_next_client_is_served),
        WATCHED(idle_and_stalled_clients_get_error_frames),
        WATCHED(raw_ping_pong_echoes),
        WATCHED(a_second_engine_cannot_take_a_live_segment),
        WATCHED(every_termination_signal_removes_the_segment),
        WATCHED(a_truncated_segment_does_not_kill_the_engine),
        WATCHED(a_silent_or_stopped_client_cannot_keep_the_channel),
        WATCHED(tampered_words_cannot_freeze_the_channel),
        WATCHED(the_engines_own_pid_is_not_a_client),
        WATCHED(the_log_says_why_a_segment_was_replaced),
        WATCHED(sigterm_during_a_long_sweep_stops_the_engine),
        WATCHED(a_sweep_is_abandoned_when_its_client_dies),
        WATCHED(timing_is_opt_in_over_shared_memory),
        WATCHED(the_engine_announces_its_segment),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
