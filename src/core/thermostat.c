/* The thermostat policy: the core turns the configured ensemble's action (ensembles.h) into calls
   of the backends' primitives (langevin, scale_to_temperature) at the right stage and step; Nose-Hoover's chains and
   barostat run in the backend's integrator (physics/nose_hoover.h), from the constants set here. */
#include "thermostat.h"

#include "../physics/observables.h"
#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int is_nose_hoover(const mdl_thermostat *t)
{
    return t->action == MDL_ACT_CHAINS;
}

void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u, size_t natoms, long begin, long end)
{
    memset(t, 0, sizeof *t);
    const int reads = ensemble_reads(cfg->ensemble);
    t->ensemble = cfg->ensemble;
    t->action = ensemble_info(cfg->ensemble)->action;
    const mdl_ramp target = {cfg->target_temperature, reads & MDL_READS_RAMP ? cfg->final_temperature : cfg->target_temperature,
                             begin, end};
    if (t->action == MDL_ACT_SCALE) {
        t->scaling = thermostat_scaling(cfg->ensemble, target, cfg->timestep, cfg->tau, cfg->seed,
                                        reads & MDL_READS_WINDOW ? cfg->rescale_window : 0.0, cfg->thermostat_group);
        t->scaling.components = cfg->thermostat_components;
    }
    t->every = reads & MDL_READS_EVERY ? cfg->every : 1;
    t->seed = cfg->seed;
    t->langevin = (mdl_langevin){target, cfg->tau, cfg->timestep, u->boltz, u->mvv2e, u->ftm2v,
                                 cfg->thermostat_group};
    mdl_nh *nh = &t->nh;
    nh->tchain = cfg->chain;
    nh->pchain = cfg->pressure_chain;
    nh->barostat = (reads & MDL_READS_PRESSURE) != 0;
    nh->dt = cfg->timestep;
    nh->boltz = u->boltz;
    nh->nktv2p = u->nktv2p;
    nh->tdof = mdl_dof(natoms, cfg->dimension); /* as mdl_temperature counts them */
    nh->natoms = (double)natoms;
    nh->t_target = cfg->target_temperature;
    nh->t_ramp = target;
    nh->t_freq = cfg->tau > 0 ? 1.0 / cfg->tau : 0.0;
    nh->p_target = cfg->target_pressure;
    nh->p_freq = cfg->pressure_tau > 0 ? 1.0 / cfg->pressure_tau : 0.0;
}

int thermostat_setup(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, const double *state, int nstate,
                     long step)
{
    if (!is_nose_hoover(t))
        return MDL_OK;
    nh_target_at(&t->nh, (uint64_t)step); /* a restart's: the target its run had reached */
    if (state)
        nh_unpack(&t->nh, state, nstate);
    return ops->nose_hoover_init(ctx, &t->nh);
}

void thermostat_say_restart(const mdl_config *cfg, const double *state, int nstate, const char *restart, long step)
{
    int m, p;
    if (!config_nose_hoover(cfg->ensemble) || !nstate || !nh_state_valid(state, nstate, &m, &p))
        return;
    if (m != cfg->chain)
        fprintf(stderr, "mdlite: %s: its thermostat chain has %d thermostats, this run's chain = %d: the chain "
                "starts at rest at step %ld\n", restart, m, cfg->chain, step);
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_PRESSURE) && p != cfg->pressure_chain)
        fprintf(stderr, "mdlite: %s: %s, this run's pressure_chain = %d: the barostat starts at rest at step %ld\n",
                restart, p ? "its barostat's chain has another length" : "it has no barostat", cfg->pressure_chain,
                step);
}

int thermostat_acts(const mdl_thermostat *t, long step, int stage)
{
    if (is_nose_hoover(t)) /* in the backend's integrator since nose_hoover_init */
        return 0;
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return t->action == MDL_ACT_FORCE;
    return stage == MDL_THERMOSTAT_END_OF_STEP && t->action == MDL_ACT_SCALE && step % t->every == 0;
}

int thermostat_apply(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage)
{
    if (!thermostat_acts(t, step, stage))
        return MDL_OK;
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return ops->langevin(ctx, &t->langevin, t->seed, step);
    return ops->scale_to_temperature(ctx, &t->scaling, step);
}

int thermostat_barostat(const mdl_thermostat *t)
{
    return (ensemble_reads(t->ensemble) & MDL_READS_PRESSURE) != 0;
}

int thermostat_state(const mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, double *out, int *n)
{
    *n = 0;
    if (!is_nose_hoover(t))
        return MDL_OK;
    mdl_nh now;
    MDL_TRY(ops->nose_hoover_state(ctx, &now));
    *n = nh_pack(&now, out);
    return MDL_OK;
}
