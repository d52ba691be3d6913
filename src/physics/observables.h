/* The thermodynamic observables (kinetic and potential energy, virial, temperature, pressure),
   computed from the backends' sums by one formula, as LAMMPS has them. */
#ifndef MDL_PHYSICS_OBSERVABLES_H
#define MDL_PHYSICS_OBSERVABLES_H

#include "units.h"

#include <stddef.h>

/* Totals (not per atom) in the run's energy units; virial W = sum over pairs r_ij . f_ij; the
   box's volume; ecouple, the energy a thermostat holds (LAMMPS's: Nose-Hoover's chain, set by the
   core; 0 otherwise). */
typedef struct {
    double kinetic, potential, virial;
    double temperature, pressure;
    double volume, ecouple;
} mdl_observables;

/* Temperature with 3N-3 degrees of freedom, and pressure P = (2 KE + W) / (3 V). */
static inline double mdl_temperature(double kinetic, size_t n, const mdl_units *u)
{
    double dof = 3.0 * (double)n - 3.0;
    return dof > 0 ? 2.0 * kinetic / (dof * u->boltz) : 0.0;
}

static inline void mdl_finish_observables(mdl_observables *o, size_t n, double volume, const mdl_units *u)
{
    o->temperature = mdl_temperature(o->kinetic, n, u);
    o->pressure = (2.0 * o->kinetic + o->virial) / (3.0 * volume) * u->nktv2p;
    o->volume = volume;
}

#endif
