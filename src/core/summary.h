/* The summary a run (each stage of it) prints at its end: speed, species and ensemble, phases,
   lists, ranks, device memory. */
#ifndef MDL_SUMMARY_H
#define MDL_SUMMARY_H

#include "backend.h"
#include "stepper.h"

/* What the summary says, gathered by the driver. */
typedef struct {
    const mdl_config *cfg;     /* the stage's (its steps, ensemble, units) */
    const char *backend;
    size_t natoms;
    int nranks, grid[3];
    const phase_timers *timers;
    const mdl_backend_stats *stats;
    const char *species_counts; /* "A 3200, B 800" */
    double volume_sum;          /* over the thermo rows of the stage's last half (a barostat's average volume) */
    long volume_rows;
    long final_step;            /* the stage's last step */
    double cpu;                 /* CPU seconds of the loop */
    int threads, sync_phases;
} mdl_summary;

/* Every rank's phases, comm time, atoms and ghosts gathered; rank 0 prints the summary of a loop
   of `loop` seconds. */
int summary_print(const mdl_summary *m, double loop);

#endif
