/* The GPU backend's entry points besides the backend table (for the neighbors demo and info). */
#ifndef MDL_GPU_BACKEND_H
#define MDL_GPU_BACKEND_H

#include "../config.h"
#include "../potential.h"
#include "../system.h"
#include "../units.h"

/* The GPU backend's state for s, as the backend table's create makes it (skin: list radius is
   pt->cutmax + skin). */
int gpu_backend_create_from(void **ctx, const mdl_config *cfg, const mdl_units *u, const mdl_pair_table *pt,
                            double skin, const mdl_system *s);
/* The current full list in the input's atom order: row i is rows[start[i] .. start[i+1]),
   ascending (both malloc'ed). */
int gpu_backend_neighbor_rows(void *ctx, int **rows, size_t **start);

/* `mdlite neighbors --backend gpu`: builds the full list of s (in file order) `repeat` times with
   `method` (cell, brute, brute-atomic) and `layout`; writes rows (count j...) into *rows
   (malloc'ed, start[i]..start[i+1]) and the median build time from CUDA events. */
int gpu_neighbor_demo(const mdl_system *s, double cutoff, const char *method, int transposed, long repeat,
                      int **rows, size_t **start, double *median_seconds);

#endif
