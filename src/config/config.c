/* The INI configuration: collects keys with their file:line (ini.c), applies --set overrides, reads
   each value by the schema (config_schema.c), then checks contradictions and fills mdl_config. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "config_schema.h"
#include "ini.h"
#include "../physics/units.h"
#include "../util/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- collecting entries ------------------------------------------------------------------ */

int config_add_entry(mdl_config *cfg, const char *section, const char *key, const char *value,
                     const char *origin)
{
    mdl_entry *grown = mdl_realloc(cfg->entries, (size_t)(cfg->nentries + 1) * sizeof *grown, "config");
    if (!grown)
        return MDL_ERUN;
    cfg->entries = grown;
    mdl_entry *e = &cfg->entries[cfg->nentries];
    memset(e, 0, sizeof *e);
    snprintf(e->section, sizeof e->section, "%s", section);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->origin, sizeof e->origin, "%s", origin);
    e->value = strdup(value);
    if (!e->value)
        return MDL_ERUN;
    cfg->nentries++;
    return MDL_OK;
}

/* Checks that section/key exist in the schema; prints the reason when not. */
static int check_known(const char *origin, const char *section, const char *key)
{
    const char *stage = config_stage_name(section);
    if (stage && !species_name_valid(stage)) {
        mdl_error("%s: [%s]: a stage's name is 1 to %d letters, digits, '_' or '-'", origin, section, MDL_NAME_LEN - 1);
        return 0;
    }
    if (stage && !config_stage_key_section(key)) {
        mdl_error("%s: [%s] %s: not a key a stage sets (steps, the ensemble's keys, thermo, dump_every, "
                  "data_file and [analysis]'s rdf_every, rdf_bins, rdf_max, msd_every)", origin, section, key);
        return 0;
    }
    if (!stage && !config_known_section(section)) {
        mdl_error("%s: [%s]: unknown section (expected system, potential, neighbor, run, output, analysis or "
                  "stage:NAME)", origin, section);
        return 0;
    }
    if (!stage && !config_find_spec(section, key) && !config_is_pattern_key(section, key)) {
        mdl_error("%s: [%s] %s: unknown key", origin, section, key);
        return 0;
    }
    if (strlen(section) >= 32 || strlen(key) >= 64) {
        mdl_error("%s: [%s] %s: name too long", origin, section, key);
        return 0;
    }
    return 1;
}

/* Output paths where an empty value means "none" (documented); elsewhere empty means missing. */
static int empty_means_none(const char *section, const char *key)
{
    return strcmp(section, "output") == 0 && (strcmp(key, "thermo_file") == 0 || strcmp(key, "trajectory") == 0);
}

static int blank(const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    return *v == '\0';
}

/* A [stage:NAME] section that ended with no value in it (none, or only empty ones) would vanish and
   leave the run unstaged: refused. */
static int stage_section_ends(mdl_config *cfg)
{
    if (!cfg->open_stage[0])
        return 0;
    mdl_error("%s: the stage has no keys (each stage sets its steps; an empty value is a missing one)",
              cfg->open_stage);
    cfg->open_stage[0] = '\0';
    return 1;
}

int config_on_key(void *user, const char *section, const char *key, const char *value, int line)
{
    mdl_config *cfg = user;
    char origin[MDL_PATH_LEN + 32];
    snprintf(origin, sizeof origin, "%s:%d", cfg->path, line);
    if (!key) { /* a [section] line, or the file's end */
        int bad = stage_section_ends(cfg);
        if (section && config_stage_name(section))
            snprintf(cfg->open_stage, sizeof cfg->open_stage, "%s: [%.40s]", origin, section);
        return bad;
    }
    if (!section[0]) {
        mdl_error("%s: %s: key outside a [section]", origin, key);
        return 1;
    }
    if (!check_known(origin, section, key))
        return 1; /* keep going: report every unknown key, not just the first */
    mdl_entry *prev = config_find_entry(cfg, section, key);
    if (prev) {
        mdl_error("%s: [%s] %s: set twice (first at %s)", origin, section, key, prev->origin);
        return 1;
    }
    if (blank(value) && !empty_means_none(section, key))
        return 0; /* an empty value is a missing one: the default, or a "missing" message later */
    cfg->open_stage[0] = '\0';
    return config_add_entry(cfg, section, key, value, origin) == MDL_OK ? 0 : -1;
}

