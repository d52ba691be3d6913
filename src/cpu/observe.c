/* The CPU backend's observables: the thermo rows' sums (all ranks'), the forces' norms, the
   pressure tensor and the list's rows, for the table in backend.c. */
#include "context.h"

#include "../parallel/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cpu_reduce(void *p, mdl_observables *o)
{
    cpu_ctx *c = p;
    double sums[4] = {cpu_local_kinetic(c), c->pe, c->virial, c->fix_energy}, n = (double)c->natoms;
    MDL_TRY(comm_sum_doubles(sums, 4)); /* in rank order */
    double press_kinetic = sums[0], press_n;
    const int dim = box_dimension(&c->s.box), tcomp = c->thermo_components, pcomp = c->pressure_components;
    if (c->thermo_group != MDL_GROUP_ALL || tcomp != 7) /* thermo_modify temp: that group's kinetic energy and count */
        MDL_TRY(cpu_group_kinetic(c, c->thermo_group, tcomp, &sums[0], &n));
    if (c->pressure_group != MDL_GROUP_ALL || pcomp != 7)
        MDL_TRY(cpu_group_kinetic(c, c->pressure_group, pcomp, &press_kinetic, &press_n));
    const int same = c->pressure_group == c->thermo_group && pcomp == tcomp;
    o->kinetic = same ? sums[0] : press_kinetic;
    o->potential = sums[1];
    o->virial = sums[2];
    mdl_finish_observables(o, (size_t)n, &c->s.box, &c->u, c->tail); /* the pressure of this kinetic energy */
    if (!same || tcomp != 7) { /* then the temperature's, of its components (LAMMPS's temp/partial) */
        o->kinetic = sums[0];
        o->temperature = mdl_temperature(o->kinetic, (size_t)n, mdl_component_count(tcomp, dim), &c->u);
    }
    o->ecouple = c->nose_hoover ? nh_energy(&c->nh, o->volume) : 0.0;
    o->fix_energy = sums[3];
    return MDL_OK;
}

int cpu_force_norms(void *p, double out[2])
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    double m = 0, sq = 0;
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        const double f[3] = {s->fx[i], s->fy[i], s->fz[i]};
        for (int d = 0; d < 3; d++)
            m = fabs(f[d]) > m ? fabs(f[d]) : m, sq += f[d] * f[d];
    }
    MDL_TRY(comm_max_double(&m));
    MDL_TRY(comm_sum_doubles(&sq, 1));
    out[0] = m, out[1] = sqrt(sq);
    return MDL_OK;
}

int cpu_pressure_tensor(void *p, double kinetic[6], double virial[6])
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    double sums[12] = {0};
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        if (!group_has(c->groups, s->id[i], c->pressure_group)) /* thermo's pressure's group */
            continue;
        const int k = c->pressure_components; /* LAMMPS's temp/partial: the components it counts (the others 0) */
        const double m = s->mass[s->type[i]] * c->u.mvv2e, v[3] = {k & 1 ? s->vx[i] : 0.0, k & 2 ? s->vy[i] : 0.0,
                                                                   k & 4 ? s->vz[i] : 0.0};
        sums[0] += m * v[0] * v[0], sums[1] += m * v[1] * v[1], sums[2] += m * v[2] * v[2];
        sums[3] += m * v[0] * v[1], sums[4] += m * v[0] * v[2], sums[5] += m * v[1] * v[2];
    }
    if (c->pairs.eam)
        eam_virial_tensor(c->pairs.eam, &c->nl, &c->region, c->dm.nlocal, s->n, s->x, s->y, s->z, s->type,
                          &c->fscratch, sums + 6);
    else
        pair_virial_tensor(&c->pairs, &c->nl, &c->region, c->dm.nlocal, s->x, s->y, s->z, s->type, sums + 6);
    MDL_TRY(comm_sum_doubles(sums, 12)); /* in rank order */
    memcpy(kinetic, sums, 6 * sizeof *sums);
    memcpy(virial, sums + 6, 6 * sizeof *sums);
    return MDL_OK;
}

int cpu_atom_energies(void *p, double *e)
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    double *mine = mdl_alloc((c->dm.nlocal ? c->dm.nlocal : 1) * sizeof *mine, "per-atom energies");
    if (!mine)
        return MDL_ERUN;
    if (c->pairs.eam)
        eam_atom_energies(c->pairs.eam, &c->nl, &c->region, c->dm.nlocal, s->x, s->y, s->z, s->type, &c->fscratch,
                          mine);
    else
        pair_atom_energies(&c->pairs, &c->nl, &c->region, c->dm.nlocal, s->x, s->y, s->z, s->type, mine);
    memset(e, 0, c->natoms * sizeof *e);
    for (size_t i = 0; i < c->dm.nlocal; i++)
        e[s->id[i]] = mine[i];
    free(mine);
    return comm_sum_doubles(e, (int)c->natoms); /* each atom's from the rank that owns it */
}

int cpu_reduce_start(void *p, int slot)
{
    cpu_ctx *c = p;
    return cpu_reduce(c, &c->thermo_rows[slot]);
}

int cpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait)
{
    cpu_ctx *c = p;
    (void)wait; /* computed at the start: always there */
    *o = c->thermo_rows[slot];
    return MDL_OK;
}

/* The half list expanded to full rows in id order. */
int cpu_neighbor_rows(void *p, int **rows_out, size_t **start_out)
{
    cpu_ctx *c = p;
    const cpu_nlist *nl = &c->nl;
    const int64_t *id = c->s.id;
    size_t n = c->s.n;
    if (c->dm.size > 1) {
        mdl_error("the neighbor rows are made on one rank only");
        return MDL_EINPUT;
    }
    size_t *start = calloc(n + 2, sizeof *start);
    int *rows = malloc((2 * nlist_pairs(nl) + 1) * sizeof *rows);
    if (!start || !rows) {
        free(start), free(rows);
        mdl_error("out of memory for the neighbor rows");
        return MDL_ERUN;
    }
    for (int pass = 0; pass < 2; pass++) { /* count (into start[i + 2]), then fill (start[i + 1]: next free) */
        for (size_t i = 2; pass == 1 && i <= n; i++)
            start[i] += start[i - 1];
        for (int t = 0; t < nl->nseg; t++)
            for (size_t i = nl->seg[t].atom_begin; i < nl->seg[t].atom_end; i++)
                for (int k = 0; k < nl->count[i]; k++) {
                    int64_t a = id[i], b = id[nl->seg[t].data[nl->first[i] + k]];
                    if (pass == 0) {
                        start[a + 2]++, start[b + 2]++;
                        continue;
                    }
                    rows[start[a + 1]++] = (int)b;
                    rows[start[b + 1]++] = (int)a;
                }
    }
    *rows_out = rows;
    *start_out = start;
    return MDL_OK;
}
