/* The --restart reader: the checkpoint of an mdlite H5MD file, validated. */
#ifndef MDL_IO_CHECKPOINT_H
#define MDL_IO_CHECKPOINT_H

#include "../system/system.h"
#include "trajectory.h"
#include "../physics/nose_hoover.h"

/* What a checkpoint holds besides the particles' state. */
typedef struct {
    long step;
    double time;
    long time_origin_step;           /* the step its run's times count from (-1: not recorded) */
    double time_origin;              /* the time there */
    char forces[4096];               /* what its forces were computed from (config_force_origin; "": none) */
    char stage_plan[8192];           /* its run's stages (config_stage_plan; "": none) */
    double thermostat[MDL_NH_STATE]; /* Nose-Hoover's chains and barostat (nh_pack's layout) */
    int nstate;                      /* values in it (0: none) */
    long stages_from;                /* the step the first [stage:NAME] of its run began (-1: none) */
    mdl_analysis_checkpoint *analysis; /* the stage's analysis so far (NULL: none) */
    mdl_analysis_results *results;   /* the stages' results that ended before it (NULL: none) */
    double *build;                   /* N x 3, by id: the positions at the lists' last build (NULL: none) */
    long build_step;                 /* the step of that build */
    mdl_box build_box;               /* the box it was built in */
    int32_t *build_order;            /* N, by id: each atom's place in the order of the backend that wrote it,
                                        where its order is not one of positions alone (one GPU; NULL: none) */
    long last_frame_step;            /* the step of the file's last frame (-1: none) */
} mdl_checkpoint;

/* Reads the checkpoint of an H5MD file written by mdlite into s (which must already hold the
   configured species and masses and the same atom count): positions, velocities, forces, images,
   box; the rest into ck (checkpoint_free frees it). Every field validated (its type, shape,
   finiteness and range, against s and `units`) before it is used; errors name the file and the
   field (MDL_EINPUT). */
int h5md_read_checkpoint(const char *path, mdl_system *s, const char *units, mdl_checkpoint *ck);
void checkpoint_free(mdl_checkpoint *ck);
/* Whether ck's lists can be built again for a run from its state s (in id order): it holds the
   positions of their last build, all inside the box of that build (as it wrapped them; without a
   barostat that box is the checkpoint's), and no atom has
   moved a whole `skin` since (a run with a shorter skin than the one that wrote it, say). */
int checkpoint_lists_hold(const mdl_checkpoint *ck, const mdl_system *s, double skin);

#endif
