/* CPU neighbor lists: cell binning with atoms sorted by cell, half Verlet lists (each pair once,
   for Newton's third law) from the cell stencil or by O(N^2) brute force, and the skin check. */
#ifndef MDL_CPU_NEIGHBOR_H
#define MDL_CPU_NEIGHBOR_H

#include "../system/system.h"

#include <stddef.h>
#include <stdint.h>

#define MDL_MAX_THREADS 256

/* A half list split in per-thread segments: thread t owns atoms [atom_begin, atom_end) and their
   neighbors live in seg[t].data[first[i] .. first[i] + count[i]). The first inner[i] of them were
   found without crossing a periodic boundary (no minimum image needed); the rest need it. */
typedef struct {
    int32_t *data;
    size_t len, cap;
    size_t atom_begin, atom_end;
} cpu_nlist_segment;

typedef struct {
    int nseg;
    cpu_nlist_segment seg[MDL_MAX_THREADS];
    uint32_t *first;
    int32_t *count;
    int32_t *inner;
    size_t capacity; /* atoms */
} cpu_nlist;

/* Cell grid over the box: cells at least rcut wide; atoms sorted so cell c holds
   [start[c], start[c+1]). */
typedef struct {
    int nc[3];
    double inv_size[3];
    size_t ncells;
    int32_t *start;   /* ncells + 1 */
    int32_t *cell;    /* per atom (scratch) */
    size_t atom_capacity, cell_capacity;
} cpu_cells;

/* Ghost atoms [nlocal, n) binned into a cpu_cells grid without moving them (their order is the
   exchange's, domain.c): cell k holds ghosts idx[start[k] .. start[k+1]). */
typedef struct {
    int32_t *start, *idx;
    int32_t *key; /* each ghost's cell (scratch) */
    size_t cell_capacity, atom_capacity, key_capacity;
} cpu_ghost_bins;

void nlist_init(cpu_nlist *nl);
void nlist_destroy(cpu_nlist *nl);
void cells_init(cpu_cells *c);
void cells_destroy(cpu_cells *c);
void ghost_bins_destroy(cpu_ghost_bins *g);

/* Bins n atoms (inside the box) into cells >= rcut wide and returns in perm the order that sorts
   them by cell and, within a cell, by id (perm[k] = old index of the k-th atom): an order that
   depends on the positions alone, never on the order before, so that a restart that builds from
   the last build's positions finds the atoms in the order the run had. Fills c->start for it. */
int cells_sort(cpu_cells *c, const mdl_box *box, double rcut, size_t n, const double *x, const double *y,
               const double *z, const int64_t *id, int32_t *perm);

/* Bins ghosts [nlocal, n) into c's cells (after cells_sort over the same box). */
int ghost_bins_fill(cpu_ghost_bins *g, const cpu_cells *c, const mdl_box *box, size_t nlocal, size_t n,
                    const double *x, const double *y, const double *z);

/* Applies perm to an array of n elements of `size` bytes, through scratch (n * size bytes). */
void permute_array(void *a, const int32_t *perm, size_t n, size_t size, void *scratch);

/* Lists of the owned atoms [0, nlocal): j in i's list when |r_ij| < rcut (minimum image on
   periodic dimensions) and j > i, so each pair of owned atoms is listed once and every ghost
   j >= nlocal is in the list of each owned atom near it (the rank that owns j lists the pair
   too: its energy counts half on each side). The cell version needs cells_sort's order of the
   owned atoms and, where there are ghosts, their bins (g; NULL: none); brute force needs neither. */
int nlist_build_cells(cpu_nlist *nl, const cpu_cells *c, const cpu_ghost_bins *g, const mdl_box *box, double rcut,
                      size_t nlocal, const double *x, const double *y, const double *z, int nthreads);
int nlist_build_brute(cpu_nlist *nl, const mdl_box *box, double rcut, size_t nlocal, size_t n, const double *x,
                      const double *y, const double *z, int nthreads);

size_t nlist_pairs(const cpu_nlist *nl);

/* Largest squared displacement since x0 (positions at the last build). */
double max_displacement_sq(size_t n, const double *x, const double *y, const double *z, const double *x0,
                           const double *y0, const double *z0);

#endif
