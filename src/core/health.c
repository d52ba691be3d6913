/* The run's health check: finds the atom whose force, velocity or position is not finite, or
   that moved more than the skin since the last neighbor build, and says so. */
#include "health.h"

#include "../parallel/comm.h"
#include "../physics/nose_hoover.h"

#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Lowest-id atom with a non-finite component of v; 1 when one was found. */
static int first_bad(size_t n, const int64_t *id, mdl_vec3_arrays v, int what, mdl_health *h)
{
    int found = 0;
    if (!v.x)
        return 0;
    for (size_t i = 0; i < n; i++) {
        double c[3] = {v.x[i], v.y[i], v.z[i]};
        for (int d = 0; d < 3; d++)
            if (!isfinite(c[d]) && (!found || id[i] < h->id)) {
                *h = (mdl_health){what, id[i], c[d]};
                found = 1;
            }
    }
    return found;
}

void health_scan(size_t n, const int64_t *id, mdl_vec3_arrays pos, mdl_vec3_arrays pos0, mdl_vec3_arrays vel,
                 mdl_vec3_arrays frc, double limit, mdl_health *h)
{
    *h = (mdl_health){MDL_HEALTH_OK, -1, 0};
    if (first_bad(n, id, frc, MDL_HEALTH_FORCE, h) || first_bad(n, id, vel, MDL_HEALTH_VELOCITY, h) ||
        first_bad(n, id, pos, MDL_HEALTH_POSITION, h) || !pos0.x)
        return;
    double worst = limit * limit;
    for (size_t i = 0; i < n; i++) {
        double dx = pos.x[i] - pos0.x[i], dy = pos.y[i] - pos0.y[i], dz = pos.z[i] - pos0.z[i];
        double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > worst) {
            worst = d2;
            *h = (mdl_health){MDL_HEALTH_MOVED, id[i], sqrt(d2)};
        }
    }
}

mdl_health health_worst(const mdl_health *all, int n)
{
    mdl_health w = {MDL_HEALTH_OK, -1, 0};
    for (int k = 0; k < n; k++) {
        const mdl_health *h = &all[k];
        if (h->what == MDL_HEALTH_OK)
            continue;
        int better = w.what == MDL_HEALTH_OK || h->what < w.what ||
                     (h->what == w.what && (h->what == MDL_HEALTH_MOVED ? h->value > w.value : h->id < w.id));
        if (better)
            w = *h;
    }
    return w;
}

int health_agree(mdl_health *h)
{
    int size = comm_size();
    double mine[3] = {h->what, (double)h->id, h->value}, *all = mdl_alloc(3 * (size_t)size * sizeof *all, "health");
    mdl_health *each = mdl_alloc((size_t)size * sizeof *each, "health");
    int rc = all && each ? comm_allgather_doubles(mine, 3, all) : MDL_ERUN;
    for (int r = 0; rc == MDL_OK && r < size; r++)
        each[r] = (mdl_health){(int)all[3 * r], (int64_t)all[3 * r + 1], all[3 * r + 2]};
    if (rc == MDL_OK)
        *h = health_worst(each, size);
    free(all), free(each);
    return rc;
}

void health_report(const mdl_health *h, long step, long last_build, double skin)
{
    const char *why = "(a timestep too large for these forces, atoms on top of each other, or absurd "
                      "epsilon, mass or temperature?)";
    switch (h->what) {
    case MDL_HEALTH_FORCE:
        mdl_error("step %ld: atom %lld: the force is %g %s", step, (long long)h->id, h->value, why);
        break;
    case MDL_HEALTH_VELOCITY:
        mdl_error("step %ld: atom %lld: the velocity is %g %s", step, (long long)h->id, h->value, why);
        break;
    case MDL_HEALTH_POSITION:
        mdl_error("step %ld: atom %lld: the position is %g %s", step, (long long)h->id, h->value, why);
        break;
    case MDL_HEALTH_MOVED:
        mdl_error("step %ld: atom %lld moved %.6g since the neighbor list was built at step %ld, more than the "
                  "skin %g, so pairs may have been missed: check the list more often ([neighbor] check), "
                  "enlarge [neighbor] skin or shorten [run] timestep; a huge move means an unstable run %s",
                  step, (long long)h->id, h->value, last_build, skin, why);
        break;
    case MDL_HEALTH_BOX:
        mdl_error("step %ld: the barostat moved the box's faces %.6g since the neighbor list was built at step %ld; "
                  "an atom's own move plus half that must stay under the skin %g, and it did not, so pairs may have "
                  "been missed: check the list more often ([neighbor] check, 1 follows the box every step) or "
                  "enlarge the skin; if the box keeps running away, pressure_tau is too short or the target "
                  "pressure one this system cannot hold", step, h->value, last_build, skin);
        break;
    default:
        if (h->what >= MDL_HEALTH_LOST && h->what < MDL_HEALTH_LOST + 6) {
            const int f = h->what - MDL_HEALTH_LOST;
            mdl_error("step %ld: atom %lld left the box through its %c%s face (%c = %.17g at the neighbor list's build), "
                      "which is fixed (boundary f): LAMMPS loses such an atom (Lost atoms); make that boundary s or "
                      "m, or keep the atoms in (a wall)", step, (long long)h->id + 1, "xyz"[f / 2], f % 2 ? "hi" : "lo",
                      "xyz"[f / 2], h->value);
            break;
        }
        mdl_error("step %ld: an atom moved more than the skin %g since step %ld, or a value is not finite, but the "
                  "atom was not found again %s", step, skin, last_build, why);
    }
}

int barostat_runaway(const mdl_box *b, double volume0, double rlist, int ghosted, const char *brick_why, long step)
{
    const int unfit = nh_box_unfit(b->len, volume0, rlist, ghosted);
    char why[160] = "";
    if (unfit == 1)
        snprintf(why, sizeof why, "its volume is %.3g times the start's (the barostat ran away: a pressure_tau too "
                 "short, or a target pressure this system cannot reach)", box_volume(b) / volume0);
    else if (unfit > 1)
        snprintf(why, sizeof why, "it is shorter than twice the list cutoff %g along %c", rlist, "xyz"[unfit - 2]);
    if (!why[0] && brick_why)
        snprintf(why, sizeof why, "%s %g", brick_why, rlist);
    if (!why[0])
        return MDL_OK;
    mdl_message_mute(1);
    mdl_error("step %ld: the barostat took the box to %.6g x %.6g x %.6g: %s; the run stops", step, b->len[0],
              b->len[1], b->len[2], why);
    mdl_message_mute(0);
    return MDL_ERUN;
}
