/* LAMMPS's `velocity create`: its Park-Miller generator (RanPark), loop all / loop geom, uniform or
   Gaussian, zero momentum, rescaled to T with dim N - dim degrees of freedom (vz 0 in 2-d), in LAMMPS's order. */
#ifndef MDL_LAMMPS_VELOCITY_H
#define MDL_LAMMPS_VELOCITY_H

#include "system.h"
#include "../physics/units.h"

/* LAMMPS's RanPark: the minimal standard generator, and its Gaussian pairs. */
typedef struct {
    int seed;
    int save;
    double second;
} mdl_ranpark;

void ranpark_init(mdl_ranpark *r, int seed);
double ranpark_uniform(mdl_ranpark *r);
double ranpark_gaussian(mdl_ranpark *r);
/* The stream for one atom (loop geom): Jenkins's one-at-a-time hash of the seed's and the
   coordinates' bytes (as x86's signed chars), 27 bits kept, five draws of warm-up. */
void ranpark_reset_coord(mdl_ranpark *r, int seed, const double coord[3]);

enum { MDL_VEL_LOOP_ALL, MDL_VEL_LOOP_GEOM };

/* s's velocities as LAMMPS's `velocity all create T seed dist D loop L` (mom yes rot no) gives
   them: loop all draws one stream in id order (atom index = id), loop geom one stream per atom
   from its position. seed is 1 .. 2^31 - 1. */
void velocities_lammps(mdl_system *s, const mdl_units *u, double T, int seed, int loop, int gaussian);

#endif
