/* The state of a run (run.c drives it) and its rows, frames and output files (run_output.c). */
#ifndef MDL_RUN_STATE_H
#define MDL_RUN_STATE_H

#include "analysis.h"
#include "backend.h"
#include "run.h"
#include "skin_tuner.h"
#include "stepper.h"
#include "../io/checkpoint.h"
#include "../io/outfile.h"
#include "../io/profile.h"
#include "../io/thermo.h"
#include "../io/trajectory.h"
#include "../io/writer.h"

typedef struct run_state {
    mdl_stepper st;
    const mdl_backend_ops *ops;
    void *ctx;
    const mdl_config *cfg;  /* the stage's (the configuration's without stages) */
    const mdl_config *base; /* the configuration */
    int stage;              /* the stage running ([stage:NAME] sections; 0 without) */
    long stages_from;       /* the step the first stage began */
    mdl_analysis an;        /* the stage's on-the-fly analysis */
    mdl_analysis_out an_out; /* its files (rank 0) */
    mdl_analysis_checkpoint *resume; /* a restart's checkpoint's analysis (NULL: none) */
    mdl_checkpoint ck;      /* a restart's checkpoint (its analysis is `resume`, its lists' build kept here) */
    const mdl_units *units;
    mdl_thermo thermo;
    mdl_traj *traj;     /* NULL without a trajectory */
    mdl_writer *writer; /* asynchronous output ([output] async = yes) */
    mdl_profile *prof;  /* --profile */
    long frames;        /* frames written by this run (the flush/checkpoint schedule) */
    long last_frame;    /* step of the last frame handed out (the writer may not have written it yet) */
    long last_checkpoint; /* step of the last frame handed out with the checkpoint */
    long thermo_step[MDL_THERMO_SLOTS]; /* queued thermo rows (GPU): FIFO [thermo_head, thermo_tail) */
    long thermo_head, thermo_tail;
    mdl_thermo_extra thermo_extra[MDL_THERMO_SLOTS]; /* their extras, taken when queued */
    double stage_wall0;      /* the stage's start on the wall clock (thermo's cpu) */
    double row_wall, row_time; /* the last row's wall clock and simulated time (tpcpu, spcpu) */
    long row_step;
    double atoms_mass;       /* the atoms' total mass (thermo's density) */
    long builds0, dangerous0; /* the builds before the stage (thermo's nbuild and ndanger count its own) */
    mdl_system snap;    /* with a trajectory: the set-up system, kept as the frames' metadata
                           (species, masses, types, ids) */
    long first_step, final_step;
    double first_time;  /* the time at time_step (the run's first step: stages do not move it) */
    long time_step;
    int restarted;      /* from a checkpoint */
    int forces_given;   /* the checkpoint's forces hold: computed from what this run computes them from */
    double thermostat_state[MDL_NH_STATE]; /* the checkpoint's (Nose-Hoover's chains and barostat) */
    int nstate;
    int append;         /* continuing the restart file itself: its last frame is our first */
    mdl_outfile o_thermo, o_traj, o_rdf, o_msd, o_log; /* the outputs claimed (outfile.h) */
    char *log_text;          /* what was printed before the log file opened (a memory stream's) */
    size_t log_len;
    FILE *log_early, *log;   /* that stream, then the log file */
    int overwrite;           /* --overwrite */
    mdl_system data_frame;   /* run_write_data's frame and step, for its writer */
    long data_step;
    int data_slot;               /* the snapshot slot of the data files */
    size_t natoms;
    int progress;       /* draw a progress line (stdout is a terminal) */
    double cpu;         /* CPU seconds of the loop */
    mdl_backend_stats stats; /* at the end of the loop */
    mdl_skin_tuner tuner;    /* skin = auto */
    double cutmax;           /* the largest pair cutoff */
    int quiet;
    double next_progress;
    int row_again;      /* the stage began with its velocities edited: its first row is printed again */
    int rank, nranks;
    int grid[3];             /* bricks along x, y, z */
    double volume_sum;       /* over the thermo rows of the stage's last half (a barostat's average volume) */
    char species_counts[MDL_MAX_SPECIES * (MDL_NAME_LEN + 24)]; /* "A 3200, B 800" */
    long volume_rows;
} run_state;

static inline double step_time(const run_state *r, long step)
{
    return r->first_time + (double)(step - r->time_step) * r->cfg->timestep;
}


/* Stage st's message (a script's print and echo before its run) and the run's last words (after its
   last run), on the screen and in the log, their $(FORMULA:FORMAT) evaluated on the state now with the
   table of the stage that ended (run_message.c). */
int run_stage_message(run_state *r, const mdl_config *st);
/* The run's last words as they read now (after its last step), printed later by run_say_message. */
int run_end_message(run_state *r, mdl_buf *screen, mdl_buf *log);
void run_say_message(const run_state *r, const mdl_buf *screen, const mdl_buf *log);
/* Every message's formulas checked before the first step: MDL_EINPUT naming the key. */
int run_check_messages(const run_state *r);
/* The data file stage `stage` writes at its end ("": none): the one its own section names, or, at
   the last stage, [output]'s. */
const char *run_data_file(const mdl_config *base, int stage);
/* The state at `step` as stage r->stage's data file, if it writes one. */
int run_write_data(run_state *r, long step);
/* A progress line, cleared before other output (rank 0, a terminal). */
void run_clear_progress(run_state *r);
/* The row of `step` (observables o) on stdout and in thermo.csv, after the health check. */
int run_write_thermo_row(run_state *r, long step, const mdl_observables *o, const mdl_thermo_extra *x);
/* The thermo rows' style of a stage (cfg), the atoms' total mass (density) and the units. */
mdl_thermo_style run_thermo_style(const mdl_config *cfg, double mass, const mdl_units *u);
/* MDL_EINPUT naming the key where the backend cannot compute a column the thermo rows show. */
int run_check_thermo_backend(const run_state *r);
/* The extras a row's columns need (thermo.h), of the state now: x NULL in run_write_thermo_row. */
int run_thermo_extras(run_state *r, long step, mdl_thermo_extra *x);
/* A trajectory frame of the current state (forces computed with energy and virial), handed to
   the writer (async = no: written before this returns). Every flush_every-th frame and the last
   flush the file and, with output.checkpoint, carry the checkpoint (on the step of a frame already
   written: its checkpoint alone). */
int run_write_frame(run_state *r, long step, int last);
/* Prints the queued thermo rows whose results have arrived, in order; wait: all of them. */
int run_drain_thermo(run_state *r, int wait);
/* Queues this step's thermo row; waits only when every slot is pending. */
int run_queue_thermo(run_state *r, long step);
/* Every output checked against the inputs and each other, then claimed (locked; an existing file
   kept as a backup unless appending or --overwrite). */
int run_claim_outputs(run_state *r, const mdl_run_options *opt);
/* The log file opened, what the run printed before it written into it. */
int run_open_log(run_state *r);
/* [run] stage_velocity_edits (run_velocities.c): whether a stage after the first has its own; their
   words checked on the set-up system s (exit 2 before the first step), and refused outside such a
   stage; and the stage r->cfg's own edits made on the backend's atoms as it begins (*edited: any). */
int run_stage_velocities_used(const mdl_config *base);
int run_check_stage_velocities(const mdl_config *base, const mdl_units *u, mdl_system *s);
int run_stage_velocities(run_state *r, int *edited);
/* The trajectory file, made from the set-up system s (in id order). */
int run_open_output(run_state *r, const mdl_units *u, const mdl_system *s);

#endif
