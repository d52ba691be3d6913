/* The GPU backend's entry points besides the backend table (for the neighbors demo and info). */
#ifndef MDL_GPU_BACKEND_H
#define MDL_GPU_BACKEND_H

#include "../system.h"

/* `mdlite neighbors --backend gpu`: builds the full list of s (in file order) `repeat` times with
   `method` (cell, brute, brute-atomic) and `layout`; writes rows (count j...) into *rows
   (malloc'ed, start[i]..start[i+1]) and the median build time from CUDA events. */
int gpu_neighbor_demo(const mdl_system *s, double cutoff, const char *method, int transposed, long repeat,
                      int **rows, size_t **start, double *median_seconds);

#endif
