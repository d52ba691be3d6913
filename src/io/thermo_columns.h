/* LAMMPS's thermo keywords that mdlite prints: their table labels, kinds and values (thermo.c's rows). */
#ifndef MDL_THERMO_COLUMNS_H
#define MDL_THERMO_COLUMNS_H

#include "thermo.h"

typedef struct {
    const char *name, *label;
    int integer; /* printed as an integer (format int) */
    int energy;  /* divided by the atoms with thermo_modify norm yes */
    int needs;   /* MDL_THERMO_NEEDS_* */
} thermo_column;

/* The keyword's index, or -1. */
int thermo_column_index(const char *name);
const thermo_column *thermo_column_at(int c);
/* A v_NAME column (NAME's formula in vars, "NAME=FORMULA;...", its words checked): its index
   (MDL_THERMO_VARIABLE + j), or -1 after the message. */
int thermo_variable_add(mdl_thermo *t, const char *column, const char *vars, const char *origin);
/* An f_ID or f_ID[k] column of the force fixes in fixes ("ID=STYLE:K,K;...", STYLE wall or indent):
   its index (MDL_THERMO_FIX + j), or -1 after the message. LAMMPS's outputs: a wall fix's energy (f_ID)
   and the force on its k-th face (f_ID[k]); an indenter's energy and force components 1 to 3. */
int thermo_fix_add(mdl_thermo *t, const char *column, const char *fixes, const char *origin);
/* A c_ID or c_ID[k] column of t->computes: its index (MDL_THERMO_COMPUTE + j), or -1 after the message. */
int thermo_compute_add(mdl_thermo *t, const char *column, const char *origin);
/* The v_NAME columns' formulas need of the table's other columns what LAMMPS needs of them, or
   MDL_EINPUT naming the variable and the keyword. */
int thermo_check_variables(const mdl_thermo *t, const char *origin);
/* Column index c's label, kind and needs (a keyword's or a variable's). */
const char *thermo_label(const mdl_thermo *t, int c);
int thermo_integer(int c);
int thermo_needs_of(const mdl_thermo *t, int c);
/* Column index c's value in a row; a variable's formula that cannot be evaluated (a division by
   zero) says why once, sets t->failed and gives NAN. */
double thermo_value(mdl_thermo *t, int c, long step, double time, const mdl_observables *o, const mdl_thermo_extra *x);
/* The keywords, blank-separated (for messages). */
const char *thermo_column_names(void);
/* Column c's value in a row: step, time, the observables o, the extras x. */
double thermo_column_value(const mdl_thermo *t, int c, long step, double time, const mdl_observables *o,
                           const mdl_thermo_extra *x);

#endif
