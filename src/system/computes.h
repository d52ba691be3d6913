/* LAMMPS's thermo computes (physics/computes.h) evaluated on a snapshot of the whole system. */
#ifndef MDL_SYSTEM_COMPUTES_H
#define MDL_SYSTEM_COMPUTES_H

#include "system.h"

#include "../physics/computes.h"
#include "../physics/units.h"

/* Each compute's values on frame (every atom, atom i of id i, the box it is in, its groups by id; energy
   its atoms' potential energies where a pe/atom is read, else NULL):
   out[j][0] compute j's scalar, out[j][k] its vector's element k. pe's is the observables' (thermo
   reads it there): 0 here. pair_cutoff: orientorder/atom's cutoff where it gives none. MDL_OK, or
   MDL_ERUN without memory. */
int computes_evaluate(const mdl_computes *cs, const mdl_system *frame, const double *energy, const mdl_units *u,
                      double pair_cutoff, double out[][MDL_COMPUTE_VALUES]);
/* Whether a reduce reads compute j's per-atom values (a pe/atom's: energy, each atom's potential
   energy by id, the backend's atom_energies, must be given). */
int computes_read_by_reduce(const mdl_computes *cs, int j);

#endif
