/* Spatial decomposition: a 3-d grid of bricks, one per rank; the atoms a rank owns, the ghost
   copies it holds of atoms within the ghost cutoff of its faces (periodic images included), and
   the staged exchanges (x, then y, then z) that move them, so edges and corners need no messages
   of their own. A dimension has ghosts where it is decomposed or, with `images` (the CPU), where
   the box is shorter than twice the ghost cutoff along it: bricks shorter than the ghost cutoff
   then pass their ghosts on in several hops, as LAMMPS's multiple swaps, so every periodic image
   within the cutoff is there however small the box. Other dimensions keep the minimum image. */
#ifndef MDL_DOMAIN_H
#define MDL_DOMAIN_H

#include "../system/system.h"

/* One exchange of a sweep: along dim, to the neighbor below (dir 0) or above (dir 1). */
typedef struct {
    int dim, dir, to, from;
    double shift;       /* added to the coordinate along dim of what is sent (a periodic face) */
    size_t *send;       /* indices of the atoms sent */
    size_t nsend, send_cap;
    size_t first, nrecv; /* the ghosts received: [first, first + nrecv) */
} mdl_swap;

typedef struct {
    int grid[3], coord[3], rank, size;
    int below[3], above[3]; /* neighbor ranks along each dimension */
    double lo[3], hi[3];    /* this rank's brick */
    double rghost;          /* the ghost cutoff: list cutoff (largest cutoff + skin) */
    mdl_box box;            /* the whole box */
    int images;             /* ghosts of any box (1: the CPU) or only on decomposed axes (0: the GPU) */
    int ghosted[3];         /* the axes with ghosts (no minimum image), as of the last plan */
    int hops[3];            /* exchanges each way along them: ceil(rghost / brick) */
    mdl_swap *swap;         /* down, up per hop per ghosted axis; nswap of them */
    int nswap, swap_cap;
    size_t nlocal;          /* atoms owned: [0, nlocal); ghosts: [nlocal, s->n) */
    double *buf_out, *buf_in; /* message buffers (doubles; ids and types travel as doubles) */
    size_t buf_cap;
} mdl_domain;

/* The grid for nranks bricks in box b: of the factorisations px * py * pz = nranks whose bricks
   fit (decomposed axes periodic and, without images, at least rghost long), the one with the fewest ghosts (the
   volume of the rghost shell on decomposed faces, edges and corners). Axes left whole need no
   exchange stage: on 4 GPUs a cube's 1 x 1 x 4 ran 6-10% faster than the 1 x 2 x 2 that the least
   brick surface (LAMMPS's rule) picks (docs/PERFORMANCE.md). */
void domain_choose_grid(const mdl_box *b, int nranks, double rghost, int images, int grid[3]);
/* Why the bricks of `grid` along axis d do not fit box b (decomposed: periodic and, without
   images, at least rghost long), or NULL where they do. */
const char *domain_axis_unfit(const mdl_box *b, const int grid[3], int d, double rghost, int images);
/* This rank's brick in `grid` (product = comm_size()); checks that every decomposed axis fits
   (else a message naming the dimension, MDL_EINPUT). */
int domain_init(mdl_domain *dm, const mdl_box *b, const int grid[3], double rghost, int images);
void domain_destroy(mdl_domain *dm);
/* A barostat's new box: the bricks scale with it (the ghosts' periodic shifts too; the send lists
   stay until the next build, which plans the axes and hops for the box it finds). Returns why the
   bricks no longer fit (without images: one shorter than the ghost cutoff), or NULL. */
const char *domain_set_box(mdl_domain *dm, const mdl_box *b);
/* The neighbor lists' box and its cell grid (cells at least rcut wide, widened as cell_grid_dims
   widens them): along decomposed dimensions (open: their ghosts are the images) whole
   cells tile the brick and whole cells beyond its faces cover the ghost cutoff, so that no cell
   holds a thin slice of the brick (on the GPU, each atom of such a slice cost its warp a pass of
   its own), or, for a brick narrower than a cell, cells over the brick and its ghosts; the whole
   box on the others. Returns the number of cells. */
size_t domain_cell_grid(const mdl_domain *dm, double rcut, size_t natoms, mdl_box *region, int nc[3]);
/* Whether box b on one rank has ghosts along some axis (a periodic one shorter than twice rghost,
   or a triclinic box): the minimum image alone would miss pairs there. */
int domain_box_ghosted(const mdl_box *b, double rghost);
/* The ghost cutoff along d in the bricks' units (box_along: a triclinic box's slab between tilted
   faces spans more of its edge than it is thick). */
double domain_ghost_reach(const mdl_domain *dm, int d);
/* What swap w adds to the positions it sends: 0, or across a periodic face its edge vector (the
   box's length along an orthogonal one), signed. */
void domain_swap_shift(const mdl_domain *dm, const mdl_swap *w, double v[3]);
/* The rank owning position (x, y, z) (inside the box). */
int domain_owner(const mdl_domain *dm, const double p[3]);

/* The hops of the ghosted axes planned again for the box as it is, the axes kept (the GPU's
   region and minimum image follow the axes chosen at the start). */
int domain_replan_hops(mdl_domain *dm);
/* Keeps from the whole system `all` (the same on every rank) the atoms in this rank's brick, in
   `all`'s order, into s (ghosts none yet): by their positions, or by place (3 per atom, in all's
   order) where given. */
int domain_take_owned(mdl_domain *dm, const mdl_system *all, const double *place, mdl_system *s);
/* At a rebuild: drops the ghosts, wraps owned atoms into the box (image counters follow), sends
   those that left the brick towards the brick they are in (whole state: id, species, position,
   velocity, force, images), dimension by dimension, hop by hop until every atom is home; then
   plans the ghosted axes and their hops for the box as it is. */
int domain_migrate(mdl_domain *dm, mdl_system *s);
/* At a rebuild, after domain_migrate: the ghost atoms (id, species, position), appended after the
   owned atoms; the send lists are kept for domain_forward. */
int domain_build_ghosts(mdl_domain *dm, mdl_system *s);
/* Every step between rebuilds: the ghosts' positions from their owners, through the same lists. */
int domain_forward(mdl_domain *dm, mdl_system *s);
/* A per-atom value (v[0, s->n)) from the owners to their ghosts, through the same lists (EAM's
   embedding slopes). */
int domain_forward_values(mdl_domain *dm, double *v);

#endif
