/* [neighbor] skin = auto: the run's first steps try several skins, timed, and go on with the
   fastest. */
#ifndef MDL_SKIN_TUNER_H
#define MDL_SKIN_TUNER_H

#include "backend.h"

#define MDL_SKIN_TRIALS 6

typedef struct {
    int active;       /* still trying skins */
    int trial;        /* the skin being timed */
    long window;      /* steps per skin */
    long first_step;  /* the run's first step */
    double t0;        /* when the trial's window began */
    double skin[MDL_SKIN_TRIALS], seconds[MDL_SKIN_TRIALS];
} mdl_skin_tuner;

/* Starts the trials at first_step (when enabled and the run has at least 10 steps per skin):
   skins of 0.04 .. 0.24 times the largest cutoff (0.1 .. 0.6 for in.lj), each for a sixth of the
   steps, at most 100. */
/* The largest skin tried (ghost atoms must reach that far). */
static inline double skin_tuner_largest(double cutmax)
{
    return 0.04 * MDL_SKIN_TRIALS * cutmax;
}
int skin_tuner_start(mdl_skin_tuner *t, const mdl_backend_ops *ops, void *ctx, int enabled, double cutmax,
                     long first_step, long steps);
/* Whether `step` ends a trial (its state must be complete: no chained half kick). */
int skin_tuner_boundary(const mdl_skin_tuner *t, long step);
/* After `step`: at a trial's end, times it and sets the next skin, or, after the last, the
   fastest, and says which (quiet: says nothing). */
int skin_tuner_after(mdl_skin_tuner *t, const mdl_backend_ops *ops, void *ctx, long step, int quiet);

#endif
