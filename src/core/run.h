/* The driver: `mdlite run` set-up, the velocity-Verlet step loop with its phase timers, summary. */
#ifndef MDL_RUN_H
#define MDL_RUN_H

#include "../config/config.h"
#include "stepper.h"

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
