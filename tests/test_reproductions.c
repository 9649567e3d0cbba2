/*
 * test_reproductions.c - a kept run from outside is checked before it is
 * read: issue 33's attacks on reproductions/, and issue 32's one file that
 * travels.
 *
 * The run kept here is the checkout's own data/ (a whole run, loaded in
 * about half a second), copied into a scratch folder so that nothing of
 * the checkout is written. Each test keeps it, packs it, receives it, or
 * changes one thing in a kept folder or in the file that carries one, and
 * expects either the run back, whole, or a refusal that names the folder,
 * the file, and (for the file) the member.
 */
#include <sys/resource.h>
#include <zlib.h>

#include "testengine.h"
#include "report/bundle.h"
#include "report/csvread.h"
#include "report/manifest.h"
#include "report/model.h"
#include "report/reproduce.h"
#include "util/text.h"

static char run[256];                  /* a copy of data/ */

/* Copies the files of the folder from (not hidden ones) into the new folder to. */
static int copy_folder(const char *from, const char *to)
{
    char err[512], src[4400], dst[4400];
    if (mkdir(to, 0777) != 0)
        return -1;
    DIR *d = opendir(from);
    int status = d != NULL ? 0 : -1;
    for (struct dirent *e; status == 0 && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        status = copy_file(src, dst, err, sizeof err);
    }
    if (d != NULL)
        closedir(d);
    return status;
}

/* A copy of the checkout's data/ in test_dir/data, once. */
static int group_setup(void **state)
{
    (void)state;
    char from[4096];
    if (test_dir_create() != 0)
        return -1;
    return copy_folder(root_path(from, sizeof from, "data"),
                       scratch_path(run, sizeof run, "data"));
}

static int group_teardown(void **state)
{
    (void)state;
    test_dir_remove();
    return 0;
}

/* Keeps the copy of data/ as root/id (a fresh root in test_dir/root_name). */
static const char *keep_in(const char *root_name, const char *id, const char *conditions)
{
    static char root[256];
    char made[256], err[1024];
    scratch_path(root, sizeof root, root_name);
    mkdir(root, 0777);
    if (reproduction_add(run, root, id, "a test", conditions, made, sizeof made, err,
                         sizeof err) != 0)
        fail_msg("keeping the run as %s: %s", id, err);
    assert_string_equal(made, id);
    return root;
}

/* Loads root/id as a kept run; 0, or -1 with the refusal in err. */
static int load_kept(const char *root, const char *id, char *err, size_t size)
{
    char dir[600];
    struct run_data d;
    snprintf(dir, sizeof dir, "%s/%s", root, id);
    if (run_data_load_folder(&d, dir, RUN_KEPT, err, size) != 0)
        return -1;
    run_data_free(&d);
    return 0;
}

/* The kept root/id must be refused, its message naming every needle. */
static void expect_kept_refused(const char *root, const char *id, const char *const needles[])
{
    char err[1024] = "";
    if (load_kept(root, id, err, sizeof err) == 0)
        fail_msg("%s/%s was loaded; expected a refusal naming %s", root, id, needles[0]);
    for (size_t i = 0; needles[i] != NULL; i++)
        if (strstr(err, needles[i]) == NULL)
            fail_msg("the refusal \"%s\" does not name \"%s\"", err, needles[i]);
}

#define KEPT_REFUSED(root, id, ...) \
    expect_kept_refused(root, id, (const char *const[]){__VA_ARGS__, NULL})

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* ---- Keeping a run ----------------------------------------------------- */

/* Issue 32: a kept run stores what the paper needs, compressed, and loads
 * back as the run it was; its README is listed in its manifest. */
