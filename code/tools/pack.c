/*
 * pack.c - ipctax-pack IN OUT: the woven page with what lies between its
 * pack markers (Parts II and III) gzipped into it as base64, so that one
 * offline file stays small. paper/web/pack.js inflates it in the browser.
 *
 * Tangled from paper/97-appendix-page.md.
 */
#include <errno.h>
#include <nettle/base64.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/error.h"
#include "util/options.h"

#ifndef IPCTAX_COMMIT
#define IPCTAX_COMMIT "unknown"
#endif

/* <<pack-usage>>, paper/97-appendix-page.md */
static void usage(FILE *to)
{
    fprintf(to, "usage: ipctax-pack IN OUT\n"
                "Writes the page IN to OUT with what lies between its two markers\n"
                "(<!--ipctax:pack--> and <!--ipctax:pack-end-->, once each) gzipped\n"
                "and written as base64 inside it, for paper/web/pack.js to inflate.\n"
                "OUT is written under a temporary name and renamed once whole.\n"
                "\n"
                "  -h, --help   this text\n"
                "  --version    the commit this program was built from\n"
                "\n"
                "Exit status: 0 when OUT was written; 1 when IN cannot be read, its\n"
                "markers are missing, repeated or out of order, the region holds a\n"
                "script, or OUT cannot be written (OUT is then left as it was);\n"
                "2 for a refused command line.\n");
}

/* <<the-pack-markers>>, paper/97-appendix-page.md */
static const char PACK_BEGIN[] = "<!--ipctax:pack-->";
static const char PACK_END[] = "<!--ipctax:pack-end-->";

/* <<read-a-whole-file>>, paper/97-appendix-page.md */
/* The whole of path, zero-terminated, in a malloc'ed buffer; NULL with a message. */
static char *read_whole(const char *path, size_t *length, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        set_error(err, err_size, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t size = 0, cap = 1 << 20;
    char *text = malloc(cap + 1);
    for (size_t got = 1; text != NULL && got > 0; size += got) {
        if (size == cap) {
            char *grown = realloc(text, 2 * cap + 1);
            if (grown == NULL)
                break;
            text = grown;
            cap *= 2;
        }
        got = fread(text + size, 1, cap - size, f);
    }
    int failed = text == NULL || ferror(f) || !feof(f);
    fclose(f);
    if (failed || memchr(text, '\0', size) != NULL) {
        set_error(err, err_size, failed ? "cannot read %s whole" : "%s holds a zero byte", path);
        free(text);
        return NULL;
    }
    text[size] = '\0';
    *length = size;
    return text;
}

/* <<find-the-packed-region>>, paper/97-appendix-page.md */
/* The region of the page between its markers, in [*from, *to) (the markers
 * themselves included, so that they are dropped); -1 with a message if the
 * markers are not there once each and in order, or a script is inside. */
static int find_region(const char *page, size_t *from, size_t *to, char *err, size_t err_size)
{
    const char *begin = strstr(page, PACK_BEGIN), *end = strstr(page, PACK_END);
    if (begin == NULL || end == NULL)
        return set_error(err, err_size, "the page has no %s marker",
                         begin == NULL ? PACK_BEGIN : PACK_END);
    if (strstr(begin + 1, PACK_BEGIN) != NULL || strstr(end + 1, PACK_END) != NULL)
        return set_error(err, err_size, "the page has a pack marker twice");
    if (end < begin)
        return set_error(err, err_size, "the page's %s comes before its %s", PACK_END, PACK_BEGIN);
    const char *script = strstr(begin, "<script");
    if (script != NULL && script < end)
        return set_error(err, err_size, "a <script> lies between the pack markers");
    *from = (size_t)(begin - page);
    *to = (size_t)(end - page) + sizeof PACK_END - 1;
    return 0;
}

/* <<gzip-a-region>>, paper/97-appendix-page.md */
/* bytes[0..n) gzipped at zlib's highest level into a malloc'ed buffer of
 * *out_n bytes; NULL with a message. */
static unsigned char *gzip_bytes(const char *bytes, size_t n, size_t *out_n, char *err,
                                 size_t err_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
        set_error(err, err_size, "zlib cannot start: %s", z.msg != NULL ? z.msg : "no memory");
        return NULL;
    }
    uLong bound = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(bound);
    int status = Z_MEM_ERROR;
    if (out != NULL) {
        z.next_in = (Bytef *)bytes;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)bound;
        status = deflate(&z, Z_FINISH);
    }
    *out_n = bound - z.avail_out;
    deflateEnd(&z);
    if (status != Z_STREAM_END) {
        set_error(err, err_size, "zlib cannot compress the region (status %d)", status);
        free(out);
        return NULL;
    }
    return out;
}

