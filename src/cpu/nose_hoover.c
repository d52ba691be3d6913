/* The CPU backend's Nose-Hoover chains and barostat: physics/nose_hoover.h's half steps on this
   rank's atoms, with the temperature and virial summed over all ranks, and the box's dilation. */
#include "context.h"

#include "../parallel/comm.h"
#include "../util/util.h"
#include "integrate.h"

/* A triclinic box's atoms carried into the box `to` through their fractional coordinates in the
   box `from` (LAMMPS's x2lamda, then lamda2x). */
static void remap_triclinic(mdl_system *s, size_t n, const mdl_box *from, const mdl_box *to)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        double p[3] = {s->x[i], s->y[i], s->z[i]}, f[3];
        box_to_fraction(from, p, f);
        box_from_fraction(to, f, p);
        s->x[i] = p[0], s->y[i] = p[1], s->z[i] = p[2];
    }
}

/* the ghosts follow at the next exchange */
int cpu_remap_box(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    mdl_box *b = &s->box;
    double lo[3] = {b->lo[0], b->lo[1], b->lo[2]}, len[3];
    nh_scale_box(lo, c->box_hi, len, c->centre, c->boxscale);
    if (box_is_triclinic(b)) { /* the tilts scale too; ghosts on every axis (no minimum image to follow) */
        mdl_box to = *b;
        for (int d = 0; d < 3; d++)
            to.lo[d] = lo[d], to.len[d] = len[d];
        nh_scale_tilts(to.tilt, c->boxscale);
        remap_triclinic(s, c->dm.nlocal, b, &to);
        *b = to;
        return barostat_runaway(b, c->volume0, 0, 0, domain_set_box(&c->dm, b), c->step_now);
    }
    double *x[3] = {s->x, s->y, s->z};
    for (int d = 0; d < 3; d++) {
        remap_coordinates(c->dm.nlocal, x[d], b->lo[d], b->len[d], lo[d], len[d]);
        b->lo[d] = lo[d], b->len[d] = len[d];
        if (!c->dm.ghosted[d]) /* the lists' minimum image */
            c->region.lo[d] = lo[d], c->region.len[d] = len[d];
    }
    const char *why = domain_set_box(&c->dm, b);
    return barostat_runaway(b, c->volume0, 0, 0, why, c->step_now); /* any edge: the ghosts follow the box */
}

/* The temperature now and the last forces' virial, over all ranks (the virial into the chains). */
static int observe(cpu_ctx *c, double *t)
{
    double sums[2] = {cpu_local_kinetic(c), c->virial};
    MDL_TRY(comm_sum_doubles(sums, 2));
    c->nh.virial = sums[1];
    *t = mdl_temperature(sums[0], c->natoms, box_dimension(&c->s.box), &c->u);
    return MDL_OK;
}

int cpu_nose_hoover_init(void *p, const mdl_nh *nh)
{
    cpu_ctx *c = p;
    const mdl_box *b = &c->s.box;
    c->nose_hoover = nh != NULL;
    if (!nh) /* the chains stop (a stage of another ensemble follows); the box stays where it is */
        return MDL_OK;
    c->nh = *nh;
    c->nh.ptail = c->tail[1];
    if (c->nh.vol0 == 0) /* a checkpoint's is the volume its run began with */
        c->nh.vol0 = box_volume(b);
    c->volume0 = c->nh.vol0; /* the runaway limits count from there, restarted or not */
    for (int d = 0; d < 3; d++) /* a restart's faces and fixed point as its run kept them */
        c->box_hi[d] = nh->box_hi_set ? nh->box_hi[d] : b->lo[d] + b->len[d],
        c->centre[d] = nh->box_hi_set ? nh->box_centre[d] : 0.5 * (b->lo[d] + c->box_hi[d]);
    double t;
    MDL_TRY(observe(c, &t));
    nh_setup(&c->nh, t);
    return MDL_OK;
}

int cpu_nose_hoover_half(cpu_ctx *c, int start, long step)
{
    mdl_system *s = &c->s;
    const double volume = box_volume(&s->box);
    mdl_nh_factors f;
    if (start) {
        f = nh_start_of_step(&c->nh, volume, (uint64_t)step);
        c->boxscale = f.boxscale;
    } else {
        double t;
        MDL_TRY(observe(c, &t));
        f = nh_end_of_step(&c->nh, t, volume);
    }
    scale_velocities(c->dm.nlocal, f.vscale, s->vx, s->vy, s->vz);
    return MDL_OK;
}

int cpu_nose_hoover_state(void *p, mdl_nh *out)
{
    const cpu_ctx *c = p;
    *out = c->nh;
    for (int d = 0; d < 3 && c->nh.barostat; d++) /* kept apart from lo + len: a checkpoint keeps them */
        out->box_hi[d] = c->box_hi[d], out->box_centre[d] = c->centre[d];
    out->box_hi_set = c->nh.barostat;
    return MDL_OK;
}

