/* LAMMPS's thermo computes evaluated on a snapshot: group temperatures and their kinetic energy
   tensors (temp, temp/partial, temp/com), ke, pe, the centre of mass, and reduce over per-atom values,
   each as LAMMPS's compute of that style defines it. */
#include "computes.h"
#include "orientorder.h"

#include "../util/util.h"

#include "../physics/observables.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The velocity of atom i, less the centre of mass velocity vcm, components outside comp zeroed. */
static void velocity_of(const mdl_system *s, size_t i, const double vcm[3], int comp, double v[3])
{
    const double raw[3] = {s->vx[i], s->vy[i], s->vz[i]};
    for (int d = 0; d < 3; d++)
        v[d] = (comp >> d) & 1 ? raw[d] - vcm[d] : 0.0;
}

/* The group's mass-weighted mean velocity (LAMMPS's group vcm) or position, unwrapped (group xcm). */
static void group_centre(const mdl_system *s, uint32_t group, int positions, double out[3])
{
    double sum[3] = {0, 0, 0}, mass = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!group_has(s->groups, (int64_t)i, group))
            continue;
        const double m = s->mass[s->type[i]];
        double p[3] = {s->vx[i], s->vy[i], s->vz[i]};
        if (positions) {
            const double x[3] = {s->x[i], s->y[i], s->z[i]};
            const int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
            box_unwrap(&s->box, x, im, p);
        }
        for (int d = 0; d < 3; d++)
            sum[d] += m * p[d];
        mass += m;
    }
    for (int d = 0; d < 3; d++)
        out[d] = mass > 0 ? sum[d] / mass : 0.0;
}

/* temp, temp/partial, temp/com: the temperature (dim N - dim degrees of freedom, or nper N - nper of
   the components counted) and the tensor sum m v_a v_b (xx yy zz xy xz yz) in energy units. */
static void temperature(const mdl_compute *c, const mdl_system *s, const mdl_units *u, double *out)
{
    const int dim = box_dimension(&s->box);
    const int comp = c->style == MDL_COMPUTE_TEMP_PARTIAL ? c->components : 7;
    double vcm[3] = {0, 0, 0}, t[6] = {0, 0, 0, 0, 0, 0}, sum = 0;
    if (c->style == MDL_COMPUTE_TEMP_COM)
        group_centre(s, c->group, 0, vcm);
    size_t count = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!group_has(s->groups, (int64_t)i, c->group))
            continue;
        double v[3];
        velocity_of(s, i, vcm, comp, v);
        const double m = s->mass[s->type[i]];
        sum += m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        t[0] += m * v[0] * v[0], t[1] += m * v[1] * v[1], t[2] += m * v[2] * v[2];
        t[3] += m * v[0] * v[1], t[4] += m * v[0] * v[2], t[5] += m * v[1] * v[2];
        count++;
    }
    const int nper = mdl_component_count(comp, dim);
    const double dof = (double)nper * (double)count - nper;
    out[0] = dof > 0 ? sum * u->mvv2e / (dof * u->boltz) : 0.0;
    for (int k = 0; k < 6; k++)
        out[1 + k] = t[k] * u->mvv2e;
}

/* Atom i's per-atom input of reduce (x y z vx vy vz fx fy fz; a ke/atom's, 0 outside its group; a
   column of an orientorder/atom's, of its array in atoms). */
static double atom_input(const mdl_computes *cs, int input, const mdl_system *s, size_t i, const mdl_units *u,
                         double *const *atoms, const double *energy)
{
    if (input >= MDL_REDUCE_INPUT_COMPUTE) {
        const int j = (input - MDL_REDUCE_INPUT_COMPUTE) / 64, col = (input - MDL_REDUCE_INPUT_COMPUTE) % 64;
        const mdl_compute *k = &cs->c[j];
        if (k->style == MDL_COMPUTE_ORIENTORDER)
            return atoms[j][i * (size_t)compute_atom_columns(k) + (size_t)(col - 1)];
        if (k->style == MDL_COMPUTE_PE_ATOM)
            return group_has(s->groups, (int64_t)i, k->group) ? energy[i] : 0.0;
        const double v2 = s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i];
        return group_has(s->groups, (int64_t)i, k->group) ? 0.5 * u->mvv2e * s->mass[s->type[i]] * v2 : 0.0;
    }
    const double *const a[9] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz};
    return a[input][i];
}

