/* Thermo output: the LAMMPS-style table on stdout and the CSV file with full precision. */
#ifndef MDL_THERMO_H
#define MDL_THERMO_H

#include "../physics/observables.h"
#include "../physics/units.h"
#include "../util/util.h"

#include <stdio.h>

#define MDL_THERMO_HEADER \
    "step,time,temperature,potential_energy,kinetic_energy,total_energy,pressure,volume,conserved"
#define MDL_THERMO_MAX_COLUMNS 32

/* What the rows hold: columns, LAMMPS's thermo_style custom names ("" or NULL: mdlite's own, the
   header above), origin naming them in messages; norm, energies per atom (else totals); mass, the
   atoms' total (density); u, the run's units. */
typedef struct {
    const char *columns, *origin;
    int norm;
    int csv_default; /* the CSV keeps mdlite's columns whatever the table shows */
    double mass;
    const mdl_units *u;
} mdl_thermo_style;

typedef struct {
    FILE *csv;       /* NULL when thermo_file is empty */
    char path[MDL_PATH_LEN];
    double natoms;
    int quiet;
    int ncol, col[MDL_THERMO_MAX_COLUMNS]; /* LAMMPS's columns (0: mdlite's) */
    int norm, csv_default;
    double mass, nktv2p, mv2d;
    char header[1024]; /* the CSV's first line */
} mdl_thermo;

/* Opens the table and the CSV (path "": none). append_from >= 0 continues an existing CSV: its
   rows from that step on (an earlier run's, past the checkpoint) are cut, new rows follow.
   MDL_EINPUT naming the key for a column name LAMMPS's thermo_style custom does not have here. */
int thermo_open(mdl_thermo *t, const char *path, size_t natoms, int quiet, long append_from,
                const mdl_thermo_style *style);
/* MDL_EINPUT naming the key when style's columns are not all LAMMPS names thermo has, step first. */
int thermo_check_style(const mdl_thermo_style *style);
/* One row: energies per atom (norm) or totals; conserved = total energy + ecouple (the extended
   system's energy under Nose-Hoover, the total energy otherwise). Returns MDL_ERUN (naming the
   file) when the CSV cannot be written. */
int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o);
/* The table's header on stdout again (a new stage's rows follow; nothing when quiet). */
void thermo_header(const mdl_thermo *t);
int thermo_close(mdl_thermo *t);

#endif
