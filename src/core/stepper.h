/* The velocity-Verlet step through the backend table, in LAMMPS's order, with its phase timers,
   displacement and health checks and thermostat stages; shared by `run` and `compare`. */
#ifndef MDL_STEPPER_H
#define MDL_STEPPER_H

#include "backend.h"
#include "../config/config.h"
#include "thermostat.h"
#include "../util/util.h"

enum { PH_NEIGHBOR, PH_FORCE, PH_INTEGRATE, PH_THERMO, PH_OUTPUT, PH_COUNT };

typedef struct {
    double t[PH_COUNT];
    double mark;
} phase_timers;

static inline void phase_start(phase_timers *pt)
{
    pt->mark = mdl_wtime();
}

/* Adds the time since the last mark to `phase` and marks now. */
static inline void phase_stop(phase_timers *pt, int phase)
{
    double now = mdl_wtime();
    pt->t[phase] += now - pt->mark;
    pt->mark = now;
}

/* Advances one backend through velocity-Verlet steps (shared by `run` and `compare`). */
typedef struct {
    const mdl_backend_ops *ops;
    void *ctx;
    const mdl_config *cfg;
    mdl_thermostat thermostat; /* filled by stepper_setup */
    const mdl_units *units;
    phase_timers timers;
    int sync_phases; /* wait for the device at phase boundaries ([output] sync_phases) */
    int first_done;  /* the last step did this step's half kick and drift (stepper_advance's chain) */
    size_t natoms;   /* on all ranks (the thermostat's degrees of freedom) */
    const double *thermostat_state; /* a checkpoint's (thermostat_state's layout), for stepper_setup */
    int nstate;
    long run_begin, run_end; /* the stage's first and last step (a thermostat's ramp), for stepper_setup */
} mdl_stepper;

int is_thermo_step(const mdl_config *cfg, long step, long final_step);
/* Groups after the set-up: where no stage's fixes, thermostat or thermo act on a group, s->groups is
   freed (it made types or velocities alone) unless a
   stage's velocity edits name them; where one does, a backend without groups refuses it
   (MDL_EINPUT, naming the keys). */
int stepper_groups(const mdl_config *base, const mdl_backend_ops *ops, mdl_system *s);
/* The stage's fixes on groups' forces ([run] force_fixes), after the thermostat's force. */
int stepper_force_fixes(mdl_stepper *st, long step);
/* Set-up at `step`: neighbor build, forces with energy, post-force thermostat; with forces_given
   (a restart) the backend's forces are kept and only energy and virial computed. */
int stepper_setup(mdl_stepper *st, long step, int forces_given);
/* One step; energy and virial only when energy is set. chain: nothing looks at the state between
   this step and the next (no thermo row, frame or stop), so the next step's first half kick and
   drift may be done with this step's last one. */
int stepper_advance(mdl_stepper *st, long step, int energy, int chain);
/* Steps from `step` on, at most `steps`, each one stepper_advance would make with energy 0 and
   chain 1, made at once by the backend where it can (advance_plain: velocity Verlet alone, with
   Langevin's force or with Nose-Hoover's chains in a fixed box, the last step chained into this one); *done: how many (0: none, the caller makes the step). */
int stepper_advance_plain(mdl_stepper *st, long step, long steps, long *done);
/* The run went wrong at `step` (a failed health check, or the named observable not finite):
   finds the atom at fault, says what and where, returns MDL_ERUN. */
int stepper_unhealthy(mdl_stepper *st, long step, const char *observable);
/* MDL_ERUN (after stepper_unhealthy) when the backend found the state unsafe at a step up to
   `step` (the GPU reports it a few steps late: rows and frames of later steps are dropped). */
int stepper_check_health(mdl_stepper *st, long step);

#endif