/* reduce MODE inputs over its group: each input's sum, min, max, mean, sum or mean of squares (LAMMPS's
   compute reduce: a mean over the group's atoms, 0 for none). */
static void reduce(const mdl_computes *cs, const mdl_compute *c, const mdl_system *s, const mdl_units *u,
                   double *const *atoms, const double *energy, double *out)
{
    for (int k = 0; k < c->ninputs; k++) {
        const int m = c->mode;
        double r = m == MDL_REDUCE_MIN ? DBL_MAX : m == MDL_REDUCE_MAX ? -DBL_MAX : 0.0;
        size_t count = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (!group_has(s->groups, (int64_t)i, c->group))
                continue;
            const double v = atom_input(cs, c->input[k], s, i, u, atoms, energy);
            count++;
            if (m == MDL_REDUCE_MIN)
                r = v < r ? v : r;
            else if (m == MDL_REDUCE_MAX)
                r = v > r ? v : r;
            else
                r += m == MDL_REDUCE_SUMSQ || m == MDL_REDUCE_AVESQ ? v * v : v;
        }
        if ((m == MDL_REDUCE_AVE || m == MDL_REDUCE_AVESQ) && count)
            r /= (double)count;
        out[c->ninputs > 1 ? 1 + k : 0] = r;
    }
}

int computes_read_by_reduce(const mdl_computes *cs, int j)
{
    for (int r = 0; r < cs->n; r++)
        for (int k = 0; cs->c[r].style == MDL_COMPUTE_REDUCE && k < cs->c[r].ninputs; k++)
            if (cs->c[r].input[k] >= MDL_REDUCE_INPUT_COMPUTE && (cs->c[r].input[k] - MDL_REDUCE_INPUT_COMPUTE) / 64 == j)
                return 1;
    return 0;
}

int computes_evaluate(const mdl_computes *cs, const mdl_system *frame, const double *energy, const mdl_units *u,
                      double pair_cutoff, double out[][MDL_COMPUTE_VALUES])
{
    double *atoms[MDL_MAX_COMPUTES] = {NULL}; /* the per-atom arrays reduces read (orientorder/atom's) */
    int rc = MDL_OK;
    for (int j = 0; j < cs->n && rc == MDL_OK; j++)
        if (cs->c[j].style == MDL_COMPUTE_ORIENTORDER && computes_read_by_reduce(cs, j)) {
            atoms[j] = mdl_alloc((frame->n ? frame->n : 1) * (size_t)compute_atom_columns(&cs->c[j]) * sizeof **atoms,
                                 "orientorder/atom's values");
            rc = atoms[j] ? orientorder_atoms(&cs->c[j], frame, pair_cutoff, atoms[j]) : MDL_ERUN;
        }
    for (int j = 0; j < cs->n && rc == MDL_OK; j++) {
        const mdl_compute *c = &cs->c[j];
        double *v = out[j];
        memset(v, 0, MDL_COMPUTE_VALUES * sizeof *v);
        switch (c->style) {
        case MDL_COMPUTE_TEMP:
        case MDL_COMPUTE_TEMP_PARTIAL:
        case MDL_COMPUTE_TEMP_COM: temperature(c, frame, u, v); break;
        case MDL_COMPUTE_KE: {
            double t[7];
            const mdl_compute all = {.style = MDL_COMPUTE_TEMP, .group = c->group};
            temperature(&all, frame, u, t);
            v[0] = 0.5 * (t[1] + t[2] + t[3]);
            break;
        }
        case MDL_COMPUTE_COM: group_centre(frame, c->group, 1, v + 1); break;
        case MDL_COMPUTE_REDUCE: reduce(cs, c, frame, u, atoms, energy, v); break;
        default: break;
        }
    }
    for (int j = 0; j < cs->n; j++)
        free(atoms[j]);
    return rc;
}
