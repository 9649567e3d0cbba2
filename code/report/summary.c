/*
 * summary.c - ipctax-summary: reduces data/ to the values the paper quotes.
 *
 * Tangled from paper/90-appendix-report.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/compare.h"
#include "report/manifest.h"
#include "report/reproduce.h"
#include "report/summarize.h"
#include "util/options.h"
#include "util/text.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif


/* <<the-summarys-usage>>, paper/90-appendix-report.md */
static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-summary [--registry DIR] [--reproductions DIR]\n"
                "                     [--kept-summaries DIR] [--chunk-hashes FILE]\n"
                "                     DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR]\n"
                "       ipctax-summary --reproduction DATA_DIR ROOT [--id ID] [--by NAME]\n"
                "                     [--conditions TEXT] [--pack DIR]\n"
                "       ipctax-summary --receive FILE ROOT\n"
                "       ipctax-summary [--registry DIR] [--kept-summaries DIR] --plan ROOT OUT_DIR\n"
                "       ipctax-summary --check DATA_DIR\n"
                "       ipctax-summary --manifest DIR\n"
                "       ipctax-summary --install STAGE_DIR DATA_DIR\n"
                "Writes OUT_DIR/values.csv, OUT_DIR/tables/*.csv, the figures' files and\n"
                "OUT_DIR/claims.txt from the run in DATA_DIR, judging the claims registered\n"
                "in DIR (default paper: claims.csv, claims-registered.csv, deviations.csv,\n"
                "registration.csv). With PUBLISHED_OUT_DIR (the OUT_DIR of a summary of the\n"
                "published run) it also compares the two runs (OUT_DIR/tables/compare.csv and\n"
                "OUT_DIR/compare.txt). --chunk-hashes FILE (chunk,sha256: tangle --hashes\n"
                "under that header) checks the chunks the registration holds against it.\n"
                "--check loads and checks DATA_DIR as the summary would; --manifest writes\n"
                "DIR/manifest.csv for the run's files in DIR; --install checks the run in\n"
                "STAGE_DIR and exchanges it with DATA_DIR in one step (see data/README.md).\n"
                "--reproductions DIR also summarizes every run under DIR and sets their\n"
                "verdicts side by side; --reproduction copies the run in DATA_DIR to\n"
                "ROOT/ID (ID made from the machine and the date unless given), never over\n"
                "an existing one, and prints ROOT/ID, then (with --pack) the one file\n"
                "DIR/reproduction-ID.tar it also wrote, then 'full' or why the run is\n"
                "reduced; --receive checks such a file and adds the run in it as ROOT/ID.\n"
                "Each kept run's summary is kept in DIR/ID (--kept-summaries; default\n"
                "OUT_DIR/reproductions) with what it was made from, and read back while that\n"
                "is unchanged, so two commands given one DIR summarize a kept run once.\n"
                "--plan summarizes the runs under ROOT (into OUT_DIR) and prints the units\n"
                "each row needs for the claims resting on it, as ipctax-bench --units takes\n"
                "them.\n"
                "\n"
                "  -h, --help   this text\n"
                "  --version    the commit this program was built from\n"
                "\n"
                "Exit status: 0 when every value was written (or the command succeeded); 1\n"
                "when a folder is refused or a value could not be computed or written; 2 for\n"
                "a refused command line.\n");
}

/* <<data-folder-commands>>, paper/90-appendix-report.md */
/* A folder whose manifest lists every file and README.md is a kept run, and
 * is checked as one; any other as a data folder. */
static int check_folder(const char *dir, char *err, size_t err_size)
{
    struct run_data d;
    struct csv_table m;
    enum run_folder kind = RUN_DATA;
    if (manifest_load(dir, RUN_KEPT, &m, err, err_size) == 0) {
        kind = RUN_KEPT;
        csv_table_free(&m);
    }
    if (run_data_load_folder(&d, dir, kind, err, err_size) != 0)
        return -1;
    run_data_free(&d);
    return 0;
}

