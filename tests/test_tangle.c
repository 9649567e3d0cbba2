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

/* Runs the tangler in dir; returns its exit status, stderr in errors.txt.
 * The CPU limit turns a tangler that never ends into a failed test, not a
 * hung one (it is far above what any web here needs). */
static int tangle(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && ulimit -t 60 && %s/build/tangle %s 2>errors.txt", dir,
             getenv("IPCTAX_ROOT") ? getenv("IPCTAX_ROOT") : ".", args);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Tangles one chapter that must be refused; returns what the tangler said. */
static const char *refusal_of(const char *chapter)
{
    assert_int_equal(tangle(chapter), 1);
    return read_back("errors.txt");
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The line of text that starts with prefix, copied (one per call site). */
static const char *line_of(const char *text, const char *prefix)
{
    static char lines[4][256];
    static int next;
    char *out = lines[next++ % 4];
    const char *p = strstr(text, prefix);
    assert_non_null(p);
    size_t n = strcspn(p, "\n");
    snprintf(out, sizeof lines[0], "%.*s", (int)n, p);
    return out;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A root over a chain of `levels` chunks, each using the next one `uses`
 * times; the last holds `leaf`, which may be empty (a block of no lines). */
static void write_chain(const char *name, int levels, int uses, const char *leaf)
{
    static char text[1 << 16];
    size_t n = snprintf(text, sizeof text, "```{.c file=out/chain.c}\n<<level-1>>\n```\n\n");
    for (int i = 1; i < levels; i++) {
        n += snprintf(text + n, sizeof text - n, "```{.c #level-%d}\n", i);
        for (int k = 0; k < uses; k++)
            n += snprintf(text + n, sizeof text - n, "<<level-%d>>\n", i + 1);
        n += snprintf(text + n, sizeof text - n, "```\n\n");
    }
    snprintf(text + n, sizeof text - n, "```{.c #level-%d}\n%s```\n", levels, leaf);
    write_file(name, text);
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
    assert_string_equal(read_back("out/x.c"), "int f(void)\n{\n    /* <<body>>, a.md */\n"
                                              "    int a = 1;\n    return a << 2;\n}\n");
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
    const char *errors = refusal_of("c.md");
    assert_non_null(strstr(errors, "c.md:3: <<missing>> is used here but never defined"));
    assert_non_null(strstr(errors, "c.md:9: <<loop-a>> includes itself: "
                                   "<<loop-a>> -> <<loop-b>> -> <<loop-a>>"));
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
                        "#line 4 \"d.md\"\nint w;\n/* <<more>>, d.md */\n#line 9 \"d.md\"\n"
                        "int v;\n#line 6 \"d.md\"\n");
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

static void a_root_is_appended_by_repeating_its_path(void **state)
{
    (void)state;
    write_file("f.md", "```{.c file=out/twice.c}\nint first;\n```\n\n"
                       "```{.c file=out/twice.c}\nint second;\n```\n");
    assert_int_equal(tangle("f.md"), 0);
    assert_string_equal(read_back("out/twice.c"), "int first;\nint second;\n");
}

/* Issue 22: code/a.c, code//a.c and ./code/a.c were three roots writing
 * one file, and the last one written silently won. */
static void one_root_spelled_two_ways_is_refused(void **state)
{
    (void)state;
    write_file("g.md", "```{.c file=out/a.c}\nint a;\n```\n\n"
                       "```{.c file=out//a.c}\nint b;\n```\n\n"
                       "```{.c file=./out/a.c}\nint c;\n```\n");
    const char *errors = refusal_of("g.md");
    assert_non_null(strstr(errors, "g.md:5: file=out//a.c is out/a.c, which g.md:1 "
                                   "already writes as file=out/a.c"));
    assert_non_null(strstr(errors, "g.md:9: file=./out/a.c is out/a.c"));
    assert_null(read_back("out/a.c"));
}

/* One spelling that is not the shortest still names its file: it is
 * written there, and --stray knows it produced it. */
static void a_root_path_is_normalized(void **state)
{
    (void)state;
    write_file("h.md", "```{.c file=./norm//n.c}\nint n;\n```\n");
    assert_int_equal(tangle("h.md"), 0);
    assert_int_equal(tangle("--stray norm h.md"), 0);
    assert_string_equal(read_back("norm/n.c"), "int n;\n");
}

/* Issue 22: file=/abs and file=../.. wrote wherever they pointed. */
static void a_root_outside_the_output_folder_is_refused(void **state)
{
    (void)state;
    char text[1024], outside[300], above[300];
    snprintf(outside, sizeof outside, "%s/absolute.c", dir);
    snprintf(above, sizeof above, "%s-above.c", dir);
    snprintf(text, sizeof text, "```{.c file=%s}\nint abs;\n```\n\n"
                                "```{.c file=out/../../%s}\nint up;\n```\n",
             outside, strrchr(above, '/') + 1);
    write_file("i.md", text);
    int status = tangle("i.md");
    int escaped = exists(above);
    unlink(above);                  /* not left behind when an old tangler wrote it */
    assert_false(escaped);
    assert_false(exists(outside));
    assert_int_equal(status, 1);
    const char *errors = read_back("errors.txt");
    assert_non_null(strstr(errors, "i.md:1: file="));
    assert_non_null(strstr(errors, "is an absolute path"));
    assert_non_null(strstr(errors, "i.md:5: file=out/../../"));
    assert_non_null(strstr(errors, "goes up through '..'"));
}

/* Issue 33: a root of .git/config was written, and its command would run
 * at the next git call; a folder that was a link led out of the tree. */
static void a_root_in_git_or_through_a_link_is_refused(void **state)
{
    (void)state;
    char text[1024], outside[300], link[600], escaped[700];
    write_file("o.md", "```{.c file=.git/config}\n[core]\n```\n\n"
                       "```{.c file=out/.GIT/hooks/pre-commit}\ntrue\n```\n");
    const char *errors = refusal_of("o.md");
    assert_non_null(strstr(errors, "o.md:1: file=.git/config goes into .git"));
    assert_non_null(strstr(errors, "o.md:5: file=out/.GIT/hooks/pre-commit goes into .git"));
    snprintf(text, sizeof text, "%s/.git/config", dir);
    assert_false(exists(text));
    /* a folder on the way that is a link to a folder outside the tree */
    snprintf(outside, sizeof outside, "%s-outside", dir);
    assert_int_equal(mkdir(outside, 0777), 0);
    snprintf(link, sizeof link, "%s/linked", dir);
    assert_int_equal(symlink(outside, link), 0);
    write_file("p.md", "```{.c file=linked/p.c}\nint p;\n```\n");
    errors = refusal_of("p.md");
    snprintf(escaped, sizeof escaped, "%s/p.c", outside);
    int wrote = exists(escaped);
    unlink(escaped);
    rmdir(outside);
    assert_false(wrote);
    assert_non_null(strstr(errors, "p.md:1: file=linked/p.c passes through the symbolic link "
                                   "linked"));
    /* and a root that is itself a link */
    snprintf(link, sizeof link, "%s/out/q.c", dir);
    mkdir(strcat(strcpy(text, dir), "/out"), 0777);
    assert_int_equal(symlink("/dev/null", link), 0);
    write_file("q.md", "```{.c file=out/q.c}\nint q;\n```\n");
    assert_non_null(strstr(refusal_of("q.md"), "passes through the symbolic link out/q.c"));
}

/* Issue 22: {.c file=} was dropped without a word. */
static void an_empty_name_is_refused(void **state)
{
    (void)state;
    write_file("j.md", "```{.c file=out/j.c}\nint j;\n```\n\n```{.c file=}\nint lost;\n```\n\n"
                       "```{.c #}\nint lost_too;\n```\n");
    const char *errors = refusal_of("j.md");
    assert_non_null(strstr(errors, "j.md:5: file= names no file"));
    assert_non_null(strstr(errors, "j.md:9: # names no chunk"));
}

/* Issue 22: a chunk using the next one twice, 27 levels deep, made 444 MB
 * out of an 834-byte chapter. 23 doublings of a 7-byte line are 58 MB. */
static void an_expansion_past_the_size_limit_is_refused(void **state)
{
    (void)state;
    write_chain("k.md", 24, 2, "int x;\n");
    const char *errors = refusal_of("k.md");
    assert_non_null(strstr(errors, "k.md:"));
    assert_non_null(strstr(errors, "out/chain.c passes MAX_ROOT_BYTES"));
    assert_non_null(strstr(errors, ": in <<level-"));
    assert_null(strstr(errors, "includes itself"));
    assert_null(read_back("out/chain.c"));
    /* references that expand to nothing cost their own text: 2^39 of them
     * would otherwise run for hours */
    write_chain("l.md", 40, 2, "");
    assert_non_null(strstr(refusal_of("l.md"), "passes MAX_ROOT_BYTES"));
}

/* Issue 22: an acyclic chain deeper than 64 was reported as a cycle. */
/* A chunk's digest is of its whole expansion: editing a chunk it uses
 * changes it, editing a chunk it does not use leaves it; the claims'
 * registration rests on exactly this. */
static void a_digest_follows_the_expansion(void **state)
{
    (void)state;
    char before[4096], after[4096];
    const char *web =
        "```{.c file=out/h.c}\n<<step>>\n<<other>>\n```\n\n"
        "```{.c #step}\n<<inner>>\n```\n\n"
        "```{.c #inner}\nint i = %d;\n```\n\n"
        "```{.c #other}\nint o;\n```\n";
    char text[512];
    snprintf(text, sizeof text, web, 1);
    write_file("h.md", text);
    assert_int_equal(tangle("--hashes h.md > hashes.txt"), 0);
    snprintf(before, sizeof before, "%s", read_back("hashes.txt"));
    snprintf(text, sizeof text, web, 2);
    write_file("h.md", text);
    assert_int_equal(tangle("--hashes h.md > hashes.txt"), 0);
    snprintf(after, sizeof after, "%s", read_back("hashes.txt"));
    assert_int_equal(count_lines(before), 4);
    assert_string_not_equal(line_of(before, "step,"), line_of(after, "step,"));
    assert_string_not_equal(line_of(before, "inner,"), line_of(after, "inner,"));
    assert_string_equal(line_of(before, "other,"), line_of(after, "other,"));
}

static void depth_is_not_mistaken_for_a_cycle(void **state)
{
    (void)state;
    write_chain("m.md", 60, 1, "int deep;\n");
    assert_int_equal(tangle("m.md"), 0);
    const char *chain = read_back("out/chain.c"), *at = chain;
    int names = 0;
    while ((at = strstr(at, "/* <<level-")) != NULL)
        names++, at++;
    assert_int_equal(names, 60);                        /* one line per level */
    assert_string_equal(chain + strlen(chain) - strlen("int deep;\n"), "int deep;\n");
    write_chain("n.md", 70, 1, "int too_deep;\n");
    const char *errors = refusal_of("n.md");
    assert_non_null(strstr(errors, "n.md:"));
    assert_non_null(strstr(errors, "<<level-65>> would be nested 65 deep, past MAX_DEPTH (64)"));
    assert_null(strstr(errors, "includes itself"));
}

/* A reference leaves its chunk's name as a comment of the file's language:
 * C's in a .c file, '#' in Python and gnuplot, none in a file whose comments
 * the tangler does not know, and none inside a macro continued with a
 * backslash, which a line of its own would end. */
static void chunk_names_lead_back_from_the_code(void **state)
{
    (void)state;
    write_file("p.md",
        "```{.python file=out/p.py}\ndef f():\n    <<step>>\n```\n\n"
        "```{.python #step}\nreturn 1\n```\n\n"
        "```{.c file=out/m.c}\n#define TWICE(x) \\\n    <<twice-body>>\n<<tail>>\n```\n\n"
        "```{.c #twice-body}\n((x) + (x))\n```\n\n"
        "```{.c #tail}\nint t;\n```\n\n"
        "```{.text file=out/notes.txt}\n<<note>>\n```\n\n"
        "```{.text #note}\nplain\n```\n");
    assert_int_equal(tangle("p.md"), 0);
    assert_string_equal(read_back("out/p.py"), "def f():\n    # <<step>>, p.md\n    return 1\n");
    assert_string_equal(read_back("out/m.c"), "#define TWICE(x) \\\n    ((x) + (x))\n"
                                              "/* <<tail>>, p.md */\nint t;\n");
    assert_string_equal(read_back("out/notes.txt"), "plain\n");
    /* the digests, which the registration of claims keeps, leave the names out */
    assert_int_equal(tangle("--hashes p.md > hashes.txt"), 0);
    const char *hashes = read_back("hashes.txt");
    assert_string_equal(line_of(hashes, "out/p.py,"), "out/p.py,5b76d0962c09ab4ee309fac65fad3568"
                                                      "c97abdec983b405146ae3e86a235e352");
    assert_string_equal(line_of(hashes, "tail,"), "tail,08a7d3da2c486634b8d787d5584b4676"
                                                  "65ff9de5110d4f202b882a85b1db26a0");
}

/* A chunk that several chapters add to is named again where each other
 * chapter's piece begins; the pieces of one chapter are named once. */
static void each_chapter_of_a_chunk_is_named(void **state)
{
    (void)state;
    write_file("a.md", "```{.c file=out/t.def}\n<<lines>>\nend\n```\n\n"
                       "```{.c #lines}\nA(1)\n```\n\n```{.c #lines}\nA(2)\n```\n");
    write_file("b.md", "```{.c #lines}\nA(3)\n```\n");
    write_file("c.md", "```{.c #lines}\nA(4)\n```\n");
    assert_int_equal(tangle("a.md b.md c.md"), 0);
    assert_string_equal(read_back("out/t.def"), "/* <<lines>>, a.md */\nA(1)\nA(2)\n"
                                                "/* <<lines>>, b.md */\nA(3)\n"
                                                "/* <<lines>>, c.md */\nA(4)\nend\n");
}

/* --provenance: the table's rows, then each chapter's provenance blocks in
 * the order the chapters are given, blank lines dropped; a provenance block
 * is never code, whatever its attributes, and a plain tangle ignores it. */
static void provenance_blocks_follow_the_table_in_order(void **state)
{
    (void)state;
    write_file("table.csv", "key,unit,estimator,n,from,chunk\n**.n,values,how many,,,count\n");
    write_file("p1.md", "```{.c file=out/p.c}\nint p;\n```\n\n"
                        "```{.provenance}\nrun.*,bars,\"recorded, \"\"as is\"\"\",,run.csv: key,c\n"
                        "\nrun.x,s,timed,,,c\n```\n");
    write_file("p2.md", "```provenance\necho.**,us,median,passes,echo.csv: rtt_ns,d\n```\n\n"
                        "``` {#not-a-chunk .provenance}\ncold.*,ms,median,,,e\n```\n");
    assert_int_equal(tangle("--provenance table.csv p2.md p1.md >prov.csv"), 0);
    assert_string_equal(read_back("prov.csv"),
                        "key,unit,estimator,n,from,chunk\n**.n,values,how many,,,count\n"
                        "echo.**,us,median,passes,echo.csv: rtt_ns,d\ncold.*,ms,median,,,e\n"
                        "run.*,bars,\"recorded, \"\"as is\"\"\",,run.csv: key,c\n"
                        "run.x,s,timed,,,c\n");
    assert_int_equal(tangle("p1.md p2.md"), 0);
    assert_string_equal(read_back("out/p.c"), "int p;\n");
}

/* A row of another width than the header's, or one that leaves a quote
 * open, is refused at its chapter and line, every one of them, and nothing
 * is printed. */
static void a_malformed_provenance_row_is_refused(void **state)
{
    (void)state;
    write_file("table.csv", "key,unit,estimator,n,from,chunk\n**.n,values,how many,,,count\n");
    write_file("m.md", "Text.\n\n```{.provenance}\nrun.*,bars,recorded,,run.csv: key\n"
                       "run.x,s,\"timed, once,,,c\n```\n");
    assert_int_equal(tangle("--provenance table.csv m.md >prov.csv"), 1);
    const char *errors = read_back("errors.txt");
    assert_non_null(strstr(errors, "m.md:4: a row has 5 fields where the header of table.csv "
                                   "has 6"));
    assert_non_null(strstr(errors, "m.md:5: a row leaves a quote open"));
    assert_string_equal(read_back("prov.csv"), "");
    write_file("table.csv", "key,unit,estimator,n,from,chunk\n**.n,values\n");
    write_file("empty.md", "No blocks.\n");
    assert_int_equal(tangle("--provenance table.csv empty.md >prov.csv"), 1);
    assert_non_null(strstr(read_back("errors.txt"), "table.csv:2: a row has 2 fields"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_appends_and_keeps_indentation),
        cmocka_unit_test(check_mode_reports_a_stale_file),
        cmocka_unit_test(refuses_undefined_unused_and_cyclic_chunks),
        cmocka_unit_test(line_directives_point_into_the_chapter),
        cmocka_unit_test(stray_files_are_reported),
        cmocka_unit_test(a_root_is_appended_by_repeating_its_path),
        cmocka_unit_test(one_root_spelled_two_ways_is_refused),
        cmocka_unit_test(a_root_path_is_normalized),
        cmocka_unit_test(a_root_outside_the_output_folder_is_refused),
        cmocka_unit_test(a_root_in_git_or_through_a_link_is_refused),
        cmocka_unit_test(an_empty_name_is_refused),
        cmocka_unit_test(an_expansion_past_the_size_limit_is_refused),
        cmocka_unit_test(depth_is_not_mistaken_for_a_cycle),
        cmocka_unit_test(a_digest_follows_the_expansion),
        cmocka_unit_test(chunk_names_lead_back_from_the_code),
        cmocka_unit_test(each_chapter_of_a_chunk_is_named),
        cmocka_unit_test(provenance_blocks_follow_the_table_in_order),
        cmocka_unit_test(a_malformed_provenance_row_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
