/* A configuration as text: the names of its style and ensemble, what its forces are computed from
   (the pair style's keys, generated from the style's unit; an EAM style's files by contents) and
   its stages, for the checkpoint; the configuration in effect, as INI text. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *config_style_name(int style)
{
#define MANY_NAME(ID, name) name,
    static const char *const many[] = {MDL_EAM_STYLES(MANY_NAME)};
#undef MANY_NAME
    const mdl_pair_style_info *st = pair_style_info(style);
    return st ? st->name : style >= MDL_EAM_FUNCFL && style < MDL_NSTYLES ? many[style - MDL_EAM_FUNCFL] : "?";
}

const char *config_ensemble_name(int ensemble)
{
    const mdl_ensemble_info *e = ensemble_info(ensemble);
    return e ? e->name : "?";
}

/* FNV-1a of a file's bytes (0 where it cannot be read: the run's reader says why). */
static unsigned long long file_checksum(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned long long h = 14695981039346656037ull;
    if (!f)
        return 0;
    unsigned char buf[65536];
    for (size_t got; (got = fread(buf, 1, sizeof buf, f)) > 0;)
        for (size_t k = 0; k < got; k++)
            h = (h ^ buf[k]) * 1099511628211ull;
    fclose(f);
    return h;
}

/* "eam/alloy file=PATH#CHECKSUM element.A=Cu": the files by path and contents. */
static size_t eam_origin(const mdl_config *cfg, char *out, size_t size)
{
    size_t k = (size_t)snprintf(out, size, "%s", config_style_name(cfg->style));
    if (cfg->eam_file[0] && k < size)
        k += (size_t)snprintf(out + k, size - k, " file=%s#%016llx", cfg->eam_file, file_checksum(cfg->eam_file));
    for (int i = 0; i < cfg->nfile && k < size; i++)
        k += (size_t)snprintf(out + k, size - k, " file.%s=%s#%016llx", cfg->file_species[i], cfg->file_path[i],
                              file_checksum(cfg->file_path[i]));
    for (int i = 0; i < cfg->nelement && k < size; i++)
        k += (size_t)snprintf(out + k, size - k, " element.%s=%s", cfg->element_species[i], cfg->element_name[i]);
    return k < size ? k : size;
}

static size_t pair_origin(const mdl_config *cfg, char *out, size_t size)
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
    return k < size ? k : size;
}

void config_force_origin(const mdl_config *cfg, char *out, size_t size)
{
    size_t k = pair_style_info(cfg->style) ? pair_origin(cfg, out, size) : eam_origin(cfg, out, size);
    const mdl_ensemble_info *e = ensemble_info(cfg->ensemble);
    const int force = e && e->action == MDL_ACT_FORCE; /* a thermostat's force (Langevin's) is part of the forces */
    if (force && k < size)
        k += (size_t)snprintf(out + k, size - k, "; %s target_temperature=%.17g tau=%.17g timestep=%.17g "
                              "seed=%lu", e->lammps_fix, cfg->target_temperature, cfg->tau, cfg->timestep, cfg->seed);
    if (force && cfg->final_temperature != cfg->target_temperature && k < size) /* a moving target's end */
        k += (size_t)snprintf(out + k, size - k, " final_temperature=%.17g", cfg->final_temperature);
    if (force && cfg->thermostat_group != MDL_GROUP_ALL && k < size)
        k += (size_t)snprintf(out + k, size - k, " group=%u", cfg->thermostat_group);
    for (int f = 0; f < cfg->force_fixes.n && k < size; f++) { /* the fixes on groups' forces, in order */
        const mdl_force_fix *x = &cfg->force_fixes.fix[f];
        k += (size_t)snprintf(out + k, size - k, "; fix %d group=%u", x->style, x->group);
        for (int d = 0; d < 3 && k < size; d++)
            k += (size_t)(x->acts[d] ? snprintf(out + k, size - k, " %.17g", x->value[d]) : snprintf(out + k, size - k, " NULL"));
        if (x->style >= MDL_FIX_INDENT && k < size) /* an indenter's or a wall's every parameter */
            k += (size_t)snprintf(out + k, size - k, " shape=%d,%d,%d,%d,%d,%d,%d k=%.17g at=%.17g,%.17g,%.17g r=%.17g "
                                  "move=%.17g,%.17g,%.17g cut=%.17g coeff=%.17g,%.17g,%.17g,%.17g,%.17g", x->shape,
                                  x->axis, x->inside, x->plane_side, x->energy, x->wall, x->edge, x->k, x->centre[0],
                                  x->centre[1], x->centre[2], x->radius, x->move[0], x->move[1], x->move[2], x->cutoff,
                                  x->coeff[0], x->coeff[1], x->coeff[2], x->coeff[3], x->offset);
        for (int t = 0; x->style == MDL_FIX_VISCOUS && t < MDL_MAX_SPECIES && k < size; t++) /* its scales */
            k += (size_t)snprintf(out + k, size - k, "%s%.17g", t ? "," : " scale=", x->type_scale[t]);
    }
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

char *config_effective_text(const mdl_config *cfg)
{
    size_t size = 1;
    for (int i = 0; i < cfg->nentries; i++)
        size += strlen(cfg->entries[i].section) + strlen(cfg->entries[i].key) + strlen(cfg->entries[i].value) + 32;
    char *out = malloc(size), *p = out;
    if (!out)
        return NULL;
    *p = '\0';
    for (int i = 0; i < cfg->nentries; i++) { /* each section once, in the order it first appears */
        const char *sec = cfg->entries[i].section;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(cfg->entries[j].section, sec) == 0;
        if (seen)
            continue;
        p += sprintf(p, "%s[%s]\n", p == out ? "" : "\n", sec);
        for (int j = i; j < cfg->nentries; j++) {
            const mdl_entry *e = &cfg->entries[j];
            if (strcmp(e->section, sec) == 0)
                p += sprintf(p, "%s = %s%s\n", e->key, e->value, strcmp(e->origin, "--set") == 0 ? " ; --set" : "");
        }
    }
    return out;
}