/* <<write-the-packed-page>>, paper/97-appendix-page.md */
static const char PACK_NOTE[] =
    "<div id=\"packed\" data-bytes=\"%zu\"><p class=\"packed-note\">Parts II and III (the "
    "program and the appendices) are packed in this page and unpacked by its script, which "
    "needs a browser with <code>DecompressionStream</code>. They are also in "
    "<a href=\"book.pdf\">book.pdf</a>.</p><script type=\"application/gzip\" "
    "id=\"packed-data\">";

/* The page with its region [from, to) replaced by the note and the region's
 * gzip in base64 (raw bytes), written to out; -1 on a failed write. */
static int write_packed(FILE *out, const char *page, size_t length, size_t from, size_t to,
                        const unsigned char *raw, size_t raw_n)
{
    char *b64 = malloc(BASE64_ENCODE_RAW_LENGTH(raw_n) + 1);
    if (b64 == NULL)
        return -1;
    base64_encode_raw(b64, raw_n, raw);
    fwrite(page, 1, from, out);
    fprintf(out, PACK_NOTE, to - from);
    fwrite(b64, 1, BASE64_ENCODE_RAW_LENGTH(raw_n), out);
    fputs("</script></div>", out);
    fwrite(page + to, 1, length - to, out);
    free(b64);
    return ferror(out) ? -1 : 0;
}

/* <<pack-the-page>>, paper/97-appendix-page.md */
int main(int argc, char **argv)
{
    char err[ERR_SIZE], tmp[4096];
    int status;
    if (options_of_operands(argc, argv, "ipctax-pack", IPCTAX_COMMIT, usage, &status))
        return status;
    if (argc != 3)
        return usage_error("ipctax-pack", "expected IN and OUT, got %d operands", argc - 1);
    size_t length = 0, from = 0, to = 0, packed_n = 0;
    char *page = read_whole(argv[1], &length, err, sizeof err);
    unsigned char *packed = NULL;
    if (page != NULL && find_region(page, &from, &to, err, sizeof err) == 0) {
        if (to - from > 1u << 30)
            set_error(err, sizeof err, "the region is larger than a gigabyte");
        else
            packed = gzip_bytes(page + from, to - from, &packed_n, err, sizeof err);
    }
    FILE *out = NULL;
    if (packed != NULL) {
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
        out = fopen(tmp, "wb");
        if (out == NULL)
            set_error(err, sizeof err, "cannot write %s: %s", tmp, strerror(errno));
    }
    int written = out != NULL && write_packed(out, page, length, from, to, packed, packed_n) == 0;
    if (out != NULL && (fclose(out) != 0 || !written || rename(tmp, argv[2]) != 0)) {
        set_error(err, sizeof err, "cannot write %s: %s", argv[2], strerror(errno));
        remove(tmp);
        written = 0;
    }
    if (written)
        printf("ipctax-pack: %s: %zu bytes of the book packed into %zu, the page %zu bytes\n",
               argv[2], to - from, BASE64_ENCODE_RAW_LENGTH(packed_n),
               length - (to - from) + BASE64_ENCODE_RAW_LENGTH(packed_n));
    else
        fprintf(stderr, "ipctax-pack: %s\n", err);
    free(page);
    free(packed);
    return written ? 0 : 1;
}