static void a_kept_run_is_compressed_and_whole(void **state)
{
    (void)state;
    char err[1024], path[600];
    const char *root = keep_in("kept", "a-run", "none");
    assert_int_equal(load_kept(root, "a-run", err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/a-run/echo.csv.gz", root);
    gzFile f = gzopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(gzdirect(f), 0);                  /* gzip, not a plain copy */
    gzclose(f);
    snprintf(path, sizeof path, "%s/a-run/echo.csv", root);
    assert_int_equal(access(path, F_OK), -1);
    struct csv_table m;
    snprintf(path, sizeof path, "%s/a-run", root);
    if (manifest_load(path, RUN_KEPT, &m, err, sizeof err) != 0)
        fail_msg("the kept run's manifest: %s", err);
    int listed = 0;
    for (size_t r = 0; r < m.n_rows; r++)
        listed += strcmp(csv_table_cell(&m, r, csv_table_column(&m, "file")), "README.md") == 0;
    csv_table_free(&m);
    assert_int_equal(listed, 1);
}

/* Issue 33: on a machine whose /proc/cpuinfo has no vendor line (arm64),
 * the ID made was "not visible-fnot visible...", which no folder should be
 * named; an ID given is held to the same rule. */
static void an_id_is_always_a_safe_name(void **state)
{
    (void)state;
    char data[256], path[600], err[1024], made[256], root[256];
    static char text[8192];
    assert_int_equal(copy_folder(run, scratch_path(data, sizeof data, "arm")), 0);
    snprintf(path, sizeof path, "%s/machine.csv", data);
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    f = fopen(path, "w");
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "cpu_vendor,", 11) == 0 || strncmp(line, "cpu_family,", 11) == 0 ||
            strncmp(line, "cpu_model,", 10) == 0)
            fprintf(f, "%.*snot visible\n", (int)(strchr(line, ',') + 1 - line), line);
        else
            fprintf(f, "%s\n", line);
    }
    fclose(f);
    assert_int_equal(manifest_write(data, RUN_DATA, err, sizeof err), 0);
    scratch_path(root, sizeof root, "kept-arm");
    if (reproduction_add(data, root, NULL, NULL, NULL, made, sizeof made, err, sizeof err) != 0)
        fail_msg("keeping a run of no vendor: %s", err);
    if (!reproduction_name_ok(made) || strncmp(made, "cpu-fxmx-", 9) != 0)
        fail_msg("the ID made for a machine that names no vendor is \"%s\"", made);
    static const char *const bad[] = {"a:b", "a b", "../up", ".hidden", "x/y", "tab\there",
                                      "", "\x1b[31mred"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (reproduction_add(run, root, bad[i], NULL, NULL, made, sizeof made, err,
                             sizeof err) == 0 && bad[i][0] != '\0')
            fail_msg("the ID \"%s\" was taken", bad[i]);
        if (bad[i][0] != '\0' && strstr(err, "is not a name") == NULL)
            fail_msg("the ID \"%s\" was refused with \"%s\"", bad[i], err);
    }
}

/* Issue 33: a failed `make reproduction` left ID.partial, and every retry
 * was refused ("File exists"). A failure leaves nothing; a folder an
 * interrupted keep left is cleared by the next one. */
static void a_failed_keep_can_be_retried(void **state)
{
    (void)state;
    char root[256], path[600], made[256], err[1024];
    scratch_path(root, sizeof root, "kept-retry");
    mkdir(root, 0777);
    snprintf(path, sizeof path, "%s/.again.partial", root);     /* as a kill leaves it */
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/.again.partial/echo.csv.gz", root);
    write_text(path, "half");
    if (reproduction_add(run, root, "again", NULL, NULL, made, sizeof made, err,
                         sizeof err) != 0)
        fail_msg("a keep after an interrupted one was refused: %s", err);
    err[0] = '\0';
    assert_int_equal(reproduction_add(run, root, "again", NULL, NULL, made, sizeof made, err,
                                      sizeof err), -1);        /* taken: refused, nothing left */
    assert_non_null(strstr(err, "exists already"));
    DIR *d = opendir(root);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            fail_msg("a refused keep left %s/%s", root, e->d_name);
    closedir(d);
}

/* Issue 33: quoting. What BY= and CONDITIONS= say is written as said, an
 * apostrophe, a dollar and a quote kept; a line break cannot add a line of
 * its own to the README's list. */
static void by_and_conditions_are_kept_as_written(void **state)
{
    (void)state;
    char path[600], made[256], err[1024], root[256];
    static char text[8192];
    scratch_path(root, sizeof root, "kept-quotes");
    if (reproduction_add(run, root, "quotes", "O'Brien \"Jo\" $HOME",
                         "50$ budget; a'; touch /tmp/p; echo '\n- by: someone else", made,
                         sizeof made, err, sizeof err) != 0)
        fail_msg("keeping: %s", err);
    snprintf(path, sizeof path, "%s/quotes/README.md", root);
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (strstr(text, "- by: O'Brien \"Jo\" $HOME\n") == NULL ||
        strstr(text, "- conditions: 50$ budget; a'; touch /tmp/p; echo '\xef\xbf\xbd- by: someone "
                     "else\n") == NULL)
        fail_msg("the README does not hold what was said: %s", text);
}

