/*
 * test_tangle.c - the tangler on small webs: what it writes, what it refuses.
 *
 * Runs build/tangle as a program, as make does, on chapters written to a
 * temporary directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_back(const char *name)
{
    static char buf[8192];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Runs the tangler in dir; returns its exit status, stderr in errors.txt. */
static int tangle(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && %s/build/tangle %s 2>errors.txt", dir,
             getenv("IPCTAX_ROOT") ? getenv("IPCTAX_ROOT") : ".", args);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ipctax-tangle-%d", (int)getpid());
    mkdir(dir, 0777);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static void expands_appends_and_keeps_indentation(void **state)
{
    (void)state;
    write_file("a.md",
        "Text.\n\n```{.c file=out/x.c}\nint f(void)\n{\n    <<body>>\n}\n```\n\n"
        "```{.c #body}\nint a = 1;\n```\n\n"
        "````markdown\n```{.c #not-a-chunk}\nshown only\n```\n````\n\n"
        "```{.c #body}\nreturn a << 2;\n```\n");
    assert_int_equal(tangle("a.md"), 0);
    assert_string_equal(read_back("out/x.c"),
                        "int f(void)\n{\n    int a = 1;\n    return a << 2;\n}\n");
}

static void check_mode_reports_a_stale_file(void **state)
{
    (void)state;
    write_file("b.md", "```{.c file=out/y.c}\nint y;\n```\n");
    assert_int_equal(tangle("b.md"), 0);
    assert_int_equal(tangle("--check b.md"), 0);
    write_file("out/y.c", "int y; /* edited by hand */\n");
    assert_int_equal(tangle("--check b.md"), 1);
    assert_non_null(strstr(read_back("errors.txt"), "out/y.c differs"));
}

static void refuses_undefined_unused_and_cyclic_chunks(void **state)
{
    (void)state;
    write_file("c.md",
        "```{.c file=out/z.c}\n<<loop-a>>\n<<missing>>\n```\n"
        "```{.c #loop-a}\n<<loop-b>>\n```\n"
        "```{.c #loop-b}\n<<loop-a>>\n```\n"
        "```{.c #orphan}\nint orphan;\n```\n");
    assert_int_equal(tangle("c.md"), 1);
    const char *errors = read_back("errors.txt");
    assert_non_null(strstr(errors, "c.md:3: <<missing>> is used here but never defined"));
    assert_non_null(strstr(errors, "includes itself"));
    assert_non_null(strstr(errors, "chunk <<orphan>> is defined but no file uses it"));
    assert_null(read_back("out/z.c"));                 /* nothing written */
}

static void line_directives_point_into_the_chapter(void **state)
{
    (void)state;
    write_file("d.md", "Intro.\n\n```{.c file=out/w.c}\nint w;\n<<more>>\n```\n\n"
                       "```{.c #more}\nint v;\n```\n");
    assert_int_equal(tangle("-l -o lined d.md"), 0);
    assert_string_equal(read_back("lined/out/w.c"),
                        "#line 4 \"d.md\"\nint w;\n#line 9 \"d.md\"\nint v;\n#line 6 \"d.md\"\n");
}

static void stray_files_are_reported(void **state)
{
    (void)state;
    write_file("e.md", "```{.c file=gen/kept.c}\nint k;\n```\n");
    assert_int_equal(tangle("e.md"), 0);
    write_file("gen/left-over.c", "int old;\n");
    assert_int_equal(tangle("--stray gen e.md"), 1);
    assert_non_null(strstr(read_back("errors.txt"), "gen/left-over.c is not produced"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_appends_and_keeps_indentation),
        cmocka_unit_test(check_mode_reports_a_stale_file),
        cmocka_unit_test(refuses_undefined_unused_and_cyclic_chunks),
        cmocka_unit_test(line_directives_point_into_the_chapter),
        cmocka_unit_test(stray_files_are_reported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
