/*
 * buffer.h - the growable byte buffer of the engine and its clients.
 *
 * Tangled from paper/55-engine.md.
 */
#ifndef IPCTAX_BUFFER_H
#define IPCTAX_BUFFER_H

#include <stddef.h>

struct buffer {
    void *data;                /* NULL until the first reserve */
    size_t cap;                /* bytes at data */
};

/* Room for at least `size` bytes (a real buffer even for 0), kept for the
 * next call; NULL when out of memory, the buffer then unchanged. */
void *buffer_reserve(struct buffer *b, size_t size);
void buffer_free(struct buffer *b);

#endif
