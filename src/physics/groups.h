/* Groups of atoms as bit masks (LAMMPS's group command: bit 0 is `all`), and the fixes that set or add
   to the forces of a group's atoms (setforce, addforce, aveforce), written once for host C and CUDA. */
#ifndef MDL_PHYSICS_GROUPS_H
#define MDL_PHYSICS_GROUPS_H

#include "hd.h"

#include <stddef.h>
#include <stdint.h>

#define MDL_MAX_GROUPS 32 /* `all` and 31 named ones (LAMMPS's limit is 32 too) */
#define MDL_GROUP_ALL 1u
#define MDL_GROUP_NAME_LEN 32

/* Whether the atom whose groups are `mask` (a by-id table's entry; NULL table: every atom is in
   `all` alone) belongs to the group `bit`. */
static inline MDL_HD int group_has(const uint32_t *groups, int64_t id, uint32_t bit)
{
    return bit == MDL_GROUP_ALL || (groups && (groups[id] & bit));
}

enum { MDL_FIX_SETFORCE, MDL_FIX_ADDFORCE, MDL_FIX_AVEFORCE };
#define MDL_MAX_FORCE_FIXES 16

/* One fix: its style, its group's bit, and per component whether it acts (LAMMPS's NULL: no) and
   its value. */
typedef struct {
    int style;
    uint32_t group;
    int acts[3];
    double value[3];
} mdl_force_fix;

/* The fixes in force, applied in this order after the thermostat's force (LAMMPS's post_force). */
typedef struct {
    int n;
    mdl_force_fix fix[MDL_MAX_FORCE_FIXES];
} mdl_force_fixes;

/* The fix on one atom of its group: setforce sets the components, addforce adds to them, aveforce
   sets them to mean (the group's mean force, LAMMPS's foriginal / count) plus the value. */
static inline MDL_HD void force_fix_atom(const mdl_force_fix *f, const double mean[3], double force[3])
{
    for (int d = 0; d < 3; d++)
        if (f->acts[d])
            force[d] = f->style == MDL_FIX_SETFORCE   ? f->value[d]
                       : f->style == MDL_FIX_ADDFORCE ? force[d] + f->value[d]
                                                      : mean[d] + f->value[d];
}

#endif
