/*
 * text.h - text from outside made safe to print, and cut between characters.
 *
 * Tangled from paper/96-reproductions.md.
 */
#ifndef IPCTAX_TEXT_H
#define IPCTAX_TEXT_H

#include <stddef.h>

/* Copies in[0..in_len) into out (out_size bytes, its NUL included): bytes
 * that are not UTF-8, control characters, and characters that change the
 * direction or the visibility of the text around them each become U+FFFD, a
 * tab a space; cut to fit between two characters. Returns out. */
char *text_clean(char *out, size_t out_size, const char *in, size_t in_len);

#endif
