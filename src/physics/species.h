/* How many species a run may have: fixed, so that per-pair tables fit in GPU constant memory. */
#ifndef MDL_PHYSICS_SPECIES_H
#define MDL_PHYSICS_SPECIES_H

#define MDL_MAX_SPECIES 8

#endif
