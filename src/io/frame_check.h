/* A frame's arrays checked before a writer stores them: a non-finite value is named, not written. */
#ifndef MDL_IO_FRAME_CHECK_H
#define MDL_IO_FRAME_CHECK_H

#include <stddef.h>

/* The first non-finite value of the three arrays x, y, z of n atoms: 1 and a message naming
   path, step, the quantity and the atom (index = id: frames are in id order), else 0. */
int frame_nonfinite(const char *path, long step, const char *quantity, const double *x, const double *y,
                    const double *z, size_t n);

#endif
