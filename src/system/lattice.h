/* Builds lattices (LAMMPS's lattice and create_atoms box) and the Maxwell-Boltzmann initial velocities. */
#ifndef MDL_LATTICE_H
#define MDL_LATTICE_H

#include "../config/config.h"
#include "../physics/rng.h"
#include "system.h"
#include "../physics/units.h"

/* Atoms that cfg's lattice makes in its box (past MDL_MAX_ATOMS: a count over it), and the box's
   volume. */
size_t lattice_atom_count(const mdl_config *cfg);
double lattice_volume(const mdl_config *cfg);
/* Fills s with cfg's lattice in its box (cells, or box, box_origin, tilt), species by composition. */
int lattice_build(const mdl_config *cfg, mdl_system *s);

/* Maxwell-Boltzmann velocities at temperature T from `draw` (a backend's draw_normals): seeded per atom
   id, zero total momentum, rescaled to exactly T with 3N-3 degrees of freedom. */
int velocities_create(mdl_system *s, const mdl_units *u, double T, unsigned long seed, mdl_normals_fn draw);

/* Kinetic energy sum 1/2 m v^2 (in energy units). */
double kinetic_energy(const mdl_system *s, const mdl_units *u);

#endif