/* ---- A kept folder changed or made by hand ----------------------------- */

/* Issue 33: the README, whose conditions the paper prints, was not in the
 * manifest; a file the manifest does not list, and a file that is a link,
 * were read as the run's. */
static void a_kept_folder_holds_its_listed_files_alone(void **state)
{
    (void)state;
    char path[600], other[600];
    const char *root = keep_in("kept-hand", "readme", "none");
    snprintf(path, sizeof path, "%s/readme/README.md", root);
    FILE *f = fopen(path, "a");
    fputs("- conditions: something else entirely\n", f);
    fclose(f);
    KEPT_REFUSED(root, "readme", "readme/README.md", "manifest.csv");

    root = keep_in("kept-hand", "stranger", "none");
    snprintf(path, sizeof path, "%s/stranger/notes.txt", root);
    write_text(path, "not of the run");
    KEPT_REFUSED(root, "stranger", "stranger/notes.txt", "not a file its manifest lists");

    root = keep_in("kept-hand", "linked", "none");
    keep_in("kept-hand", "source", "none");
    snprintf(path, sizeof path, "%s/linked/echo.csv.gz", root);
    snprintf(other, sizeof other, "%s/source/echo.csv.gz", root);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(other, path), 0);
    KEPT_REFUSED(root, "linked", "linked/echo.csv.gz", "symbolic link");
}

/* A folder kept the old way (plain files, its README unlisted) is not read
 * as a kept run, and its manifest is named. */
static void a_folder_kept_the_old_way_is_refused(void **state)
{
    (void)state;
    char root[256], dir[600];
    scratch_path(root, sizeof root, "kept-old");
    mkdir(root, 0777);
    snprintf(dir, sizeof dir, "%s/old", root);
    assert_int_equal(copy_folder(run, dir), 0);
    KEPT_REFUSED(root, "old", "old/manifest.csv");
}

/* Issue 33: a 309 MB echo.csv with a wrong digest cost 3.1 GB of memory and
 * 13 s of parsing before its digest was compared. Now a file is read no
 * further than its listed length, never past MAX_RUN_FILE_BYTES, before it
 * is parsed: under a 200 MB address space, a 70 MB echo.csv is refused for
 * its length, not for memory. */
static void a_long_file_is_refused_before_it_is_parsed(void **state)
{
    (void)state;
    char path[600], row[256], summary[4096], shell[8192], err[1024];
    const char *root = keep_in("kept-long", "long", "none");
    snprintf(path, sizeof path, "%s/long/echo.csv.gz", root);
    gzFile in = gzopen(path, "rb");
    assert_non_null(in);
    assert_non_null(gzgets(in, row, sizeof row));      /* the header */
    char header[256];
    snprintf(header, sizeof header, "%s", row);
    assert_non_null(gzgets(in, row, sizeof row));      /* a sample */
    gzclose(in);
    unlink(path);
    snprintf(path, sizeof path, "%s/long/echo.csv", root);
    FILE *out = fopen(path, "w");
    fputs(header, out);
    for (size_t bytes = 0; bytes < (70u << 20); bytes += strlen(row))
        fputs(row, out);
    assert_int_equal(fclose(out), 0);
    root_path(summary, sizeof summary, "build/ipctax-summary");
    snprintf(shell, sizeof shell, "ulimit -v 204800 && exec '%s' --check '%s/long'", summary,
             root);
    char *const argv[] = {"/bin/sh", "-c", shell, NULL};
    struct run_result r;
    assert_int_equal(run_program(argv, NULL, NULL, 0, 60000, &r), 0);
    int refused = exit_code(&r) == 1 && strstr(r.err, "long/echo.csv") != NULL &&
                  strstr(r.err, "longer than") != NULL;
    snprintf(err, sizeof err, "exit %d, stderr \"%s\"", exit_code(&r), r.err);
    run_result_free(&r);
    if (!refused)
        fail_msg("a 70 MB echo.csv listed at its old length: %s", err);
}

/* ---- The one file that travels (issue 32) ------------------------------ */

