/* The velocity-Verlet step through the backend table: set-up, one step in LAMMPS's order (the
   skin test and the health check at every check, thermostat stages), phase timers. */
#include "stepper.h"

#include "../util/util.h"

#include <stdlib.h>

int is_thermo_step(const mdl_config *cfg, long step, long final_step)
{
    return cfg->thermo != 0 && (step == final_step || (cfg->thermo > 0 && step % cfg->thermo == 0)); /* -1: ends */
}

int stepper_groups(const mdl_config *base, const mdl_backend_ops *ops, mdl_system *s)
{
    int used = base->groups_used, k = 0;
    while (!used && k < base->nstages)
        used = base->stages[k++].groups_used;
    if (!used) { /* groups that made types or velocities alone: the run needs none (a stage's velocity
                    edits and thermo's computes name them on the host) */
        int edits = base->computes.n > 0;
        for (k = 0; k < base->nstages; k++)
            edits |= (k && base->stages[k].stage_velocity_edits[0] != '\0') || base->stages[k].computes.n > 0;
        if (!edits)
            free(s->groups), s->groups = NULL;
        return MDL_OK;
    }
    if (ops->force_fixes && ops->thermo_group)
        return MDL_OK;
    mdl_error("%s: [run] backend = %s: the run's fixes, thermostat or thermo act on a group ([run] force_fixes, "
              "thermostat_group, [output] thermo_group), which the %s backend does not take yet; run it with backend = "
              "cpu", base->path, ops->name, ops->name);
    return MDL_EINPUT;
}

int stepper_force_fixes(mdl_stepper *st, long step)
{
    /* called with none too: their energy is then 0; a moving indenter where it stands at this step */
    if (!st->ops->force_fixes)
        return MDL_OK;
    if (!st->cfg->force_fixes.moving)
        return st->ops->force_fixes(st->ctx, &st->cfg->force_fixes);
    const mdl_force_fixes now = force_fixes_at(&st->cfg->force_fixes, step);
    return st->ops->force_fixes(st->ctx, &now);
}

int stepper_setup(mdl_stepper *st, long step, int forces_given)
{
    if (st->ops->thermo_group)
        MDL_TRY(st->ops->thermo_group(st->ctx, st->cfg->thermo_group, st->cfg->thermo_components,
                                      st->cfg->thermo_pressure_group, st->cfg->thermo_pressure_components));
    MDL_TRY(st->ops->build_neighbors(st->ctx));
    thermostat_init(&st->thermostat, st->cfg, st->units, st->natoms, st->run_begin, st->run_end);
    if (forces_given) { /* a restart's forces: the thermostat's force and the fixes' are in them already */
        MDL_TRY(st->ops->compute_forces(st->ctx, MDL_ENERGY_ONLY));
        if (st->cfg->force_fixes.n && st->ops->force_fix_energy) { /* their energy and outputs, as at the step */
            const mdl_force_fixes now = force_fixes_at(&st->cfg->force_fixes, step);
            MDL_TRY(st->ops->force_fix_energy(st->ctx, &now));
        }
    } else {
        MDL_TRY(st->ops->compute_forces(st->ctx, MDL_FORCES_ENERGY));
        MDL_TRY(thermostat_apply(&st->thermostat, st->ops, st->ctx, step, MDL_THERMOSTAT_POST_FORCE));
        MDL_TRY(stepper_force_fixes(st, step));
    }
    return thermostat_setup(&st->thermostat, st->ops, st->ctx, st->thermostat_state, st->nstate, step);
}

int stepper_unhealthy(mdl_stepper *st, long step, const char *observable)
{
    mdl_health h = {MDL_HEALTH_OK, -1, 0};
    mdl_backend_stats stats;
    MDL_TRY(st->ops->diagnose(st->ctx, &h));
    MDL_TRY(st->ops->stats(st->ctx, &stats));
    mdl_message_mute(1); /* every rank found the same (diagnose looks at all of them): rank 0 says it */
    if (observable)
        mdl_error("step %ld: the %s is not finite", step, observable);
    if (!observable || h.what != MDL_HEALTH_OK)
        health_report(&h, step, stats.last_build, st->cfg->skin);
    mdl_message_mute(0);
    return MDL_ERUN;
}

