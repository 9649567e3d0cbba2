/*
 * text.c - text from outside made safe to print, and cut between characters.
 *
 * Tangled from paper/96-reproductions.md.
 */
#include <string.h>

#include "util/text.h"

/* <<decode-one-character>>, paper/96-reproductions.md */
/* The code point of the UTF-8 sequence at s (n bytes left) and its length
 * in *len; -1, with *len 1, when s does not begin a valid one. */
static long decode(const unsigned char *s, size_t n, size_t *len)
{
    static const long least[] = {0, 0x80, 0x800, 0x10000};
    unsigned char c = s[0];
    size_t extra = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                 : (c & 0xf8) == 0xf0 ? 3 : 4;
    long cp = extra == 0 ? c : extra == 1 ? c & 0x1f : extra == 2 ? c & 0x0f : c & 0x07;
    *len = 1;
    if (extra == 4 || extra + 1 > n)
        return -1;
    for (size_t k = 1; k <= extra; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    if (cp < least[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *len = extra + 1;
    return cp;
}

/* <<characters-that-are-not-text>>, paper/96-reproductions.md */
static int is_not_text(long cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

/* <<clean-a-text>>, paper/96-reproductions.md */
char *text_clean(char *out, size_t out_size, const char *in, size_t in_len)
{
    static const char REPLACEMENT[] = "\xef\xbf\xbd";           /* U+FFFD */
    size_t used = 0;
    if (out_size == 0)
        return out;
    for (size_t i = 0; i < in_len;) {
        size_t len;
        long cp = decode((const unsigned char *)in + i, in_len - i, &len);
        const char *piece = cp == '\t' ? " " : cp < 0 || is_not_text(cp) ? REPLACEMENT : in + i;
        size_t piece_len = piece == REPLACEMENT ? 3 : cp == '\t' ? 1 : len;
        if (used + piece_len + 1 > out_size)
            break;
        memcpy(out + used, piece, piece_len);
        used += piece_len;
        i += len;
    }
    out[used] = '\0';
    return out;
}