static const char *pack(const char *root, const char *id)
{
    static char file[600];
    char err[1024];
    snprintf(file, sizeof file, "%s/reproduction-%s.tar", test_dir, id);
    if (reproduction_pack(root, id, file, err, sizeof err) != 0)
        fail_msg("packing %s: %s", id, err);
    return file;
}

/* A kept run packed into its one file, and received elsewhere, is the same
 * run, file for file. */
static void a_packed_run_is_received_whole(void **state)
{
    (void)state;
    char there[256], made[256], err[1024], a[600], b[600];
    const char *root = keep_in("kept-send", "sent", "sent and received");
    const char *file = pack(root, "sent");
    scratch_path(there, sizeof there, "received");
    if (reproduction_receive(file, there, made, sizeof made, err, sizeof err) != 0)
        fail_msg("receiving the packed run: %s", err);
    assert_string_equal(made, "sent");
    for (size_t i = 0; i <= N_DATA_FILES; i++) {
        const char *name = i < N_DATA_FILES ? DATA_FILES[i].name : "README";
        char sha_a[65], sha_b[65];
        uint64_t n_a, n_b;
        snprintf(a, sizeof a, "%s/sent/%s%s", root, name, i < N_DATA_FILES ? ".gz" : ".md");
        snprintf(b, sizeof b, "%s/sent/%s%s", there, name, i < N_DATA_FILES ? ".gz" : ".md");
        if (i < N_DATA_FILES && (DATA_FILES[i].flags & ADDED_FILE) && access(a, F_OK) != 0) {
            assert_int_not_equal(access(b, F_OK), 0);   /* absent there, absent here */
            continue;
        }
        assert_int_equal(file_digest(a, MAX_RUN_FILE_BYTES, &n_a, sha_a, err, sizeof err), 0);
        assert_int_equal(file_digest(b, MAX_RUN_FILE_BYTES, &n_b, sha_b, err, sizeof err), 0);
        if (n_a != n_b || strcmp(sha_a, sha_b) != 0)
            fail_msg("%s differs after the journey", name);
    }
    assert_int_equal(load_kept(there, "sent", err, sizeof err), 0);
    assert_int_equal(reproduction_receive(file, there, made, sizeof made, err, sizeof err), -1);
    assert_non_null(strstr(err, "exists already"));
}

/* A copy of the file at `file` with `length` bytes at `at` replaced by
 * `bytes`, as test_dir/name; the header's checksum made right again when
 * fix_sum (so that the check that refuses it is the one after). */
static const char *changed_copy(const char *file, const char *name, long at,
                                const void *bytes, size_t length, int fix_sum)
{
    static char path[600];
    static unsigned char data[1 << 21];
    FILE *f = fopen(file, "rb");
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    assert_true(n < sizeof data && (size_t)at + length <= n);
    memcpy(data + at, bytes, length);
    if (fix_sum) {
        unsigned char *h = data + at - at % 512;
        unsigned sum = 0;
        for (size_t i = 0; i < 512; i++)
            sum += i >= 148 && i < 156 ? ' ' : h[i];
        snprintf((char *)h + 148, 8, "%06o", sum);
        h[155] = ' ';
    }
    snprintf(path, sizeof path, "%s/%s", test_dir, name);
    f = fopen(path, "wb");
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return path;
}

/* Receiving must fail, its message naming every needle, and leave root
 * holding nothing (not even a hidden folder). */
static void expect_not_received(const char *file, const char *const needles[])
{
    char root[256], made[256], err[2048] = "";
    scratch_path(root, sizeof root, "receiving");
    if (reproduction_receive(file, root, made, sizeof made, err, sizeof err) == 0)
        fail_msg("%s was received; expected a refusal naming %s", file, needles[0]);
    for (size_t i = 0; needles[i] != NULL; i++)
        if (strstr(err, needles[i]) == NULL)
            fail_msg("the refusal \"%s\" does not name \"%s\"", err, needles[i]);
    DIR *d = opendir(root);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            fail_msg("a refused file left %s/%s", root, e->d_name);
    if (d != NULL)
        closedir(d);
}

#define NOT_RECEIVED(file, ...) expect_not_received(file, (const char *const[]){__VA_ARGS__, NULL})

