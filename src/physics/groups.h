/* Groups of atoms as bit masks (LAMMPS's group command: bit 0 is `all`), and the fixes that set or add
   to the forces of a group's atoms (setforce, addforce, aveforce, indent), written once for host C and
   CUDA. */
#ifndef MDL_PHYSICS_GROUPS_H
#define MDL_PHYSICS_GROUPS_H

#include "box.h"
#include "hd.h"

#include <math.h>
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

enum { MDL_FIX_SETFORCE, MDL_FIX_ADDFORCE, MDL_FIX_AVEFORCE, MDL_FIX_INDENT };
enum { MDL_INDENT_SPHERE, MDL_INDENT_CYLINDER, MDL_INDENT_PLANE };
#define MDL_MAX_FORCE_FIXES 16

/* One fix: its style, its group's bit, and per component whether it acts (LAMMPS's NULL: no) and
   its value; an indenter's shape (a sphere at centre, a cylinder along axis through the centre's
   other two coordinates, a plane normal to axis at centre[axis] pushing from below (plane_side -1,
   LAMMPS's lo) or above (+1)), its force constant k and radius, whether atoms are kept inside it
   (LAMMPS's side in) and whether its energy counts in the potential energy (fix_modify energy yes). */
typedef struct {
    int style;
    uint32_t group;
    int acts[3];
    double value[3];
    int shape, axis, inside, plane_side, energy;
    double k, centre[3], radius;
    double move[3]; /* indent: its centre's move per step, the centre at the run's step s centre + s move
                       (LAMMPS's indenter at v_NAME coordinates linear in step) */
} mdl_force_fix;

/* The fixes in force, applied in this order after the thermostat's force (LAMMPS's post_force). */
typedef struct {
    int n;
    int moving; /* an indenter moves (force_fixes_at gives the fixes of a step) */
    mdl_force_fix fix[MDL_MAX_FORCE_FIXES];
} mdl_force_fixes;

/* The fixes as they stand at the run's step `step`: each moving indenter's centre there. */
static inline mdl_force_fixes force_fixes_at(const mdl_force_fixes *ff, long step)
{
    mdl_force_fixes now = *ff;
    for (int k = 0; k < now.n && now.moving; k++)
        for (int d = 0; d < 3; d++)
            now.fix[k].centre[d] += (double)step * now.fix[k].move[d];
    return now;
}

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

/* LAMMPS's fix indent on one atom at p in box b (the separation from the centre its minimum image
   along periodic dimensions): its force added to force, its energy k/3 (R - r)^3 returned (0 out of
   its reach). */
static inline MDL_HD double indent_atom(const mdl_force_fix *f, const double p[3], const mdl_box *b, double force[3])
{
    double del[3], dr;
    if (f->shape == MDL_INDENT_PLANE) {
        dr = f->plane_side * (f->centre[f->axis] - p[f->axis]);
        if (dr >= 0.0)
            return 0.0;
        force[f->axis] += -f->plane_side * f->k * dr * dr;
        return -f->k / 3.0 * dr * dr * dr;
    }
    for (int d = 0; d < 3; d++)
        del[d] = f->shape == MDL_INDENT_CYLINDER && d == f->axis ? 0.0 : p[d] - f->centre[d];
    if (box_is_triclinic(b))
        box_min_image_triclinic(b, del);
    for (int d = 0; d < 3 && !box_is_triclinic(b); d++)
        if (b->periodic[d])
            del[d] -= b->len[d] * rint(del[d] / b->len[d]);
    const double r = sqrt(del[0] * del[0] + del[1] * del[1] + del[2] * del[2]);
    dr = f->inside ? f->radius - r : r - f->radius;
    if (dr >= 0.0)
        return 0.0;
    const double fmag = f->inside ? -f->k * dr * dr : f->k * dr * dr;
    for (int d = 0; d < 3; d++)
        force[d] += del[d] * fmag / r;
    return -f->k / 3.0 * dr * dr * dr;
}

#endif
