/* A stage's own velocity edits ([run] stage_velocity_edits: LAMMPS's velocity command between runs),
   made on the atoms as the stage begins, and their check before the run's first step. */
#include "run_state.h"

#include "../config/config_schema.h"
#include "../parallel/comm.h"
#include "../physics/box.h"
#include "../system/atom_groups.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

/* The stage's own edits (an earlier stage's, inherited, were made when it began), or NULL. */
static const char *own_edits(const mdl_config *st)
{
    return st->stage_velocity_edits[0] && config_fresh_entry(st, "run", "stage_velocity_edits")
               ? st->stage_velocity_edits : NULL;
}

int run_stage_velocities_used(const mdl_config *base)
{
    for (int k = 1; k < base->nstages; k++)
        if (own_edits(&base->stages[k]))
            return 1;
    return 0;
}

int run_check_stage_velocities(const mdl_config *base, const mdl_units *u, mdl_system *s)
{
    const mdl_entry *top = config_find_entry(base, "run", "stage_velocity_edits");
    if (top || (base->nstages && own_edits(&base->stages[0]))) {
        const mdl_config *at = top ? base : &base->stages[0];
        mdl_error("%s: [run] stage_velocity_edits: the edits a stage after the first makes as it begins; the "
                  "velocities before the first step are [system] velocity_edits",
                  config_origin(at, "run", "stage_velocity_edits"));
        return MDL_EINPUT;
    }
    for (int k = 1; k < base->nstages; k++) {
        const mdl_config *st = &base->stages[k];
        const char *e = own_edits(st);
        if (e)
            MDL_TRY(system_edit_velocities(st, u, s, "run", "stage_velocity_edits", e, 1));
    }
    return MDL_OK;
}

/* Rank 0: the edits on the state's velocities (a snapshot in id order), into v (x y z per atom). */
static int edit_on_root(run_state *r, const char *edits, double *v)
{
    mdl_system frame = r->snap; /* a view: the per-atom arrays are pointed into the slot */
    mdl_observables obs;
    MDL_TRY(r->ops->snapshot_finish(r->ctx, r->data_slot, &frame, &obs));
    for (int d = 0; d < 3 && obs.volume > 0; d++) /* the box now (a barostat moves it) */
        frame.box.lo[d] = obs.box_lo[d], frame.box.len[d] = obs.box_len[d], frame.box.tilt[d] = obs.box_tilt[d];
    int64_t *ids = mdl_alloc((r->natoms ? r->natoms : 1) * sizeof *ids, "velocity edits");
    if (!ids)
        return MDL_ERUN;
    for (size_t i = 0; i < r->natoms; i++)
        ids[i] = (int64_t)i;
    frame.id = ids, frame.n = r->natoms;
    for (size_t i = 0; i < r->natoms; i++) { /* a ramp's and loop geom's coordinates: inside the box */
        double p[3] = {frame.x[i], frame.y[i], frame.z[i]};
        int32_t im[3] = {frame.ix[i], frame.iy[i], frame.iz[i]};
        box_wrap_triclinic(&frame.box, p, im);
        frame.x[i] = p[0], frame.y[i] = p[1], frame.z[i] = p[2];
    }
    const int rc = system_edit_velocities(r->cfg, r->units, &frame, "run", "stage_velocity_edits", edits, 0);
    for (size_t i = 0; i < r->natoms && rc == MDL_OK; i++)
        v[3 * i] = frame.vx[i], v[3 * i + 1] = frame.vy[i], v[3 * i + 2] = frame.vz[i];
    free(ids);
    return rc;
}

int run_stage_velocities(run_state *r, int *edited)
{
    const char *edits = own_edits(r->cfg);
    *edited = edits != NULL;
    if (!edits)
        return MDL_OK;
    double *v = mdl_alloc((3 * r->natoms + 1) * sizeof *v, "velocity edits");
    if (!v)
        return MDL_ERUN;
    int rc = r->ops->snapshot_start(r->ctx, r->data_slot, MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE);
    if (rc == MDL_OK && r->rank == 0)
        rc = edit_on_root(r, edits, v);
    if (r->nranks > 1) { /* any rank's failure stops every rank; then rank 0's velocities to all */
        int bad = rc != MDL_OK;
        if (comm_or_int(&bad) != MDL_OK || (bad && rc == MDL_OK))
            rc = MDL_EINPUT;
        if (rc == MDL_OK)
            rc = comm_broadcast(v, 3 * r->natoms * sizeof *v);
    }
    if (rc == MDL_OK)
        rc = r->ops->set_velocities(r->ctx, v);
    free(v);
    return rc;
}
