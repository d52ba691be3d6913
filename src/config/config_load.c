/* Reading a configuration: the file, the --set overrides, then the [stage:NAME] sections: each
   stage's whole configuration, made from the configuration's keys and every stage's up to it, and
   checked as the configuration is. */
#include "config.h"
#include "ini.h"

#include "config_schema.h"
#include "../util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ensemble_key(const char *section, const char *key)
{
    static const char *keys[] = {"ensemble", "target_temperature", "final_temperature", "tau", "every", "chain", "target_pressure",
                                 "pressure_tau", "pressure_chain", "rescale_window", "thermostat_group", "force_fixes",
                                 "wall_reflect"};
    for (size_t k = 0; strcmp(section, "run") == 0 && k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(keys[k], key) == 0)
            return 1;
    return 0;
}

static int has_stages(const mdl_config *cfg)
{
    for (int i = 0; i < cfg->nentries; i++)
        if (config_stage_name(cfg->entries[i].section))
            return 1;
    return 0;
}

/* The names of the stages, in the order their sections first appear. */
static int stage_names(const mdl_config *cfg, char names[][32])
{
    int n = 0;
    for (int i = 0; i < cfg->nentries; i++) {
        const char *sec = cfg->entries[i].section;
        if (!config_stage_name(sec))
            continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(names[k], sec) == 0;
        if (!seen && n == MDL_MAX_STAGES) {
            mdl_error("%s: [%s]: more than %d stages", cfg->entries[i].origin, sec, MDL_MAX_STAGES);
            return -1;
        }
        if (!seen)
            snprintf(names[n++], 32, "%s", sec);
    }
    return n;
}

/* Stage k's entries onto st (inherited unless k is the stage being made): a stage that sets
   ensemble first drops the ensemble keys it inherited. */
static int apply_stage(mdl_config *st, const mdl_config *cfg, const char *section, int inherited)
{
    if (config_find_entry(cfg, section, "ensemble"))
        for (int i = st->nentries - 1; i >= 0; i--)
            if (is_ensemble_key(st->entries[i].section, st->entries[i].key))
                config_remove_entry(st, &st->entries[i]);
    for (int i = 0; i < cfg->nentries; i++) {
        const mdl_entry *e = &cfg->entries[i];
        if (strcmp(e->section, section) != 0)
            continue;
        const char *real = config_stage_key_section(e->key);
        mdl_entry *prev = config_find_entry(st, real, e->key);
        if (prev)
            config_remove_entry(st, prev);
        MDL_TRY(config_add_entry(st, real, e->key, e->value, e->origin));
        st->entries[st->nentries - 1].inherited = inherited;
    }
    return MDL_OK;
}

/* Each stage's whole configuration (config.h), checked as the configuration is. */
/* Stages that write frames at another spacing than the first: an H5MD file stores one frame
   spacing (observables/dt, the first stage's), which is all MDAnalysis reads. */
static void warn_frame_spacing(const mdl_config *cfg)
{
    const mdl_config *first = &cfg->stages[0];
    for (int k = 1; k < cfg->nstages && cfg->trajectory[0]; k++) {
        const mdl_config *st = &cfg->stages[k];
        if (st->dump_every * st->timestep != first->dump_every * first->timestep)
            mdl_warn("%s: [stage:%s] dump_every = %d: frames %g apart here, %g in stage %s; the trajectory stores "
                     "one spacing (the first stage's), and MDAnalysis reads its frames as if all were that far apart",
                     st->stage_origin, st->stage_name, st->dump_every, st->dump_every * st->timestep,
                     first->dump_every * first->timestep, first->stage_name);
    }
}

