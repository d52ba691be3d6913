/* Thermo output: the LAMMPS-style table on stdout and the CSV file with full precision. */
#ifndef MDL_THERMO_H
#define MDL_THERMO_H

#include "../physics/observables.h"
#include "../util/util.h"

#include <stdio.h>

#define MDL_THERMO_HEADER \
    "step,time,temperature,potential_energy,kinetic_energy,total_energy,pressure,volume,conserved"

typedef struct {
    FILE *csv;       /* NULL when thermo_file is empty */
    char path[MDL_PATH_LEN];
    double natoms;
    int quiet;
} mdl_thermo;

/* Opens the table and the CSV (path "": none). append_from >= 0 continues an existing CSV: its
   rows from that step on (an earlier run's, past the checkpoint) are cut, new rows follow. */
int thermo_open(mdl_thermo *t, const char *path, size_t natoms, int quiet, long append_from);
/* One row: energies per atom; conserved = total energy + ecouple, per atom (the extended system's
   energy under Nose-Hoover, the total energy otherwise). Returns MDL_ERUN (naming the file) when
   the CSV cannot be written. */
int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o);
/* The table's header on stdout again (a new stage's rows follow; nothing when quiet). */
void thermo_header(const mdl_thermo *t);
int thermo_close(mdl_thermo *t);

#endif
