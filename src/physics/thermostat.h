/* The velocity-scaling thermostats' two entry points, generated from MDL_SCALING (ensembles.h) for
   host C and CUDA: a unit's constants once (thermostat_scaling), its factor at each scaling
   (thermostat_factor). */
#ifndef MDL_PHYSICS_THERMOSTAT_H
#define MDL_PHYSICS_THERMOSTAT_H

#include "ensembles.h"
#include "hd.h"
#include "scaling.h"

#include <stdint.h>

/* The scaling of ensemble `rule` toward `target`: its unit's constants from the timestep, tau and
   seed; `window` (rescale's) and `group` as given. */
static inline mdl_scaling thermostat_scaling(int rule, mdl_ramp target, double dt, double tau, uint64_t seed,
                                             double window, uint32_t group)
{
    mdl_scaling s = {rule, target, 1.0, 0.0, 0, window, group, 7}; /* every velocity component */
    switch (rule) {
#define MDL_SCALING_SETUP(ID, unit) \
    case MDL_##ID:                  \
        unit##_setup(&s, dt, tau, seed); \
        break;
        MDL_SCALING(MDL_SCALING_SETUP)
#undef MDL_SCALING_SETUP
    default:
        break;
    }
    return s;
}

/* Its factor at temperature T over dof degrees of freedom, at the end of step `step` (1: no such rule). */
static inline MDL_HD double thermostat_factor(const mdl_scaling *s, double T, double dof, uint64_t step)
{
    switch (s->rule) {
#define MDL_SCALING_FACTOR(ID, unit) \
    case MDL_##ID:                   \
        return unit##_factor(s, T, dof, step);
        MDL_SCALING(MDL_SCALING_FACTOR)
#undef MDL_SCALING_FACTOR
    default:
        return 1.0;
    }
}

#endif
