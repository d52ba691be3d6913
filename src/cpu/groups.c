/* The CPU's groups: the fixes on a group's forces (setforce, addforce, aveforce with its mean over
   all ranks, indent with its energy, the walls, viscous) and a group's kinetic energy and atom count, for the
   thermostats and thermo's temperature on a group. Sums run in the owned atoms' order, then over ranks
   in rank order. */
#include "context.h"

#include "../parallel/comm.h"
#include "../physics/boundary.h"

#include <stdlib.h>
#include <string.h>

int cpu_group_kinetic(cpu_ctx *c, uint32_t group, int components, double *kinetic, double *count)
{
    const mdl_system *s = &c->s;
    double sums[2] = {0, 0};
    const double cx = components & 1, cy = (components >> 1) & 1, cz = (components >> 2) & 1;
    for (size_t i = 0; i < c->dm.nlocal; i++)
        if (group_has(c->groups, s->id[i], group)) { /* LAMMPS's temp/partial: flag * v * v, flags 0 or 1 */
            sums[0] += s->mass[s->type[i]] * (cx * s->vx[i] * s->vx[i] + cy * s->vy[i] * s->vy[i] + cz * s->vz[i] * s->vz[i]);
            sums[1] += 1;
        }
    MDL_TRY(comm_sum_doubles(sums, 2));
    *kinetic = 0.5 * c->u.mvv2e * sums[0], *count = sums[1];
    return MDL_OK;
}

/* aveforce: the group's mean force over all ranks (LAMMPS's foriginal / count; none: no atoms). */
static int group_mean_force(cpu_ctx *c, uint32_t group, double mean[3], int *none)
{
    const mdl_system *s = &c->s;
    double sums[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < c->dm.nlocal; i++)
        if (group_has(c->groups, s->id[i], group))
            sums[0] += s->fx[i], sums[1] += s->fy[i], sums[2] += s->fz[i], sums[3] += 1;
    MDL_TRY(comm_sum_doubles(sums, 4));
    *none = sums[3] == 0;
    for (int d = 0; d < 3; d++)
        mean[d] = *none ? 0.0 : sums[d] / sums[3];
    return MDL_OK;
}

/* indent: its force on the group's atoms; its energy, where it counts, into c->fix_energy; its energy
   and the force on it (minus the atoms') into out. */
static void indent_forces(cpu_ctx *c, const mdl_force_fix *f, double out[4])
{
    mdl_system *s = &c->s;
    double e = 0;
    for (size_t i = 0; i < c->dm.nlocal; i++)
        if (group_has(c->groups, s->id[i], f->group)) {
            const double x[3] = {s->x[i], s->y[i], s->z[i]};
            double add[3] = {0, 0, 0}; /* its force alone: the same sum whatever the force it adds to */
            e += indent_atom(f, x, &s->box, add);
            out[1] -= add[0], out[2] -= add[1], out[3] -= add[2];
            s->fx[i] += add[0], s->fy[i] += add[1], s->fz[i] += add[2];
        }
    out[0] = e;
    c->fix_energy += f->energy ? e : 0.0;
}

/* A wall: its force on the group's atoms, its energy where it counts, its energy and the force on it
   (LAMMPS's signed sum) into out; the first atom on the wall or past it into behind (its id + 1 and
   its face), for cpu_force_fixes to stop every rank on (LAMMPS's "particle on or inside fix wall surface"). */
static void wall_forces(cpu_ctx *c, const mdl_force_fix *f, double out[4], double behind[2])
{
    mdl_system *s = &c->s;
    double e = 0;
    for (size_t i = 0; i < c->dm.nlocal; i++)
        if (group_has(c->groups, s->id[i], f->group)) {
            const double x[3] = {s->x[i], s->y[i], s->z[i]};
            double add[3] = {0, 0, 0}; /* its force alone (-fwall along its axis) */
            int past = 0;
            e += wall_atom(f, x, &s->box, add, &past);
            out[1] -= add[f->axis]; /* LAMMPS's fwall: what the atom's force lost */
            s->fx[i] += add[0], s->fy[i] += add[1], s->fz[i] += add[2];
            if (past && !behind[0])
                behind[0] = (double)s->id[i] + 1, behind[1] = 2 * f->axis + (f->plane_side > 0);
        }
    out[0] = e;
    c->fix_energy += f->energy ? e : 0.0;
}

