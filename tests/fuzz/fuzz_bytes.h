/* The fuzz input read a byte at a time by the checkpoint harnesses (0 once it runs out). */
#ifndef MDL_FUZZ_BYTES_H
#define MDL_FUZZ_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *p;
    size_t left;
} bytes;

static inline uint8_t take8(bytes *b)
{
    if (!b->left)
        return 0;
    b->left--;
    return *b->p++;
}

#endif
