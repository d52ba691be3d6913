/* Thermo output: the LAMMPS-style table on stdout (and the log) and the CSV file with full precision. */
#ifndef MDL_THERMO_H
#define MDL_THERMO_H

#include "outfile.h"
#include "../physics/computes.h"
#include "../physics/groups.h"
#include "../physics/observables.h"
#include "../physics/units.h"
#include "../util/strbuf.h"
#include "../util/util.h"

#include <stdio.h>

/* mdlite's CSV columns; energies per atom (thermo_norm = yes) have "_per_atom" in their names. */
#define MDL_THERMO_MAX_COLUMNS 64
#define MDL_THERMO_MAX_FIXES MDL_MAX_FORCE_FIXES

/* What the rows hold: columns, LAMMPS's thermo_style custom names ("" or NULL: mdlite's own), origin
   naming them in messages; norm, energies per atom (else totals); formats, the table's (thermo_modify
   format as "line=F F;int=F;float=F;N=F", "" LAMMPS's); multi, LAMMPS's line multi; mass, the
   atoms' total (density); u, the run's units. */
typedef struct {
    const char *columns, *origin;
    int norm;
    int csv_default; /* the CSV keeps mdlite's columns whatever the table shows */
    const char *formats, *formats_origin;
    int multi;
    double mass;
    const mdl_units *u;
    const char *variables, *variables_origin; /* v_NAME columns' formulas, "NAME=FORMULA;..." (NULL: none) */
    const char *fixes; /* the ids for f_ID columns, "ID=STYLE:K,K;..." (force fixes' and balance's; NULL: none) */
    const mdl_computes *computes; /* the computes of c_ID columns and of c_ID in formulas (NULL: none) */
} mdl_thermo_style;

/* A row's values beyond the observables, where its columns ask for them (thermo_needs). */
typedef struct {
    long run_first, first; /* the run's (stage's) first step (elapsed) and the first run's (elaplong) */
    double dt;
    double cpu, tpcpu, spcpu; /* seconds since the run began; time units and steps per second since the last row */
    long nbuild, ndanger;     /* neighbor list builds and dangerous builds so far */
    double fmax, fnorm;       /* the forces' largest component and their two-norm */
    double kinetic[6], virial[6]; /* sum m v_a v_b (energy units) and the virial tensor, xx yy zz xy xz yz */
    double fix_out[MDL_THERMO_MAX_FIXES][4]; /* each force fix's energy and force (backend.h's force_fix_outputs) */
    double balance[4]; /* LAMMPS's fix balance's outputs for this decomposition: the imbalance (the most atoms a
                          rank owns over the mean), the most atoms, 0 iterations, the imbalance again */
    double compute[MDL_MAX_COMPUTES][MDL_COMPUTE_VALUES]; /* each compute's scalar and vector (system/computes.h) */
} mdl_thermo_extra;

/* v_NAME's, f_ID's and c_ID's column index bases */
enum { MDL_THERMO_VARIABLE = 1000, MDL_THERMO_FIX = 2000, MDL_THERMO_COMPUTE = 3000 };
enum { MDL_THERMO_NEEDS_FORCES = 1, MDL_THERMO_NEEDS_TENSOR = 2, MDL_THERMO_NEEDS_STATS = 4, MDL_THERMO_NEEDS_CLOCK = 8,
       MDL_THERMO_NEEDS_FIXES = 16, MDL_THERMO_NEEDS_BALANCE = 32, MDL_THERMO_NEEDS_COMPUTES = 64 };

