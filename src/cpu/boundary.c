/* The CPU's non-periodic faces at a rebuild, before the atoms are wrapped and binned: the
   shrink-wrapped ones moved to the atoms' extent on every rank, and an atom past a fixed one lost. */
#include "context.h"

#include "../parallel/comm.h"

#include <math.h>

/* Shrink-wrapped faces to every rank's atoms (LAMMPS's reset_box), the bricks following the box. */
static int shrink_wrap(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    const double *x[3] = {s->x, s->y, s->z};
    double ext[6] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}; /* -min, max */
    for (int d = 0; d < 3; d++)
        for (size_t i = 0; i < c->dm.nlocal; i++)
            ext[d] = fmax(ext[d], -x[d][i]), ext[3 + d] = fmax(ext[3 + d], x[d][i]);
    for (int k = 0; k < 6; k++)
        MDL_TRY(comm_max_double(&ext[k]));
    const double lo[3] = {-ext[0], -ext[1], -ext[2]};
    boundary_shrink_wrap(&s->bound, lo, ext + 3, &s->box);
    const char *why = domain_set_box(&c->dm, &s->box); /* shrink-wrapped axes are never decomposed */
    if (why) {
        mdl_error("step %ld: the shrink-wrapped box no longer fits the bricks: %s", c->step, why);
        return MDL_ERUN;
    }
    return MDL_OK;
}

int cpu_reflect_walls(void *p, const mdl_walls *w)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    double *x[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
    for (int k = 0; k < w->n; k++) { /* in the order given, as LAMMPS's walls */
        const int d = w->face[k] / 2, upper = w->face[k] % 2;
        const double coord = w->edge[k] ? s->box.lo[d] + (upper ? s->box.len[d] : 0) : w->coord[k];
        for (size_t i = 0; i < c->dm.nlocal; i++)
            wall_reflect(&x[d][i], &v[d][i], upper, coord);
    }
    return MDL_OK;
}

int cpu_apply_boundary(cpu_ctx *c, int *lost)
{
    mdl_system *s = &c->s;
    *lost = 0;
    if (boundary_is_periodic(&s->bound))
        return MDL_OK;
    if (boundary_shrinks(&s->bound))
        MDL_TRY(shrink_wrap(c));
    c->lost = (mdl_health){MDL_HEALTH_OK, -1, 0};
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        const int f = boundary_face_left(&s->box, p);
        if (f >= 0 && (c->lost.what == MDL_HEALTH_OK || s->id[i] < c->lost.id))
            c->lost = (mdl_health){MDL_HEALTH_LOST + f, s->id[i], p[f / 2]};
    }
    *lost = c->lost.what != MDL_HEALTH_OK;
    return comm_or_int(lost);
}