/* Stops the run (stepper_unhealthy) when the backend found the state unsafe at a step up to
   `step`. */
int stepper_check_health(mdl_stepper *st, long step)
{
    long bad;
    MDL_TRY(st->ops->health(st->ctx, &bad));
    return bad >= 0 && bad <= step ? stepper_unhealthy(st, bad, NULL) : MDL_OK;
}

/* One velocity-Verlet step, in LAMMPS's order; energy and virial only when energy is set. */
/* With [output] sync_phases = yes the driver waits for the device at each phase boundary, so that
   GPU phase times are real (at the cost of the overlap). */
static void phase_end(mdl_stepper *st, int phase)
{
    if (st->sync_phases)
        st->ops->synchronize(st->ctx);
    phase_stop(&st->timers, phase);
}

int stepper_advance_plain(mdl_stepper *st, long step, long steps, long *done)
{
    *done = 0;
    const mdl_thermostat *t = &st->thermostat;
    const int langevin = t->action == MDL_ACT_FORCE, chains = t->action == MDL_ACT_CHAINS && !thermostat_barostat(t);
    if (!st->ops->advance_plain || !st->first_done || st->sync_phases || (st->cfg->ensemble != MDL_NVE && !langevin && !chains) ||
        st->cfg->walls.n || st->cfg->force_fixes.n)
        return MDL_OK;
    phase_start(&st->timers);
    MDL_TRY(st->ops->advance_plain(st->ctx, step, steps, langevin ? &t->langevin : NULL, t->seed, done));
    phase_stop(&st->timers, PH_FORCE);
    return *done > 0 ? stepper_check_health(st, step + *done - 1) : MDL_OK;
}

int stepper_advance(mdl_stepper *st, long step, int energy, int chain)
{
    const mdl_backend_ops *ops = st->ops;
    int scale = thermostat_acts(&st->thermostat, step, MDL_THERMOSTAT_END_OF_STEP), first_done = st->first_done;
    /* a rescaling step ends with the velocities it sets; walls act after the step's own drift */
    chain = chain && !scale && !st->sync_phases && !st->cfg->walls.n;
    /* nothing between the forces and the chained kicks (the thermostat's force acts on every step
       or none, so the step's kind says this too) */
    int fold = chain && !energy && !thermostat_acts(&st->thermostat, step, MDL_THERMOSTAT_POST_FORCE) &&
               !st->cfg->force_fixes.n;
    /* what differs between steps: energy, a rescaling thermostat's steps, the chained half kicks */
    int kind = energy | scale << 1 | chain << 2 | first_done << 3;
    phase_start(&st->timers);
    MDL_TRY(ops->begin_step(st->ctx, step, st->sync_phases ? -1 : kind));
    if (!first_done)
        MDL_TRY(ops->integrate_first(st->ctx));
    if (st->cfg->walls.n)
        MDL_TRY(ops->reflect_walls(st->ctx, &st->cfg->walls));
    phase_end(st, PH_INTEGRATE);
    MDL_TRY(ops->update_neighbors(st->ctx, step));
    phase_end(st, PH_NEIGHBOR);
    for (int redo = 1; redo;) { /* again when the backend rebuilt the list only once it had the step */
        /* a barostat reads the virial at every step */
        const int virial = thermostat_barostat(&st->thermostat);
        MDL_TRY(ops->compute_forces(st->ctx, energy ? MDL_FORCES_ENERGY : virial ? MDL_FORCES_VIRIAL
                                             : fold ? MDL_FORCES_THEN_KICKS : MDL_FORCES));
        MDL_TRY(thermostat_apply(&st->thermostat, ops, st->ctx, step, MDL_THERMOSTAT_POST_FORCE));
        MDL_TRY(stepper_force_fixes(st, step));
        phase_end(st, PH_FORCE);
        MDL_TRY(ops->integrate_second(st->ctx, chain));
        MDL_TRY(thermostat_apply(&st->thermostat, ops, st->ctx, step, MDL_THERMOSTAT_END_OF_STEP));
        MDL_TRY(ops->end_step(st->ctx, &redo));
        phase_end(st, PH_INTEGRATE);
    }
    st->first_done = chain;
    return stepper_check_health(st, step);
}
