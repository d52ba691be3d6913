/* CPU velocity Verlet and thermostats (velocity rescaling, Berendsen, Langevin), OpenMP loops. */
#ifndef MDL_CPU_INTEGRATE_H
#define MDL_CPU_INTEGRATE_H

#include <stddef.h>
#include <stdint.h>

#include "../physics/groups.h"
#include "../physics/langevin.h"
#include "../physics/nose_hoover.h"

/* v += dtf f / m (dtf = dt/2 * ftm2v); with drift, then x += dt v. */
void integrate_kick(size_t n, double dtf, const double *inv_mass_of_type, const int32_t *type, double *vx,
                    double *vy, double *vz, const double *fx, const double *fy, const double *fz);
void integrate_drift(size_t n, double dt, double *x, double *y, double *z, const double *vx, const double *vy,
                     const double *vz);

/* sum m v^2 over atoms (not halved, no unit factor), fixed-order partial sums per thread. */
double sum_mv2(size_t n, const double *mass_of_type, const int32_t *type, const double *vx, const double *vy,
               const double *vz, int nthreads);

void scale_velocities(size_t n, double factor, double *vx, double *vy, double *vz);
/* Each coordinate x moved from box edge [lo, lo + len) to the same fraction of [lo2, lo2 + len2)
   (a barostat's dilation). */
void remap_coordinates(size_t n, double *x, double lo, double len, double lo2, double len2);

/* LAMMPS fix langevin's force (physics/langevin.h) added to every atom's, the noise from the
   counter-based stream at (seed, atom id, step), so results do not depend on threads. */
void langevin_forces(size_t n, const double *mass_of_type, const int32_t *type, const int64_t *id,
                     const uint32_t *groups, const double *vx, const double *vy, const double *vz, double *fx, double *fy, double *fz,
                     const mdl_langevin *p, uint64_t seed, uint64_t step);

/* The CPU backend's draw of the initial velocities' normal deviates (physics/rng.h's
   mdl_normals_fn): cuRAND's stream computed on the host. */
int cpu_velocity_normals(uint64_t key, size_t n, const int64_t *id, double *out);

#endif
