/* LAMMPS fix langevin's per-atom force, written once for host C and CUDA: a drag -m v / tau and
   a uniform random force of the variance that holds the temperature T. */
#ifndef MDL_PHYSICS_LANGEVIN_H
#define MDL_PHYSICS_LANGEVIN_H

#include "hd.h"
#include "ramp.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>

/* The thermostat's constants and the run's unit factors (LAMMPS's boltz, mvv2e, ftm2v). */
typedef struct {
    mdl_ramp temperature; /* its target over the run (ramp_value) */
    double tau, dt;
    double boltz, mvv2e, ftm2v;
    uint32_t group; /* the atoms it acts on (groups.h's bit) */
} mdl_langevin;

/* The force on an atom of mass m and velocity (vx, vy, vz) at step `step`, from the raw random
   words r of its block (subsequence = atom id, block = step): f = g1 v + g2 (u - 1/2), u = (w + 1) /
   2^32. */
static inline MDL_HD void langevin_force(const mdl_langevin *p, uint64_t step, double m, double vx, double vy,
                                         double vz, const uint32_t r[3], double f[3])
{
    double g1 = -m / p->tau / p->ftm2v;
    double g2 = sqrt(m) * sqrt(24.0 * p->boltz / p->tau / p->dt / p->mvv2e) / p->ftm2v *
                sqrt(ramp_value(&p->temperature, step));
    f[0] = g1 * vx + g2 * (mdl_u01(r[0]) - 0.5);
    f[1] = g1 * vy + g2 * (mdl_u01(r[1]) - 0.5);
    f[2] = g1 * vz + g2 * (mdl_u01(r[2]) - 0.5);
}

#endif
