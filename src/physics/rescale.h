/* Velocity rescaling (LAMMPS's fix temp/rescale) and Berendsen's weak coupling (fix temp/berendsen),
   written once for host C and CUDA: the factor that moves the temperature T to T0 (rescale: straight
   there, outside its window) or dt / tau of the way (Berendsen). */
#ifndef MDL_PHYSICS_RESCALE_H
#define MDL_PHYSICS_RESCALE_H

#include "hd.h"
#include "scaling.h"

#include <math.h>

static inline void rescale_setup(mdl_scaling *s, double dt, double tau, uint64_t seed)
{
    (void)dt, (void)tau, (void)seed;
    s->coupling = 1.0;
}

static inline MDL_HD double rescale_factor(const mdl_scaling *s, double T, double dof, uint64_t step)
{
    (void)dof;
    const double target = ramp_value(&s->target, step);
    if (!(T > 0) || (s->window > 0 && fabs(T - target) <= s->window))
        return 1.0;
    return sqrt(target / T);
}

static inline void berendsen_setup(mdl_scaling *s, double dt, double tau, uint64_t seed)
{
    (void)seed;
    s->coupling = dt / tau;
}

static inline MDL_HD double berendsen_factor(const mdl_scaling *s, double T, double dof, uint64_t step)
{
    (void)dof;
    if (!(T > 0))
        return 1.0;
    const double target = ramp_value(&s->target, step);
    return s->coupling == 1.0 ? sqrt(target / T) : sqrt(1.0 + s->coupling * (target / T - 1.0));
}

#endif