/* Issue 32: a tampered file is refused, naming the file and its member. */
static void a_tampered_file_is_refused_by_name(void **state)
{
    (void)state;
    const char *root = keep_in("kept-tamper", "tampered", "none");
    const char *file = pack(root, "tampered");
    /* The README is the first member: a byte of its text changed. */
    NOT_RECEIVED(changed_copy(file, "readme.tar", 512 + 20, "X", 1, 0), "readme.tar",
                 "tampered/README.md", "SHA-256");
    /* A byte in the middle of a compressed member: its gzip check fails. */
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    NOT_RECEIVED(changed_copy(file, "middle.tar", st.st_size / 2, "\xff\x00\xff", 3, 0),
                 "middle.tar", "tampered/");
    /* A header damaged in transit. */
    NOT_RECEIVED(changed_copy(file, "header.tar", 100, "7", 1, 0), "header.tar", "member 1",
                 "checksum");
    /* Cut short. */
    const char *cut = changed_copy(file, "short.tar", 0, "", 0, 0);
    assert_int_equal(truncate(cut, st.st_size / 3), 0);
    NOT_RECEIVED(cut, "short.tar", "cut short");
}

/* What the archive holds is refused before anything of it is written: a
 * link, a folder, a name that climbs out or into another folder, a file a
 * kept run does not hold. */
static void an_archive_of_another_shape_is_refused(void **state)
{
    (void)state;
    const char *root = keep_in("kept-shape", "shape", "none");
    const char *file = pack(root, "shape");
    NOT_RECEIVED(changed_copy(file, "link.tar", 156, "2", 1, 1), "link.tar",
                 "not a plain file");
    char name[100] = "../escape/README.md";
    NOT_RECEIVED(changed_copy(file, "climb.tar", 0, name, sizeof name, 1), "climb.tar",
                 "not a file in the archive's one folder");
    char other[100] = "shape/evil.sh";
    NOT_RECEIVED(changed_copy(file, "evil.tar", 0, other, sizeof other, 1), "evil.tar",
                 "not a name a kept run's file may have");
    char bad[100] = "a:b/README.md";
    NOT_RECEIVED(changed_copy(file, "colon.tar", 0, bad, sizeof bad, 1), "colon.tar",
                 "not a name");
    char length[12] = "77777777777";
    NOT_RECEIVED(changed_copy(file, "huge.tar", 124, length, 11, 1), "huge.tar",
                 "longer than a file of a run may be");
}

/* text_clean: the rules every text from outside goes through. */
static void text_from_outside_is_cleaned(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(text_clean(out, sizeof out, "plain, \"quoted\" $ it's", 22),
                        "plain, \"quoted\" $ it's");
    assert_string_equal(text_clean(out, sizeof out, "a\x1b[31mb", 7), "a\xef\xbf\xbd[31mb");
    assert_string_equal(text_clean(out, sizeof out, "r\xe2\x80\xae" "evil", 8),
                        "r\xef\xbf\xbd" "evil");                 /* U+202E */
    assert_string_equal(text_clean(out, sizeof out, "\xce\xa9 \xe4\xb8\xad", 6),
                        "\xce\xa9 \xe4\xb8\xad");               /* Ω 中 kept */
    assert_string_equal(text_clean(out, sizeof out, "\xc0\xaf", 2),
                        "\xef\xbf\xbd\xef\xbf\xbd");           /* an overlong '/' */
    assert_string_equal(text_clean(out, 6, "ab\xe4\xb8\xad", 5), "ab\xe4\xb8\xad");
    assert_string_equal(text_clean(out, 5, "ab\xe4\xb8\xad", 5), "ab");  /* not cut inside */
    assert_string_equal(text_clean(out, sizeof out, "a\tb", 3), "a b");
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_arm_watchdog, test_disarm_watchdog)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(a_kept_run_is_compressed_and_whole),
        T(an_id_is_always_a_safe_name),
        T(a_failed_keep_can_be_retried),
        T(by_and_conditions_are_kept_as_written),
        T(a_kept_folder_holds_its_listed_files_alone),
        T(a_folder_kept_the_old_way_is_refused),
        T(a_long_file_is_refused_before_it_is_parsed),
        T(a_packed_run_is_received_whole),
        T(a_tampered_file_is_refused_by_name),
        T(an_archive_of_another_shape_is_refused),
        T(text_from_outside_is_cleaned),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
