/*
 * tangle.c - extract the C of a literate program written in pandoc Markdown.
 *
 * Tangled from paper/91-appendix-tangle.md; edit the chapter, not this file.
 *
 * Usage: tangle [-l] [-o DIR] [--check] [--stray DIR]... FILE.md...
 *        tangle --hashes FILE.md...
 *        tangle --provenance TABLE FILE.md...
 */
/* <<tangle-includes>>, paper/91-appendix-tangle.md */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <nettle/sha2.h>

#include "util/options.h"

/* <<tangle-limits>>, paper/91-appendix-tangle.md */
/* Deepest nesting of references. This book nests a few levels; 64 leaves
 * room for any book and keeps the recursive expansion's C stack small.
 * Deeper is refused as too deep: cycles are found by the chain of names. */
enum { MAX_DEPTH = 64 };

/* Most text one root's expansion may pass through: 16 MiB. The largest
 * file this book tangles is 31 KB; one five hundred times larger is not
 * written by hand but multiplied by a chunk used more than once at many
 * levels, and stopping there keeps the tool within a few tens of MB. */
enum { MAX_ROOT_BYTES = 16 * 1024 * 1024 };

/* <<tangle-data-structures>>, paper/91-appendix-tangle.md */
struct piece {
    const char *chapter;   /* the chapter (paper/NN-name.md) it is in */
    int first_line;        /* line number of the block's first code line */
    char **lines;          /* the block's lines, without newlines */
    int n_lines;
};

struct chunk {
    char *name;            /* "#name" without '#', or the file path of a root */
    int is_root;           /* 1 when the block said file=... */
    char *spelling;        /* a root's path as its first block wrote it */
    struct piece *pieces;
    int n_pieces;
    int reached;           /* set while expanding roots: some file uses it */
};

struct web {
    struct chunk *chunks;
    int n_chunks;
    int n_errors;
    struct chunk provenance;   /* the provenance blocks, each a piece, in order */
};

