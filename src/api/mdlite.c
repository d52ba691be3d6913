/* libmdlite's entry points (include/mdlite.h): handles, their messages, argument checks, then the
   engine (engine.c) or the driver (core/run.c). */
#define _POSIX_C_SOURCE 200809L
#include "../../include/mdlite.h"

#include "engine.h"
#include "../config/config.h"
#include "../core/run.h"
#include "../parallel/comm.h"
#include "../util/util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MDLITE_VERSION
#define MDLITE_VERSION "unknown"
#endif

enum { EMPTY, CONFIG, RUN_ONLY };

struct mdlite_sim {
    mdl_capture msg;      /* what its last call said */
    mdl_capture *outer;   /* the capture its call replaced */
    int state;            /* EMPTY, CONFIG (an engine with e.cfg), RUN_ONLY (e.cfg alone) */
    mdl_engine e;
    struct mdlite_sim *next; /* the live handles */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mdlite_sim *g_live;        /* the handles alive */
static _Thread_local char g_orphan[256]; /* what a call with no live handle said */

static int is_live(const mdlite_sim *sim)
{
    pthread_mutex_lock(&g_lock);
    const struct mdlite_sim *h = g_live;
    while (h && h != sim)
        h = h->next;
    pthread_mutex_unlock(&g_lock);
    return sim && h == sim;
}

/* A call's start: its messages into the handle's capture. */
static int enter(mdlite_sim *sim, const char *call)
{
    if (!is_live(sim)) {
        snprintf(g_orphan, sizeof g_orphan, "error: %s: %s\n", call,
                 sim ? "not a live handle (freed, or not made by mdlite_new)" : "the handle is NULL");
        return MDLITE_ESTATE;
    }
    mdl_capture_clear(&sim->msg);
    sim->outer = mdl_capture_set(&sim->msg);
    return MDLITE_OK;
}

static int leave(mdlite_sim *sim, int rc)
{
    mdl_capture_set(sim->outer);
    return rc;
}

#define ENTER(sim)                                  \
    do {                                            \
        const int live_ = enter(sim, __func__);     \
        if (live_ != MDLITE_OK)                     \
            return live_;                           \
    } while (0)

/* The handle holds a simulation (an engine); else MDLITE_ESTATE, said. */
static int started(mdlite_sim *sim, const char *call)
{
    if (sim->state == CONFIG)
        return MDLITE_OK;
    mdl_error("%s: %s", call, sim->state == EMPTY ? "nothing loaded (mdlite_load_file, _text or _atoms first)"
                                                    : "the config was loaded for mdlite_run alone (run_only)");
    return MDLITE_ESTATE;
}

#define STARTED(sim)                                \
    do {                                            \
        ENTER(sim);                                 \
        const int st_ = started(sim, __func__);     \
        if (st_ != MDLITE_OK)                       \
            return leave(sim, st_);                 \
    } while (0)

static int need(const void *p, const char *what)
{
    if (p)
        return MDLITE_OK;
    mdl_error("%s is NULL", what);
    return MDLITE_EINPUT;
}

mdlite_sim *mdlite_new(void)
{
    mdlite_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return NULL;
    pthread_mutex_lock(&g_lock);
    sim->next = g_live, g_live = sim;
    pthread_mutex_unlock(&g_lock);
    return sim;
}

static void drop(mdlite_sim *sim)
{
    if (sim->state == CONFIG)
        engine_destroy(&sim->e);
    if (sim->state != EMPTY)
        config_destroy(&sim->e.cfg);
    memset(&sim->e, 0, sizeof sim->e);
    sim->state = EMPTY;
}

void mdlite_free(mdlite_sim *sim)
{
    if (!is_live(sim))
        return;
    pthread_mutex_lock(&g_lock);
    struct mdlite_sim **h = &g_live;
    while (*h != sim)
        h = &(*h)->next;
    *h = sim->next;
    pthread_mutex_unlock(&g_lock);
    mdl_capture *outer = mdl_capture_set(&sim->msg); /* what freeing says is the handle's, and goes */
    drop(sim);
    mdl_capture_set(outer);
    free(sim->msg.text);
    free(sim);
}

const char *mdlite_message(const mdlite_sim *sim)
{
    if (!is_live(sim))
        return g_orphan;
    return sim->msg.text ? sim->msg.text : "";
}

int mdlite_set_echo(mdlite_sim *sim, int echo)
{
    ENTER(sim);
    sim->msg.echo = echo != 0;
    return leave(sim, MDLITE_OK);
}

/* A freshly loaded config (status rc so far) made sim's simulation once its engine starts (from
   the given atoms, or the config's system where given->n is 0; given NULL: no engine, run_only);
   else freed, sim as it was. */
static int adopt(mdlite_sim *sim, mdl_engine *fresh, int rc, const engine_atoms *given)
{
    if (!fresh)
        return rc;
    if (rc == MDLITE_OK && given)
        rc = engine_start(fresh, given->n ? given : NULL);
    if (rc == MDLITE_OK) {
        drop(sim);
        sim->e = *fresh; /* its stepper is not set up yet: nothing points into it */
        sim->state = given ? CONFIG : RUN_ONLY;
    } else {
        if (given)
            engine_destroy(fresh);
        config_destroy(&fresh->cfg);
    }
    free(fresh);
    return rc;
}

/* A config (from the file at path, or from text named path) into sim, its engine started unless
   run_only. */
static int load(mdlite_sim *sim, const char *path, const char *text, const mdlite_load_options *opt)
{
    static const mdlite_load_options none = {0};
    if (!opt)
        opt = &none;
    if (opt->nsets < 0 || (opt->nsets > 0 && !opt->sets) || opt->nvars < 0 ||
        (opt->nvars > 0 && (!opt->var_names || !opt->var_counts || !opt->var_values))) {
        mdl_error("load options: a count below 0, or arrays NULL for a count above 0");
        return MDLITE_EINPUT;
    }
    lammps_script_vars vars = {opt->nvars, calloc((size_t)opt->nvars + 1, sizeof(char *)),
                               calloc((size_t)opt->nvars + 1, sizeof(char **)), calloc((size_t)opt->nvars + 1, sizeof(int))};
    char *copy = text ? strdup(text) : NULL;
    int rc = vars.name && vars.values && vars.nvalues && (copy || !text) ? MDLITE_OK : MDLITE_ERUN;
    for (int k = 0, at = 0; k < opt->nvars && rc == MDLITE_OK; at += opt->var_counts[k++]) {
        if (opt->var_counts[k] < 1 || !opt->var_names[k]) {
            mdl_error("load options: variable %d has no name or no value", k + 1);
            rc = MDLITE_EINPUT;
        }
        vars.name[k] = opt->var_names[k], vars.nvalues[k] = opt->var_counts[k];
        vars.values[k] = (char **)(opt->var_values + at);
    }
    mdl_engine *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        rc = MDLITE_ERUN;
    if (rc == MDLITE_OK) {
        rc = text ? config_load_text(&fresh->cfg, path, copy, NULL, 0, 0, opt->nsets, (char *const *)opt->sets)
                  : config_load_script(&fresh->cfg, path, opt->nsets, (char *const *)opt->sets,
                                       opt->nvars ? &vars : NULL);
        copy = NULL; /* the config's now */
    }
    free(copy), free(vars.name), free(vars.values), free(vars.nvalues);
    if (rc == MDLITE_OK && opt->command)
        mdl_copy(fresh->cfg.command, sizeof fresh->cfg.command, opt->command);
    return adopt(sim, fresh, rc, opt->run_only ? NULL : &(engine_atoms){0});
}

int mdlite_load_file(mdlite_sim *sim, const char *path, const mdlite_load_options *opt)
{
    ENTER(sim);
    int rc = need(path, "path");
    return leave(sim, rc == MDLITE_OK ? load(sim, path, NULL, opt) : rc);
}

int mdlite_load_text(mdlite_sim *sim, const char *text, const char *name, const mdlite_load_options *opt)
{
    ENTER(sim);
    int rc = need(text, "text");
    return leave(sim, rc == MDLITE_OK ? load(sim, name ? name : "text", text, opt) : rc);
}

/* The keys as INI text, each "[section]" and "key = value" lines naming it "keys:K". */
static int keys_text(int nkeys, const char *const *keys, const char *const *values, char **text, int **line_of)
{
    size_t len = 1;
    for (int k = 0; k < nkeys; k++) {
        if (!keys[k] || !values[k] || !strchr(keys[k], '.') || strchr(keys[k], '.') == keys[k] ||
            strpbrk(keys[k], "\n\r[]=") || strpbrk(values[k], "\n\r")) {
            mdl_error("keys:%d: '%s' = '%s': expected \"section.key\" and a one-line value", k + 1,
                      keys[k] ? keys[k] : "(NULL)", values[k] ? values[k] : "(NULL)");
            return MDLITE_EINPUT;
        }
        len += strlen(keys[k]) + strlen(values[k]) + 8;
    }
    *text = malloc(len), *line_of = malloc((size_t)(2 * nkeys + 1) * sizeof **line_of);
    if (!*text || !*line_of)
        return MDLITE_ERUN;
    size_t at = 0;
    (*text)[0] = '\0';
    for (int k = 0; k < nkeys; k++) {
        const char *dot = strchr(keys[k], '.');
        at += (size_t)sprintf(*text + at, "[%.*s]\n%s = %s\n", (int)(dot - keys[k]), keys[k], dot + 1, values[k]);
        (*line_of)[2 * k] = (*line_of)[2 * k + 1] = k + 1;
    }
    (*line_of)[2 * nkeys] = nkeys;
    return MDLITE_OK;
}

static int check_atoms(const mdlite_atoms *a)
{
    if (!a || !a->types || !a->positions || !a->cell || (a->nspecies > 0 && !a->species)) {
        mdl_error("atoms: %s is NULL", !a ? "the atoms" : !a->types ? "types" : !a->positions ? "positions"
                                                    : !a->cell ? "cell" : "species");
        return MDLITE_EINPUT;
    }
    if (a->natoms == 0 || a->natoms > (size_t)MDL_MAX_ATOMS) {
        mdl_error("atoms: natoms is %zu (1 to %ld)", a->natoms, MDL_MAX_ATOMS);
        return MDLITE_EINPUT;
    }
    if (a->nspecies < 1 || a->nspecies > MDL_MAX_SPECIES) {
        mdl_error("atoms: nspecies is %d (1 to %d)", a->nspecies, MDL_MAX_SPECIES);
        return MDLITE_EINPUT;
    }
    for (int t = 0; t < a->nspecies; t++)
        if (!a->species[t] || !a->species[t][0] || strlen(a->species[t]) >= MDL_NAME_LEN) {
            mdl_error("atoms: species %d's name is empty or longer than %d characters", t, MDL_NAME_LEN - 1);
            return MDLITE_EINPUT;
        }
    return MDLITE_OK;
}

int mdlite_load_atoms(mdlite_sim *sim, const mdlite_atoms *atoms, int nkeys, const char *const *keys,
                      const char *const *values)
{
    ENTER(sim);
    int rc = check_atoms(atoms);
    if (rc == MDLITE_OK && (nkeys < 0 || (nkeys > 0 && (!keys || !values)))) {
        mdl_error("keys: a count below 0, or keys or values NULL");
        rc = MDLITE_EINPUT;
    }
    char *text = NULL;
    int *line_of = NULL;
    if (rc == MDLITE_OK)
        rc = keys_text(nkeys, keys, values, &text, &line_of);
    if (rc != MDLITE_OK) {
        free(text), free(line_of);
        return leave(sim, rc);
    }
    mdl_engine *fresh = calloc(1, sizeof *fresh);
    rc = fresh ? config_load_text(&fresh->cfg, "keys", text, line_of, 2 * nkeys + 1, 1, 0, NULL) : MDLITE_ERUN;
    if (!fresh)
        free(text), free(line_of);
    const engine_atoms g = {atoms->natoms, atoms->nspecies, atoms->species, atoms->masses, atoms->types,
                            atoms->positions, atoms->cell, atoms->velocities};
    return leave(sim, adopt(sim, fresh, rc, &g));
}

int mdlite_natoms(mdlite_sim *sim, size_t *natoms)
{
    STARTED(sim);
    int rc = need(natoms, "natoms");
    if (rc == MDLITE_OK)
        *natoms = sim->e.s.n;
    return leave(sim, rc);
}

int mdlite_nspecies(mdlite_sim *sim, int *nspecies)
{
    STARTED(sim);
    int rc = need(nspecies, "nspecies");
    if (rc == MDLITE_OK)
        *nspecies = sim->e.s.ntypes;
    return leave(sim, rc);
}

/* The calls on one array of the engine: checked for NULL, then done. */
#define ARRAY_CALL(name, type, arg, call)             \
    int name(mdlite_sim *sim, type arg)               \
    {                                                 \
        STARTED(sim);                                 \
        int rc = need(arg, #arg);                \
        return leave(sim, rc == MDLITE_OK ? call : rc); \
    }

ARRAY_CALL(mdlite_get_positions, double *, positions, engine_positions(&sim->e, positions))
ARRAY_CALL(mdlite_set_positions, const double *, positions, engine_set_positions(&sim->e, positions))
ARRAY_CALL(mdlite_get_velocities, double *, velocities, engine_velocities(&sim->e, velocities))
ARRAY_CALL(mdlite_set_velocities, const double *, velocities, engine_set_velocities(&sim->e, velocities))
ARRAY_CALL(mdlite_set_types, const int *, types, engine_set_types(&sim->e, types))
ARRAY_CALL(mdlite_energy, double *, energy, engine_energy(&sim->e, energy))
ARRAY_CALL(mdlite_forces, double *, forces, engine_forces(&sim->e, forces))
ARRAY_CALL(mdlite_atom_energies, double *, energies, engine_atom_energies(&sim->e, energies))

int mdlite_virial(mdlite_sim *sim, double virial[6])
{
    STARTED(sim);
    int rc = need(virial, "virial");
    return leave(sim, rc == MDLITE_OK ? engine_virial(&sim->e, virial) : rc);
}

int mdlite_get_cell(mdlite_sim *sim, double cell[9])
{
    STARTED(sim);
    int rc = need(cell, "cell");
    return leave(sim, rc == MDLITE_OK ? engine_cell(&sim->e, cell) : rc);
}

int mdlite_set_cell(mdlite_sim *sim, const double cell[9], int scale_atoms)
{
    STARTED(sim);
    int rc = need(cell, "cell");
    return leave(sim, rc == MDLITE_OK ? engine_set_cell(&sim->e, cell, scale_atoms != 0) : rc);
}

int mdlite_get_types(mdlite_sim *sim, int *types)
{
    STARTED(sim);
    int rc = need(types, "types");
    for (size_t i = 0; rc == MDLITE_OK && i < sim->e.s.n; i++)
        types[i] = sim->e.s.type[i];
    return leave(sim, rc);
}

int mdlite_get_step(mdlite_sim *sim, long *step)
{
    STARTED(sim);
    int rc = need(step, "step");
    if (rc == MDLITE_OK)
        *step = sim->e.step;
    return leave(sim, rc);
}

int mdlite_step(mdlite_sim *sim, long nsteps)
{
    STARTED(sim);
    if (nsteps < 0) {
        mdl_error("mdlite_step: nsteps is %ld (0 or more)", nsteps);
        return leave(sim, MDLITE_EINPUT);
    }
    return leave(sim, engine_step(&sim->e, nsteps));
}

int mdlite_minimize(mdlite_sim *sim, const char *style, double etol, double ftol, long maxiter, long maxeval)
{
    STARTED(sim);
    const int fire = style && !strcmp(style, "fire");
    if (style && !fire && strcmp(style, "cg")) {
        mdl_error("mdlite_minimize: style '%s' (cg or fire)", style);
        return leave(sim, MDLITE_EINPUT);
    }
    if (!(etol >= 0) || !(ftol >= 0) || !isfinite(etol) || !isfinite(ftol) || maxiter < 0 || maxeval < 0) {
        mdl_error("mdlite_minimize: etol %g, ftol %g, maxiter %ld, maxeval %ld (each 0 or more)", etol, ftol, maxiter,
                  maxeval);
        return leave(sim, MDLITE_EINPUT);
    }
    return leave(sim, engine_minimize(&sim->e, fire, etol, ftol, maxiter, maxeval));
}

int mdlite_get_thermo(mdlite_sim *sim, mdlite_thermo *row)
{
    STARTED(sim);
    mdl_observables o;
    int rc = need(row, "row");
    if (rc == MDLITE_OK)
        rc = engine_observe(&sim->e, &o);
    if (rc == MDLITE_OK)
        *row = (mdlite_thermo){sim->e.step, (double)sim->e.step * sim->e.cfg.timestep, o.temperature, o.kinetic,
                               o.potential, o.kinetic + o.potential, o.pressure, o.volume};
    return leave(sim, rc);
}

int mdlite_run(mdlite_sim *sim, const mdlite_run_options *opt)
{
    ENTER(sim);
    if (sim->e.from_atoms || sim->state == EMPTY) {
        mdl_error("mdlite_run: %s", sim->state == EMPTY ? "nothing loaded (mdlite_load_file or _text first)"
                                                        : "runs a config: this handle's atoms came as arrays");
        return leave(sim, MDLITE_ESTATE);
    }
    static const mdlite_run_options none = {0};
    const mdlite_run_options *o = opt ? opt : &none;
    mdl_config *cfg = &sim->e.cfg;
    mdl_copy(cfg->restart_from, sizeof cfg->restart_from, o->restart ? o->restart : "");
    const mdl_run_options run = {o->restart, o->profile, o->quiet, o->overwrite};
    return leave(sim, run_simulation(cfg, &run));
}

int mdlite_write_data(mdlite_sim *sim, const char *path)
{
    STARTED(sim);
    int rc = need(path, "path");
    return leave(sim, rc == MDLITE_OK ? engine_write_data(&sim->e, path) : rc);
}

const char *mdlite_version(void)
{
    return MDLITE_VERSION;
}

int mdlite_has_gpu(void)
{
#ifdef MDLITE_HAVE_GPU
    return 1;
#else
    return 0;
#endif
}

int mdlite_init(int *argc, char ***argv)
{
    const int rc = comm_init(argc, argv);
    if (rc == MDL_OK)
        mdl_message_rank(comm_rank());
    return rc;
}

int mdlite_finish(int status)
{
    return comm_end(status);
}
