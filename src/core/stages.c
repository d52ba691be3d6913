/* The stages' schedule: each stage's steps follow the last one's, from the step the first began. */
#include "stages.h"

#include "../util/util.h"

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

int stages_same_chains(const mdl_config *a, const mdl_config *b)
{
    return a->ensemble == b->ensemble && config_nose_hoover(a->ensemble);
}
