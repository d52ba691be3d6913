/* The cell grid of the neighbor search, written once for host C and CUDA: how many cells per
   dimension, and the neighbor cells of a cell along one dimension. */
#ifndef MDL_PHYSICS_CELLS_H
#define MDL_PHYSICS_CELLS_H

#include "box.h"
#include "hd.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Never many more cells than atoms, and never more than an int indexes: a grid of more than
   4n + 64 cells (or INT_MAX) gets wider cells (the cell grids below and domain_cell_grid). A huge
   box with a short cutoff (2 atoms in a box 10^6 cutoffs wide) thus gets a few wide cells, never a
   product of per-axis counts that wraps. */
static inline size_t cell_grid_limit(size_t natoms)
{
    return natoms < ((size_t)INT_MAX - 64) / 4 ? 4 * natoms + 64 : (size_t)INT_MAX;
}

static inline int cell_grid_too_fine(size_t total, size_t natoms)
{
    return total > cell_grid_limit(natoms);
}

/* Cells at least `width` wide along a length len: 1 up to `limit` (a NaN, an infinite ratio or a
   count past the limit never reaches the int). */
static inline int cells_along(double len, double width, size_t limit)
{
    double k = floor(len / width);
    if (!(k >= 1.0))
        return 1;
    return k >= (double)limit ? (int)limit : (int)k;
}

/* The product of three counts of at most cell_grid_limit each, saturated at SIZE_MAX. */
static inline size_t cell_product(const int nc[3])
{
    double p = (double)nc[0] * (double)nc[1] * (double)nc[2];
    return p >= (double)SIZE_MAX ? SIZE_MAX : (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2];
}

/* Cells at least rcut wide along each dimension, widened by 1.25 while cell_grid_too_fine;
   returns the total. */
static inline size_t cell_grid_dims(const mdl_box *box, double rcut, size_t natoms, int nc[3])
{
    const size_t limit = cell_grid_limit(natoms);
    double width = rcut > 0 ? rcut : 1.0;
    for (;;) {
        for (int d = 0; d < 3; d++)
            nc[d] = cells_along(box->len[d], width, limit);
        size_t total = cell_product(nc);
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
