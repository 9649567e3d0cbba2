/*
 * buffer.c - growing a buffer, and giving it back.
 *
 * Tangled from paper/55-engine.md.
 */
#include <stdlib.h>

#include "wire/buffer.h"

void *buffer_reserve(struct buffer *b, size_t size)
{
    if (size == 0)
        size = 1;
    if (size <= b->cap)
        return b->data;
    void *bigger = realloc(b->data, size);
    if (bigger == NULL)
        return NULL;
    b->data = bigger;
    b->cap = size;
    return bigger;
}

void buffer_free(struct buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->cap = 0;
}