int config_parse_file(mdl_config *cfg)
{
    return ini_parse(cfg->path, cfg->script_vars, &cfg->text, config_on_key, cfg);
}

void config_remove_entry(mdl_config *cfg, mdl_entry *e)
{
    free(e->value);
    size_t k = (size_t)(e - cfg->entries);
    memmove(e, e + 1, (size_t)(cfg->nentries - (int)k - 1) * sizeof *e);
    cfg->nentries--;
}

/* "section.key=value" from the command line. */
int config_apply_override(mdl_config *cfg, const char *arg)
{
    for (const unsigned char *c = (const unsigned char *)arg; *c; c++)
        if (*c < 0x20 || *c == 0x7f) { /* a newline would write lines into the recorded configuration */
            mdl_error("--set: byte %d of '%.*s...' is a control character (0x%02x): a value is one line of text",
                      (int)(c - (const unsigned char *)arg) + 1, (int)(c - (const unsigned char *)arg), arg, *c);
            return MDL_EINPUT;
        }
    const char *dot = strchr(arg, '.');
    const char *eq = strchr(arg, '=');
    if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1) {
        mdl_error("--set %s: expected section.key=value", arg);
        return MDL_EINPUT;
    }
    char section[32], key[64];
    if ((size_t)(dot - arg) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key) {
        mdl_error("--set %s: name too long", arg);
        return MDL_EINPUT;
    }
    snprintf(section, sizeof section, "%.*s", (int)(dot - arg), arg);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    if (!check_known("--set", section, key))
        return MDL_EINPUT;
    mdl_entry *e = config_find_entry(cfg, section, key);
    if (blank(eq + 1) && !empty_means_none(section, key)) {
        if (e) /* --set key= takes the file's value back: the key is missing again */
            config_remove_entry(cfg, e);
        return MDL_OK;
    }
    if (e) {
        free(e->value);
        e->value = strdup(eq + 1);
        snprintf(e->origin, sizeof e->origin, "--set");
        return e->value ? MDL_OK : MDL_ERUN;
    }
    return config_add_entry(cfg, section, key, eq + 1, "--set");
}

/* ---- defaults and cross-checks ----------------------------------------------------------- */

void config_defaults(mdl_config *cfg)
{
    snprintf(cfg->units, sizeof cfg->units, "lj");
    cfg->mass = 1.0;
    cfg->temperature = -1;
    cfg->seed = 87287;
    cfg->dimension = 3;
    for (int d = 0; d < 3; d++) /* the lattice's default axes and primitive vectors */
        cfg->lattice_orient[4 * d] = 1, cfg->lattice_a[d][d] = 1.0;
    for (int st = 0; st < MDL_PAIR_NSTYLES; st++) { /* lj units' (metal units have none: config_finish) */
        const mdl_pair_style_info *info = pair_style_info(st);
        for (int k = 0; k < MDL_PAIR_MAX_PARAMS; k++)
            cfg->param[st][k] = k < info->nparam ? info->lj_default[k] : NAN;
    }
    cfg->cutoff = 2.5;
    cfg->skin = -1; /* unit-dependent default */
    cfg->check = 1, cfg->distance_check = 1;
    snprintf(cfg->method, sizeof cfg->method, "cell");
    snprintf(cfg->layout, sizeof cfg->layout, "transposed");
    snprintf(cfg->backend, sizeof cfg->backend, "cpu");
    cfg->steps = 100;
    cfg->timestep = -1; /* unit-dependent default */
    cfg->ensemble = MDL_NVE;
    cfg->target_temperature = -1;
    cfg->final_temperature = -1;
    cfg->tau = -1;
    cfg->every = 1;
    cfg->reset_timestep = -1;
    cfg->chain = 3;
    cfg->pressure_tau = -1;
    cfg->pressure_chain = 3;
    cfg->thermo = 10;
    snprintf(cfg->thermo_file, sizeof cfg->thermo_file, "thermo.csv");
    cfg->dump_every = 100, cfg->thermo_norm = 1;
    cfg->dump_fields = MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE; /* images: unwrapped positions, MSD */
    cfg->flush_every = 10;
    cfg->checkpoint = 1;
    cfg->async = 1;
    cfg->grow = 1;
    cfg->buffers = 3;
    cfg->rdf_bins = 100;
    cfg->rdf_max = -1;
    snprintf(cfg->rdf_file, sizeof cfg->rdf_file, "rdf.csv");
    snprintf(cfg->msd_file, sizeof cfg->msd_file, "msd.csv");
}

