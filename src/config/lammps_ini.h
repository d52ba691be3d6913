/* A converted script's INI text: the keys of its first run, then one [stage:runK] per run (and
   per further write_data), each stage's printed text with it. */
#ifndef MDL_LAMMPS_INI_H
#define MDL_LAMMPS_INI_H

#include "lammps_script_state.h"

/* The INI of sc's runs into *ini, with each INI line's script line (lammps_script_convert). */
int script_write_ini(script *sc, char **ini, int **line_of, int *nlines);

#endif
