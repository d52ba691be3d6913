/* LAMMPS's compute orientorder/atom on a snapshot: Steinhardt's bond-orientational order parameters
   Q_l, W_l and W_l hat of each atom's nearest neighbors, every periodic image counted. */
#ifndef MDL_SYSTEM_ORIENTORDER_H
#define MDL_SYSTEM_ORIENTORDER_H

#include "system.h"

#include "../physics/computes.h"

/* Each atom's columns (compute_atom_columns(c) of them, atom i's at out + i * columns; 0 outside the
   compute's group and where it has fewer than nnn neighbors) on frame (atom i of id i); cutoff: the
   compute's, or where 0, pair_cutoff. MDL_OK, or MDL_ERUN without memory. */
int orientorder_atoms(const mdl_compute *c, const mdl_system *frame, double pair_cutoff, double *out);

#endif
