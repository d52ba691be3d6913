/* What the checkpoint harnesses share: the fuzz input read a byte at a time (0 once it runs out),
   and the file they made read back as a restart of `natoms` atoms of one species would. */
#ifndef MDL_FUZZ_CHECKPOINT_H
#define MDL_FUZZ_CHECKPOINT_H

#include "io/checkpoint.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

static inline void read_back_and_remove(const char *path, int natoms)
{
    mdl_system s;
    if (system_init(&s, (size_t)natoms) == 0) {
        for (int i = 0; i < natoms; i++)
            system_add_atom(&s, 0, 0.5, 0.5, 0.5);
        mdl_checkpoint ck;
        if (h5md_read_checkpoint(path, &s, "lj", &ck) == 0)
            checkpoint_free(&ck);
        system_destroy(&s);
    }
    remove(path);
}

#endif