/* The entry of a key set here, not inherited from before a stage (NULL: none). */
const mdl_entry *config_fresh_entry(const mdl_config *cfg, const char *section, const char *key)
{
    const mdl_entry *e = config_find_entry(cfg, section, key);
    return e && !e->inherited ? e : NULL;
}

/* A [run] key the ensemble does not use gets a warning naming it (the pressure keys, surely a
   mistake there, are refused by check_pressure_keys). */
static void warn_unused_run_keys(const mdl_config *cfg)
{
    static const struct {
        const char *key;
        int read; /* ensembles.h's MDL_READS_* */
    } keys[] = {{"target_temperature", MDL_READS_TARGET}, {"tau", MDL_READS_TAU}, {"every", MDL_READS_EVERY},
                {"chain", MDL_READS_CHAIN}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if ((ensemble_reads(cfg->ensemble) & keys[k].read) || !config_fresh_entry(cfg, "run", keys[k].key))
            continue;
        char whose[256];
        mdl_warn("%s: [run] %s: not used by ensemble %s (read by %s)", config_origin(cfg, "run", keys[k].key),
                 keys[k].key, config_ensemble_name(cfg->ensemble), ensembles_reading(keys[k].read, whose, sizeof whose));
    }
}

/* [analysis] keys of an RDF or MSD that is not sampled (its _every is 0). */
void config_warn_unused_analysis(const mdl_config *cfg)
{
    static const char *keys[] = {"rdf_bins", "rdf_max", "rdf_file", "msd_file"};
    for (int k = 0; k < 4; k++) {
        const int rdf = k < 3;
        if ((rdf ? cfg->rdf_every : cfg->msd_every) == 0 && config_fresh_entry(cfg, "analysis", keys[k]))
            mdl_warn("%s: [analysis] %s: not used: %s is 0", config_origin(cfg, "analysis", keys[k]), keys[k],
                     rdf ? "rdf_every" : "msd_every");
    }
}

/* The barostat's keys: both needed by npt-nose-hoover, refused by every other ensemble. */
static int check_pressure_keys(const mdl_config *cfg)
{
    static const char *keys[] = {"target_pressure", "pressure_tau", "pressure_chain"};
    const mdl_entry *ens = config_find_entry(cfg, "run", "ensemble");
    mdl_entry tmp;
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        const mdl_entry *e = config_find_entry(cfg, "run", keys[k]);
        const int barostat = ensemble_reads(cfg->ensemble) & MDL_READS_PRESSURE;
        if (!barostat && e) {
            config_fail(e, "ensemble %s keeps the volume fixed: pressure keys need ensemble = npt-nose-hoover",
                        ens ? ens->value : "nve");
            ok = 0;
        } else if (barostat && k < 2 && !e) {
            config_fail(config_entry_or_file(cfg, "run", keys[k], &tmp), "missing: ensemble npt-nose-hoover needs %s",
                        k == 0 ? "a target pressure" : "pressure_tau (the barostat's relaxation time)");
            ok = 0;
        }
    }
    return ok;
}

/* [potential] keys of another style than the config's are refused (they would be ignored). */
static int style_keys_only(const mdl_config *cfg)
{
    int ok = 1;
    for (int st = 0; st < MDL_PAIR_NSTYLES; st++) {
        const mdl_pair_style_info *info = pair_style_info(st);
        for (int k = 0; k < info->nparam && st != cfg->style; k++) {
            const mdl_entry *e = config_find_entry(cfg, "potential", info->key[k]);
            int mine = 0; /* a key of the config's own style too */
            const mdl_pair_style_info *own = pair_style_info(cfg->style);
            for (int q = 0; own && q < own->nparam; q++)
                mine |= strcmp(own->key[q], info->key[k]) == 0;
            if (e && !mine) {
                config_fail(e, "a key of style %s; this configuration's style is %s", info->name,
                            config_style_name(cfg->style));
                ok = 0;
            }
        }
    }
    return ok;
}

