/* The GPU backend's entry points besides the backend table: the neighbors demo and its rows. */
#ifndef MDL_GPU_NEIGHBORS_DEMO_H
#define MDL_GPU_NEIGHBORS_DEMO_H

#include "../backend.h"

/* The current full list in the input's atom order: row i is rows[start[i] .. start[i+1]),
   ascending (both malloc'ed). */
int gpu_backend_neighbor_rows(void *ctx, int **rows, size_t **start);

/* `mdlite neighbors --backend gpu`: builds the full list of s (in file order) `repeat` times with
   `method` and `layout`; writes rows (count j...) into *rows (malloc'ed, start[i]..start[i+1]) and
   the median build time from CUDA events. */
int gpu_neighbor_demo(const mdl_system *s, double cutoff, enum mdl_nl_method method, enum mdl_nl_layout layout,
                      long repeat, int **rows, size_t **start, double *median_seconds);

#endif
