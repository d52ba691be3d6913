/* Velocity-scaling thermostats written once for host C and CUDA: the factor that moves the
   temperature T toward T0 (velocity rescaling: straight there; Berendsen: by dt / tau of the way;
   csvr: a canonical resampling, csvr.h). */
#ifndef MDL_PHYSICS_THERMOSTAT_H
#define MDL_PHYSICS_THERMOSTAT_H

#include "csvr.h"
#include "hd.h"

#include <math.h>
#include <stdint.h>

/* Coupling 1 rescales to T0 exactly; 0 < coupling < 1 is Berendsen's dt / tau; T <= 0: factor 1. */
static inline MDL_HD double thermostat_scale(double T, double T0, double coupling)
{
    if (!(T > 0))
        return 1.0;
    return coupling == 1.0 ? sqrt(T0 / T) : sqrt(1.0 + coupling * (T0 / T - 1.0));
}

/* A velocity-scaling thermostat: rescale and Berendsen (thermostat_scale's target and coupling),
   or Bussi's stochastic rescaling (csvr: c1 = exp(-dt / tau), its stream's key). */
typedef struct {
    double target, coupling;
    int csvr;
    double c1;
    uint64_t key;
    double window;   /* rescale: no scaling while |T - target| <= window (LAMMPS's temp/rescale window) */
    uint32_t group;  /* the group whose temperature is measured and whose atoms are scaled (groups.h's bit) */
} mdl_scaling;

/* Its factor at temperature T over dof degrees of freedom, at the end of step `step`. */
static inline MDL_HD double thermostat_factor(const mdl_scaling *s, double T, double dof, uint64_t step)
{
    if (!s->csvr && s->window > 0 && fabs(T - s->target) <= s->window)
        return 1.0;
    return s->csvr ? csvr_factor(T, s->target, s->c1, dof, s->key, step) : thermostat_scale(T, s->target, s->coupling);
}

#endif