/* EAM: metal units, the file's cutoff and masses; its keys only with its styles. */
static int eam_keys(const mdl_config *cfg)
{
    const int eam = cfg->style >= MDL_EAM_FUNCFL;
    const char *theirs[] = {"cutoff", "shift"};
    if (!eam) {
        if (cfg->eam_file[0] || cfg->nfile || cfg->nelement) {
            mdl_error("%s: [potential] file / file.X / element.X: keys of the EAM styles; this configuration's style "
                      "is %s", cfg->path, config_style_name(cfg->style));
            return 0;
        }
        return 1;
    }
    if (strcmp(cfg->units, "metal") != 0) {
        config_fail(config_find_entry(cfg, "potential", "style"), "EAM files are in metal units (eV, A, g/mol); "
                    "set [system] units = metal");
        return 0;
    }
    for (int k = 0; k < 2; k++)
        if (config_find_entry(cfg, "potential", theirs[k])) {
            config_fail(config_find_entry(cfg, "potential", theirs[k]), "not with style %s: the file gives it",
                        config_style_name(cfg->style));
            return 0;
        }
    return 1;
}

static int cross_check(mdl_config *cfg, int ncomposition)
{
    mdl_entry tmp;
    int ok = config_check_system(cfg);
    if (!cfg->given_atoms && !config_find_entry(cfg, "system", "lattice") == !config_find_entry(cfg, "system", "input"))
        return 0; /* both, or neither: nothing else of [system] is checked */
    const mdl_entry *comp = config_find_entry(cfg, "system", "composition");
    if (cfg->nspecies == 0) {
        cfg->nspecies = 1;
        snprintf(cfg->species[0], MDL_NAME_LEN, "%s", strcmp(cfg->units, "metal") == 0 ? "Ar" : "A");
    }
    const mdl_entry *fills = config_find_entry(cfg, "system", "lattice_regions");
    if (fills && (comp || !config_find_entry(cfg, "system", "lattice"))) {
        config_fail(fills, comp ? "with [system] composition: the regions give each atom its species"
                                : "without [system] lattice: it places the lattice's points");
        ok = 0;
    } else if (fills) {
        cfg->composition[0] = 1.0; /* unread: each region names its atoms' species */
    } else if (comp) {
        if (ncomposition != cfg->nspecies) {
            config_fail(comp, "%d fractions for %d species", ncomposition, cfg->nspecies);
            ok = 0;
        } else {
            double sum = 0;
            for (int i = 0; i < ncomposition; i++)
                sum += cfg->composition[i];
            if (sum < 1 - 1e-9 || sum > 1 + 1e-9) {
                config_fail(comp, "fractions add up to %g, not 1", sum);
                ok = 0;
            }
        }
    } else if (cfg->nspecies > 1) {
        config_fail(config_entry_or_file(cfg, "system", "composition", &tmp), "missing: %d species need %d fractions",
             cfg->nspecies, cfg->nspecies);
        ok = 0;
    } else {
        cfg->composition[0] = 1.0;
    }
    if (config_fresh_entry(cfg, "run", "final_temperature") && !(ensemble_reads(cfg->ensemble) & MDL_READS_RAMP)) {
        char which[256];
        config_fail(config_find_entry(cfg, "run", "final_temperature"), "ensemble %s holds one target (a moving "
                    "one: %s)", config_ensemble_name(cfg->ensemble), ensembles_reading(MDL_READS_RAMP, which, sizeof which));
        ok = 0;
    }
    const mdl_entry *fin = config_find_entry(cfg, "run", "final_temperature");
    if (cfg->final_temperature < 0 || (fin && fin->inherited && config_fresh_entry(cfg, "run", "target_temperature")))
        cfg->final_temperature = cfg->target_temperature; /* a stage's own target holds unless it moves it too */
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_TARGET) && cfg->target_temperature < 0) {
        config_fail(config_entry_or_file(cfg, "run", "target_temperature", &tmp), "missing: ensemble %s needs a target temperature",
             config_find_entry(cfg, "run", "ensemble")->value);
        ok = 0;
    }
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_TAU) && cfg->tau < 0) {
        config_fail(config_entry_or_file(cfg, "run", "tau", &tmp), "missing: ensemble %s needs tau (relaxation time)",
             config_find_entry(cfg, "run", "ensemble")->value);
        ok = 0;
    }
    ok &= check_pressure_keys(cfg);
    if (strcmp(cfg->backend, "cpu") == 0 && strcmp(cfg->method, "brute-atomic") == 0) {
        config_fail(config_find_entry(cfg, "neighbor", "method"), "brute-atomic is a GPU method; the CPU backend has cell and brute");
        ok = 0;
    }
    if (cfg->trajectory[0]) {
        size_t len = strlen(cfg->trajectory);
        const char *t = cfg->trajectory;
        int h5 = (len > 3 && strcmp(t + len - 3, ".h5") == 0) || (len > 5 && strcmp(t + len - 5, ".h5md") == 0);
        int xyz = len > 4 && strcmp(t + len - 4, ".xyz") == 0;
        if (!h5 && !xyz && !cfg->dump_columns[0]) {
            config_fail(config_find_entry(cfg, "output", "trajectory"), "'%s': expected a .h5/.h5md (H5MD) or .xyz name "
                        "(or dump_columns: a LAMMPS text dump)", t);
            ok = 0;
        } else if (len > 3 && strcmp(t + len - 3, ".h5") == 0) {
            mdl_warn("%s: [output] trajectory: %s is H5MD, but MDAnalysis recognises H5MD files only by the .h5md "
                     "suffix (use .h5md, or rename the file before opening it there)",
                     config_origin(cfg, "output", "trajectory"), t);
        }
    }
    ok &= style_keys_only(cfg) && eam_keys(cfg);
    return ok && config_read_fire(cfg) && config_read_walls(cfg) && config_read_groups(cfg) &&
           config_read_computes(cfg);
}