/* <<tangle-allocate-or-stop>>, paper/91-appendix-tangle.md */
static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size);
    if (p == NULL) {
        fprintf(stderr, "tangle: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *copy = xrealloc(NULL, n + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

/* <<tangle-find-or-add-a-chunk>>, paper/91-appendix-tangle.md */
static struct chunk *find_chunk(struct web *web, const char *name, int is_root)
{
    for (int i = 0; i < web->n_chunks; i++)
        if (web->chunks[i].is_root == is_root && strcmp(web->chunks[i].name, name) == 0)
            return &web->chunks[i];
    return NULL;
}

static struct chunk *find_or_add_chunk(struct web *web, const char *name, int is_root)
{
    struct chunk *c = find_chunk(web, name, is_root);
    if (c != NULL)
        return c;
    web->chunks = xrealloc(web->chunks, (web->n_chunks + 1) * sizeof *web->chunks);
    c = &web->chunks[web->n_chunks++];
    memset(c, 0, sizeof *c);
    c->name = xstrndup(name, strlen(name));
    c->is_root = is_root;
    return c;
}

static struct piece *add_piece(struct chunk *c, const char *chapter, int first_line)
{
    c->pieces = xrealloc(c->pieces, (c->n_pieces + 1) * sizeof *c->pieces);
    struct piece *p = &c->pieces[c->n_pieces++];
    p->chapter = chapter;
    p->first_line = first_line;
    p->lines = NULL;
    p->n_lines = 0;
    return p;
}

static void add_line(struct piece *p, const char *text, size_t len)
{
    p->lines = xrealloc(p->lines, (p->n_lines + 1) * sizeof *p->lines);
    p->lines[p->n_lines++] = xstrndup(text, len);
}

/* <<tangle-error-reporting>>, paper/91-appendix-tangle.md */
static void report(struct web *web, const char *chapter, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", chapter, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    web->n_errors++;
}

/* <<tangle-reading-the-chapters>>, paper/91-appendix-tangle.md */
/* If `line` opens a fence, store its character and length and return 1. */
static int fence_opening(const char *line, char *fence_char, int *fence_len)
{
    int indent = 0;
    while (line[indent] == ' ' && indent < 4)
        indent++;
    if (indent > 3 || (line[indent] != '`' && line[indent] != '~'))
        return 0;
    int n = 0;
    while (line[indent + n] == line[indent])
        n++;
    if (n < 3)
        return 0;
    *fence_char = line[indent];
    *fence_len = n;
    return 1;
}

static int fence_closing(const char *line, char fence_char, int fence_len)
{
    int i = 0, n = 0;
    while (line[i] == ' ' && i < 4)
        i++;
    if (i > 3)
        return 0;
    while (line[i + n] == fence_char)
        n++;
    if (n < fence_len)
        return 0;
    for (i += n; line[i] != '\0'; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return 0;
    return 1;
}
/* The `#name` or `file=` attribute of a fence line: 1 with *name a copy of
 * its value, 0 for a block only shown, -1 for an attribute that names
 * nothing (`file=` or `#` alone; *is_root says which). */
static int block_target(const char *line, char **name, int *is_root)
{
    const char *open = strchr(line, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    *name = NULL;
    *is_root = 0;
    if (open == NULL || close == NULL)
        return 0;
    for (const char *p = open + 1; p < close;) {
        while (p < close && (*p == ' ' || *p == '\t'))
            p++;
        const char *end = p;
        while (end < close && *end != ' ' && *end != '\t')
            end++;
        if (strncmp(p, "file=", 5) == 0) {
            free(*name);     /* a root is named by its file, whatever its id */
            *name = end > p + 5 ? xstrndup(p + 5, end - p - 5) : NULL;
            *is_root = 1;
            return *name != NULL ? 1 : -1;
        }
        if (*p == '#' && *name == NULL) {
            if (end == p + 1)
                return -1;
            *name = xstrndup(p + 1, end - p - 1);
        }
        p = end;
    }
    return *name != NULL;
}
/* A root's path in its one spelling, or NULL (reported) when it would leave
 * the output folder or names no file. */
static char *normal_path(struct web *web, const char *chapter, int line_no, const char *path)
{
    const char *refusal = path[0] == '/' ? "is an absolute path"
                        : path[strlen(path) - 1] == '/' ? "names a folder" : NULL;
    char *out = xrealloc(NULL, strlen(path) + 1);
    size_t len = 0;
    for (const char *p = path; *p != '\0' && refusal == NULL;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            refusal = "goes up through '..'";
        } else if (n == 4 && strncasecmp(p, ".git", 4) == 0) {
            refusal = "goes into .git, whose files git runs";
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            if (len > 0)
                out[len++] = '/';
            memcpy(out + len, p, n);
            len += n;
        }
        p += n + (p[n] == '/');
    }
    out[len] = '\0';
    if (refusal == NULL && len == 0)
        refusal = "names no file";
    if (refusal == NULL)
        return out;
    report(web, chapter, line_no, "file=%s %s; a root must be a file inside the output folder",
           path, refusal);
    free(out);
    return NULL;
}
/* The root a block's file= names, or NULL (reported) when the path is
 * refused or spells a root already defined in another way. */
static struct chunk *root_chunk(struct web *web, const char *chapter, int line_no,
                                const char *spelling)
{
    char *path = normal_path(web, chapter, line_no, spelling);
    if (path == NULL)
        return NULL;
    struct chunk *c = find_chunk(web, path, 1);
    if (c == NULL) {
        c = find_or_add_chunk(web, path, 1);
        c->spelling = xstrndup(spelling, strlen(spelling));
    } else if (strcmp(c->spelling, spelling) != 0) {
        report(web, chapter, line_no, "file=%s is %s, which %s:%d already writes as file=%s; "
               "spell a root one way (repeating it appends)", spelling, path,
               c->pieces[0].chapter, c->pieces[0].first_line - 1, c->spelling);
        c = NULL;
    }
    free(path);
    return c;
}

/* Whether a fence line gives its block the class provenance: among its
 * attributes, or as the bare word after the fence (pandoc reads both). */
static int is_provenance_fence(const char *line)
{
    const char *p = line + strspn(line, " `~\t"), *close = strchr(p, '}');
    if (strncmp(p, "provenance", 10) == 0 && strchr(" \t", p[10]) != NULL)
        return 1;                          /* the bare word, which may end the line */
    for (const char *q = p; *p == '{' && close != NULL &&
                            (q = strstr(q + 1, ".provenance")) != NULL && q < close;)
        if (strchr(" \t{", q[-1]) != NULL && strchr(" \t}", q[11]) != NULL)
            return 1;
    return 0;
}

/* The piece a block's lines go to: a new piece of the provenance blocks
 * for one, NULL for a block only shown, and for one whose attribute is
 * refused (reported at its fence, line_no). */
static struct piece *open_block(struct web *web, const char *chapter, int line_no,
                                const char *line)
{
    char *name;
    int is_root;
    if (is_provenance_fence(line))
        return add_piece(&web->provenance, chapter, line_no + 1);
    int found = block_target(line, &name, &is_root);
    if (found < 0)
        report(web, chapter, line_no, "%s", is_root ? "file= names no file" : "# names no chunk");
    if (found <= 0)
        return NULL;
    struct chunk *c = is_root ? root_chunk(web, chapter, line_no, name)
                              : find_or_add_chunk(web, name, 0);
    free(name);
    return c != NULL ? add_piece(c, chapter, line_no + 1) : NULL;
}
static char *read_file(const char *path, size_t *len);

static void read_chapter(struct web *web, const char *chapter)
{
    size_t len;
    char *text = read_file(chapter, &len);
    if (text == NULL) {
        fprintf(stderr, "tangle: cannot read %s: %s\n", chapter, strerror(errno));
        exit(2);
    }
    char fence_char = 0;
    int fence_len = 0, in_fence = 0, line_no = 0;
    struct piece *piece = NULL;

    for (char *line = text; line < text + len;) {
        char *eol = memchr(line, '\n', text + len - line);
        size_t n = eol ? (size_t)(eol - line) : (size_t)(text + len - line);
        if (n > 0 && line[n - 1] == '\r')
            n--;
        char saved = line[n];
        line[n] = '\0';
        line_no++;

        if (!in_fence) {
            if (fence_opening(line, &fence_char, &fence_len)) {
                in_fence = 1;
                piece = open_block(web, chapter, line_no, line);
            }
        } else if (fence_closing(line, fence_char, fence_len)) {
            in_fence = 0;
        } else if (piece != NULL) {
            add_line(piece, line, n);
        }
        line[n] = saved;
        line = eol ? eol + 1 : text + len;
    }
    if (in_fence)
        report(web, chapter, line_no, "code block is never closed");
    free(text);
}

/* <<tangle-read-a-whole-file>>, paper/91-appendix-tangle.md */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? 2 * cap : 65536;
            buf = xrealloc(buf, cap + 1);
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}

/* <<tangle-expanding-chunks>>, paper/91-appendix-tangle.md */
struct text {
    char *data;
    size_t len, cap;
};

static void append(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->data = xrealloc(t->data, t->cap);
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void append_str(struct text *t, const char *s)
{
    append(t, s, strlen(s));
}
static int reference_on_line(const char *line, char **name)
{
    int indent = 0;
    while (line[indent] == ' ' || line[indent] == '\t')
        indent++;
    const char *start = line + indent;
    if (strncmp(start, "<<", 2) != 0)
        return -1;
    const char *end = strstr(start + 2, ">>");
    if (end == NULL || end == start + 2)
        return -1;
    for (const char *p = end + 2; *p != '\0'; p++)
        if (*p != ' ' && *p != '\t')
            return -1;
    *name = xstrndup(start + 2, end - start - 2);
    return indent;
}
struct expansion {
    struct web *web;
    struct text out;
    int line_directives;
    const char *comment_open, *comment_close; /* the file's comments; NULL: no names */
    struct chunk *chain[MAX_DEPTH + 1];  /* the root, then each chunk inside it */
    int depth;                           /* chunks on the chain */
    size_t size;                         /* bytes of the lines passed so far */
    int too_large;                       /* past MAX_ROOT_BYTES: stop */
};

static void mark_origin(struct expansion *x, const struct piece *p, int line_index)
{
    char directive[4096];
    if (!x->line_directives)
        return;
    snprintf(directive, sizeof directive, "#line %d \"%s\"\n",
             p->first_line + line_index, p->chapter);
    append_str(&x->out, directive);
}

/* The name of the chunk a reference brings in, and the chapter of the
 * piece that follows, as a comment line; none in the middle of a line
 * continued with a backslash (a macro's body), which a line of its own
 * would end. */
static void name_the_chunk(struct expansion *x, const struct chunk *c, const char *chapter,
                           const char *indent)
{
    size_t n = x->out.len;
    if (x->comment_open == NULL || (n >= 2 && x->out.data[n - 2] == '\\'))
        return;
    append_str(&x->out, indent);
    append_str(&x->out, x->comment_open);
    append_str(&x->out, "<<");
    append_str(&x->out, c->name);
    append_str(&x->out, ">>, ");
    append_str(&x->out, chapter);
    append_str(&x->out, x->comment_close);
    append_str(&x->out, "\n");
}
/* Counts line j of p against MAX_ROOT_BYTES; 1 (reported once) when past. */
static int past_the_size_limit(struct expansion *x, const struct chunk *c,
                               const struct piece *p, int j, const char *indent)
{
    x->size += strlen(indent) + strlen(p->lines[j]) + 1;
    if (x->size <= MAX_ROOT_BYTES)
        return 0;
    if (!x->too_large)
        report(x->web, p->chapter, p->first_line + j,
               "in <<%s>>: expanding %s passes MAX_ROOT_BYTES (%d) here; is a chunk used "
               "more than once at many levels?", c->name, x->chain[0]->name, MAX_ROOT_BYTES);
    x->too_large = 1;
    return 1;
}
/* Where c is on the chain of chunks being expanded, or -1. */
static int chain_index(const struct expansion *x, const struct chunk *c)
{
    for (int k = 0; k < x->depth; k++)
        if (x->chain[k] == c)
            return k;
    return -1;
}

static void report_cycle(struct expansion *x, int start, const struct piece *p, int j)
{
    struct text loop = {NULL, 0, 0};
    for (int k = start; k < x->depth; k++) {
        append_str(&loop, "<<");
        append_str(&loop, x->chain[k]->name);
        append_str(&loop, ">> -> ");
    }
    report(x->web, p->chapter, p->first_line + j, "<<%s>> includes itself: %s<<%s>>",
           x->chain[start]->name, loop.data, x->chain[start]->name);
    free(loop.data);
}
static void expand(struct expansion *x, struct chunk *c, const char *indent);

/* One line of a piece: copied, or the reference on it expanded. */
static void expand_line(struct expansion *x, const struct chunk *c, const struct piece *p,
                        int j, const char *indent)
{
    char *name;
    if (past_the_size_limit(x, c, p, j, indent))
        return;
    int ref_indent = reference_on_line(p->lines[j], &name);
    if (ref_indent < 0) {
        /* <<tangle-copy-one-line>>, paper/91-appendix-tangle.md */
        if (p->lines[j][0] != '\0')
            append_str(&x->out, indent);
        append_str(&x->out, p->lines[j]);
        append_str(&x->out, "\n");
        return;
    }
    /* <<tangle-expand-one-reference>>, paper/91-appendix-tangle.md */
    struct chunk *child = find_chunk(x->web, name, 0);
    if (child == NULL) {
        report(x->web, p->chapter, p->first_line + j,
               "<<%s>> is used here but never defined", name);
    } else if (chain_index(x, child) >= 0) {
        report_cycle(x, chain_index(x, child), p, j);
    } else if (x->depth > MAX_DEPTH) {
        report(x->web, p->chapter, p->first_line + j,
               "<<%s>> would be nested %d deep, past MAX_DEPTH (%d): a chain this long, "
               "though not a cycle, is refused", name, x->depth, MAX_DEPTH);
    } else {
        char *deeper = xrealloc(NULL, strlen(indent) + ref_indent + 1);
        strcpy(deeper, indent);
        strncat(deeper, p->lines[j], ref_indent);
        name_the_chunk(x, child, child->pieces[0].chapter, deeper);
        expand(x, child, deeper);
        free(deeper);
    }
    free(name);
    mark_origin(x, p, j + 1);
}

static void expand(struct expansion *x, struct chunk *c, const char *indent)
{
    c->reached = 1;
    x->chain[x->depth++] = c;
    for (int i = 0; i < c->n_pieces && !x->too_large; i++) {
        /* a chunk that chapters add to: each chapter's piece named where it starts */
        if (x->depth > 1 && i > 0 && strcmp(c->pieces[i].chapter, c->pieces[i - 1].chapter) != 0)
            name_the_chunk(x, c, c->pieces[i].chapter, indent);
        mark_origin(x, &c->pieces[i], 0);
        for (int j = 0; j < c->pieces[i].n_lines && !x->too_large; j++)
            expand_line(x, c, &c->pieces[i], j, indent);
    }
    x->depth--;
}

/* <<tangle-writing-files>>, paper/91-appendix-tangle.md */
static int make_parents(const char *path)
{
    char *dir = xstrndup(path, strlen(path));
    for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            free(dir);
            return -1;
        }
        *slash = '/';
    }
    free(dir);
    return 0;
}

/* Returns 0 when the file on disk already holds `t`, 1 when it was (or, in
 * check mode, would be) rewritten, -1 on an I/O error. */
static int update_file(const char *path, const struct text *t, int check_only)
{
    size_t old_len;
    char *old = read_file(path, &old_len);
    int same = old != NULL && old_len == t->len && memcmp(old, t->data, t->len) == 0;
    free(old);
    if (same)
        return 0;
    if (check_only)
        return 1;
    if (make_parents(path) != 0)
        return -1;
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t written = fwrite(t->data, 1, t->len, f);
    if (fclose(f) != 0 || written != t->len)
        return -1;
    return 1;
}
static int is_root_path(const struct web *web, const char *out_dir, const char *path)
{
    char full[4096];
    for (int i = 0; i < web->n_chunks; i++) {
        if (!web->chunks[i].is_root)
            continue;
        snprintf(full, sizeof full, "%s%s", out_dir, web->chunks[i].name);
        if (strcmp(full, path) == 0)
            return 1;
    }
    return 0;
}

static void report_strays(struct web *web, const char *out_dir, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[4096];
        struct stat st;
        if (e->d_name[0] == '.' || strcmp(e->d_name, "__pycache__") == 0)
            continue;                      /* hidden files; Python's byte-code cache */
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            report_strays(web, out_dir, path);
            continue;
        }
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !is_root_path(web, out_dir, path)) {
            fprintf(stderr, "tangle: %s is not produced by any chunk in the paper\n", path);
            web->n_errors++;
        }
    }
    closedir(d);
}
/* Reports every root whose way below out_dir passes through a symbolic link. */
static void report_links(struct web *web, const char *out_dir)
{
    for (int i = 0; i < web->n_chunks; i++) {
        const struct chunk *c = &web->chunks[i];
        char path[4096];
        struct stat st;
        if (!c->is_root)
            continue;
        int at = snprintf(path, sizeof path, "%s", out_dir);
        for (const char *p = c->name; at < (int)sizeof path && *p != '\0';) {
            size_t n = strcspn(p, "/");
            at += snprintf(path + at, sizeof path - at, "%.*s", (int)n, p);
            if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                report(web, c->pieces[0].chapter, c->pieces[0].first_line - 1,
                       "file=%s passes through the symbolic link %s; a root is written "
                       "only through real folders", c->spelling, path);
                break;
            }
            p += n;
            if (*p == '/' && at < (int)sizeof path)
                path[at++] = *p++, path[at] = '\0';
        }
    }
}