static int build_stages(mdl_config *cfg)
{
    char names[MDL_MAX_STAGES][32];
    int n = stage_names(cfg, names);
    if (n <= 0)
        return n < 0 ? MDL_EINPUT : MDL_OK;
    const mdl_entry *steps = config_find_entry(cfg, "run", "steps");
    if (steps) {
        config_fail(steps, "with [stage:NAME] sections each stage sets its own steps");
        return MDL_EINPUT;
    }
    cfg->stages = mdl_calloc((size_t)n, sizeof *cfg->stages, "stages");
    if (!cfg->stages)
        return MDL_ERUN;
    cfg->nstages = n;
    for (int k = 0; k < n; k++) {
        mdl_config *st = &cfg->stages[k];
        memcpy(st->path, cfg->path, sizeof st->path);
        config_defaults(st);
        snprintf(st->stage_name, sizeof st->stage_name, "%s", names[k] + 6);
        for (int i = 0; i < cfg->nentries && !st->stage_origin[0]; i++)
            if (strcmp(cfg->entries[i].section, names[k]) == 0)
                memcpy(st->stage_origin, cfg->entries[i].origin, sizeof st->stage_origin);
        for (int i = 0; i < cfg->nentries; i++) {
            const mdl_entry *e = &cfg->entries[i];
            if (config_stage_name(e->section))
                continue;
            MDL_TRY(config_add_entry(st, e->section, e->key, e->value, e->origin));
            /* the configuration's [analysis] keys serve whichever stage samples: said below */
            st->entries[st->nentries - 1].inherited = k > 0 || strcmp(e->section, "analysis") == 0;
        }
        for (int j = 0; j <= k; j++)
            MDL_TRY(apply_stage(st, cfg, names[j], j < k));
        mdl_entry tmp;
        if (!config_fresh_entry(st, "run", "steps")) {
            config_fail(config_entry_or_file(cfg, names[k], "steps", &tmp), "missing: each stage sets its steps");
            return MDL_EINPUT;
        }
        MDL_TRY(config_finish(st));
        st->fresh_chains = st->fresh_chains && config_fresh_entry(st, "run", "chains"); /* its own, not inherited */
    }
    warn_frame_spacing(cfg);
    int rdf = 0, msd = 0;
    for (int k = 0; k < n; k++)
        rdf |= cfg->stages[k].rdf_every > 0, msd |= cfg->stages[k].msd_every > 0;
    mdl_config used = *cfg; /* the configuration's [analysis] keys that no stage uses */
    used.rdf_every = rdf, used.msd_every = msd;
    for (int i = 0; i < cfg->nentries; i++)
        cfg->entries[i].inherited = strcmp(cfg->entries[i].section, "analysis") != 0;
    config_warn_unused_analysis(&used);
    for (int i = 0; i < cfg->nentries; i++)
        cfg->entries[i].inherited = 1;
    return MDL_OK;
}


int config_load(mdl_config *cfg, const char *path, int noverrides, char *const *overrides)
{
    return config_load_script(cfg, path, noverrides, overrides, NULL);
}

/* The configuration from its file (text NULL) or from text named path, then the overrides. */
static int load(mdl_config *cfg, const char *path, char *text, int *line_of, int nlines, int noverrides,
                char *const *overrides, const lammps_script_vars *vars)
{
    const int given_atoms = cfg->given_atoms;
    memset(cfg, 0, sizeof *cfg);
    cfg->given_atoms = given_atoms;
    if (strlen(path) >= MDL_PATH_LEN) {
        mdl_error("%s: the config path is longer than %d characters", path, MDL_PATH_LEN - 1);
        free(text), free(line_of);
        return MDL_EINPUT;
    }
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    config_defaults(cfg);
    cfg->script_vars = vars;
    int rc = text ? ini_parse_text(cfg->path, text, vars, line_of, nlines, &cfg->text, config_on_key, cfg)
                  : config_parse_file(cfg);
    cfg->script_vars = NULL;
    for (int i = 0; rc == MDL_OK && i < noverrides; i++)
        rc = config_apply_override(cfg, overrides[i]);
    if (rc != MDL_OK)
        return rc;
    if (has_stages(cfg)) /* the stages say what is used: warnings come with them */
        for (int i = 0; i < cfg->nentries; i++)
            cfg->entries[i].inherited = 1;
    MDL_TRY(config_finish(cfg));
    return build_stages(cfg);
}

int config_load_script(mdl_config *cfg, const char *path, int noverrides, char *const *overrides,
                       const lammps_script_vars *vars)
{
    cfg->given_atoms = 0;
    return load(cfg, path, NULL, NULL, 0, noverrides, overrides, vars);
}

int config_load_text(mdl_config *cfg, const char *name, char *text, int *line_of, int nlines, int given_atoms,
                     int noverrides, char *const *overrides)
{
    cfg->given_atoms = given_atoms;
    return load(cfg, name, text, line_of, nlines, noverrides, overrides, NULL);
}