/* --check, --manifest or --install; the exit status. */
static int data_folder_command(int argc, char **argv)
{
    static const struct {
        const char *name;
        int folders;
    } COMMANDS[] = {{"--check", 1}, {"--manifest", 1}, {"--install", 2}};
    char err[1024], done[8400];
    size_t c = 0;
    while (c < 3 && strcmp(argv[1], COMMANDS[c].name) != 0)
        c++;
    if (c == 3 || argc - 2 != COMMANDS[c].folders) {
        if (c == 3)
            return usage_error("ipctax-summary", "unknown option '%s'", argv[1]);
        return usage_error("ipctax-summary", "%s takes %d folder(s), not %d", argv[1],
                           COMMANDS[c].folders, argc - 2);
    }
    int status = c == 0   ? check_folder(argv[2], err, sizeof err)
                 : c == 1 ? manifest_write(argv[2], RUN_DATA, err, sizeof err)
                          : run_install(argv[2], argv[3], err, sizeof err);
    if (status != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        return 1;
    }
    if (c == 0)
        snprintf(done, sizeof done, "%s is a complete run and its files agree", argv[2]);
    else if (c == 1)
        snprintf(done, sizeof done, "wrote %s/manifest.csv", argv[2]);
    else
        snprintf(done, sizeof done, "%s is now %s; the previous %s is in %s", argv[2], argv[3],
                 argv[3], argv[2]);
    printf("ipctax-summary: %s\n", done);
    return 0;
}

/* <<the-reproduction-command>>, paper/90-appendix-report.md */
/* Prints err on stderr, cleaned; returns 1. */
static int refused(const char *err)
{
    char shown[2048];
    fprintf(stderr, "ipctax-summary: %s\n", text_clean(shown, sizeof shown, err, strlen(err)));
    return 1;
}

/* Whether the kept run root/id is reduced, and why, into why ("" if full). */
static void kept_run_kind(const char *root, const char *id, char *why, size_t size)
{
    char path[4400], err[1024];
    struct run_data d;
    snprintf(path, sizeof path, "%s/%s", root, id);
    why[0] = '\0';
    if (run_data_load_folder(&d, path, RUN_KEPT, err, sizeof err) != 0)
        return;
    reproduction_reduced_because(&d, why, size);
    run_data_free(&d);
}

static int reproduction_command(int argc, char **argv)
{
    const char *id = NULL, *by = NULL, *conditions = NULL, *pack = NULL;
    char made[256], err[1024], file[4400], why[256];
    if (argc < 4)
        return usage_error("ipctax-summary", "--reproduction takes DATA_DIR ROOT");
    for (int i = 4; i < argc; i += 2) {
        const char **into = strcmp(argv[i], "--id") == 0           ? &id
                            : strcmp(argv[i], "--by") == 0         ? &by
                            : strcmp(argv[i], "--conditions") == 0 ? &conditions
                            : strcmp(argv[i], "--pack") == 0       ? &pack
                                                                   : NULL;
        if (into == NULL || i + 1 >= argc)
            return usage_error("ipctax-summary", into == NULL ? "unknown option '%s'"
                                                               : "option '%s' needs a value",
                               argv[i]);
        *into = argv[i + 1];
    }
    if (reproduction_add(argv[2], argv[3], id, by, conditions, made, sizeof made, err,
                         sizeof err) != 0)
        return refused(err);
    printf("%s/%s\n", argv[3], made);
    if (pack != NULL) {
        snprintf(file, sizeof file, "%s/reproduction-%s.tar", pack, made);
        mkdir(pack, 0777);
        if (reproduction_pack(argv[3], made, file, err, sizeof err) != 0)
            return refused(err);
        printf("%s\n", file);
    }
    kept_run_kind(argv[3], made, why, sizeof why);
    printf("%s%s\n", why[0] != '\0' ? "reduced: " : "full", why);
    return 0;
}

/* The plan before a run: the kept runs summarized, the units printed, and
 * (on stderr, for whoever runs it) what it spends and the claims it leaves out. */
