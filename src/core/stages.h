/* The stages' schedule ([stage:NAME] sections): where each begins and ends, the stage a run
   starts in, what carries from one to the next. */
#ifndef MDL_STAGES_H
#define MDL_STAGES_H

#include "../config/config.h"

/* The step the last stage ends at when the first began at `from` (without stages: from + steps). */
long stages_end(const mdl_config *cfg, long from);
/* The stage holding the steps after `step` when the first began at `from`, and its last step:
   MDL_OK; MDL_EINPUT (naming `restart`) when `step` is at or past the last stage's end. A new
   run (restart NULL) starts in the first stage, whatever its steps (a run 0 is run: its row, its
   data file); a restart passes over the stages of no steps before its step. */
int stages_find(const mdl_config *cfg, long from, long step, const char *restart, int *stage, long *end);
/* How far the step numbers shown in stage `stage` (thermo's table and log) lie below the run's own
   (thermo.csv's, the trajectory's, the checkpoints'): each stage's own reset_timestep N shows its first
   step as N, and the stages after it count on from there (LAMMPS's reset_timestep); 0 before any. */
long stages_step_shift(const mdl_config *cfg, long from, int stage);
/* Every stage's shown steps keep the cadence of its thermo rows and its thermostat's `every` (a
   shift that is a multiple of each, so that the rows and rescalings fall on the steps LAMMPS's do):
   MDL_OK, or MDL_EINPUT naming the stage's reset_timestep (also where a run without stages, or its
   first stage, has one). */
int stages_check_shifts(const mdl_config *cfg, long from);
/* Whether two stages have one Nose-Hoover ensemble (its chains and barostat carry on). */
int stages_same_chains(const mdl_config *a, const mdl_config *b);

/* A restart whose stages are not those its checkpoint's run had (`was`, config_stage_plan's text;
   "": not recorded): says so on stderr (rank 0); returns 1 where the stage it is in changed. */
int stages_changed(const mdl_config *cfg, int stage, const char *was, const char *restart);

#endif
