/* When the neighbor lists are tested or rebuilt, written once for host C and CUDA: LAMMPS's
   neigh_modify every N delay D check yes|no. */
#ifndef MDL_PHYSICS_REBUILD_H
#define MDL_PHYSICS_REBUILD_H

#include "hd.h"

/* `since` steps after the last build: the skin test is made (or, without the distance check,
   the lists are rebuilt) when since >= delay and since is a multiple of every (LAMMPS's decide). */
static inline MDL_HD int rebuild_due(int since, int every, int delay)
{
    return since >= delay && since % every == 0;
}

/* A rebuild the skin test asked for `since` steps after the last build is dangerous on the first
   step a build was allowed, max(every, delay) (LAMMPS's count: pairs may have been missed). */
static inline MDL_HD int rebuild_dangerous(int since, int every, int delay)
{
    return since == (every > delay ? every : delay);
}

#endif
