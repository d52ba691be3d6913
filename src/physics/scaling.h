/* The constants of a velocity-scaling thermostat (the units listed in MDL_SCALING, ensembles.h),
   shared by host C and CUDA: what the core sets once and each backend's scaling op reads. */
#ifndef MDL_PHYSICS_SCALING_H
#define MDL_PHYSICS_SCALING_H

#include "ramp.h"

#include <stdint.h>

typedef struct {
    int rule;        /* the ensemble (ensembles.h's MDL_* id) whose factor scales the velocities */
    mdl_ramp target; /* its temperature over the run (ramp_value) */
    double coupling; /* berendsen: dt / tau */
    double c1;       /* csvr: exp(-dt / tau) */
    uint64_t key;    /* csvr: its stream's key (seed and stream) */
    double window;   /* rescale: no scaling while |T - target| <= window (LAMMPS's temp/rescale window) */
    uint32_t group;  /* the group whose temperature is measured and whose atoms are scaled (groups.h's bit) */
    int components;  /* the velocity components measured and scaled (bits 1 x, 2 y, 4 z; 7 all: LAMMPS's
                        temp/partial as the fix's bias, the others left as they are) */
} mdl_scaling;

#endif
