/* The driver: `mdlite run` set-up, the velocity-Verlet step loop with its phase timers, summary. */
#ifndef MDL_RUN_H
#define MDL_RUN_H

#include "config.h"

/* Runs cfg on the named backend; returns an exit status (0, 1 run-time failure, 2 bad input). */
int run_simulation(const mdl_config *cfg, int quiet);

#endif