/* <<tangle-main>>, paper/91-appendix-tangle.md */
/* <<tangle-print-hashes>>, paper/91-appendix-tangle.md */
static int print_hashes(struct web *web)
{
    for (int c = 0; c < web->n_chunks; c++) {
        struct expansion x = {.web = web};
        struct sha256_ctx ctx;
        uint8_t digest[SHA256_DIGEST_SIZE];
        append(&x.out, "", 0);
        expand(&x, &web->chunks[c], "");
        sha256_init(&ctx);
        sha256_update(&ctx, x.out.len, (const uint8_t *)x.out.data);
        sha256_digest(&ctx, sizeof digest, digest);
        printf("%s,", web->chunks[c].name);
        for (size_t k = 0; k < sizeof digest; k++)
            printf("%02x", digest[k]);
        putchar('\n');
        free(x.out.data);
    }
    return fflush(stdout) == 0 && web->n_errors == 0 ? 0 : 1;
}

/* <<tangle-print-provenance>>, paper/91-appendix-tangle.md */
/* The fields of a line of CSV, counted by its commas outside quotes, or -1
 * when it leaves a quote open ("" inside quotes closes and reopens them). */
static int csv_fields(const char *line)
{
    int fields = 1, quoted = 0;
    for (; *line != '\0'; line++) {
        quoted ^= *line == '"';
        fields += *line == ',' && !quoted;
    }
    return quoted ? -1 : fields;
}

