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
/* The same on a group's atoms (the others keep theirs; loop all still draws for every id, loop geom
   for the group's atoms alone), its momentum zeroed and the result scaled to T as measured on the
   temperature group (LAMMPS's `temp` keyword; by default the same group), of its velocity components
   temp_components (bits 1 x, 2 y, 4 z; 7 all: LAMMPS's compute temp/partial, velocity's bias no). */
int velocities_lammps_group(mdl_system *s, const mdl_units *u, double T, int seed, int loop, int gaussian,
                            uint32_t group, uint32_t temp_group, int temp_components);
/* LAMMPS's compute temp on a group: dim N - dim degrees of freedom (0 where there are none); of some
   components (compute temp/partial): nper N - nper. */
double velocities_temperature(const mdl_system *s, const mdl_units *u, uint32_t group, int components);
/* velocity scale: the group's velocities scaled so that the temperature group's temperature is T. Both
   return -1, the velocities as they were, where that temperature is 0 (no atom moves, or no degree of
   freedom: LAMMPS's "attempting to rescale a 0.0 temperature"). */
int velocities_scale(mdl_system *s, const mdl_units *u, double T, uint32_t group, uint32_t temp_group,
                     int temp_components);
/* velocity set: each component that acts set to v (sum: v added); velocity ramp: component vdim
   from vlo to vhi as coordinate cdim goes from clo to chi (held at the ends), set or added. */
void velocities_set(mdl_system *s, uint32_t group, const int acts[3], const double v[3], int sum);
void velocities_ramp(mdl_system *s, uint32_t group, int vdim, double vlo, double vhi, int cdim, double clo, double chi,
                     int sum);

#endif