/* An atom past a wall on any rank (one sum over ranks for all the walls): each rank that has one
   names it, every rank stops. */
static int walls_passed(const double behind[2])
{
    double any = behind[0] > 0;
    MDL_TRY(comm_sum_doubles(&any, 1));
    if (any == 0)
        return MDL_OK;
    if (behind[0] > 0)
        mdl_error("atom %.0f is on or past the wall at %s (LAMMPS: particle on or inside fix wall surface)", behind[0],
                  boundary_face_name((int)behind[1]));
    return MDL_ERUN;
}

/* viscous: each of the group's atoms dragged by -gamma v (its velocity as it stands: the half step's). */
static void viscous_forces(cpu_ctx *c, const mdl_force_fix *f)
{
    mdl_system *s = &c->s;
    for (size_t i = 0; i < c->dm.nlocal; i++)
        if (group_has(c->groups, s->id[i], f->group)) {
            const double v[3] = {s->vx[i], s->vy[i], s->vz[i]};
            double force[3] = {s->fx[i], s->fy[i], s->fz[i]};
            viscous_atom(f, s->type[i], v, force);
            s->fx[i] = force[0], s->fy[i] = force[1], s->fz[i] = force[2];
        }
}

int cpu_force_fixes(void *p, const mdl_force_fixes *ff)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    c->fix_energy = 0;
    memset(c->fix_out, 0, (size_t)ff->n * sizeof c->fix_out[0]); /* the step calls it with none too */
    double behind[2] = {0, 0};
    int walls = 0;
    for (int k = 0; k < ff->n; k++) {
        const mdl_force_fix *f = &ff->fix[k];
        if (f->style == MDL_FIX_INDENT) {
            indent_forces(c, f, c->fix_out[k]);
            continue;
        }
        if (f->style == MDL_FIX_WALL) {
            wall_forces(c, f, c->fix_out[k], behind), walls = 1;
            continue;
        }
        if (f->style == MDL_FIX_VISCOUS) {
            viscous_forces(c, f);
            continue;
        }
        double mean[3] = {0, 0, 0};
        int none = 0;
        if (f->style == MDL_FIX_AVEFORCE)
            MDL_TRY(group_mean_force(c, f->group, mean, &none));
        for (size_t i = 0; i < c->dm.nlocal && !none; i++)
            if (group_has(c->groups, s->id[i], f->group)) {
                double force[3] = {s->fx[i], s->fy[i], s->fz[i]};
                force_fix_atom(f, mean, force);
                s->fx[i] = force[0], s->fy[i] = force[1], s->fz[i] = force[2];
            }
    }
    return walls ? walls_passed(behind) : MDL_OK;
}

int cpu_thermo_group(void *p, uint32_t temperature, int temperature_components, uint32_t pressure,
                     int pressure_components)
{
    cpu_ctx *c = p;
    c->thermo_group = temperature, c->pressure_group = pressure;
    c->thermo_components = temperature_components, c->pressure_components = pressure_components;
    return MDL_OK;
}

int cpu_force_fix_outputs(void *p, double out[][4], int n)
{
    cpu_ctx *c = p;
    memcpy(out, c->fix_out, (size_t)n * sizeof out[0]);
    return n ? comm_sum_doubles(&out[0][0], 4 * n) : MDL_OK;
}

int cpu_force_fix_energy(void *p, const mdl_force_fixes *ff)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    const size_t n = c->dm.nlocal;
    double *kept = malloc(3 * (n ? n : 1) * sizeof *kept);
    if (!kept) {
        mdl_error("out of memory for the force fixes' energy at a restart");
        return MDL_ERUN;
    }
    memcpy(kept, s->fx, n * sizeof *kept), memcpy(kept + n, s->fy, n * sizeof *kept), memcpy(kept + 2 * n, s->fz, n * sizeof *kept);
    const int rc = cpu_force_fixes(p, ff); /* the same arithmetic; its forces then put back */
    memcpy(s->fx, kept, n * sizeof *kept), memcpy(s->fy, kept + n, n * sizeof *kept), memcpy(s->fz, kept + 2 * n, n * sizeof *kept);
    free(kept);
    return rc;
}
