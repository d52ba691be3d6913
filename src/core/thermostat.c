/* The thermostat policy: the core turns the configured ensemble into calls of the backends'
   primitives (langevin, scale_to_temperature) at the right stage and step. */
#include "thermostat.h"

#include "../util/util.h"

void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u)
{
    t->ensemble = cfg->ensemble;
    t->target = cfg->target_temperature;
    t->coupling = cfg->ensemble == MDL_NVT_BERENDSEN ? cfg->timestep / cfg->tau : 1.0;
    t->every = cfg->every;
    t->seed = cfg->seed;
    t->langevin = (mdl_langevin){cfg->target_temperature, cfg->tau, cfg->timestep, u->boltz, u->mvv2e, u->ftm2v};
}

int thermostat_acts(const mdl_thermostat *t, long step, int stage)
{
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return t->ensemble == MDL_NVT_LANGEVIN;
    return t->ensemble == MDL_NVT_BERENDSEN || (t->ensemble == MDL_NVT_RESCALE && step % t->every == 0);
}

int thermostat_apply(const mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage)
{
    if (!thermostat_acts(t, step, stage))
        return MDL_OK;
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return ops->langevin(ctx, &t->langevin, t->seed, step);
    return ops->scale_to_temperature(ctx, t->target, t->coupling);
}