/* What the thermostats cannot integrate, refused before the run rather than blamed on the forces
   once it has gone wrong: a time constant shorter than the timestep (the thermostat's own equation
   is then unstable), and a Nose-Hoover target temperature of 0 (the chain's masses, N k T tau^2,
   are then zero). */
static int check_time_constants(const mdl_config *cfg, int nose_hoover)
{
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_TAU) && cfg->tau < cfg->timestep) {
        mdl_error("%s: [run] tau = %g is shorter than the timestep %g: the thermostat cannot be integrated "
                  "(LAMMPS advises about 100 timesteps)", config_origin(cfg, "run", "tau"), cfg->tau, cfg->timestep);
        return MDL_EINPUT;
    }
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_PRESSURE) && cfg->pressure_tau < cfg->timestep) {
        mdl_error("%s: [run] pressure_tau = %g is shorter than the timestep %g: the barostat cannot be integrated "
                  "(LAMMPS advises about 1000 timesteps)", config_origin(cfg, "run", "pressure_tau"),
                  cfg->pressure_tau, cfg->timestep);
        return MDL_EINPUT;
    }
    if (nose_hoover && !(cfg->target_temperature > 0)) {
        mdl_error("%s: [run] target_temperature = %g: a Nose-Hoover chain needs a temperature above 0 (its "
                  "masses are N k T tau^2); nvt-berendsen, nvt-langevin or nvt-rescale can cool to 0",
                  config_origin(cfg, "run", "target_temperature"), cfg->target_temperature);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* ---- public -------------------------------------------------------------------------------- */

/* The typed values of cfg's entries (stage sections aside), the cross-checks and the warnings. */
int config_finish(mdl_config *cfg)
{
    int ok = 1, ncomposition = 0;
    /* units first: other defaults depend on it; then the style, which says what pair.A.B holds */
    const mdl_entry *u = config_find_entry(cfg, "system", "units"), *st = config_find_entry(cfg, "potential", "style");
    if (u && !config_set_value(cfg, config_find_spec("system", "units"), u))
        return MDL_EINPUT;
    if (st && !config_set_value(cfg, config_find_spec("potential", "style"), st))
        return MDL_EINPUT;
    if (strcmp(cfg->units, "lj") != 0) { /* metal units: no default for the potential's keys */
        for (int k = 0; k < MDL_PAIR_NSTYLES * MDL_PAIR_MAX_PARAMS; k++)
            cfg->param[k / MDL_PAIR_MAX_PARAMS][k % MDL_PAIR_MAX_PARAMS] = NAN;
        cfg->cutoff = NAN;
    }
    for (int i = 0; i < cfg->nentries; i++) {
        const mdl_entry *e = &cfg->entries[i];
        if (config_stage_name(e->section))
            continue;
        const key_spec *s = config_find_spec(e->section, e->key);
        int r;
        if (s == config_find_spec("system", "units") || s == config_find_spec("potential", "style"))
            continue;
        if (s)
            r = config_set_value(cfg, s, e);
        else if (strncmp(e->key, "pair.", 5) == 0)
            r = config_set_pair(cfg, e);
        else if (strcmp(e->section, "potential") == 0)
            r = config_set_species_key(cfg, e);
        else
            r = config_set_mass(cfg, e);
        if (s && s->kind == K_FRACTIONS)
            ncomposition = r;
        ok &= r != 0;
    }
    if (!ok || !cross_check(cfg, ncomposition))
        return MDL_EINPUT;
    mdl_units un;
    units_lookup(cfg->units, &un);
    if (cfg->timestep < 0)
        cfg->timestep = un.dt;
    const int nose_hoover = config_nose_hoover(cfg->ensemble);
    MDL_TRY(check_time_constants(cfg, nose_hoover));
    if (nose_hoover && cfg->tau < 10 * cfg->timestep && config_fresh_entry(cfg, "run", "tau"))
        mdl_warn("%s: [run] tau = %g is under 10 timesteps (%g): the chain follows the temperature's every "
                 "fluctuation; LAMMPS advises about 100 timesteps", config_origin(cfg, "run", "tau"), cfg->tau,
                 10 * cfg->timestep);
    if ((ensemble_reads(cfg->ensemble) & MDL_READS_PRESSURE) && cfg->pressure_tau < 10 * cfg->timestep &&
        config_fresh_entry(cfg, "run", "pressure_tau"))
        mdl_warn("%s: [run] pressure_tau = %g is under 10 timesteps (%g): the box follows the pressure's every "
                 "fluctuation; LAMMPS advises about 1000 timesteps", config_origin(cfg, "run", "pressure_tau"),
                 cfg->pressure_tau, 10 * cfg->timestep);
    warn_unused_run_keys(cfg);
    config_warn_unused_analysis(cfg);
    if (cfg->unwrapped && (cfg->dump_fields & MDL_DUMP_IMAGE) && config_has(cfg, "output", "dump_fields"))
        return config_fail(config_find_entry(cfg, "output", "dump_fields"), "image with positions = unwrapped (%s): "
                           "unwrapped positions have no image to add", config_origin(cfg, "output", "positions")),
               MDL_EINPUT;
    cfg->dump_fields |= cfg->unwrapped ? MDL_DUMP_IMAGE : 0; /* fetched to unwrap; the writers leave them out */
    if (cfg->dump_columns[0] && !config_lammps_dump(cfg))
        return MDL_EINPUT;
    cfg->skin_auto = cfg->skin == MDL_AUTO;
    if (cfg->skin < 0)
        cfg->skin = un.skin;
    if (cfg->skin_auto && cfg->check != 1) {
        config_fail(config_find_entry(cfg, "neighbor", "check"),
                    "skin = auto needs check = 1 (a tuned skin may be too small to be checked only every %d steps)",
                    cfg->check);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

void config_destroy(mdl_config *cfg)
{
    for (int k = 0; k < cfg->nstages; k++)
        config_destroy(&cfg->stages[k]);
    free(cfg->stages);
    for (int i = 0; i < cfg->nentries; i++)
        free(cfg->entries[i].value);
    free(cfg->entries);
    free(cfg->text);
    memset(cfg, 0, sizeof *cfg);
}

int config_has(const mdl_config *cfg, const char *section, const char *key)
{
    return config_find_entry(cfg, section, key) != NULL;
}

const char *config_origin(const mdl_config *cfg, const char *section, const char *key)
{
    const mdl_entry *e = config_find_entry(cfg, section, key);
    return e ? e->origin : cfg->path;
}

int config_nose_hoover(int ensemble)
{
    const mdl_ensemble_info *e = ensemble_info(ensemble);
    return e && e->action == MDL_ACT_CHAINS;
}

int config_text(const mdl_config *cfg, const char *section, const char *key, mdl_buf *out)
{
    /* a stage's own, not one from the stages before it */
    const mdl_entry *e = cfg->stage_name[0] ? config_fresh_entry(cfg, section, key) : config_find_entry(cfg, section, key);
    buf_clear(out);
    if (!e)
        return buf_add(out, "");
    return buf_unquote(e->value, out) == MDL_ERUN ? MDL_ERUN : MDL_OK; /* checked when it was read */
}