static int plan_command(int argc, char **argv, const char *registry,
                        const char *kept_summaries)
{
    struct store s;
    if (argc != 4)
        return usage_error("ipctax-summary", "--plan takes ROOT OUT_DIR");
    mkdir(argv[3], 0777);
    store_init(&s, argv[3]);
    s.registry = registry;
    s.kept_summaries = kept_summaries;
    summarize_with_reproductions(NULL, &s, argv[2]);
    const struct value *units = store_get(&s, "plan.units");
    const struct value *spent = store_get(&s, "plan.seconds");
    const struct value *left_out = store_get(&s, "plan.left_out");
    if (units != NULL && s.errors == 0)
        printf("%s\n", units->text);
    if (spent != NULL && left_out != NULL && s.errors == 0)
        fprintf(stderr, "plan: about %s s of rounds, of a budget of %s s; claims left out: %s\n",
                spent->text, store_get(&s, "plan.budget_s")->text, left_out->text);
    int status = units != NULL && s.errors == 0 && store_write(&s) == 0 ? 0 : 1;
    store_free(&s);
    return status;
}

static int receive_command(int argc, char **argv)
{
    char made[256], err[2048];
    if (argc != 4)
        return usage_error("ipctax-summary", "--receive takes FILE ROOT");
    if (reproduction_receive(argv[2], argv[3], made, sizeof made, err, sizeof err) != 0)
        return refused(err);
    printf("%s/%s\n", argv[3], made);
    return 0;
}

/* <<the-summarys-main>>, paper/90-appendix-report.md */
int main(int argc, char **argv)
{
    char err[1024];
    struct run_data d;
    struct store s;
    const char *registry = "paper", *reproductions = NULL, *chunk_hashes = NULL,
               *kept_summaries = NULL;
    /* <<answer-help-and-version-wherever-they-stand>>, paper/90-appendix-report.md */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0)
            return print_version("ipctax-summary", IPCTAX_COMMIT);
    }
    /* <<take-the-options-that-name-a-folder>>, paper/90-appendix-report.md */
    while (argc > 2 && (strcmp(argv[1], "--registry") == 0 ||
                        strcmp(argv[1], "--reproductions") == 0 ||
                        strcmp(argv[1], "--kept-summaries") == 0 ||
                        strcmp(argv[1], "--chunk-hashes") == 0)) {
        *(strcmp(argv[1], "--registry") == 0         ? &registry
          : strcmp(argv[1], "--reproductions") == 0   ? &reproductions
          : strcmp(argv[1], "--kept-summaries") == 0 ? &kept_summaries
                                                      : &chunk_hashes) = argv[2];
        argc -= 2, argv += 2;
    }
    /* <<hand-a-command-to-its-function>>, paper/90-appendix-report.md */
    if (argc >= 2 && strcmp(argv[1], "--reproduction") == 0)
        return reproduction_command(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--receive") == 0)
        return receive_command(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--plan") == 0)
        return plan_command(argc, argv, registry, kept_summaries);
    if (argc >= 2 && argv[1][0] == '-')
        return data_folder_command(argc, argv);
    if (argc != 3 && argc != 4)
        return usage_error("ipctax-summary", "expected DATA_DIR OUT_DIR [PUBLISHED_OUT_DIR], "
                           "got %d argument%s", argc - 1, argc == 2 ? "" : "s");
    /* <<load-the-data-and-ready-the-store>>, paper/90-appendix-report.md */
    if (run_data_load(&d, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "ipctax-summary: %s\n", err);
        return 1;
    }
    mkdir(argv[2], 0777);
    store_init(&s, argv[2]);
    s.registry = registry;
    s.kept_summaries = kept_summaries;
    s.chunk_hashes = chunk_hashes;
    summarize_with_reproductions(&d, &s, reproductions);
    if (argc == 4)
        compare_with_published(&s, argv[3]);
    if (store_write(&s) != 0) {
        fprintf(stderr, "ipctax-summary: cannot write %s/values.csv\n", argv[2]);
        s.errors++;
    }
    int status = s.errors ? 1 : 0;
    store_free(&s);
    run_data_free(&d);
    return status;
}
