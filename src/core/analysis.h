/* On-the-fly analysis of a stage ([analysis]): which steps sample the RDF and the MSD, the
   backend's sums read at the stage's end, g(r), the MSD and the diffusion coefficient written to
   CSV files (rank 0) and kept for the H5MD file. */
#ifndef MDL_ANALYSIS_H
#define MDL_ANALYSIS_H

#include "backend.h"
#include "../io/outfile.h"
#include "../io/trajectory.h"

#include <stdio.h>

/* The run's analysis files (rank 0; NULL: not written) and what every stage's rows need. */
typedef struct {
    FILE *rdf, *msd;
    mdl_outfile *rdf_out, *msd_out; /* their claims (outfile.h) */
    mdl_analysis_result *results; /* each stage's, for the trajectory */
    int nresults;
    int ntypes;
    char species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    double count[MDL_MAX_SPECIES]; /* atoms of each species */
    const char *length, *time;     /* the units' names: "sigma", "tau" (lj); "Angstrom", "ps" (metal) */
} mdl_analysis_out;

/* One stage's analysis. */
typedef struct {
    const mdl_config *cfg;
    const mdl_backend_ops *ops;
    void *ctx;
    long start, end;     /* the stage's steps */
    double time0, dt;    /* the time at `start`; the timestep */
    mdl_analysis_spec spec;
    long *msd_step;      /* the step of each MSD row */
    int msd_rows;        /* rows sampled */
    int on;
    int stage;           /* the stage's index (a checkpoint's analysis belongs to one) */
} mdl_analysis;

/* What a stage's analysis begins from. */
typedef struct {
    const mdl_config *cfg;      /* the stage's */
    const mdl_backend_ops *ops;
    void *ctx;
    long start, end;            /* the steps this run makes of the stage */
    double time0, cutmax;       /* the time at start; the largest pair cutoff (rdf_max's default) */
    int stage, ntypes;
    size_t natoms;
    const mdl_analysis_checkpoint *resume; /* a restart's checkpoint's (NULL: none) */
} mdl_analysis_begin;

/* [analysis] rdf_max within the largest pair cutoff, or past it (every pair counted) up to half the
   shortest box edge in a fixed box on one rank, and the MSD's table within a checkpoint's limit and
   the memory available: MDL_OK, or MDL_EINPUT naming the key. */
int analysis_check(const mdl_config *cfg, double cutmax, int ntypes, const mdl_box *box, int nranks);
/* Whether any stage of cfg samples the RDF (rdf = 1) or the MSD (rdf = 0): its file is written. */
int analysis_wanted(const mdl_config *cfg, int rdf);
/* The files' headers (rank 0), then the rows of `ended` (a restart's checkpoint: the stages that
   ended before it, kept as results for the H5MD file too; NULL: none). */
int analysis_open(mdl_analysis_out *o, const mdl_config *cfg, const mdl_system *s, const mdl_analysis_results *ended,
                  mdl_outfile *rdf, mdl_outfile *msd);
void analysis_close(mdl_analysis_out *o);
/* Every stage's results into an H5MD trajectory, under analysis/STAGE/rdf and analysis/STAGE/msd
   (rank 0, once the frames are written); nothing for extended XYZ. */
int analysis_write_trajectory(const mdl_analysis_out *o, mdl_traj *t);
/* A stage from `start` (the state now: the MSD's origin) to `end`, its first sample at `start`; or,
   where b->resume holds this stage's analysis as it is sampled, its sums and origin: the stage's
   averages go on from the checkpoint's step. */
int analysis_begin(mdl_analysis *a, const mdl_analysis_begin *b);
/* The stage's analysis now, for a checkpoint (every rank calls; rank 0 gets it, malloc'ed; NULL
   where nothing is sampled). */
int analysis_checkpoint(const mdl_analysis *a, size_t natoms, int ntypes, mdl_analysis_checkpoint **out);
/* Whether `step` samples (the state is looked at between this step and the next). */
int analysis_is_step(const mdl_analysis *a, long step);
int analysis_sample(mdl_analysis *a, long step);
/* What a stage's analysis holds, freed without writing it (a run that stopped on an error); safe
   after analysis_end and on a stage that never began. */
void analysis_discard(mdl_analysis *a);
/* The stage's sums read (every rank), its rows written and the diffusion coefficients printed
   (rank 0); the stage's state freed. */
int analysis_end(mdl_analysis *a, mdl_analysis_out *o, int quiet);

#endif
