/* `--profile FILE.csv`: a timeline of compute, copy and write intervals, and the run's own
   phases (set-up, loop, drain, close), for plot_timeline.py. */
#ifndef MDL_PROFILE_H
#define MDL_PROFILE_H

#include <pthread.h>
#include <stdio.h>

enum { MDL_LANE_COMPUTE, MDL_LANE_COPY, MDL_LANE_WRITE, MDL_LANE_RUN };

typedef struct {
    int lane;
    long step;
    double start, end; /* seconds since the run's start */
    const char *what;  /* MDL_LANE_RUN: the phase's name (a string literal) */
} mdl_interval;

typedef struct {
    mdl_interval *iv;
    size_t n, cap;
    double t0;
    pthread_mutex_t mu;
} mdl_profile;

int profile_init(mdl_profile *p);
void profile_add(mdl_profile *p, int lane, long step, double start, double end);
/* A phase of the run itself (MDL_LANE_RUN) from `start` (mdl_wtime()) until now; p may be NULL. */
void profile_phase(mdl_profile *p, const char *what, double start);
/* Writes lane,step,start_s,end_s,what rows sorted by start; errors name the file. */
int profile_write(mdl_profile *p, const char *path, int overwrite);
void profile_destroy(mdl_profile *p);

#endif
