/* Builds the species pair table from [potential], with Lorentz-Berthelot mixing for unlisted pairs. */
#include "potential.h"

#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const mdl_pair_coeff *find_pair(const mdl_config *cfg, const char *a, const char *b)
{
    for (int i = 0; i < cfg->npair; i++) {
        const mdl_pair_coeff *p = &cfg->pair[i];
        if ((strcmp(p->a, a) == 0 && strcmp(p->b, b) == 0) || (strcmp(p->a, b) == 0 && strcmp(p->b, a) == 0))
            return p;
    }
    return NULL;
}

int potential_build(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt)
{
    int nt = s->ntypes;
    double eps[MDL_MAX_SPECIES], sig[MDL_MAX_SPECIES], cut[MDL_MAX_SPECIES];
    memset(pt, 0, sizeof *pt);
    pt->ntypes = nt;
    for (int i = 0; i < cfg->npair; i++) {
        const mdl_pair_coeff *p = &cfg->pair[i];
        if (system_species_index((mdl_system *)s, p->a, 0) < 0 || system_species_index((mdl_system *)s, p->b, 0) < 0) {
            char key[64];
            snprintf(key, sizeof key, "pair.%s.%s", p->a, p->b);
            mdl_error("%s: [potential] %s: no species '%s' in the system", config_origin(cfg, "potential", key), key,
                      system_species_index((mdl_system *)s, p->a, 0) < 0 ? p->a : p->b);
            return MDL_EINPUT;
        }
    }
    const mdl_pair_coeff *self[MDL_MAX_SPECIES];
    for (int t = 0; t < nt; t++) {
        const mdl_pair_coeff *p = self[t] = find_pair(cfg, s->species[t], s->species[t]);
        eps[t] = p ? p->epsilon : cfg->epsilon;
        sig[t] = p ? p->sigma : cfg->sigma;
        cut[t] = p && p->cutoff > 0 ? p->cutoff : cfg->cutoff;
    }
    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "cutoff");
    for (int a = 0; a < nt; a++)
        for (int b = 0; b < nt; b++) {
            const mdl_pair_coeff *p = find_pair(cfg, s->species[a], s->species[b]);
            double e = p ? p->epsilon : sqrt(eps[a] * eps[b]);
            double sg = p ? p->sigma : 0.5 * (sig[a] + sig[b]);
            double rc = p && p->cutoff > 0 ? p->cutoff : (a == b ? cut[a] : 0.5 * (cut[a] + cut[b]));
            pt->c[a * nt + b] = lj_coeff(e, sg, rc, cfg->shift);
            if (rc > pt->cutmax) { /* whose cutoff: this pair's own, or the longer of the two it mixes */
                const mdl_pair_coeff *from = p && p->cutoff > 0 ? p : self[cut[a] >= cut[b] ? a : b];
                pt->cutmax = rc;
                if (from && from->cutoff > 0)
                    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "pair.%s.%s", from->a, from->b);
                else
                    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "cutoff");
            }
        }
    return MDL_OK;
}
