/* Builds the initial system for a run from the configuration: lattice or coordinate file,
   masses, velocities, and the checks that make a run well-posed. */
#ifndef MDL_SETUP_H
#define MDL_SETUP_H

#include "../config/config.h"
#include "../physics/rng.h"
#include "potential.h"
#include "system.h"
#include "../physics/units.h"

int system_setup(const mdl_config *cfg, const mdl_units *u, mdl_system *s, mdl_normals_fn draw);
/* The species' masses: an EAM style's from its files (given ones that differ refused), else
   [system] mass.X, then mass for those still without one (s->has_masses: s's own kept). */
int system_assign_masses(const mdl_config *cfg, mdl_system *s);


#endif
