/* Trajectory output: H5MD 1.1 (.h5/.h5md) or extended XYZ (.xyz), chosen by the file name, or
   LAMMPS's text dump ([output] dump_columns), plus
   the full-precision checkpoint that `--restart` continues from. */
#ifndef MDL_TRAJECTORY_H
#define MDL_TRAJECTORY_H

#include "outfile.h"
#include "../physics/observables.h"
#include "../config/config.h"
#include "../system/system.h"
#include "../physics/units.h"

typedef struct mdl_traj mdl_traj;

/* A stage's on-the-fly analysis at a checkpoint, so that a restart continues its averages: the
   RDF's counts, the MSD's rows so far and every atom's origin (core/analysis.c fills it). */
typedef struct {
    int stage;               /* its index (0 without stages) */
    long start;              /* the step its samples began (the MSD's origin) */
    int ntypes, rdf_bins, msd_rows;
    double rdf_max, volume_sum;
    long rdf_samples;
    double *rdf;             /* [pair][bin] counts; NULL: no RDF */
    double *msd;             /* msd_rows x (1 + ntypes): the row's step, then each species' sum */
    double *origin;          /* msd_origins x natoms x 3, by id; NULL: no MSD */
    size_t natoms;
    int msd_origins;         /* the MSD's time origins, */
    int origin_every;        /* samples apart */
} mdl_analysis_checkpoint;
void analysis_checkpoint_free(mdl_analysis_checkpoint *a); /* the arrays and a itself; NULL is fine */

/* One stage's results as its files show them (rank 0): g(r) of each species pair, the MSD's rows,
   the diffusion coefficients; kept for the H5MD file, and in a checkpoint for the stages that
   ended before it, so that a restart's files hold every stage's. */
typedef struct {
    char stage[32];
    int nbins, rows;
    long samples;        /* g(r)'s samples */
    double *r, *g;       /* bin centres; g [pair][bin] (NULL: no g(r)) */
    double *msd;         /* [row]: step, time, then each species' msd (NULL: no MSD) */
    double d[MDL_MAX_SPECIES]; /* diffusion coefficients (has_d) */
    int has_d;
    long d_first, d_last; /* the steps of the first and last MSD row D's fit spans */
    int d_rows;          /* the rows it spans */
} mdl_analysis_result;
typedef struct {
    int n;
    mdl_analysis_result *r;
} mdl_analysis_results;
/* A deep copy of n results of ntypes species (NULL where n is 0 or out of memory: *ok 0 then); the
   arrays and the copy itself freed by analysis_results_free (NULL is fine). */
mdl_analysis_results *analysis_results_copy(const mdl_analysis_result *r, int n, int ntypes, int *ok);
void analysis_results_free(mdl_analysis_results *r);

/* One frame: the system in id order (positions wrapped, with image counters). */
typedef struct {
    long step;
    double time;
    const mdl_system *s;
    const mdl_observables *obs; /* totals; NULL when not computed */
    int checkpoint;             /* also write the full-precision checkpoint (H5MD) */
    int flush;                  /* flush the file after this frame */
    int checkpoint_only;        /* the frame was written before: only its checkpoint now (H5MD) */
    double thermostat[MDL_NH_STATE]; /* Nose-Hoover's state at this step (the checkpoint's) */
    int nstate;                 /* values in it (0: none) */
    long last_build;            /* the step of the neighbor list's last build (with a checkpoint) */
    mdl_box build_box;          /* the box it was built in */
    int staged;                 /* the run has stages: the checkpoint records where the first began */
    long stages_from;
    mdl_analysis_checkpoint *analysis; /* with the checkpoint; owned by the frame, freed once written */
    double time_origin[2];      /* the step and time the run's times count from (the checkpoint's) */
    mdl_analysis_results *results; /* with the checkpoint: the ended stages' results; owned by the frame */
    char force_origin[4096];    /* with the checkpoint: what the stage computes its forces from ("": the
                                   configuration's) */
    const double *at[3];        /* the positions the frame writes, when not s's (traj_write: unwrapped) */
    long every;                 /* the stage's dump_every: a LAMMPS text dump writes its multiples alone, as
                                   LAMMPS's dump (0: every frame) */
} mdl_frame;

/* The fields a trajectory writes: [output] dump_fields, without the images where positions are
   written unwrapped ([output] positions = unwrapped: x + image x edge). */
static inline int traj_fields_written(const mdl_config *cfg)
{
    return cfg->unwrapped ? cfg->dump_fields & ~MDL_DUMP_IMAGE : cfg->dump_fields;
}

/* Opens (creates, or with append = 1 continues) the trajectory named by cfg->trajectory.
   Errors name the file: MDL_EINPUT when it cannot be created. */
int traj_open(mdl_traj **t, const mdl_config *cfg, const mdl_units *u, const mdl_system *s, int append,
              mdl_outfile *claim);
/* Writes one frame; with f->checkpoint also the H5MD checkpoint; with f->flush (which the run
   sets on every checkpoint frame) flushes the file, so a killed run leaves a file whose last
   frame is its checkpoint. MDL_ERUN with a message naming the file when the write fails (disk
   full, I/O error). */
int traj_write(mdl_traj *t, const mdl_frame *f);
int traj_flush(mdl_traj *t);
/* Flushes and closes; safe on NULL. */
int traj_close(mdl_traj *t);
/* H5MD: a table of results beside the frames, group/name (rows x cols doubles; cols 0: a vector),
   written once the frames are (the writer thread stopped); extended XYZ: nothing. */
int traj_put_table(mdl_traj *t, const char *group, const char *name, const double *v, size_t rows, size_t cols,
                   const char *unit);

#endif
