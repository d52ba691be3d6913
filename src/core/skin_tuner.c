/* [neighbor] skin = auto: the run's first steps try several skins, timed (the backend waited for
   at both ends of each window), and the run goes on with the fastest. */
#include "skin_tuner.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdio.h>

int skin_tuner_start(mdl_skin_tuner *t, const mdl_backend_ops *ops, void *ctx, int enabled, double cutmax,
                     long first_step, long steps)
{
    *t = (mdl_skin_tuner){0};
    long window = steps / MDL_SKIN_TRIALS < 100 ? steps / MDL_SKIN_TRIALS : 100;
    if (!enabled || window < 10)
        return MDL_OK;
    for (int k = 0; k < MDL_SKIN_TRIALS; k++)
        t->skin[k] = 0.04 * (k + 1) * cutmax; /* the last is skin_tuner_largest */
    t->active = 1;
    t->window = window;
    t->first_step = first_step;
    MDL_TRY(ops->set_skin(ctx, t->skin[0]));
    MDL_TRY(ops->synchronize(ctx));
    t->t0 = mdl_wtime();
    return MDL_OK;
}

int skin_tuner_boundary(const mdl_skin_tuner *t, long step)
{
    return t->active && (step - t->first_step) % t->window == 0;
}

int skin_tuner_after(mdl_skin_tuner *t, const mdl_backend_ops *ops, void *ctx, long step, int quiet)
{
    if (!skin_tuner_boundary(t, step))
        return MDL_OK;
    MDL_TRY(ops->synchronize(ctx));
    double now = mdl_wtime();
    t->seconds[t->trial] = now - t->t0;
    MDL_TRY(comm_max_double(&t->seconds[t->trial])); /* the slowest rank's: every rank chooses the same */
    if (++t->trial < MDL_SKIN_TRIALS) {
        MDL_TRY(ops->set_skin(ctx, t->skin[t->trial]));
        MDL_TRY(ops->synchronize(ctx));
        t->t0 = mdl_wtime();
        return MDL_OK;
    }
    int best = 0;
    for (int k = 1; k < MDL_SKIN_TRIALS; k++)
        if (t->seconds[k] < t->seconds[best])
            best = k;
    t->active = 0;
    if (!quiet) {
        mdl_say("skin auto: %ld steps each:", t->window);
        for (int k = 0; k < MDL_SKIN_TRIALS; k++)
            mdl_say(" %.4g (%.3g us/step)", t->skin[k], 1e6 * t->seconds[k] / (double)t->window);
        mdl_say("; going on with %.4g\n", t->skin[best]);
    }
    return ops->set_skin(ctx, t->skin[best]);
}
