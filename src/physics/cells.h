/* The cell grid of the neighbor search, written once for host C and CUDA: how many cells per
   dimension, and the neighbor cells of a cell along one dimension. */
#ifndef MDL_PHYSICS_CELLS_H
#define MDL_PHYSICS_CELLS_H

#include "box.h"
#include "hd.h"

#include <math.h>
#include <stddef.h>

/* Never many more cells than atoms: a grid of more than 4n + 64 gets wider cells (the cell grids
   below and domain_cell_grid). */
static inline int cell_grid_too_fine(size_t total, size_t natoms)
{
    return total > 4 * natoms + 64;
}

/* Cells at least rcut wide along each dimension, widened by 1.25 while cell_grid_too_fine;
   returns the total. */
static inline size_t cell_grid_dims(const mdl_box *box, double rcut, size_t natoms, int nc[3])
{
    double width = rcut;
    for (;;) {
        size_t total = 1;
        for (int d = 0; d < 3; d++) {
            int k = (int)floor(box->len[d] / width);
            nc[d] = k < 1 ? 1 : k;
            total *= (size_t)nc[d];
        }
        if (!cell_grid_too_fine(total, natoms))
            return total;
        width *= 1.25;
    }
}

/* The distinct neighbor cells (c - 1, c, c + 1) of cell c along a dimension of nc cells: 1 to 3 of
   them in out[], none past an open face; wrapped[k] is set when out[k] is reached through the
   periodic boundary (its pairs then need the minimum image; with fewer than 3 cells a cell can be
   reached both ways). */
static inline MDL_HD int cell_stencil_1d(int c, int nc, int periodic, int out[3], int wrapped[3])
{
    int m = 0;
    for (int d = -1; d <= 1; d++) {
        int v = c + d, w = 0;
        if (v < 0 || v >= nc) {
            if (!periodic)
                continue;
            v = (v + nc) % nc;
            w = 1;
        }
        int k = 0;
        while (k < m && out[k] != v)
            k++;
        if (k == m) {
            out[m] = v;
            wrapped[m++] = w;
        } else {
            wrapped[k] |= w;
        }
    }
    return m;
}

#endif