typedef struct {
    FILE *csv;       /* NULL when there is no thermo file */
    mdl_outfile *out; /* its claim: published once the first row is in */
    char path[MDL_PATH_LEN + 32];
    double natoms;
    int quiet;
    int ncol, col[MDL_THERMO_MAX_COLUMNS]; /* LAMMPS's columns (0: mdlite's); MDL_THERMO_VARIABLE + j: v_NAME j */
    char *var_label[MDL_THERMO_MAX_COLUMNS], *var_formula[MDL_THERMO_MAX_COLUMNS];
    int nvar, var_needs[MDL_THERMO_MAX_COLUMNS], var_requires[MDL_THERMO_MAX_COLUMNS];
    char var_first[MDL_THERMO_MAX_COLUMNS][16];
    int nfixcol, fix_comp[MDL_THERMO_MAX_COLUMNS]; /* f_ID column j: the sum over the force fixes in fix_items[j]
                                                     of their output fix_comp[j] (0 energy, 1 to 3 force;
                                                     10 + k: fix balance's output k, 0 its scalar) */
    uint32_t fix_items[MDL_THERMO_MAX_COLUMNS];
    char fix_label[MDL_THERMO_MAX_COLUMNS][48];
    const mdl_computes *computes; /* the table's (the stage's); c_ID column j: compute comp_of[j]'s value comp_k[j] */
    int ncompcol, comp_of[MDL_THERMO_MAX_COLUMNS], comp_k[MDL_THERMO_MAX_COLUMNS];
    char comp_label[MDL_THERMO_MAX_COLUMNS][48];
    int failed; /* a v_NAME column could not be evaluated (thermo_write: MDL_ERUN) */
    char *fmt[MDL_THERMO_MAX_COLUMNS];     /* each column's table format (NULL: LAMMPS's default) */
    int norm, csv_default, multi;
    long step_shift; /* the table's steps lie this far below the CSV's (a stage's reset_timestep: LAMMPS's
                        numbers on the screen and in the log, the run's own in the CSV) */
    double mass, nktv2p, mv2d, mvv2e;
    char header[1024]; /* the CSV's first line */
} mdl_thermo;

/* Opens the table and the CSV (out NULL: none; written at outfile_target(out)). append_from >= 0
   continues an existing CSV: its rows from that step on (an earlier run's, past the checkpoint) are
   cut, new rows follow; a CSV of another normalisation or other columns is refused, naming both.
   MDL_EINPUT naming the key for a column name LAMMPS's thermo_style custom does not have here. */
int thermo_open(mdl_thermo *t, mdl_outfile *out, size_t natoms, int quiet, long append_from,
                const mdl_thermo_style *style);
/* MDL_EINPUT naming the key when style's columns are not all LAMMPS names thermo has, step first, or
   a format is not one LAMMPS takes. */
int thermo_check_style(const mdl_thermo_style *style);
/* A stage's table (its columns, formats, line multi); the CSV's columns stay the run's. */
int thermo_restyle(mdl_thermo *t, const mdl_thermo_style *style);
/* What the columns need beyond the observables (MDL_THERMO_NEEDS_* bits). */
int thermo_needs(const mdl_thermo *t);
/* One row: energies per atom (norm) or totals; conserved = total energy + ecouple (the extended
   system's energy under Nose-Hoover, the total energy otherwise). Returns MDL_ERUN (naming the
   file) when the CSV cannot be written. */
int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o, const mdl_thermo_extra *x);
/* The table's header on stdout again (a new stage's rows follow; nothing when quiet). */
void thermo_header(const mdl_thermo *t);
/* A formula over thermo keywords and computes (a message's, printed after a run) on the state o, x:
   its value into v, or MDL_EINPUT with why. */
int thermo_formula_value(mdl_thermo *t, const char *formula, long step, double time, const mdl_observables *o,
                         const mdl_thermo_extra *x, double *v, mdl_buf *why);
/* Whether that formula can be evaluated after a run of table t's columns: its words thermo keywords or
   computes LAMMPS has current then (a compute that the table's columns print; the computes a keyword needs
   made by a column, LAMMPS's rule): MDL_OK, or MDL_EINPUT with why. */
int thermo_check_formula(const mdl_thermo *t, const char *formula, mdl_buf *why);
/* The same on the table a stage's style makes. */
int thermo_check_message_formula(const mdl_thermo_style *style, const char *formula, mdl_buf *why);
int thermo_close(mdl_thermo *t);

#endif
