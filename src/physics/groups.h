/* Groups of atoms as bit masks (LAMMPS's group command: bit 0 is `all`), and the fixes that set or add
   to the forces of a group's atoms (setforce, addforce, aveforce, indent, the walls wall/lj93, wall/lj126
   and wall/harmonic, viscous), written once for host C and CUDA. */
#ifndef MDL_PHYSICS_GROUPS_H
#define MDL_PHYSICS_GROUPS_H

#include "box.h"
#include "hd.h"
#include "species.h"

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

enum { MDL_FIX_SETFORCE, MDL_FIX_ADDFORCE, MDL_FIX_AVEFORCE, MDL_FIX_INDENT, MDL_FIX_WALL, MDL_FIX_VISCOUS };
enum { MDL_WALL_LJ93, MDL_WALL_LJ126, MDL_WALL_HARMONIC };
enum { MDL_INDENT_SPHERE, MDL_INDENT_CYLINDER, MDL_INDENT_PLANE };
#define MDL_MAX_FORCE_FIXES 16

/* One fix: its style, its group's bit, and per component whether it acts (LAMMPS's NULL: no) and
   its value; an indenter's shape (a sphere at centre, a cylinder along axis through the centre's
   other two coordinates, a plane normal to axis at centre[axis] pushing from below (plane_side -1,
   LAMMPS's lo) or above (+1)), its force constant k and radius, whether atoms are kept inside it
   (LAMMPS's side in) and whether its energy counts in the potential energy (fix_modify energy yes).
   A wall: its potential (wall), the face it stands for (axis, plane_side -1 lo or +1 hi) at
   centre[axis] or at the box's face (edge), its epsilon as k, its cutoff and LAMMPS's coefficients.
   viscous: its gamma as k, times type_scale of the atom's type (LAMMPS's scale keyword; 1 unless given). */
typedef struct {
    int style;
    uint32_t group;
    int acts[3];
    double value[3];
    int shape, axis, inside, plane_side, energy;
    double k, centre[3], radius;
    double move[3]; /* indent: its centre's move per step, the centre at the run's step s centre + s move
                       (LAMMPS's indenter at v_NAME coordinates linear in step) */
    int wall, edge;
    double cutoff, coeff[4], offset;
    double type_scale[MDL_MAX_SPECIES];
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

/* viscous on one atom of type t with velocity v: LAMMPS's drag -gamma v added to force. */
static inline MDL_HD void viscous_atom(const mdl_force_fix *f, int t, const double v[3], double force[3])
{
    const double drag = f->k * f->type_scale[t];
    for (int d = 0; d < 3; d++)
        force[d] -= drag * v[d];
}

/* A wall's coefficients from its epsilon (k), sigma and cutoff, as LAMMPS's precompute: lj93
   E = 2/15 e s^9 / r^9 - e s^3 / r^3, lj126 4 e (s^12 / r^12 - s^6 / r^6), each less its value at the
   cutoff; harmonic e (rc - r)^2. */
static inline void wall_coefficients(mdl_force_fix *f, double sigma)
{
    const double e = f->k, rc = f->cutoff;
    if (f->wall == MDL_WALL_LJ93) {
        f->coeff[0] = 6.0 / 5.0 * e * pow(sigma, 9.0), f->coeff[1] = 3.0 * e * pow(sigma, 3.0);
        f->coeff[2] = 2.0 / 15.0 * e * pow(sigma, 9.0), f->coeff[3] = e * pow(sigma, 3.0);
        const double rinv = 1.0 / rc, r2inv = rinv * rinv, r4inv = r2inv * r2inv;
        f->offset = f->coeff[2] * r4inv * r4inv * rinv - f->coeff[3] * r2inv * rinv;
    } else if (f->wall == MDL_WALL_LJ126) {
        const double s2 = sigma * sigma, s4 = s2 * s2, s6 = s2 * s4, s12 = s4 * (s4 * s4);
        f->coeff[0] = 48.0 * e * s12, f->coeff[1] = 24.0 * e * s6, f->coeff[2] = 4.0 * e * s12, f->coeff[3] = 4.0 * e * s6;
        const double r2inv = 1.0 / (rc * rc), r6inv = r2inv * r2inv * r2inv;
        f->offset = r6inv * (f->coeff[2] * r6inv - f->coeff[3]);
    }
}

/* A wall on one atom at p in box b: its force added to force[axis], its energy returned (0 beyond
   the cutoff); *behind set where the atom is on the wall or past it (LAMMPS's error). */
static inline MDL_HD double wall_atom(const mdl_force_fix *f, const double p[3], const mdl_box *b, double force[3],
                                      int *behind)
{
    const int d = f->axis;
    const double coord = !f->edge ? f->centre[d] : f->plane_side < 0 ? b->lo[d] : b->lo[d] + b->len[d];
    const double delta = f->plane_side < 0 ? p[d] - coord : coord - p[d];
    if (delta >= f->cutoff)
        return 0.0;
    if (delta <= 0.0) {
        *behind = 1;
        return 0.0;
    }
    double fwall, e;
    if (f->wall == MDL_WALL_LJ93) {
        const double rinv = 1.0 / delta, r2inv = rinv * rinv, r4inv = r2inv * r2inv, r10inv = r4inv * r4inv * r2inv;
        fwall = f->plane_side * (f->coeff[0] * r10inv - f->coeff[1] * r4inv);
        e = f->coeff[2] * r4inv * r4inv * rinv - f->coeff[3] * r2inv * rinv - f->offset;
    } else if (f->wall == MDL_WALL_LJ126) {
        const double rinv = 1.0 / delta, r2inv = rinv * rinv, r6inv = r2inv * r2inv * r2inv;
        fwall = f->plane_side * r6inv * (f->coeff[0] * r6inv - f->coeff[1]) * rinv;
        e = r6inv * (f->coeff[2] * r6inv - f->coeff[3]) - f->offset;
    } else {
        const double dr = f->cutoff - delta;
        fwall = f->plane_side * 2.0 * f->k * dr;
        e = f->k * dr * dr;
    }
    force[d] -= fwall;
    return e;
}

#endif