static int print_provenance(struct web *web, const char *table)
{
    struct piece own = {table, 1, NULL, 0};
    size_t len;
    char *text = read_file(table, &len);
    if (text == NULL) {
        fprintf(stderr, "tangle: cannot read %s: %s\n", table, strerror(errno));
        return 2;
    }
    for (char *line = text; line < text + len; line += strcspn(line, "\n") + 1)
        add_line(&own, line, strcspn(line, "\r\n"));
    free(text);
    int width = own.n_lines > 0 ? csv_fields(own.lines[0]) : 0;
    for (int print = 0; print < 2 && web->n_errors == 0; print++)  /* check, then print */
        for (int i = -1; i < web->provenance.n_pieces; i++) {
            const struct piece *p = i < 0 ? &own : &web->provenance.pieces[i];
            for (int j = 0; j < p->n_lines; j++) {
                int n = p->lines[j][0] == '\0' ? -2 : csv_fields(p->lines[j]); /* -2: blank */
                if (print && n != -2)
                    printf("%s\n", p->lines[j]);
                else if (!print && n != -2 && n != width)
                    report(web, p->chapter, p->first_line + j, n < 0 ? "a row leaves a quote open"
                           : "a row has %d fields where the header of %s has %d", n, table, width);
            }
        }
    if (web->n_errors > 0)
        fprintf(stderr, "tangle: %d error(s); nothing written\n", web->n_errors);
    return web->n_errors > 0 ? 1 : fflush(stdout) == 0 ? 0 : 2;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void usage(FILE *to)
{
    fputs("usage: tangle [-l] [-o DIR] [--check] [--stray DIR]... FILE.md...\n"
          "       tangle --hashes FILE.md...\n"
          "       tangle --provenance TABLE FILE.md...\n"
          "Writes every root chunk of the chapters FILE.md to its file.\n"
          "\n"
          "  -l           put #line directives into .c and .h files\n"
          "  -o DIR       write roots under DIR instead of at their own path\n"
          "  --check      write nothing; fail if any file differs from the paper\n"
          "  --hashes     write nothing; print chunk,sha256 of every chunk's expansion\n"
          "  --provenance TABLE  write nothing; print TABLE, then every provenance block\n"
          "  --stray DIR  fail if DIR holds a file that no root produces (16 at most)\n"
          "  -h, --help   this text\n"
          "  --version    what this program is\n"
          "\n"
          "Exit status: 0 when every root was written (with --check: is what the\n"
          "paper says); 1 when the chapters have errors (then nothing is written)\n"
          "or, with --check, a file differs; 2 for a refused command line or a file\n"
          "that cannot be read or written.\n",
          to);
}

int main(int argc, char **argv)
{
    struct web web = {0};
    const char *out_dir = "", *provenance = NULL;
    const char *stray_dirs[16];
    int n_stray = 0, check_only = 0, line_directives = 0, hashes = 0, i;

    /* <<tangle-parse-options>>, paper/91-appendix-tangle.md */
    static const struct option options[] = {
        {"check", no_argument, 0, 'c'}, {"stray", required_argument, 0, 's'},
        {"hashes", no_argument, 0, 'H'}, {"provenance", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}, {0, 0, 0, 0},
    };
    char err[256];
    int opt;
    while ((opt = option_next(argc, argv, ":lo:h", options, err, sizeof err)) != -1) {
        /* <<tangle-act-on-one-option>>, paper/91-appendix-tangle.md */
        if (opt == 'h') {
            usage(stdout);
            return 0;
        } else if (opt == 'V') {
            return print_version("tangle", "none: the tangler is built once, from code/tools/tangle.c");
        } else if (opt == 'l') {
            line_directives = 1;
        } else if (opt == 'o') {
            static char prefix[4096];
            snprintf(prefix, sizeof prefix, "%s/", optarg);
            out_dir = prefix;
        } else if (opt == 'c') {
            check_only = 1;
        } else if (opt == 'H') {
            hashes = 1;
        } else if (opt == 'P') {
            provenance = optarg;
        } else if (opt == 's' && n_stray < 16) {
            stray_dirs[n_stray++] = optarg;
        } else if (opt == 's') {
            return usage_error("tangle", "--stray: at most 16 folders");
        } else {
            return usage_error("tangle", "%s", err);
        }
    }
    i = optind;
    if (i == argc)
        return usage_error("tangle", "no chapter to tangle");
    for (; i < argc; i++)
        read_chapter(&web, argv[i]);

    struct text *files = xrealloc(NULL, (web.n_chunks + 1) * sizeof *files);
    /* <<tangle-expand-every-root-in-memory>>, paper/91-appendix-tangle.md */
    for (int c = 0; c < web.n_chunks; c++) {
        struct expansion x = {.web = &web};
        if (!web.chunks[c].is_root)
            continue;
        int c_file = ends_with(web.chunks[c].name, ".c") || ends_with(web.chunks[c].name, ".h") ||
                     ends_with(web.chunks[c].name, ".def");
        int hash_file = ends_with(web.chunks[c].name, ".py") ||
                        ends_with(web.chunks[c].name, ".gp") ||
                        ends_with(web.chunks[c].name, ".toml");
        x.line_directives = line_directives && c_file;
        x.comment_open = c_file ? "/* " : hash_file ? "# " : NULL;
        x.comment_close = c_file ? " */" : "";
        append(&x.out, "", 0);
        expand(&x, &web.chunks[c], "");
        files[c] = x.out;
    }
    /* <<tangle-report-unreached-chunks>>, paper/91-appendix-tangle.md */
    for (int c = 0; c < web.n_chunks; c++) {
        const struct chunk *k = &web.chunks[c];
        if (!k->reached && !k->is_root)
            report(&web, k->pieces[0].chapter, k->pieces[0].first_line - 1,
                   "chunk <<%s>> is defined but no file uses it", k->name);
    }
    /* <<tangle-stop-on-any-error>>, paper/91-appendix-tangle.md */
    report_links(&web, out_dir);
    for (int s = 0; s < n_stray; s++)
        report_strays(&web, out_dir, stray_dirs[s]);
    if (web.n_errors > 0) {
        fprintf(stderr, "tangle: %d error(s); nothing written\n", web.n_errors);
        return 1;
    }
    if (hashes)
        return print_hashes(&web);
    if (provenance != NULL)
        return print_provenance(&web, provenance);
    /* <<tangle-update-every-root>>, paper/91-appendix-tangle.md */
    int differ = 0;
    for (int c = 0; c < web.n_chunks; c++) {
        char path[4096];
        if (!web.chunks[c].is_root)
            continue;
        snprintf(path, sizeof path, "%s%s", out_dir, web.chunks[c].name);
        int r = update_file(path, &files[c], check_only);
        if (r < 0) {
            fprintf(stderr, "tangle: cannot write %s: %s\n", path, strerror(errno));
            return 2;
        }
        if (r > 0 && check_only)
            fprintf(stderr, "tangle: %s differs from the paper (run 'make tangle')\n", path);
        differ += r;
    }
    return check_only && differ > 0 ? 1 : 0;
}
