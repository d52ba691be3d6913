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
/* The keywords, blank-separated (for messages). */
const char *thermo_column_names(void);
/* Column c's value in a row: step, time, the observables o, the extras x. */
double thermo_column_value(const mdl_thermo *t, int c, long step, double time, const mdl_observables *o,
                           const mdl_thermo_extra *x);

#endif
