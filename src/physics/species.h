/* Species limits: how many a run may have (fixed, so that per-pair tables fit in GPU constant
   memory) and how long their names may be. */
#ifndef MDL_PHYSICS_SPECIES_H
#define MDL_PHYSICS_SPECIES_H

#define MDL_MAX_SPECIES 8
#define MDL_NAME_LEN 16

#endif
