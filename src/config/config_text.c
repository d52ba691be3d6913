/* A configuration as text for the checkpoint: what its forces are computed from (the pair style's keys,
   generated from the style's unit) and its stages. */
#include "config.h"

#include <stdio.h>

void config_force_origin(const mdl_config *cfg, char *out, size_t size)
{
    const mdl_pair_style_info *st = pair_style_info(cfg->style); /* "lj epsilon=1 sigma=1 cutoff=2.5 pair.A.B=..." */
    size_t k = (size_t)snprintf(out, size, "%s", st->name);
    for (int q = 0; q < st->nparam && k < size; q++)
        k += (size_t)snprintf(out + k, size - k, " %s=%.17g", st->key[q], cfg->param[cfg->style][q]);
    if (k < size)
        k += (size_t)snprintf(out + k, size - k, " cutoff=%.17g", cfg->cutoff);
    for (int i = 0; i < cfg->npair && k < size; i++) {
        const mdl_pair_coeff *p = &cfg->pair[i];
        k += (size_t)snprintf(out + k, size - k, " pair.%s.%s=", p->a, p->b);
        for (int q = 0; q < st->nparam && k < size; q++)
            k += (size_t)snprintf(out + k, size - k, "%.17g,", p->param[q]);
        if (k < size)
            k += (size_t)snprintf(out + k, size - k, "%.17g", p->cutoff);
    }
    if (cfg->ensemble == MDL_NVT_LANGEVIN && k < size)
        snprintf(out + k, size - k, "; langevin target_temperature=%.17g tau=%.17g timestep=%.17g seed=%lu",
                 cfg->target_temperature, cfg->tau, cfg->timestep, cfg->seed);
}

void config_stage_plan(const mdl_config *cfg, char *out, size_t size)
{
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < cfg->nstages && k < size; i++) {
        const mdl_config *st = &cfg->stages[i];
        k += (size_t)snprintf(out + k, size - k, "%s%s %s", i ? "; " : "", st->stage_name,
                              config_ensemble_name(st->ensemble));
    }
}
