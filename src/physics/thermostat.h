/* Velocity-scaling thermostats written once for host C and CUDA: the factor that moves the
   temperature T toward T0 (velocity rescaling: straight there; Berendsen: by dt / tau of the way). */
#ifndef MDL_PHYSICS_THERMOSTAT_H
#define MDL_PHYSICS_THERMOSTAT_H

#include "hd.h"

#include <math.h>

/* Coupling 1 rescales to T0 exactly; 0 < coupling < 1 is Berendsen's dt / tau; T <= 0: factor 1. */
static inline MDL_HD double thermostat_scale(double T, double T0, double coupling)
{
    if (!(T > 0))
        return 1.0;
    return coupling == 1.0 ? sqrt(T0 / T) : sqrt(1.0 + coupling * (T0 / T - 1.0));
}

#endif
