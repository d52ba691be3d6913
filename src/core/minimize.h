/* Energy minimisation as a stage ([run] ensemble = minimize): LAMMPS's min_style cg (its quadratic
   line search) or fire, and their stopping rules, with the box fixed, on the state the backend holds. */
#ifndef MDL_MINIMIZE_H
#define MDL_MINIMIZE_H

#include "run_state.h"

/* The stage r->cfg as a minimisation from r->first_step: at most cfg->steps iterations (each one
   step), a thermo row every cfg->thermo iterations and at the last, then LAMMPS's "Minimization
   stats". r->final_step becomes the last iteration's step. The backend's forces are those of the
   final positions; cg leaves the velocities as they were, fire its own (as LAMMPS's do). One GPU, or CPU ranks
   (every rank makes the same decisions on rank 0's numbers). */
int minimize_stage(run_state *r);
/* Before a stage's first row: under min_style fire the atoms at rest, as LAMMPS's FIRE sets them up. */
int minimize_prepare(run_state *r);

#endif
