/* The stages' schedule: each stage's steps follow the last one's, from the step the first began. */
#include "stages.h"

#include "../config/config_schema.h"
#include "../parallel/comm.h"
#include "../physics/ensembles.h"
#include "../util/util.h"

#include <stdio.h>
#include <string.h>

long stages_end(const mdl_config *cfg, long from)
{
    long end = from + (cfg->nstages ? 0 : cfg->steps);
    for (int k = 0; k < cfg->nstages; k++)
        end += cfg->stages[k].steps;
    return end;
}

int stages_find(const mdl_config *cfg, long from, long step, const char *restart, int *stage, long *end)
{
    long e = from;
    int k = 0;
    if (!restart) { /* a new run starts in its first stage, one of no steps too (a run 0, a write_data) */
        *stage = 0, *end = from + (cfg->nstages ? cfg->stages[0].steps : 0);
        return MDL_OK;
    }
    /* a restart at the last step of a stage that others follow goes on in that stage, for no steps:
       its last row and its analysis are that stage's, as they were in the run never stopped, and
       the next stage begins from there */
    for (; k < cfg->nstages; k++)
        if ((e += cfg->stages[k].steps) > step || (restart && e == step && step > from && k + 1 < cfg->nstages))
            break;
    if (k == cfg->nstages && !restart) /* every stage of no steps: the set-up alone */
        k = 0, e = step;
    else if (k == cfg->nstages) {
        mdl_error("%s: its checkpoint step %ld is at or past the end of the last stage (step %ld): nothing left to run",
                  restart, step, e);
        return MDL_EINPUT;
    }
    *stage = k, *end = e;
    return MDL_OK;
}

/* The stage's own reset_timestep (not one inherited from the stage before), or -1. */
static long own_reset(const mdl_config *st)
{
    return st->reset_timestep >= 0 && config_fresh_entry(st, "run", "reset_timestep") ? st->reset_timestep : -1;
}

long stages_step_shift(const mdl_config *cfg, long from, int stage)
{
    long begin = from, shift = 0;
    for (int k = 0; k <= stage && k < cfg->nstages; k++) {
        if (own_reset(&cfg->stages[k]) >= 0)
            shift = begin - own_reset(&cfg->stages[k]);
        begin += cfg->stages[k].steps;
    }
    return shift;
}

int stages_check_shifts(const mdl_config *cfg, long from)
{
    const mdl_config *first = cfg->nstages ? &cfg->stages[0] : cfg;
    if (config_find_entry(cfg, "run", "reset_timestep") || own_reset(first) >= 0) {
        const mdl_config *at = config_find_entry(cfg, "run", "reset_timestep") ? cfg : first;
        mdl_error("%s: [run] reset_timestep: a stage after the first begins its step numbers anew; the run's own "
                  "count begins where the first stage does", config_origin(at, "run", "reset_timestep"));
        return MDL_EINPUT;
    }
    const mdl_config *named = NULL;
    for (int k = 1; k < cfg->nstages; k++) {
        const mdl_config *st = &cfg->stages[k];
        named = own_reset(st) >= 0 ? st : named;
        const long shift = stages_step_shift(cfg, from, k);
        const long every = ensemble_reads(st->ensemble) & MDL_READS_EVERY ? st->every : 1;
        const char *what = st->thermo > 0 && shift % st->thermo ? "thermo" : shift % every ? "every" : NULL;
        if (what && named && st->steps > 0) { /* a stage of no steps prints no row */
            mdl_error("%s: [run] reset_timestep: stage %s's steps shown %ld off the run's own, not a multiple of its "
                      "%s %ld: its %s would fall on other steps than LAMMPS's", config_origin(named, "run",
                      "reset_timestep"), st->stage_name, shift, what, what[0] == 't' ? (long)st->thermo : every,
                      what[0] == 't' ? "rows" : "rescalings");
            return MDL_EINPUT;
        }
    }
    return MDL_OK;
}

int stages_same_chains(const mdl_config *a, const mdl_config *b)
{
    return a->ensemble == b->ensemble && config_nose_hoover(a->ensemble) && !b->fresh_chains;
}

/* Entry k of a plan, "NAME ENSEMBLE" (config_stage_plan's "; "-separated list), into out. */
static void plan_entry(const char *plan, int k, char *out, size_t size)
{
    for (int i = 0; i < k && plan; i++)
        if ((plan = strstr(plan, "; ")))
            plan += 2;
    const char *end = plan ? strstr(plan, "; ") : NULL;
    snprintf(out, size, "%.*s", plan ? (int)(end ? (size_t)(end - plan) : strlen(plan)) : 0, plan ? plan : "");
}

int stages_changed(const mdl_config *cfg, int stage, const char *was, const char *restart)
{
    char now[8192], a[256], b[256];
    config_stage_plan(cfg, now, sizeof now);
    if (!was[0] || strcmp(now, was) == 0)
        return 0;
    plan_entry(was, stage, a, sizeof a);
    plan_entry(now, stage, b, sizeof b);
    const int changed = strcmp(a, b) != 0;
    if (comm_rank() == 0)
        fprintf(stderr, "mdlite: %s: its run's stages were \"%s\", this run's are \"%s\"%s\n", restart, was, now,
                changed ? ": the stage the restart is in changed, so its analysis starts anew" : "");
    return changed;
}
