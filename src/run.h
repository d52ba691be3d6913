/* The driver: `mdlite run` set-up, the velocity-Verlet step loop with its phase timers, summary. */
#ifndef MDL_RUN_H
#define MDL_RUN_H

#include "backend.h"
#include "config.h"
#include "thermostat.h"

enum { PH_NEIGHBOR, PH_FORCE, PH_INTEGRATE, PH_THERMO, PH_OUTPUT, PH_COUNT };

typedef struct {
    double t[PH_COUNT];
    double mark;
} phase_timers;

/* Advances one backend through velocity-Verlet steps (shared by `run` and `compare`). */
typedef struct {
    const mdl_backend_ops *ops;
    void *ctx;
    const mdl_config *cfg;
    mdl_thermostat thermostat; /* filled by stepper_setup */
    const mdl_units *units;
    phase_timers timers;
    mdl_neighbor_stats nb;
    long last_build; /* step of the last neighbor build */
    int sync_phases; /* wait for the device at phase boundaries (MDLITE_SYNC_PHASES=1) */
} mdl_stepper;

int is_thermo_step(const mdl_config *cfg, long step, long final_step);
/* Set-up at `step`: neighbor build, forces with energy, post-force thermostat. */
int stepper_setup(mdl_stepper *st, long step);
int stepper_advance(mdl_stepper *st, long step, int energy);
/* The run went wrong at `step` (a failed health check, or the named observable not finite):
   finds the atom at fault, says what and where, returns MDL_ERUN. */
int stepper_unhealthy(mdl_stepper *st, long step, const char *observable);

/* How `mdlite run` was asked to run, beyond the config. */
typedef struct {
    const char *restart;  /* continue from this file's checkpoint; NULL: a new run */
    const char *profile;  /* write a timeline here; NULL: none */
    int quiet;            /* no table or progress on stdout */
    int overwrite;        /* replace existing output files instead of keeping "#name.N#" backups */
} mdl_run_options;

/* Runs cfg; returns an exit status:
   0, 1 run-time failure, 2 bad input, 130/143 stopped by SIGINT/SIGTERM (files closed). */
int run_simulation(const mdl_config *cfg, const mdl_run_options *opt);

#endif
